"""A concern's own values in a session, kept together under one session-state entry.

Streamlit's session state is one flat dictionary that every widget and module shares. A concern
that keeps values of its own across runs (the rooms this session leads or follows, the lesson it
plays, the link it opened with) keeps them in one dictionary under one entry, named in
docs/architecture.md with what it holds; widget keys (the settings) stay at the top level, where
Streamlit wants them. These are all of the session's own entries: tests/test_session_keys.py
counts every use of session state, and holds them to eight.
"""

from __future__ import annotations

import streamlit as st

# Every entry, by its concern (docs/architecture.md says what each holds).
ROOM = "_room"  # components/rooms: the room this session leads or follows, and how it stands
LESSON = "_lesson"  # components/lessons: the lesson played, its step, a lesson being made
LINK = "_link"  # components/view_state/links.py: the session's link read, and what it could not use
INPUTS = "_sidebar_inputs"  # components/view_state/inputs.py: the sidebar's inputs of this run
JOBS = "_jobs"  # components/parts/job_panel.py: the panels whose button was clicked, until their run
FRAME = "_frame"  # frame/routing.py, parts/widgets.py, parts/on_view.py: the frame ran; the page
MODEL = "_model"  # components/caches/store.py: the model this session's pages use
MEMORY = "_memory"  # components/view_state/memory.py: what a page remembers for later runs and pages


def entry(name: str) -> dict:
    """The dictionary kept under ``name`` in this session (empty at first)."""
    return st.session_state.setdefault(name, {})
