"""A lesson step's texts with their figures computed for the model in use, once per model and
text for every session (bert_embeddings.lessons.figures computes them).

The figures read what the pages already keep (the vocabulary index, the Geometry page's
measurements, the whole model, the reference module: ``model_caches.sources``; and the stage
spaces' files), so a step's figures cost little more than its page. A text whose figures wait for a
background job is not kept, so that it is computed again once the job is done.
"""

from __future__ import annotations

import logging

import streamlit as st

from bert_embeddings import config
from bert_embeddings.lessons import expressions, figure_kit, figures, text
from bert_embeddings.spaces import compare, pair, space_jobs
from components.caches import model_caches, spaces

log = logging.getLogger("bert_explorer")


class _WaitingError(Exception):
    """Raised inside the cached function, so that a text with pending figures is not kept."""

    def __init__(self, rendered: figures.Rendered):
        self.rendered = rendered


@st.cache_data(max_entries=256, show_spinner=False)
def _rendered(key: str, revision: str, source: str, cache: str) -> figures.Rendered:
    # (``cache``: the folder the stage spaces are read from, so that another one is read afresh)
    sources = model_caches.sources((key, revision))
    facts = figures.Facts(sources, PageStages(sources.model))  # stages only as the page's jobs made them
    found = figures.render(source, facts)
    if found.pending:
        raise _WaitingError(found)
    return found


class PageStages(figure_kit.Stages):
    """What moved's stage spaces, lists and comparisons through the page's caches: read from disk
    once per process (a stage not yet made is None, and costs a look at a file, not a read of the
    model's weights), never made here."""

    def __init__(self, model) -> None:
        super().__init__(model, compute=False)

    def space(self, stage: str):
        return spaces.space(self.model, stage)

    def lists(self, space, rows):
        spec = pair.spec(space, figure_kit.RAW, rows)
        try:
            return spaces.lists(space.key, space_jobs.lists_name(spec.stage, spec.shape, spec.rows), spec)
        except spaces.NotOnDiskError:
            return None

    def comparison(self, a, b, lists, k, shared):
        return spaces.comparison((a.key, a.stage, b.key, b.stage), figure_kit.RAW, k, a, b, lists, shared)

    def mean_cosine(self, space) -> float:
        return _mean_cosine(space.key, space.stage, space)


@st.cache_resource(max_entries=16, show_spinner=False)
def _mean_cosine(key: str, stage: str, _space) -> float:
    return compare.mean_cosine(_space.vectors)  # as Through the layers computes it


def rendered(source: str) -> figures.Rendered:
    """``source``'s paragraphs with every figure for the model in use (a text without figures is
    only read). A figure that fails unexpectedly leaves the text shown with that figure's place
    said in words, never a traceback."""
    if expressions.OPEN not in source:
        return figures.Rendered(tuple(tuple(p) for p in text.paragraphs(source)), False)
    model_caches.require_model()  # the model the pages run (the bundled one, where it stands in) is the key
    try:
        with st.spinner("Computing this step's figures for the model in use..."):
            return _rendered(*model_caches.model_key(), source, str(config.explorer_cache_dir()))
    except _WaitingError as waiting:
        return waiting.rendered
    except Exception:  # a figure's computation failed in a way the core did not foresee
        log.exception("A lesson's figures could not be computed")
        return figures.render(source, None)
