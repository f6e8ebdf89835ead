"""Geometry: why BERT's vectors look alike, measured exactly, and the geometries that see past it."""

import streamlit as st

from bert_embeddings.figures import geometry_page
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, widgets
from components.sections import geometry_view

routing.through_app()
st.title("Geometry: why every vector looks alike")

model = model_caches.require_model()
shape = geometry_view.switch(model_caches.vocab_index().table.shape[1])
with model_caches.friendly_errors(), st.spinner("Measuring every row of both tables in every geometry..."):
    shown = geometry_page.compose(widgets.chosen(geometry_page.Settings), model_caches.sources())
draw.shown(shown.finding)
st.caption(
    "The mean is over every pair of different rows, nothing sampled: with each row scaled to length 1, "
    "it is (|sum of the rows|² − n) / (n (n − 1)), one pass over the table."
)

st.header("How alike: the mean cosine in each geometry")
draw.shown(shown.sentence_problem)
draw.table(shown.cosines, geometry_page.ROW_NAMES, column_config=geometry_view.cosine_columns(shown.cosines))
draw.shown(*shown.problems, shown.one_piece, shown.cosines_caption)

st.subheader("How many of each piece's neighbours change")
st.markdown(
    "For every piece of the vocabulary, its 10 nearest pieces in each geometry against its 10 nearest by raw "
    "cosine, exactly: the share that stays, on average."
)
if shown.overlaps.table is not None:
    draw.table(shown.overlaps.table, column_config=geometry_view.OVERLAP_COLUMNS)
geometry_view.overlaps_panel(model, model_caches.lab(shape[1]))
draw.shown(*shown.overlaps.unfit)

st.header("Which dimensions make them alike")
draw.shown(shown.dimensions)

st.header("How long the rows are, id by id")
draw.shown(shown.lengths)

st.header("What to try")
geometry_view.tries()
st.header("Where this comes from")
st.markdown(geometry_view.SOURCES)
