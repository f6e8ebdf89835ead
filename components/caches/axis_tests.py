"""Your own axes' caches: each axis' report card and each WEAT, computed once per process for the
model, the words and the geometry (their thousand resamples and random axes are the costly part)."""

from __future__ import annotations

import streamlit as st

from bert_embeddings.analysis import word_tests


@st.cache_resource(max_entries=8, show_spinner=False)
def card(
    model_key: tuple, texts: tuple[str, str, str], geometry_key: tuple[str, int], _index, _tokenizer, _space
):
    return word_tests.card_for(_index, _tokenizer, *texts, space=_space)


@st.cache_resource(max_entries=4, show_spinner=False)
def weat(model_key: tuple, texts: tuple[str, ...], _index, _tokenizer) -> word_tests.WeatResult:
    return word_tests.weat_for(_index, _tokenizer, dict(zip(word_tests.WEAT_GROUPS, texts, strict=True)))
