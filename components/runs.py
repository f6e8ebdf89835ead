"""The one place that knows how Streamlit ends a run early: whether a page was drawn to its end.

A run can end before the page is drawn because another run replaced it: the reader's browser
asked for a rerun (a widget, a fragment's wake-up) while it was running, or the script switched
page. Streamlit then raises its ``RerunException`` inside the script. ``st.stop()`` and an
error, by contrast, end a page that was drawn as far as it goes. Streamlit has no public way to
tell the two apart, so this adapter imports the private exception; tests/test_follow.py fails
loudly if an upgrade moves or renames it.
"""

from __future__ import annotations

from collections.abc import Callable

from streamlit.runtime.scriptrunner_utils.exceptions import RerunException


def run_to_the_end(page: Callable[[], None], drawn: Callable[[], None], replaced: Callable[[], None]) -> None:
    """Run ``page``, calling ``drawn`` first and ``replaced`` if another run replaced it before it
    ended. (The mark comes first because Streamlit keeps nothing a run writes after ``st.stop()``;
    it does keep what a replaced run writes.)"""
    drawn()
    try:
        page()
    except RerunException:
        replaced()
        raise
