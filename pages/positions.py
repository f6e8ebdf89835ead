"""Positions: BERT's learned position rows beside the original Transformer's sinusoid."""

import streamlit as st

from bert_embeddings.figures import positions_page, settings
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, widgets

routing.through_app()
st.title("Positions: learned, not a formula")
st.markdown(
    "The original Transformer gave each position a fixed pattern of sine and cosine waves. BERT instead "
    "**learns one row per position**, like a vocabulary of places. Here are both, at the same size."
)

model_caches.require_model()
st.segmented_control(
    "Positions in the cosine maps",
    settings.POS_SPANS,
    required=True,
    help="Fewer positions draw each one as its own cell, and the first 32 give each value on hover; the "
    "downloads hold every position.",
    **widgets.seeded(settings.POS_SPAN, "default"),
)
tables = st.container()  # the tables' figures, above the boxes they are composed with
st.header("Compare two positions")
a, b = st.columns(2)
widgets.whole_number_box("First position", a, **widgets.seeded(settings.POS_FIRST))
widgets.whole_number_box("Second position", b, **widgets.seeded(settings.POS_SECOND))
with model_caches.friendly_errors():
    shown = positions_page.compose(widgets.chosen(positions_page.Settings), model_caches.sources())
with tables:
    for column, cosines in zip(st.columns(2), shown.cosines, strict=True):
        with column:
            draw.shown(cosines)
    draw.shown(shown.cosine_caption, shown.norms, shown.norms_caption, shown.norms_download)
for column, metric in ((a, shown.learned), (b, shown.sinusoid)):
    with column:
        draw.shown(metric)
draw.shown(shown.problem, shown.pair, shown.pair_download)
