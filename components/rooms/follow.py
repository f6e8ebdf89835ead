"""Follow the presenter: a room whose followers see the page and settings its leader shows.

A view is what a shareable link holds (``links.view_params``), without a link's length limit.
The leader's session publishes its view to the room on every run (``publish``); the server
reruns each follower's session at once (components/rooms/room_wake.py), and the run's first lines apply
the new view exactly as a link (``apply_pending``). The way back for a missed run: each
follower's sidebar holds a browser component (components/rooms/room_watch.py) with a stream on the
push route (components/rooms/room_stream.py) and a slow check; it wakes the room fragment, which keeps
a newer view as *pending* and reruns the app. A follower who changes anything (a setting, a page,
a step of the lesson) stops following, with a way back. How a session stands with a room, and what
the room cannot carry, is said at the top of the page (``notice``): a phone folds the sidebar away.

A run that applies a view is never taken for the follower's own change (tests/rooms/test_follow_browser.py
found how followers were lost): a view counts as shown only once a full run drew it (``drawn``,
via components/frame/runs.py); a run the server started (or its replacement) re-applies the view.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st

from bert_embeddings import rooms
from bert_embeddings.rooms import NoRoomsNowError, RoomError, RoomsUnavailableError
from bert_embeddings.views import pages as registry
from components.frame import runs
from components.lessons import player
from components.parts import echo
from components.rooms import room_wake, room_watch, roomstore, voter
from components.view_state import links, session_entries

# How this session stands with rooms: the fields of its session entry (session_entries.ROOM).
LEAD, FOLLOW = "lead", "follow"  # (code, token) of the room led; code followed
APPLIED, PENDING = "applied", "pending"  # (version, view) last applied; one fetched for the next run
STOPPED = "stopped"  # the code of a room the follower stepped away from
DRAWN = "drawn"  # the version of the last view a full run drew to its end
DRAWN_BEFORE = "drawn_before"  # (what DRAWN was before this run's page began)
PROBLEM = "problem"  # a message for the room section, shown once
ENDED = "ended"  # why this session no longer follows its room (closed, never open), until dismissed
SAID = "said"  # what the top of the page said in the last whole run (see publish)
FORGET = "forget"  # the room this browser led closed: its tab and cookie forget it
TAKEN = "taken"  # the view of a room its leader takes back, for the next run to apply
PAGE_SHOWN = "page"  # the page this session's last full run showed
USED = "used"  # the section was used in this session: it stays open
SAVED = "saved"  # (code, token) of a room this browser leads, from its cookie
RESUMED = "resumed"  # a room taken back in this run, said once in the section
PAGE = room_wake.PAGE
DIFFERS = "differs"  # what the leader's view could not carry, in words (not a setting)
REVEALED = "revealed"  # the question whose answer the leader revealed last (components/rooms/asking.py)
JUST_REVEALED = "just_revealed"  # a reveal that the leader's next whole run tells the room
NOT_SETTINGS = (PAGE, DIFFERS, REVEALED)  # a room's view's fields that are not settings
CHECK_SECONDS, FALLBACK_SECONDS, GRACE_SECONDS = 15, 5, 2  # GRACE: see room_watch


def mine() -> dict:
    """This session's room fields (above)."""
    return session_entries.entry(session_entries.ROOM)


def store() -> rooms.RoomStore:
    return roomstore.store()


def view(page: str) -> dict[str, str]:
    """What this session shows, as a room carries it (no link length limit), with the lesson it
    plays and its step (a lesson that is not built in travels whole, in the room's store)."""
    return {PAGE: page, **links.view_params(page, text_limit=None), **player.view_fields(whole=True)}


def _room_view(page: str) -> dict[str, str]:
    """The leader's view for the room, with what it could not carry named in words."""
    left_out = links.left_out(page)
    revealed = mine().get(REVEALED)  # (a new reveal changes the view: the server reruns every follower)
    return {
        **view(page),
        **({DIFFERS: "; ".join(left_out)} if left_out else {}),
        **({REVEALED: revealed} if revealed else {}),
    }


def _setting_part(shown: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in shown.items() if k not in (DIFFERS, REVEALED)}


def publish(page: str) -> None:
    """Write the view into the address bar and, for a room's leader, into the room. A follower
    whose view is no longer the room's (a change of their own, e.g. in a part of the page that
    reruns alone) stops following."""
    state = mine()
    state[PAGE_SHOWN] = page
    _stop_on_own_change(page)
    extra = {links.FOLLOW: state[FOLLOW]} if state.get(FOLLOW) else {}
    links.publish(page, {**extra, **player.view_fields(whole=False)})
    # What the frame says of the lesson and the room (the bar's way back to the step's view,
    # whether this session follows) is drawn by the whole app's run only: a part of the page that
    # reran alone (a fragment, which calls this) and changed it reruns the app, to say so at once.
    said = (state.get(FOLLOW), state.get(STOPPED), player.differs(page))
    if runs.fragment_alone() and said != state.get(SAID):
        st.rerun(scope="app")
    state[SAID] = said
    if lead := state.get(LEAD):
        try:
            when, version = time.time(), store().show(*lead, _room_view(page))
        except RoomsUnavailableError as problem:  # the room waits; the leader keeps it
            st.sidebar.warning(echo.plain(problem), icon=":material/cloud_off:")
            return
        except RoomError as problem:
            state.pop(LEAD, None)
            state[FORGET] = True
            st.sidebar.warning(echo.plain(problem), icon=":material/groups:")
            return
        room_watch.trace("shown", lead[0], version, when)  # (bench.follow reads each version's first)


def _unfinished() -> bool:
    """Whether the view last applied was never drawn to the end (another run replaced the one
    that applied it): it is applied again, and what the session shows is not the reader's own."""
    applied = mine().get(APPLIED)
    return applied is not None and mine().get(DRAWN) != applied[0]


def _shows_applied(page: str) -> bool:
    """Whether the session's settings on ``page`` are the view last applied (False if none)."""
    applied = mine().get(APPLIED)
    return bool(applied) and links.same_view(view(page), _setting_part(applied[1]))


def _stale() -> bool:
    """Whether the session's settings differ from the view last applied."""
    page = mine().get(PAGE_SHOWN)
    return bool(mine().get(APPLIED) and page) and not _shows_applied(page)


def drawn() -> None:
    """The app's run is about to draw its page (app.py calls this through components/frame/runs.py)."""
    state = mine()
    state[DRAWN_BEFORE] = state.get(DRAWN)
    if applied := state.get(APPLIED):
        state[DRAWN] = applied[0]


def replaced() -> None:
    """Another run replaced this one before its page was drawn to the end."""
    mine()[DRAWN] = mine().pop(DRAWN_BEFORE, None)


def _stop_on_own_change(page: str) -> bool:
    """A follower whose session no longer shows the view last applied (and has no newer one
    waiting, and whose last view was drawn) changed it themselves: they stop following.
    Returns whether they did."""
    state = mine()
    applied = state.get(APPLIED)
    if not state.get(FOLLOW) or applied is None or PENDING in state or _unfinished() or _shows_applied(page):
        return False
    stop_following(own_change=True)
    return True


def join_from_link(code: str) -> None:
    """``?follow=CODE``: follow that room from this session's first run."""
    mine()[FOLLOW] = rooms.normal_code(code)
    for key in (APPLIED, STOPPED, ENDED):
        mine().pop(key, None)


def apply_pending(current_page: str, woken: bool = False) -> str | None:
    """Before any widget is drawn: a follower's own change stops following; a new view from the
    room is applied, and so is the last one again if no run drew it to the end. Returns the page
    to switch to, if the room shows another. A run the server started for a new view (``woken``)
    is never the follower's own change (it may start on a page or with values a view behind)."""
    state = mine()
    if (taken := state.pop(TAKEN, None)) is not None:  # a leader takes the room back, view and all
        links.apply_view({k: v for k, v in taken.items() if k not in NOT_SETTINGS})
        player.take_from_view(taken, apply=False)
        page = registry.current(taken.get(PAGE, current_page))
        return page if page != current_page else None
    code = state.get(FOLLOW)
    woken = woken or _left_behind(code, current_page)
    if not code or (not woken and _stop_on_own_change(current_page)):
        return None
    applied = state.get(APPLIED)
    if PENDING not in state:
        try:
            version, shown = _snapshot(code)
        except RoomsUnavailableError:  # still following (the room section says so), unless never joined
            if applied is None:
                _not_joined(code)
            return None
        except RoomError as problem:
            stop_following()
            state[ENDED] = str(problem)  # closed, or never open: said at the top of the page
            return None
        kept = not woken or _shows_applied(current_page)
        if applied is not None and applied[0] == version and not _unfinished() and kept:
            return None
        state[PENDING] = (version, shown)
    version, shown = state.pop(PENDING)
    links.apply_view({k: v for k, v in shown.items() if k not in NOT_SETTINGS})
    player.take_from_view(shown, apply=False)  # the room's lesson, at the room's step
    state[APPLIED] = (version, shown)
    room_watch.trace("applied", code, version)
    target = registry.current(shown.get(PAGE, current_page))  # (an old room's view may say /pca)
    return target if target != current_page else None


def _left_behind(code: str | None, current_page: str) -> bool:
    """Whether the browser asked for this run on a page the room has left, from that page's own
    address (which still follows the room): the browser reran the page it shows without having
    seen the room move on (back from a lost connection, a chart's placeholder asking meanwhile).
    A step of the reader's to another page has no such address (Streamlit's navigation keeps none
    of the page's parameters), nor does one back through the history count."""
    applied = mine().get(APPLIED)
    if not code or applied is None or registry.current(applied[1].get(PAGE, current_page)) == current_page:
        return False
    try:
        asked = rooms.normal_code(st.query_params.get(links.FOLLOW, ""))
    except RoomError:  # no room's code: not the room's address
        return False
    return not runs.from_the_history() and asked == code


def follows() -> bool:
    """Whether this session follows a room (the room's view, not the session's address, says
    which step it shows)."""
    return bool(mine().get(FOLLOW))


def leading() -> bool:
    """Whether this session leads a room (its lesson bar then shows the presenter's notes)."""
    return bool(mine().get(LEAD))


def stop_following(own_change: bool = False) -> None:
    """This session follows no room any more: with ``own_change`` (a step of the follower's own),
    the top of the page offers to follow again."""
    state = mine()
    code = state.pop(FOLLOW, None)
    room_wake.leave()
    for key in (APPLIED, PENDING, DRAWN, STOPPED, ENDED):
        state.pop(key, None)
    if own_change and code:
        state[STOPPED] = code


def _not_joined(code: str) -> None:
    """A room that could not be joined because the store is away: there is nothing to pause yet."""
    stop_following()
    mine()[ENDED] = str(NoRoomsNowError(f"Room {code} cannot be joined"))


def wake_up() -> None:
    """The component's wake-up: the fragment that holds it reruns, and decides."""


# Streamlit's browser reruns a page that reconnects (to a restarted or another replica) only if it
# holds a fragment timer: this hourly one, doing nothing else, makes the new session run and join
# the room again from the page's address (or, for a leader, take it back).
RECONNECT_TIMER = 3600


@st.fragment(run_every=RECONNECT_TIMER)
def following(code: str) -> None:
    """A follower's room section. It reruns alone when the component wakes it (a push, or the
    periodic check): a dictionary lookup, and a full run only if the view moved on or the last
    one was never drawn to the end."""
    state = mine()
    mounted = room_watch.mount(key="room_watch", data=_watch_data(code), on_wake_change=wake_up, height=0)
    woken = getattr(mounted, "wake", None)
    if state.get(FOLLOW) != code:
        return
    room_wake.follow(code)
    voter.here(code)
    if woken:
        room_watch.trace("woken", code, 0)
    try:
        version, shown = _snapshot(code)
    except RoomsUnavailableError as problem:
        if state.get(APPLIED) is None:  # never joined: nothing to pause
            _not_joined(code)
            st.rerun(scope="app")
        st.warning(echo.plain(problem), icon=":material/cloud_off:")
        return
    except RoomError:
        st.rerun(scope="app")  # the room closed: the full run says so
    applied = state.get(APPLIED)
    if applied is None or applied[0] != version:
        state[PENDING] = (version, shown)
        if woken:
            room_watch.trace("fetched", code, version)
        st.rerun(scope="app")
    # A wake-up's run is never the follower's own change: values that differ from the view are
    # older ones the browser sent, so the view is applied again (a full run is drawing it now).
    if woken and (str(woken).startswith("blank") or _unfinished() or _stale()):
        state[DRAWN] = None
        st.rerun(scope="app")
    st.caption(f":material/sync: Following room {code}: you see what its leader shows.")


def _watch_data(code: str) -> dict:
    return {
        "cookie": voter.cookie(),  # (this browser's answers count once, whatever its tabs)
        "stream": f"rooms/{code}/events",
        "every_ms": CHECK_SECONDS * 1000,
        "fallback_ms": FALLBACK_SECONDS * 1000,
        "grace_ms": GRACE_SECONDS * 1000,
    }


def _snapshot(code: str) -> tuple[int, dict[str, str]]:
    return (snapshot := store().look(code)).version, snapshot.view


def join(code: str, told: str = PROBLEM) -> None:
    """Follow room ``code`` from the next run, which applies its view; why it cannot, under
    ``told`` (the sidebar's room section, or the top of the page)."""
    state = mine()
    try:
        state[FOLLOW] = rooms.normal_code(code)
        store().look(state[FOLLOW])
    except RoomsUnavailableError:
        state.pop(FOLLOW, None)
        state[told] = str(NoRoomsNowError(f"Room {code.strip()[:20]} cannot be joined"))
        return
    except RoomError as problem:
        state.pop(FOLLOW, None)
        state[told] = str(problem)
        return
    for key in (APPLIED, STOPPED, ENDED):
        state.pop(key, None)


def follow_again() -> None:
    """on_click of "Follow again" (and of the lesson bar's way back, for a follower who stepped
    away): the room's current view, page, lesson and step, from the next run."""
    if code := mine().pop(STOPPED, None):
        join(code, told=ENDED)


def way_back() -> Callable[[], None] | None:
    """For the lesson bar of a follower who stepped away from a room: the way back into it."""
    return follow_again if mine().get(STOPPED) else None


def notice() -> None:
    """At the top of the page, above the lesson bar, how this session stands with a room it
    follows: following (and what the room cannot carry), stepped away with the one tap back, or
    why it follows no more: a phone folds the sidebar, and the room section in it, away."""
    state = mine()
    if code := state.get(FOLLOW):
        now = player.playing()
        where = f"'s lesson, step {now.step + 1}" if now is not None else ""
        st.caption(f":material/sync: Following room {code}{where}: you see what its leader shows.")
        if differs := (state.get(APPLIED) or (0, {}))[1].get(DIFFERS):
            told = echo.plain(f"Except what the room cannot carry: {differs}.")
            st.warning(told, icon=":material/sync_problem:")
    elif stopped := state.get(STOPPED):
        with st.container(horizontal=True, vertical_alignment="center", key="room_notice"):
            told = f"You stepped away from room {stopped}: its leader's changes no longer reach you."
            st.info(told, icon=":material/sync_disabled:")
            st.button("Follow again", icon=":material/sync:", on_click=follow_again, key="room_again")
    elif ended := state.get(ENDED):
        with st.container(horizontal=True, vertical_alignment="center", key="room_notice"):
            st.warning(echo.plain(ended), icon=":material/groups:")
            st.button(
                "Dismiss", icon=":material/close:", on_click=state.pop, args=(ENDED, None), key="room_dismiss"
            )
