"""Compare: two models side by side, for the same word and the same sentence."""

import streamlit as st

from bert_embeddings import config
from bert_embeddings.figures import compare_page, settings
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, models, widgets

routing.through_app()
st.title("Compare two models")
st.markdown(
    "The sidebar's model on the left, another on the right: the same word's nearest neighbours in each "
    "vocabulary, how many they share, and how each tokenizer splits your sentence."
)

left_model = model_caches.require_model()
model_caches.vocab_index()  # built here, with its spinner; the composition reads the same cache
right = models.second_model("compare")
if right is None:
    st.stop()
right_model, _ = right
# With no second model, the word's neighbours in the one model, and no comparison: "10 of 10"
# would be the same model found twice.
if (alone := models.no_second_model(left_model, right_model)) is not None:
    st.info(alone, icon=":material/compare_arrows:")

a, b = st.columns([3, 1])
a.text_input("Word", **widgets.seeded(settings.CMP_WORD))
widgets.whole_number_box("k", b, **widgets.seeded(settings.CMP_K))
other = None if alone else model_caches.sources_of(right_model.spec, config.revision())
with model_caches.friendly_errors():
    shown = compare_page.compose(widgets.chosen(compare_page.Settings), model_caches.sources(), other)
for side, column in zip(shown.sides, st.columns(2), strict=False):
    with column:
        draw.shown(side)
if alone:
    st.stop()
draw.shown(shown.shared, shown.shared_caption)

st.header("Your sentence, as each tokenizer splits it")
for split, column in zip(shown.splits, st.columns(2), strict=True):
    with column:
        draw.shown(split)
