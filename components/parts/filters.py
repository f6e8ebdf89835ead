"""Which vocabulary rows a search may return (Neighbours, Your own axes, What moved each have a set
of filters), and the Neighbours page's query widgets and its ways to the next query."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from bert_embeddings.analysis import vocab_search
from bert_embeddings.figures import neighbours_page, settings
from bert_embeddings.models import glyphs
from components.parts import echo, widgets
from components.parts.widgets import pattern_box, pattern_syntax, patterns_valid, seeded, whole_number_box


def query_mode() -> str:
    # Defaults live in session state, not in the widgets: clicking a neighbour sets these
    # keys too, and Streamlit warns when a widget has both.
    mode = st.segmented_control("Query by", settings.QUERY_MODES, **seeded(settings.NB_MODE, "default"))
    return mode or "word"


def piece_choice(pieces: list[str]) -> int | None:
    """For a word of several pieces: None for their mean, else the chosen piece's position."""
    options = [None, *range(len(pieces))]
    shown = [echo.plain(glyphs.legible(piece)) for piece in pieces]
    return st.radio(
        "This word is several pieces. Search with",
        options,
        format_func=lambda i: "the mean of all pieces" if i is None else f"piece {shown[i]}",
        horizontal=True,
        key=settings.NB_PIECE,
        persist_state="session",
    )


def search_options() -> bool:
    """k and the filters, under the geometry; whether the filters' patterns are valid."""
    left, _ = st.columns([1, 2])
    whole_number_box(
        "How many neighbours (k)", left, **seeded(settings.NB_K), help=f"From 1 to {vocab_search.MAX_K}."
    )
    return filter_boxes(neighbours_page.Settings.key, "Leave out the query's own pieces")


def filter_boxes(key: Callable[[str], str], leave_out_label: str) -> bool:
    """Which vocabulary rows a search may return: an expander of toggles and two patterns, each
    keyed by the page's ``key`` of its field (``Settings.key``); whether the patterns are valid
    (else the problem is shown under the boxes). The page reads the values from its settings."""
    with st.expander("Filters"):
        a, b, c = st.columns(3)
        a.toggle("Hide ## continuation pieces", **seeded(key("hide_continuation")))
        b.toggle("Hide [CLS], [SEP], [unusedN]...", **seeded(key("hide_special")))
        c.toggle(leave_out_label, **seeded(key("leave_out")))
        a, b = st.columns(2)
        include = pattern_box("Only pieces matching (pattern)", key("include"), a, "e.g. ^un")
        exclude = pattern_box("Leave out pieces matching (pattern)", key("exclude"), b, "e.g. \\d")
        pattern_syntax()
        return patterns_valid({"Only": include, "Leave out": exclude})


def search_neighbours_of(piece: str) -> None:
    """Open the Neighbours page with ``piece`` as its word query (its link then carries it)."""
    st.session_state[settings.NB_MODE] = "word"
    st.session_state[settings.NB_WORD] = piece
    widgets.forget(settings.NB_PIECE)
    st.switch_page("pages/neighbours.py")


def follow_neighbour() -> None:
    """on_change of the neighbour pills: make the clicked piece the next word query."""
    piece = st.session_state.get(settings.NB_NEXT)
    if piece:
        st.session_state[settings.NB_MODE] = "word"
        st.session_state[settings.NB_WORD] = piece
        st.session_state[settings.NB_NEXT] = None
        widgets.forget(settings.NB_PIECE)
