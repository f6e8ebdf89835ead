"""Geometry: why BERT's vectors look alike, measured exactly, and the geometries that see past it."""

import streamlit as st

from bert_embeddings.figures import geometry_page, settings
from components.caches import model_caches
from components.frame import routing
from components.parts import draw
from components.sections import geometry_view

routing.through_app()
st.title("Geometry: why every vector looks alike")

model = model_caches.require_model()
shape = geometry_view.switch(model_caches.vocab_index().table.shape[1])
values = {**model_caches.sentence_values(), settings.GEOMETRY: shape[0], settings.GEOMETRY_REMOVED: shape[1]}
with model_caches.friendly_errors(), st.spinner("Measuring every row of both tables in every geometry..."):
    shown = geometry_page.geometry_page(values, model_caches.sources())
draw.parts(shown, "finding")
st.caption(
    "The mean is over every pair of different rows, nothing sampled: with each row scaled to length 1, "
    "it is (|sum of the rows|² − n) / (n (n − 1)), one pass over the table."
)

st.header("How alike: the mean cosine in each geometry")
draw.parts(shown, "sentence_problem")
cosines = shown["cosines"]
draw.table(cosines, geometry_page.ROW_NAMES, column_config=geometry_view.cosine_columns(cosines))
draw.each(shown, "problem ")
draw.parts(shown, "one_piece", "cosines_caption")

st.subheader("How many of each piece's neighbours change")
st.markdown(
    "For every piece of the vocabulary, its 10 nearest pieces in each geometry against its 10 nearest by raw "
    "cosine, exactly: the share that stays, on average."
)
if "overlaps" in shown:
    draw.table(shown["overlaps"], column_config=geometry_view.OVERLAP_COLUMNS)
geometry_view.overlaps_panel(model, model_caches.lab(shape[1]))
draw.each(shown, "unfit ")

st.header("Which dimensions make them alike")
draw.parts(shown, "no_dimensions", "geo_shares", "rogue", "gamma", "gamma_caption", "geo_shares_download")

st.header("How long the rows are, id by id")
draw.parts(shown, "geo_lengths", "geo_lengths_download", "lengths_said")

st.header("What to try")
geometry_view.tries()
st.header("Where this comes from")
st.markdown(geometry_view.SOURCES)
