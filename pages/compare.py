"""Compare: two models side by side, for the same word and the same sentence."""

import pandas as pd
import streamlit as st

from bert_embeddings.analysis import vocab_search
from bert_embeddings.models import glyphs
from bert_embeddings.views import settings
from components.caches import model_caches
from components.frame import routing
from components.parts import echo, exports, models, widgets
from components.view_state import inputs

routing.through_app()
st.title("Compare two models")
st.markdown(
    "The sidebar's model on the left, another on the right: the same word's nearest neighbours in each "
    "vocabulary, how many they share, and how each tokenizer splits your sentence."
)

left_model = model_caches.require_model()
left_index = model_caches.vocab_index()
right = models.second_model("compare")
if right is None:
    st.stop()
right_model, right_index = right
# With no second model, the word's neighbours in the one model, and no comparison: "10 of 10"
# would be the same model found twice.
if (alone := models.no_second_model(left_model, right_model)) is not None:
    st.info(alone, icon=":material/compare_arrows:")

a, b = st.columns([3, 1])
word = a.text_input("Word", **widgets.seeded(settings.CMP_WORD))
k = widgets.whole_number_box("k", b, **widgets.seeded(settings.CMP_K))
shown_models = [("left", left_model, left_index)] + ([] if alone else [("right", right_model, right_index)])
results = []
for (side, model, index), column in zip(shown_models, st.columns(2), strict=False):
    with column:
        st.markdown(
            f"**{echo.plain(model.name)}** ({model.family.label}, {model.vocab_size:,} x {model.hidden_size})"
        )
        found = None
        with model_caches.friendly_errors(stop=False):
            query = vocab_search.word_query(index, model.tokenizer, word)
            found = vocab_search.nearest(
                index, query.vector, k, filters=vocab_search.Filters(exclude_ids=query.ids)
            )
            exports.ranked(
                (f"{side} {model.name} neighbours of", exports.Verbatim(word), f"(k {len(found.pieces)})"),
                found,
            )
        results.append(found)
if alone:
    st.stop()
if all(r is not None for r in results):
    shared = [p for p in results[0].pieces if p in set(results[1].pieces)]
    st.metric(
        f"Neighbours in common at k = {len(results[0].pieces)}", f"{len(shared)} of {len(results[0].pieces)}"
    )
    st.caption("Shared: " + (echo.plain(", ".join(map(glyphs.legible, shared))) if shared else "none"))

st.header("Your sentence, as each tokenizer splits it")
text = inputs.current()
sides = st.columns(2)
for side, column, model in (("left", sides[0], left_model), ("right", sides[1], right_model)):
    with column, model_caches.friendly_errors(stop=False):
        encoding = model.encode(text.text_a, text.text_b, text.add_special_tokens)
        st.markdown(f"**{echo.plain(model.name)}**: {len(encoding)} pieces")
        pieces = pd.DataFrame({"piece": encoding.pieces, "id": encoding.ids, "segment": encoding.segment_ids})
        legible = pieces.assign(piece=pieces["piece"].map(glyphs.legible))
        exports.dataframe(f"{side} {model.name} pieces", pieces, legible, hide_index=True)
