"""Keyed widget groups that return plain values.

The sidebar (model picker, sentence A and B, special tokens) is drawn once by app.py on
every run, so every page sees the same values; pages read them with ``current()``.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bert_embeddings import checkpoints
from bert_embeddings.tokenize import MAX_CHARACTERS

MODEL_KEY = "model_choice"
CUSTOM_MODEL_KEY = "model_custom"
SENTENCE_A_KEY = "sentence_a"
SENTENCE_B_KEY = "sentence_b"
SPECIAL_TOKENS_KEY = "special_tokens"
OTHER = "__other__"

DEFAULT_A = "The river bank flooded after the storm."
DEFAULT_B = "Tokenizers split embeddings into pieces."


@dataclass(frozen=True)
class Inputs:
    """What the user asked for in the sidebar."""

    model_spec: str
    revision: str
    text_a: str
    text_b: str
    add_special_tokens: bool


def model_options() -> list[str]:
    default = checkpoints.default_spec()
    options = [default] + [s for s in (checkpoints.DEFAULT_MODEL, checkpoints.BUNDLED) if s != default]
    return options + [OTHER]


def _label(option: str) -> str:
    if option == OTHER:
        return "Other Hub id or local folder..."
    if option == checkpoints.BUNDLED:
        return "all-MiniLM-L6-v2 (bundled, works offline)"
    if option == checkpoints.DEFAULT_MODEL:
        return "bert-base-uncased (Hugging Face Hub)"
    return option


def sidebar() -> Inputs:
    """Draw the shared inputs in the sidebar and return their values."""
    with st.sidebar:
        st.selectbox("Model", model_options(), format_func=_label, key=MODEL_KEY)
        if st.session_state.get(MODEL_KEY) == OTHER:
            st.text_input(
                "Hub id or folder",
                key=CUSTOM_MODEL_KEY,
                placeholder="e.g. google-bert/bert-base-cased or /models/my-bert",
            )
        st.text_area("Sentence A", value=DEFAULT_A, key=SENTENCE_A_KEY, height=90, max_chars=MAX_CHARACTERS)
        st.text_area(
            "Sentence B (optional)",
            value=DEFAULT_B,
            key=SENTENCE_B_KEY,
            height=90,
            max_chars=MAX_CHARACTERS,
            help="A second sentence makes a pair: its pieces get segment 1.",
        )
        st.toggle(
            "Add special tokens [CLS] / [SEP]",
            value=True,
            key=SPECIAL_TOKENS_KEY,
            help="BERT is trained with them. Off shows the bare word pieces, numbered from position 0.",
        )
    return current()


def current() -> Inputs:
    """The sidebar's values as plain data (defaults before the sidebar has run)."""
    state = st.session_state
    choice = state.get(MODEL_KEY, model_options()[0])
    spec = state.get(CUSTOM_MODEL_KEY, "") if choice == OTHER else choice
    return Inputs(
        model_spec=(spec or "").strip(),
        revision=checkpoints.default_revision(),
        text_a=state.get(SENTENCE_A_KEY, DEFAULT_A) or "",
        text_b=state.get(SENTENCE_B_KEY, DEFAULT_B) or "",
        add_special_tokens=bool(state.get(SPECIAL_TOKENS_KEY, True)),
    )


def dimension_range(hidden_size: int, key: str = "dims") -> range:
    """A slider over the hidden dimensions; returns the chosen dims as a range."""
    first, last = st.slider(
        "Hidden dimensions to show",
        min_value=0,
        max_value=hidden_size - 1,
        value=(0, hidden_size - 1),
        key=key,
        help="Drag both ends to zoom into a few dimensions, e.g. 300-320.",
    )
    return range(first, last + 1)
