"""Follow the presenter: a room whose followers see the page and settings its leader shows.

A view is what a shareable link holds: the page and ``links.view_params``. The leader's
session publishes its view to the room on every run (``publish``); a follower's sidebar polls
the room every two seconds in a fragment (a dictionary lookup, no page run) and, when the
version moves on, keeps the new view as *pending* and reruns the app, whose first lines apply
it exactly as a link is applied (``apply_pending``): checked by the same parsers, so a follower
never gets a folder on the server, a custom model the host switched off, or presenter mode.
A follower who changes anything stops following, with a notice and a way back.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import streamlit as st

from bert_embeddings import config, rooms
from bert_embeddings.rooms import RoomError
from components import echo, links, settings

LEAD, FOLLOW = "_room_lead", "_room_follow"  # (code, token) of the room led; code followed
APPLIED, PENDING, STOPPED = "_room_applied", "_room_pending", "_room_stopped"
PROBLEM = "_room_problem"
USED = "_room_used"  # the section was used in this session: it stays open
POLL_SECONDS = 2.0
PAGE = "page"


@st.cache_resource
def _rooms() -> rooms.RoomStore:
    # One registry for the whole server process: every session's rooms. Where the host set a
    # presenter key, some rooms are kept for those who give it.
    reserved = rooms.RESERVED_FOR_PRESENTERS if config.presenter_key(st.secrets) else 0
    return rooms.MemoryRooms(reserved=reserved)


def view(page: str) -> dict[str, str]:
    return {PAGE: page, **links.view_params(page)}


def publish(page: str) -> None:
    """Write the view into the address bar and, for a room's leader, into the room. A follower
    whose view is no longer the room's (a change of their own, e.g. in a part of the page that
    reruns alone) stops following."""
    state = st.session_state
    _stop_on_own_change(page)
    extra = {links.FOLLOW: state[FOLLOW]} if state.get(FOLLOW) else {}
    links.publish(page, extra)
    if lead := state.get(LEAD):
        try:
            _rooms().show(*lead, view(page))
        except RoomError as problem:
            state.pop(LEAD, None)
            st.sidebar.warning(echo.plain(problem), icon=":material/groups:")


def _stop_on_own_change(page: str) -> bool:
    """A follower whose session no longer shows the view last applied (and has no newer one
    waiting) changed it themselves: they stop following. Returns whether they did."""
    state = st.session_state
    applied = state.get(APPLIED)
    if (
        not state.get(FOLLOW)
        or applied is None
        or PENDING in state
        or links.same_view(view(page), applied[1])
    ):
        return False
    stop_following(own_change=True)
    return True


def join_from_link(code: str) -> None:
    """``?follow=CODE``: follow that room from this session's first run."""
    st.session_state[FOLLOW] = rooms.normal_code(code)
    st.session_state.pop(APPLIED, None)


def apply_pending(current_page: str) -> str | None:
    """Before any widget is drawn: a follower's own change stops following; a new view from the
    room is applied. Returns the page to switch to, if the room shows another."""
    state = st.session_state
    code = state.get(FOLLOW)
    if not code:
        return None
    if _stop_on_own_change(current_page):
        return None
    applied = state.get(APPLIED)
    if PENDING not in state:
        try:
            version, shown = _snapshot(code)
        except RoomError as problem:
            state[PROBLEM] = str(problem)  # shown in the sidebar's room section
            stop_following()
            return None
        if applied is not None and applied[0] == version:
            return None
        state[PENDING] = (version, shown)
    version, shown = state.pop(PENDING)
    links.apply_view({k: v for k, v in shown.items() if k != PAGE})
    state[APPLIED] = (version, shown)
    target = shown.get(PAGE, current_page)
    return target if target != current_page else None


def stop_following(own_change: bool = False) -> None:
    state = st.session_state
    code = state.pop(FOLLOW, None)
    state.pop(APPLIED, None)
    state.pop(PENDING, None)
    if own_change and code:
        state[STOPPED] = code


@st.fragment(run_every=POLL_SECONDS)
def _poll(code: str) -> None:
    """A follower's sidebar, every two seconds: only this part runs, and only a dictionary is read."""
    state = st.session_state
    if state.get(FOLLOW) != code:
        return
    try:
        version, shown = _snapshot(code)
    except RoomError:
        st.rerun(scope="app")  # the room closed: the full run says so
    applied = state.get(APPLIED)
    if applied is None or applied[0] != version:
        state[PENDING] = (version, shown)
        st.rerun(scope="app")
    st.caption(f":material/sync: Following room {code}: you see what its leader shows.")


def sidebar() -> None:
    """The sidebar's workshop section: lead a room, join one, or follow one."""
    state = st.session_state
    # Once used in this session (led, joined, or refused with a message), the section stays open,
    # so that a code being corrected stays in sight.
    state[USED] = bool(state.get(USED) or state.get(LEAD) or state.get(FOLLOW) or state.get(PROBLEM))
    with st.sidebar.expander("Workshop room", expanded=state[USED] or bool(state.get(STOPPED))):
        if lead := state.get(LEAD):
            code = lead[0]
            st.markdown(f"You lead room **{code}**. Everyone who joins sees what you show.")
            st.code(join_link(code), language=None)
            st.caption("Share the link, or the code to type under Join. The link holds no secret.")
            st.button("Close the room", on_click=_close, key="room_close")
        elif code := state.get(FOLLOW):
            _poll(code)
            st.button("Stop following", on_click=stop_following, key="room_stop")
        else:
            if stopped := state.get(STOPPED):
                st.info(
                    f"You changed the view yourself, so you stopped following room {stopped}.",
                    icon=":material/sync_disabled:",
                )
                st.button("Follow again", on_click=_follow_again, key="room_again")
            st.text_input("Room code", key=settings.ROOM_CODE, placeholder="e.g. ABC234")
            # The code is read when Join is clicked: a code typed just before the click counts.
            st.button("Join", on_click=_join_typed, key="room_join")
            key = ""
            if config.presenter_key(st.secrets):
                key = st.text_input("Presenter key", type="password", key=settings.ROOM_PRESENTER_KEY)
            st.button("Lead a new room", on_click=_open, args=(key,), key="room_open")
        if problem := state.pop(PROBLEM, None):
            st.error(echo.plain(problem), icon=":material/error:")


def join_link(code: str) -> str:
    try:
        parts = urlsplit(st.context.url or "")
        base = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    except Exception:
        base = ""
    return f"{base}/?follow={code}"


def _snapshot(code: str) -> tuple[int, dict[str, str]]:
    snapshot = _rooms().look(code)
    return snapshot.version, snapshot.view


def _open(key: str) -> None:
    state = st.session_state
    required = config.presenter_key(st.secrets)
    if not rooms.may_lead(required, key):
        state[PROBLEM] = "That is not this server's presenter key: only presenters may lead a room."
        return
    try:
        state[LEAD] = _rooms().open({}, client=_client_address(), presenter=bool(required))
    except RoomError as problem:
        state[PROBLEM] = str(problem)
        return
    stop_following()
    state.pop(STOPPED, None)


def _close() -> None:
    if lead := st.session_state.pop(LEAD, None):
        _rooms().close(*lead)


def _client_address() -> str:
    """The reader's address, for the limit on opening rooms ("" where Streamlit knows none)."""
    try:
        return st.context.ip_address or ""
    except Exception:  # outside a browser session (headless tests)
        return ""


def _join_typed() -> None:
    _join(st.session_state.get(settings.ROOM_CODE) or "")


def _join(code: str) -> None:
    state = st.session_state
    try:
        state[FOLLOW] = rooms.normal_code(code)
        _rooms().look(state[FOLLOW])
    except RoomError as problem:
        state.pop(FOLLOW, None)
        state[PROBLEM] = str(problem)
        return
    state.pop(APPLIED, None)
    state.pop(STOPPED, None)


def _follow_again() -> None:
    code = st.session_state.pop(STOPPED, None)
    if code:
        _join(code)
