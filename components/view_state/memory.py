"""What a session remembers between its runs and pages, apart from its widgets' values.

Widget values live under the keys of the settings table (bert_embeddings/views/settings.py) and go
when their widget is not drawn; these records are kept under plain keys, so they survive
page switches: the Neighbours page's latest search, which the Maps page marks, and the
options its sentence grid was drawn with, which its search (rerun alone, as a fragment)
compares with its own. Caches shared by every session are components/caches/model_caches.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

LAST_SEARCH = "last_neighbours"
GRID_OPTIONS = "nb_grid_options"


@dataclass(frozen=True)
class Search:
    """A neighbour search as the Maps page marks it: what was asked, and the ids it found."""

    description: str
    ids: tuple[int, ...]


def remember_search(description: str, ids) -> None:
    st.session_state[LAST_SEARCH] = Search(description, tuple(int(i) for i in ids))


def last_search() -> Search | None:
    """The Neighbours page's latest search, if it has run in this session."""
    return st.session_state.get(LAST_SEARCH)


def remember_grid_options(options: tuple) -> None:
    st.session_state[GRID_OPTIONS] = options


def grid_options() -> tuple | None:
    """What the Neighbours page's sentence grid was last drawn with (its search reruns alone)."""
    return st.session_state.get(GRID_OPTIONS)
