"""Context: one word in two sentences, compared layer by layer through the whole model, and
sentence 1's vectors after a layer of the reader's choice."""

import streamlit as st

from bert_embeddings.analysis import contextual, vocab_search
from bert_embeddings.figures import page_figures
from bert_embeddings.views import settings
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, exports, widgets
from components.view_state import links

routing.through_app()
st.title("Context: after the embedding layer")
st.markdown(
    "The embedding layer gives a piece the same token row in every sentence. The **encoder layers** "
    "that follow mix in the other words, so the same word ends up with different vectors in different "
    "sentences. Compare one word in two sentences, layer by layer."
)

model = model_caches.require_model()
index = model_caches.vocab_index()
left, right = st.columns(2)
first = left.text_input("Sentence 1", **widgets.seeded(settings.CTX_FIRST))
second = right.text_input("Sentence 2", **widgets.seeded(settings.CTX_SECOND))
word = st.text_input("Word to follow", **widgets.seeded(settings.CTX_WORD))
full = model_caches.full_model()

with model_caches.friendly_errors():
    encodings = [model.encode(s) for s in (first, second)]
for number, encoding in enumerate(encodings, start=1):
    model_caches.show_notices(encoding, f"Sentence {number}")  # e.g. that it was cut at the model's positions
with model_caches.friendly_errors():
    piece_ids = vocab_search.word_ids(index, model.tokenizer, word)
    where = [contextual.find_word(e, piece_ids, f"sentence {n}") for n, e in enumerate(encodings, start=1)]
if first.strip() == second.strip():
    st.info(
        "The two sentences are the same, so the word has the same vector at every layer (cosine 1). "
        "Change one sentence to see context at work.",
        icon=":material/info:",
    )
found = page_figures.word_in_context(model, encodings, where, full)
stages, similarity = found.stages, found.similarity
draw.chart(page_figures.context_similarity(found, word), key="ctx_similarity")
exports.matrix(
    (model.name, exports.Verbatim(word), "cosine by layer"), similarity, stages, ["cosine"], "stage"
)
st.caption(
    f"At the token row the two vectors are identical. The embedding output adds each one's position row "
    f"(the word is at position {where[0][0]} in sentence 1 and {where[1][0]} in sentence 2; both "
    "sentences are segment A); each encoder layer then mixes in the rest of its sentence."
)

last = len(found.states) - 1  # the default: the model's last layer
links.keep_within(
    settings.CTX_LAYER, range(last + 1), last, "Layer", name=lambda n: f"layer {n}", by_model=True
)
layer = st.slider(
    "Layer to show for sentence 1", 0, last, last, key=settings.CTX_LAYER, persist_state="session"
)
draw.chart(page_figures.context_layer(found, encodings[0].labels, layer), key="ctx_heatmap")
exports.matrix(
    f"{model.name} sentence 1 layer {layer}", found.states[layer], encodings[0].labels, corner="token"
)
