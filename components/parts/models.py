"""Which models a person can pick, and the picker for a second model that Compare models and What
moved share: a listed model, or any Hub id where the host allows any model (the sidebar's rule),
loaded through the same caches as the sidebar's model; a model that cannot be had is a message."""

from __future__ import annotations

import streamlit as st

from bert_embeddings import config
from bert_embeddings.analysis import vocab_search
from bert_embeddings.models import checkpoints
from bert_embeddings.models.architectures import CURATED
from bert_embeddings.views import settings
from components.caches import state
from components.parts import echo, widgets

_CURATED = {m.spec: m for m in CURATED}


def model_options() -> list[str]:
    """The default model, the curated list, the bundled model, then (if allowed) any other."""
    options = list(checkpoints.listed_specs())
    return options + [settings.OTHER] if config.custom_models_allowed(st.secrets) else options


def model_label(option: str) -> str:
    if option == settings.OTHER:
        return "Other Hub id or local folder..."
    if option == checkpoints.BUNDLED:
        return "all-MiniLM-L6-v2 (bundled, works offline)"
    return option


def caption(option: str) -> str:
    if option in _CURATED:
        return f"{_CURATED[option].size}: {_CURATED[option].description}."
    if option == checkpoints.BUNDLED:
        return "22M parameters, 30,522 x 384: ships with the app, needs no network."
    return ""


def second_model(page: str, where=st) -> tuple[checkpoints.LoadedModel, vocab_search.VocabIndex] | None:
    """Draw the picker of a second model on ``page`` (in ``where``) and load it: the listed models,
    and a field for any Hub id or local folder where the host allows any model (a link may name a
    Hub id there, never a folder). None, with the reason on the page, if it cannot be had."""
    listed, custom = settings.OTHER_MODEL_FIELDS[page]
    options = [o for o in model_options() if o != settings.OTHER]
    chosen = where.selectbox("Compare with", options, format_func=model_label, **widgets.seeded(listed, None))
    if settings.OTHER in model_options():
        typed = where.text_input(
            "...or another Hub id or local folder (absolute path)", **widgets.seeded(custom)
        )
        chosen = typed.strip() or chosen
    found = state.second_model(chosen)
    if found is not None and found[0].notice:
        st.info(echo.plain(found[0].notice), icon=":material/cloud_off:")
    return found
