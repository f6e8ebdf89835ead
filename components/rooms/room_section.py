"""The sidebar's workshop room section: lead a room, join one, or follow one (the follower's part
is components/rooms/follow.py, the leader's components/rooms/lead.py)."""

from __future__ import annotations

import streamlit as st

from bert_embeddings.figures import settings
from components.parts import echo
from components.rooms import follow, lead
from components.rooms.follow import FOLLOW, LEAD, PROBLEM, SAVED, USED


def sidebar() -> None:
    """The section itself, drawn on every run."""
    state = follow.mine()
    # Once used in this session (led, joined, or refused with a message), the section stays open,
    # so that a code being corrected stays in sight.
    state[USED] = bool(
        state.get(USED) or state.get(LEAD) or state.get(FOLLOW) or state.get(PROBLEM) or state.get(SAVED)
    )
    with st.sidebar.expander("Workshop room", expanded=state[USED]):
        if led := state.get(LEAD):
            lead.leader_section(*led)
        elif code := state.get(FOLLOW):
            follow.following(code)
            st.button("Stop following", on_click=follow.stop_following, key="room_stop")
        else:
            _idle_section()
        if problem := state.pop(PROBLEM, None):
            st.error(echo.plain(problem), icon=":material/error:")


def _idle_section() -> None:
    # (A follower who stepped away is offered to follow again at the top of the page: follow.notice.)
    lead.taking_back()
    st.text_input("Room code", key=settings.ROOM_CODE, persist_state="session", placeholder="e.g. ABC234")
    # The code is read when Join is clicked: a code typed just before the click counts.
    st.button(
        "Join", on_click=lambda: follow.join(st.session_state.get(settings.ROOM_CODE) or ""), key="room_join"
    )
    lead.new_room_button()
