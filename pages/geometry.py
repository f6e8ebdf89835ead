"""Geometry: why BERT's vectors look alike, measured exactly, and the geometries that see past it."""

import pandas as pd
import streamlit as st

from bert_embeddings.analysis import decompose, geometry_lab
from bert_embeddings.figures import views
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, echo, exports
from components.sections import geometry_view

routing.through_app()
st.title("Geometry: why every vector looks alike")

model = model_caches.require_model()
index = model_caches.vocab_index()
shape = geometry_view.switch(index.table.shape[1])
lab = model_caches.lab(shape[1])
st.markdown(echo.plain(geometry_view.finding(model.name, lab)))
st.caption(
    "The mean is over every pair of different rows, nothing sampled: with each row scaled to length 1, "
    "it is (|sum of the rows|² − n) / (n (n − 1)), one pass over the table."
)

st.header("How alike: the mean cosine in each geometry")
encoding = model_caches.require_encoding(stop=False, notices=False)
sentence = {}
if encoding is not None:
    sentence = geometry_lab.sentence_cosines(
        lab, decompose.stage_vectors(model_caches.breakdown(model, encoding)), decompose.STAGES[-1]
    )
table = geometry_view.cosine_table(lab, sentence)
exports.dataframe(
    f"{model.name} mean cosine by geometry (D {shape[1]})",
    table.reset_index(),
    table,
    column_config=geometry_view.cosine_columns(table),
)
for problem in geometry_view.problems(lab):
    st.warning(echo.plain(problem), icon=":material/block:")
if encoding is not None and len(encoding) < 2:
    st.info(
        f"Your sentence is {len(encoding)} piece here, and a mean over pairs needs two or more, so the "
        "table has no rows for it. Type a longer sentence, or turn the special tokens on.",
        icon=":material/info:",
    )
st.caption(
    "Each whole table is measured under the geometries fitted to itself. Your sentence's vectors are "
    "measured under the token table's geometries up to the sum, and the layer output's after LayerNorm. "
    f"The layer output is {geometry_view.output_described(model)}, computed exactly."
)

st.subheader("How many of each piece's neighbours change")
st.markdown(
    "For every piece of the vocabulary, its 10 nearest pieces in each geometry against its 10 nearest by raw "
    "cosine, exactly: the share that stays, on average."
)

geometry_view.overlaps(model, lab)


def dimensions_section() -> None:
    """The chosen geometry's largest parts of the mean cosine, by dimension, with LayerNorm's
    γ and β there."""
    choice = geometry_view.described(shape)
    contributions = views.dimension_parts(lab, shape[0])
    if contributions is None:
        st.info(
            f"The {choice} geometry could not be fitted here (see above): pick another.",
            icon=":material/block:",
        )
        return
    draw.chart(views.dimension_shares(contributions, shape), key="geo_shares")
    st.markdown(echo.plain(geometry_view.rogue_sentence(lab, shape[0])))
    exports.dataframe(
        f"{model.name} LayerNorm gamma and beta of the leading dimensions ({choice})",
        geometry_view.gamma_table(lab, model.tables, shape[0]),
        hide_index=True,
    )
    st.caption(
        "γ and β are LayerNorm's scale and shift for each dimension. A dimension that LayerNorm scales up "
        "far beyond the median |γ| can come to decide most of every cosine after it."
    )
    exports.matrix(
        f"{model.name} parts of the mean cosine ({choice})",
        pd.DataFrame(contributions).to_numpy(),
        columns=list(contributions),
        corner="dim",
    )


st.header("Which dimensions make them alike")
dimensions_section()

st.header("How long the rows are, id by id")
draw.chart(views.row_lengths(lab), key="geo_lengths")
exports.matrix(
    f"{model.name} token row lengths", lab.lengths, index.pieces, ["length"], "piece"
)  # (one row per id, in id order)
st.markdown(echo.plain(geometry_view.lengths_sentence(lab, index.pieces)))

st.header("What to try")
geometry_view.tries()
st.header("Where this comes from")
st.markdown(geometry_view.SOURCES)
