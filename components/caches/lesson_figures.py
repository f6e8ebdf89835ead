"""A lesson step's texts with their figures computed for the model in use, once per model and
text for every session (bert_embeddings.lessons.figures computes them).

The figures read what the pages already keep (the vocabulary index, the Geometry page's
measurements, the whole model, the reference module: the handout's ``PageCaches``; and the stage
spaces' files), so a step's figures cost little more than its page. A text whose figures wait for a
background job is not kept, so that it is computed again once the job is done.
"""

from __future__ import annotations

import logging

import streamlit as st

from bert_embeddings.lessons import expressions, figures, text
from components.caches import handouts, state

log = logging.getLogger("bert_explorer")


class _WaitingError(Exception):
    """Raised inside the cached function, so that a text with pending figures is not kept."""

    def __init__(self, rendered: figures.Rendered):
        self.rendered = rendered


@st.cache_data(max_entries=256, show_spinner=False)
def _rendered(key: str, revision: str, source: str) -> figures.Rendered:
    sources = handouts.PageCaches(state._model(key, revision), (key, revision))
    facts = figures.Facts(sources, compute_stages=False)  # stages only as the page's jobs made them
    found = figures.render(source, facts)
    if found.pending:
        raise _WaitingError(found)
    return found


def rendered(source: str) -> figures.Rendered:
    """``source``'s paragraphs with every figure for the model in use (a text without figures is
    only read). A figure that fails unexpectedly leaves the text shown with that figure's place
    said in words, never a traceback."""
    if expressions.OPEN not in source:
        return figures.Rendered(tuple(tuple(p) for p in text.paragraphs(source)), False)
    state.require_model()  # the model the pages run (the bundled one, where it stands in) is the key
    try:
        with st.spinner("Computing this step's figures for the model in use..."):
            return _rendered(*state.model_key(), source)
    except _WaitingError as waiting:
        return waiting.rendered
    except Exception:  # a figure's computation failed in a way the core did not foresee
        log.exception("A lesson's figures could not be computed")
        return figures.render(source, None)
