"""Positions: BERT's learned position rows beside the original Transformer's sinusoid."""

import streamlit as st

from bert_embeddings.figures import input_pages, settings
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
span = st.segmented_control(
    "Positions in the cosine maps",
    settings.POS_SPANS,
    required=True,
    help="Fewer positions draw each one as its own cell; the downloads hold every position.",
    **widgets.seeded(settings.POS_SPAN, "default"),
)
tables = st.container()  # the tables' figures, above the boxes they are composed with
st.header("Compare two positions")
a, b = st.columns(2)
values = {settings.POS_SPAN: span} | {
    key: widgets.whole_number_box(label, column, **widgets.seeded(key))
    for key, label, column in (
        (settings.POS_FIRST, "First position", a),
        (settings.POS_SECOND, "Second position", b),
    )
}
with model_caches.friendly_errors():
    shown = input_pages.positions_page(values, model_caches.sources())
with tables:
    for column, name in zip(st.columns(2), input_pages.COSINES, strict=True):
        with column:
            draw.parts(shown, name, f"{name}_download")
    draw.parts(shown, "pos_cosine_caption", "pos_norms", "pos_norms_caption", "pos_norms_download")
for column, name in ((a, "pos_learned"), (b, "pos_sinusoid")):
    with column:
        draw.parts(shown, name)
draw.parts(shown, "pos_problem", "pos_pair", "pos_pair_download")
