"""The sidebar's inputs for one run, as one frozen value.

app.py draws the sidebar, builds the value once per run and hands it over with ``use``;
pages and the cache layer read it with ``current``. Nothing else reads the sidebar's
widgets, so the cache layer never depends on the widget layer.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from components.view_state import session_entries

_KEY = session_entries.INPUTS


@dataclass(frozen=True)
class Inputs:
    """What the person asked for in the sidebar."""

    model_spec: str
    revision: str
    text_a: str
    text_b: str
    add_special_tokens: bool


def use(inputs: Inputs) -> Inputs:
    """Called by app.py on every run, before the page runs."""
    st.session_state[_KEY] = inputs
    return inputs


def current() -> Inputs:
    """This run's sidebar inputs (a part of a page rerun alone sees its run's last value)."""
    return st.session_state[_KEY]
