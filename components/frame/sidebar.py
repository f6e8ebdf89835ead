"""The frame's sidebar, drawn once by app.py on every run: the model picker, sentence A and B,
special tokens, presenter mode; it returns their values as one plain value, which app.py hands to
components.view_state.inputs. Also the frame's notices about the host's settings and the styles
every page shares."""

from __future__ import annotations

import streamlit as st

from bert_embeddings import config, limits
from bert_embeddings.figures import settings
from components.frame import host_secrets
from components.parts import echo, models
from components.parts.draw import FOCUS_STYLE, PRESENTER_SCALE, TOOLBAR_STYLE
from components.parts.widgets import seeded
from components.view_state.inputs import Inputs


def sidebar() -> Inputs:
    """Draw the shared inputs in the sidebar and return their values."""
    with st.sidebar:
        choice = st.selectbox(
            "Model",
            models.model_options(),
            format_func=models.model_label,
            key=settings.MODEL_KEY,
            persist_state="session",
        )
        typed = ""
        if choice == settings.OTHER:
            typed = st.text_input(
                "Hub id or folder",
                key=settings.CUSTOM_MODEL_KEY,
                persist_state="session",
                placeholder="e.g. google-bert/bert-base-cased or /models/my-bert",
                help="A Hub id, or a folder on this server written as an absolute path (starting with /).",
            )
        if about := models.in_use(choice, typed):
            st.caption(about)
        st.text_area(
            "Sentence A",
            **seeded(settings.SENTENCE_A_KEY),
            height=90,
            help=f"Up to {limits.SENTENCE.most:,} characters. The model reads as many pieces as it has "
            "positions (bert-base: 512; the model in use: under the picker), and the page says when it cuts "
            "the rest.",
        )
        st.text_area(
            "Sentence B (optional)",
            **seeded(settings.SENTENCE_B_KEY),
            height=90,
            help=f"A second sentence makes a pair: its pieces get segment 1. Up to {limits.SENTENCE.most:,} "
            "characters.",
        )
        st.toggle(
            "Add special tokens [CLS] / [SEP]",
            **seeded(settings.SPECIAL_TOKENS_KEY),
            help="BERT is trained with them. Off shows the bare word pieces, numbered from position 0.",
        )
        st.toggle(
            "Presenter mode (larger text)",
            key=settings.PRESENTER_KEY,
            persist_state="session",
            help="Bigger text in the app and in every figure, for a projector. Only this tab changes.",
        )
    page_style()
    return _read()


def host_settings() -> None:
    """On every page while the host's settings (variables or secrets) hold a value the app cannot
    use: which, what it takes, and what the app does instead. The rest of the app works."""
    if found := config.problems(host_secrets.secrets()):
        st.warning(
            echo.plain("This server's settings need a look: " + "; ".join(found) + "."),
            icon=":material/build:",
        )


def page_style() -> None:
    """Styles for every page: toolbars that show on keyboard focus; formulas that fit a phone; in
    presenter mode, all of the app's text grows too (Streamlit sizes its text in rem)."""
    style = FOCUS_STYLE + TOOLBAR_STYLE
    if st.session_state.get(settings.PRESENTER_KEY):
        style += f"html {{ font-size: {PRESENTER_SCALE * 100:.0f}%; }}"
    st.html(f"<style>{style}</style>")


def _read() -> Inputs:
    """The sidebar's values as plain data."""
    state = st.session_state
    options = models.model_options()
    choice = state.get(settings.MODEL_KEY, options[0])
    if choice not in options:  # e.g. the free field after the host switched it off
        choice = options[0]
    spec = state.get(settings.CUSTOM_MODEL_KEY, "") if choice == settings.OTHER else choice
    return Inputs(
        model_spec=(spec or "").strip(),
        revision=config.revision(),
        text_a=state.get(settings.SENTENCE_A_KEY, settings.default(settings.SENTENCE_A_KEY)) or "",
        text_b=state.get(settings.SENTENCE_B_KEY, settings.default(settings.SENTENCE_B_KEY)) or "",
        add_special_tokens=bool(state.get(settings.SPECIAL_TOKENS_KEY, True)),
    )
