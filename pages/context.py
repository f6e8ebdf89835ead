"""Context: one word in two sentences, compared layer by layer through the whole model, and
sentence 1's vectors after a layer of the reader's choice."""

import streamlit as st

from bert_embeddings.figures import context_page, settings
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, widgets
from components.view_state import links

routing.through_app()
st.title("Context: after the embedding layer")
st.markdown(
    "The embedding layer gives a piece the same token row in every sentence. The **encoder layers** "
    "that follow mix in the other words, so the same word ends up with different vectors in different "
    "sentences. Compare one word in two sentences, layer by layer."
)

model_caches.require_model()
model_caches.vocab_index()  # loaded here, with its spinner; the composition reads the same cache
left, right = st.columns(2)
left.text_input("Sentence 1", **widgets.seeded(settings.CTX_FIRST))
right.text_input("Sentence 2", **widgets.seeded(settings.CTX_SECOND))
st.text_input("Word to follow", **widgets.seeded(settings.CTX_WORD))
model_caches.full_model()  # the same: loaded with its spinner
sources = model_caches.sources()
# The layer slider sits under the first figure but is read first: its box is filled before
# the composition, and emptied if the page stops above it.
head, layer_box = st.container(), st.empty()
layer_slot = layer_box.container()
last = context_page.last_layer(sources)  # the default: the model's last layer
with layer_slot:
    links.keep_within(
        settings.CTX_LAYER, range(last + 1), last, "Layer", name=lambda n: f"layer {n}", by_model=True
    )
shown = None
with model_caches.friendly_errors(stop=False):
    shown = context_page.compose(widgets.chosen(context_page.Settings), sources)
with head:
    if shown is not None:
        draw.shown(*shown.notices, shown.problem)
    if shown is None or shown.problem is not None:
        layer_box.empty()
        st.stop()
    draw.shown(shown.same, shown.similarity, shown.similarity_download, shown.similarity_caption)
with layer_slot:
    st.slider("Layer to show for sentence 1", 0, last, last, key=settings.CTX_LAYER, persist_state="session")
draw.shown(shown.heatmap, shown.heatmap_download)
