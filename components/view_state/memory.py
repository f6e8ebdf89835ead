"""What a session remembers between its runs and pages, apart from its widgets' values.

Widget values live under the keys of the settings table (bert_embeddings/figures/settings.py); these
records are kept in the session's memory entry, so they survive page switches: the Neighbours
page's latest search, which the Maps page marks, and the options its sentence grid was drawn with,
which its search (rerun alone, as a fragment) compares with its own; and each map's clicks
(components/sections/map_view.py). Caches shared by every session are components/caches/store.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

from components.view_state import session_entries

LAST_SEARCH, GRID_OPTIONS = "last_neighbours", "nb_grid_options"  # the memory entry's fields


def mine() -> dict:
    """The session's memory entry (a page's records of its own, by field)."""
    return session_entries.entry(session_entries.MEMORY)


@dataclass(frozen=True)
class Search:
    """A neighbour search as the Maps page marks it: what was asked, and the ids it found."""

    description: str
    ids: tuple[int, ...]


def remember_search(description: str, ids) -> None:
    mine()[LAST_SEARCH] = Search(description, tuple(int(i) for i in ids))


def last_search() -> Search | None:
    """The Neighbours page's latest search, if it has run in this session."""
    return mine().get(LAST_SEARCH)


def remember_grid_options(options: tuple) -> None:
    mine()[GRID_OPTIONS] = options


def grid_options() -> tuple | None:
    """What the Neighbours page's sentence grid was last drawn with (its search reruns alone)."""
    return mine().get(GRID_OPTIONS)
