"""Segments: the two segment rows, and how much the segment term moves each token."""

import streamlit as st

from bert_embeddings.figures import segments_page
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, widgets

routing.through_app()
st.title("Segments: sentence A or sentence B")
st.markdown(
    "BERT was trained on pairs of sentences. It marks which sentence a piece belongs to by adding one "
    "of two learned **segment rows** (transformers calls them `token_type_embeddings`): row 0 for "
    "sentence A, row 1 for sentence B."
)

model_caches.require_model()
with model_caches.friendly_errors():
    shown = segments_page.compose(widgets.chosen(segments_page.Settings), model_caches.sources())
draw.shown(shown.missing)
if shown.rows is None:  # a model without two segment rows: nothing more to compare
    st.stop()
draw.shown(shown.rows.chart, shown.rows.download)
for column, norm in zip(st.columns(3), shown.rows.norms, strict=True):
    with column:
        draw.shown(norm)

st.header("How far the segment moves each token")
draw.shown(shown.problem, *shown.notices, shown.no_b, shown.swap, shown.swap_download, shown.swap_caption)
