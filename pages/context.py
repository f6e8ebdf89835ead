"""Context: one word in two sentences, compared layer by layer through the whole model, and
sentence 1's vectors after a layer of the reader's choice."""

import streamlit as st

from bert_embeddings.figures import layer_pages, settings
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
values = {
    settings.CTX_FIRST: left.text_input("Sentence 1", **widgets.seeded(settings.CTX_FIRST)),
    settings.CTX_SECOND: right.text_input("Sentence 2", **widgets.seeded(settings.CTX_SECOND)),
    settings.CTX_WORD: st.text_input("Word to follow", **widgets.seeded(settings.CTX_WORD)),
}
model_caches.full_model()  # the same: loaded with its spinner
sources = model_caches.sources()
# The layer slider sits under the first figure but is read first: its box is filled before
# the composition, and emptied if the page stops above it.
head, layer_box = st.container(), st.empty()
layer_slot = layer_box.container()
last = layer_pages.context_layers(sources)  # the default: the model's last layer
with layer_slot:
    values[settings.CTX_LAYER] = links.keep_within(
        settings.CTX_LAYER, range(last + 1), last, "Layer", name=lambda n: f"layer {n}", by_model=True
    )
shown = None
with model_caches.friendly_errors(stop=False):
    shown = layer_pages.context_page(values, sources)
with head:
    if shown is not None:
        draw.parts(shown, *(name for name in shown if "notice" in name), layer_pages.CONTEXT_PROBLEM)
    if shown is None or layer_pages.CONTEXT_PROBLEM in shown:
        layer_box.empty()
        st.stop()
    draw.parts(shown, "ctx_same", "ctx_similarity", "ctx_similarity_download", "ctx_similarity_caption")
with layer_slot:
    st.slider("Layer to show for sentence 1", 0, last, last, key=settings.CTX_LAYER, persist_state="session")
draw.parts(shown, "ctx_heatmap", "ctx_heatmap_download")
