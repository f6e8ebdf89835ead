"""Leading a workshop room: opening and closing it, the leader's beat, and taking it back.

The leader's session publishes its view on every run (components/rooms/follow.py, ``publish``). A
reload keeps the room: the tab keeps the room's code and token in its session storage and the
browser in a cookie (components/rooms/room_watch.py). A leader who takes the room back (the same tab
reloaded, or another tab's "Lead room ... again") takes the room's view from the store with it,
page and sentence included: a reloaded tab starts from its address, which leaves out a long
sentence, and publishing that would change every follower's screen.
"""

from __future__ import annotations

import streamlit as st

from bert_embeddings import config, rooms
from bert_embeddings.figures import settings
from bert_embeddings.rooms import NoRoomsNowError, RoomError, RoomsUnavailableError, forwarded
from components.frame import host_secrets, runs
from components.parts import cookie, echo
from components.rooms import follow, room_watch, voter
from components.rooms.follow import FOLLOW, FORGET, LEAD, PROBLEM, RESUMED, REVEALED, SAVED, TAKEN, USED
from components.view_state import links

COOKIE = "bert_explorer_lead"  # the room a browser leads: CODE.TOKEN, for a reload
BEAT_SECONDS = 60
PRESENT_EVERY_SECONDS = 10  # how often the leader's section counts who follows


def resume_leading() -> None:
    """A session's first run: where this browser's cookie names a room it leads, remember it, so
    that the room section offers to lead it again (a reloaded tab takes it back by itself, from
    its own session storage; another tab must ask, so that a preview tab never takes over)."""
    state = follow.mine()
    if state.get(LEAD) or state.get(FOLLOW):
        return
    if (room := _led_room(_cookie())) is not None:
        state[SAVED] = room


def _cookie() -> str:
    return cookie.read(COOKIE)


def _led_room(saved: str) -> tuple[str, str] | None:
    """(code, token) of an open room that ``saved`` ("CODE.TOKEN") leads, else None."""
    code, _, token = str(saved)[:100].partition(".")
    try:
        code = rooms.normal_code(code)
        return (code, token) if token and follow.store().leads(code, token) else None
    except RoomError:
        return None


def take_back(room: tuple[str, str]) -> None:
    """Lead ``room`` again, with the view it shows: the next run applies it before any widget is
    drawn (follow.apply_pending), and its page is shown."""
    state = follow.mine()
    try:
        state[TAKEN] = follow.store().look(room[0]).view
        state[REVEALED] = state[TAKEN].get(REVEALED)
    except RoomError:  # (it closed or the store went away meanwhile: the beat says so)
        state.pop(TAKEN, None)
    state[LEAD] = room
    state[RESUMED] = state[USED] = True
    state.pop(SAVED, None)
    follow.stop_following()


@st.fragment(run_every=follow.RECONNECT_TIMER)
def _leading(code: str, token: str) -> None:
    """The leader's room section: the component beats every minute, and keeps the room in a
    cookie for a reload (the secret stays in the leader's own browser, never in a link)."""
    kept = f"{COOKIE}={code}.{token}; path=/; max-age={int(rooms.IDLE_HOURS * 3600)}; SameSite=Strict"
    data = {
        "cookie": kept,
        "keep": f"{code}.{token}",
        "name": COOKIE,
        "every_ms": BEAT_SECONDS * 1000,
        "fallback_ms": BEAT_SECONDS * 1000,
    }
    room_watch.mount(key="room_lead", data=data, on_wake_change=follow.wake_up, height=0)
    try:
        follow.store().beat(code, token)
    except RoomsUnavailableError as problem:
        st.warning(echo.plain(problem), icon=":material/cloud_off:")
    except RoomError as problem:
        follow.mine().pop(LEAD, None)
        follow.mine()[PROBLEM] = str(problem)
        st.rerun(scope="app")


@st.fragment(run_every=PRESENT_EVERY_SECONDS)
def _present(code: str) -> None:
    """How many follow now: browsers whose room section said so within the last 90 s."""
    if (here := voter.present(code)) is None:  # (the beat says why)
        return
    st.caption(f":material/groups: {here:,} follow{'s' if here == 1 else ''} now.")


def leader_section(code: str, token: str) -> None:
    if follow.mine().pop(RESUMED, None):
        st.success(f"You lead room {code} again.", icon=":material/groups:")
    st.markdown(f"You lead room **{code}**. Everyone who joins sees what you show.")
    st.code(links.follow_link(code), language=None, wrap_lines=True)  # (no scrolling box)
    st.caption("Share the link, or the code to type under Join. The link holds no secret.")
    _leading(code, token)
    _present(code)
    st.button("Close the room", on_click=_close, key="room_close")


def taking_back() -> None:
    """In the room section of a session that leads no room: a reloaded tab that led one takes it
    back by itself; a tab whose browser leads one offers it; a closed room is forgotten."""
    state = follow.mine()
    if state.pop(FORGET, None):  # the room this browser led closed: the tab and cookie forget it
        forget = {"cookie": f"{COOKIE}=; path=/; max-age=0", "keep": "", "name": COOKIE}
        room_watch.mount(key="room_forget", data=forget, height=0)
    else:  # a reloaded tab that led a room takes it back
        data = {"resume": True, "name": COOKIE}
        resumed = room_watch.mount(key="room_resume", data=data, on_resume_change=follow.wake_up, height=0)
        if (kept := getattr(resumed, "resume", None)) and (room := _led_room(kept)) is not None:
            take_back(room)
            st.rerun(scope="app")
    if saved := state.get(SAVED):
        st.button(f"Lead room {saved[0]} again", on_click=take_back, args=(saved,), key="room_take_back")


def new_room_button() -> None:
    key = ""
    if config.presenter_key(host_secrets.secrets()):
        key = st.text_input(
            "Presenter key", type="password", key=settings.ROOM_PRESENTER_KEY, persist_state="session"
        )
    st.button("Lead a new room", on_click=_open, args=(key,), key="room_open")


def _open(key: str) -> None:
    state = follow.mine()
    required = config.presenter_key(host_secrets.secrets())
    if not rooms.may_lead(required, key):
        state[PROBLEM] = "That is not this server's presenter key: only presenters may lead a room."
        return
    state.pop(REVEALED, None)  # (a new room: nothing revealed in it)
    try:
        state[LEAD] = follow.store().open({}, client=client_address(), presenter=bool(required))
    except RoomsUnavailableError:
        state[PROBLEM] = str(NoRoomsNowError("A room cannot be opened"))
        return
    except RoomError as problem:
        state[PROBLEM] = str(problem)
        return
    follow.stop_following()


def _close() -> None:
    if lead := follow.mine().pop(LEAD, None):
        follow.mine()[FORGET] = True
        try:
            follow.store().close(*lead)
        except RoomError as problem:  # (the room then closes by itself after its idle hours)
            follow.mine()[PROBLEM] = str(problem)


def client_address() -> str:
    """The reader's address, for the limit on opening rooms: the connection's own peer, or behind
    a proxy the host trusts (BERT_EXPLORER_TRUSTED_PROXIES), the address it forwards for. ""
    where the server knows no connection (tests without a browser)."""
    try:
        headers = st.context.headers.get_all("X-Forwarded-For")
    except Exception:  # outside a browser session
        headers = []
    return forwarded.client(runs.peer_address(), headers, config.trusted_proxies())
