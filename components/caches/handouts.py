"""A lesson's handout made on the server, from the very results the pages read.

The handout's figures are drawn by the pages' own figure functions
(bert_embeddings.lessons.handout). Here their inputs come from the caches of
components/caches/store.py (through model_caches.sources_of), for the model in use, so a handout
adds no second vocabulary index, geometry or whole model to the server's memory, and its numbers
are the pages' to the bit. One
handout is made at a time per server process (a click waits for the one before it), and the last
few are kept: thirty people downloading the same lesson's handout in a workshop make it once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import streamlit as st

from bert_embeddings.lessons import handout, lesson
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.views.sources import Sources
from components.caches import model_caches

_one_at_a_time = threading.Lock()


@st.cache_data(max_entries=4, show_spinner=False)
def _made(source: str, spec: str, revision: str) -> bytes:
    # The bar is drawn before the page loads its model: the name is resolved here, on the click
    # (the page has loaded the model by then; this finds it in the cache).
    cached = model_caches.sources_of(spec, revision)
    model = cached.model

    def computed(used: LoadedModel) -> Sources:
        # A step naming another model has it loaded apart (handout's own loader), computed apart.
        return cached if used is model else Sources(used)

    with _one_at_a_time:
        return handout.handout(lesson.read(source), model, computed=computed).encode("utf-8")


def maker(found: lesson.Lesson) -> Callable[[], bytes]:
    """What makes the handout of ``found`` with the model in use, as one HTML file's bytes, when
    called: a download button calls it on the click, outside the page's run, so the model in
    use is read now (its name, or the model the page last loaded instead)."""
    source, key = lesson.write(found), model_caches.model_key()
    return lambda: _made(source, *key)
