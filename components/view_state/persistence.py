"""Every setting keeps its value until someone changes it: across tabs, pages and browser Back.

Streamlit forgets a widget's value at the end of any run that did not draw the widget (its tab
closed, its page left, a control hidden while another option is chosen), and a widget with the
same key on another page is another widget, which starts at its own default. Either way a
setting went back to its default without anyone touching it: the Maps page's geometry after a
look at another tab, Neighbours' k after a visit to another page, and, published, every
follower's view.

So the settings' values are held here, outside any widget (``hold``, first thing in every run,
and in a fragment that reruns alone with settings of its own, such as Neighbours' search):
a setting Streamlit dropped gets its last value back, and on arriving at another page each of
the pages' settings is set again, so that the page's own widget starts at it. Code that clears
a setting on purpose says so with ``forget``, or the next run would bring it back.
"""

from __future__ import annotations

import streamlit as st

from bert_embeddings.views import settings

HELD, PAGE = "_held_settings", "_held_page"


def hold(page: str) -> None:
    """Before anything reads or draws a setting in this run of ``page`` (its url path)."""
    state = st.session_state
    held = state.get(HELD, {})
    moved = state.get(PAGE) not in (None, page)
    for setting in settings.TABLE:
        key = setting.key
        if key not in state:
            if key in held:
                state[key] = held[key]  # dropped with its widget: back as it was
        elif moved and setting.page is not None:
            state[key] = state[key]  # the page's own widget starts at it
    state[HELD] = {s.key: state[s.key] for s in settings.TABLE if s.key in state}
    state[PAGE] = page


def forget(key: str) -> None:
    """Clear a setting on purpose (its widget then starts at its own default)."""
    st.session_state.pop(key, None)
    st.session_state.get(HELD, {}).pop(key, None)
