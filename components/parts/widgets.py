"""Keyed widgets that return plain values, seeded from the settings table (so that a link, a room
and a person's own change all set them the same way), and the pattern boxes with their checks."""

from __future__ import annotations

from collections import ChainMap
from typing import TypeVar

import streamlit as st

from bert_embeddings import limits
from bert_embeddings.analysis import patterns
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import settings
from bert_embeddings.views import fields
from components.caches import model_caches
from components.parts import echo
from components.view_state import session_entries

Chosen = TypeVar("Chosen", bound=fields.PageSettings)


def whole_number_box(label: str, where=st, **kwargs) -> float:
    """A number box that sends what was typed: 1.5 stays 1.5 and 1e3 is 1000, where an
    integer box would silently make both 1. The core checks it is whole and in range."""
    return where.number_input(label, step=1.0, format="%g", **kwargs)


def seeded(key: str, param: str | None = "value") -> dict[str, object]:
    """A widget's key and default, as keyword arguments, with the default also put in
    session state (unless a link or the user set the value already).

    The widget gets the default as its own ``param`` too (``value``, or ``default`` for
    segmented controls): should the browser ever send the widget back without its state, it
    then falls back to this default, not to the widget type's own (0 for a number, "" for
    text, off for a toggle). ``None`` where the type's own default is already the same."""
    st.session_state.setdefault(key, settings.default(key))
    kept = {"key": key, "persist_state": "session"}
    return kept if param is None else {**kept, param: settings.default(key)}


def chosen(kind: type[Chosen]) -> Chosen:
    """A page's settings as its widgets hold them now, with the sidebar's sentences as this run
    uses them (components.view_state.inputs)."""
    return kind.of(ChainMap(model_caches.sentence_values(), st.session_state))


PAGE = "page"  # in the frame entry: the page of the last run (arrive)


def arrive(page: str) -> bool:
    """First thing in every run of ``page`` (its url path), before any widget is drawn: on
    arriving from another page, each of the pages' settings is set to its own value, so that this
    page's widget starts at the session's value. Streamlit's ``persist_state`` keeps a value for
    the session, but a widget on another page with the same key (the geometry on five pages)
    would otherwise start from its own last value there, not from the one chosen since. Returns
    whether the page is another than the last run's."""
    state, kept = st.session_state, session_entries.entry(session_entries.FRAME)
    moved = kept.get(PAGE) not in (None, page)
    if moved:
        for setting in settings.TABLE:
            if setting.page is not None and setting.key in state:
                state[setting.key] = state[setting.key]
    kept[PAGE] = page
    return moved


def forget(key: str) -> None:
    """Clear a setting on purpose: the next run that draws its widget starts it at its default
    (every setting's widget keeps its value across pages and runs that do not draw it:
    ``persist_state``)."""
    st.session_state.pop(key, None)


def tabs(labels, key: str) -> list:
    """``st.tabs`` for a setting (the open tab), which reruns the page on a change. Tabs have no
    ``persist_state``: the setting stays under its own key, beside the tabs, where it holds
    while the page is away (and where links and rooms set it); the tabs have a key of their own,
    set from it on every run, and a change is copied back."""
    own = f"{key}_open"
    st.session_state.setdefault(key, settings.default(key))
    st.session_state[own] = st.session_state[key]
    return st.tabs(labels, key=own, default=settings.default(key), on_change=_tab_chosen, args=(key, own))


def _tab_chosen(key: str, own: str) -> None:
    st.session_state[key] = st.session_state[own]


UNFOLDED = "unfolded"  # in the frame entry: the keys of the folded parts the reader has unfolded (fold)


def fold(label: str, key: str):
    """A folded part of the page whose content is drawn only once unfolded (the unfolding reruns
    the page): the expander when it is open, else None. It stays unfolded for the session, across
    the runs that do not draw it (another tab, another page), where Streamlit forgets an expander's
    state: the session keeps which are unfolded, and gives an expander drawn again its state."""
    state, unfolded = (
        st.session_state,
        session_entries.entry(session_entries.FRAME).setdefault(UNFOLDED, set()),
    )
    if key not in state and key in unfolded:
        state[key] = True
    box = st.expander(label, key=key, on_change=_fold_changed, args=(key,))
    return box if box.open else None


def _fold_changed(key: str) -> None:
    unfolded = session_entries.entry(session_entries.FRAME).setdefault(UNFOLDED, set())
    (unfolded.add if st.session_state[key] else unfolded.discard)(key)


def dimension_range(hidden_size: int, key: str = settings.DIMENSIONS) -> range:
    """A slider over the hidden dimensions; returns the chosen dims as a range."""
    first, last = st.slider(
        "Dimensions to show",
        min_value=0,
        max_value=hidden_size - 1,
        value=(0, hidden_size - 1),  # every dimension of the model in use
        key=key,
        persist_state="session",
        help="Drag both ends to zoom into a few dimensions, e.g. 300-320.",
    )
    return range(first, last + 1)


def pattern_box(label: str, key: str, where=st, placeholder: str = "") -> str:
    """A text box for a pattern (RE2 syntax; the page says so)."""
    return where.text_input(
        label,
        **seeded(key),
        placeholder=placeholder,
        help=f"At most {limits.PATTERN.most} characters. {patterns.SYNTAX}",
    )


def pattern_syntax() -> None:
    """Under pattern boxes: which syntax they accept."""
    st.caption(echo.plain(patterns.SYNTAX))


def patterns_valid(named: dict[str, str]) -> bool:
    """Check each non-empty pattern once; show the first problem, once, where it was typed."""
    for name, pattern in named.items():
        if pattern:
            try:
                patterns.compile_pattern(pattern, f"The '{name}' pattern")
            except ExplorerError as problem:
                st.error(echo.plain(problem), icon=":material/error:")
                return False
    return True
