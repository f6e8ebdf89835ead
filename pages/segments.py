"""Segments: the two segment rows, and how much the segment term moves each token."""

import numpy as np
import streamlit as st

from bert_embeddings.analysis import decompose
from bert_embeddings.figures import page_figures
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, echo, exports
from components.view_state import inputs

routing.through_app()
st.title("Segments: sentence A or sentence B")
st.markdown(
    "BERT was trained on pairs of sentences. It marks which sentence a piece belongs to by adding one "
    "of two learned **segment rows** (transformers calls them `token_type_embeddings`): row 0 for "
    "sentence A, row 1 for sentence B."
)

model = model_caches.require_model()
rows = model.tables.token_type_embeddings  # (segments, hidden)
if rows is None or rows.shape[0] < 2:
    what = "no segment table" if rows is None else "a single segment row"
    st.info(
        echo.plain(f"{model.name} has {what}, so there is nothing to compare here."), icon=":material/info:"
    )
    st.stop()
difference = rows[1] - rows[0]
draw.chart(page_figures.segment_rows(rows), key="seg_rows")
exports.matrix(
    f"{model.name} segment rows",
    np.stack([rows[0], rows[1], difference], axis=1),
    columns=["segment A (row 0)", "segment B (row 1)", "B - A"],
    corner="dim",
)
a, b, c = st.columns(3)
a.metric("norm of row 0", f"{np.linalg.norm(rows[0]):.3f}")
b.metric("norm of row 1", f"{np.linalg.norm(rows[1]):.3f}")
c.metric("norm of B - A", f"{np.linalg.norm(difference):.3f}")

st.header("How far the segment moves each token")
encoding = model_caches.require_encoding()
if not inputs.current().text_b.strip():
    st.info(
        "There is no sentence B, so every piece is in segment A. Add sentence B in the sidebar to see a "
        "pair; below, each piece of sentence A is compared as if it were in segment A and in segment B.",
        icon=":material/info:",
    )
swap = decompose.segment_swap(model, encoding)
draw.chart(page_figures.segment_swap(encoding, swap), key="seg_swap")
exports.matrix(f"{model.name} segment swap cosine", swap, encoding.labels, ["cosine A vs B"], "token")
st.caption(
    "For each piece: the cosine between its LayerNorm output computed with segment row 0 and with row 1, "
    "same piece and same position. 1.0 would mean the segment changes nothing; lower values mean the "
    "segment term moves that token's vector more."
)
