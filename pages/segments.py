"""Segments: the two segment rows, and how much the segment term moves each token."""

import streamlit as st

from bert_embeddings.figures import input_pages
from components.caches import model_caches
from components.frame import routing
from components.parts import draw

routing.through_app()
st.title("Segments: sentence A or sentence B")
st.markdown(
    "BERT was trained on pairs of sentences. It marks which sentence a piece belongs to by adding one "
    "of two learned **segment rows** (transformers calls them `token_type_embeddings`): row 0 for "
    "sentence A, row 1 for sentence B."
)

model_caches.require_model()
with model_caches.friendly_errors():
    shown = input_pages.segments_page(model_caches.sentence_values(), model_caches.sources())
draw.parts(shown, "no_segments", "seg_rows", "seg_rows_download")
if "seg_rows" not in shown:  # a model without two segment rows: nothing more to compare
    st.stop()
for column, name in zip(st.columns(3), ("norm_a", "norm_b", "norm_difference"), strict=True):
    with column:
        draw.parts(shown, name)

st.header("How far the segment moves each token")
names = list(shown)
draw.parts(shown, *names[names.index("norm_difference") + 1 :])  # the sentence's notices, the swap
