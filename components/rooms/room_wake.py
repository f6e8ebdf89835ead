"""Followers woken by the server itself: each server process watches every room its own
followers follow, once, and on a new version starts each of their runs at once
(components/frame/runs.py), with no round trip through their browsers. Thirty followers are thirty
idle sessions, not thirty queries. Likewise a leader's live tally of the room's answers reruns as
soon as a follower in the same process answers (the tally's own slower timer brings the answers
given on other replicas).

The browsers' push (components/rooms/room_stream.py, components/rooms/room_watch.py) stays as the way back
for whatever this misses: a follower whose session lives in another process, or one that
reconnected meanwhile. It wakes a page only if no run began there soon after the push.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from bert_embeddings.rooms import RoomError
from bert_embeddings.views import pages as registry
from components.frame import runs
from components.rooms import room_watch, roomstore

PAGE = "page"  # a view's page (its address); components/rooms/follow.py names it so too
_lock = threading.RLock()
_followers: dict[str, set[str]] = {}  # room code -> ids of this process's sessions following it
_watching: dict[str, Callable[[], None]] = {}  # room code -> stops watching it
# session -> (room, version) it was rerun for, and whether all its batch was asked for yet
Woken = tuple[str, int, threading.Event]
_woken: dict[str, Woken] = {}
_tallies: dict[str, dict[str, str]] = {}  # room code -> this process's leaders' sessions -> tally fragment
# the trace's name for what this server process does for all its followers at once
PROCESS = f"process-{os.getpid()}"
ASKING_SECONDS = 1.0  # how long a woken run waits at most for the rest of its batch to be asked for
Rerun = Callable[[list[str], "str | None", Callable[[], None]], list[str]]  # runs.rerun_sessions


def follow(code: str, rerun: Rerun = runs.rerun_sessions) -> None:
    """The session running this script follows room ``code``: it is woken on each new version."""
    if (session := runs.this_session()) is None:
        return
    with _lock:
        for code_followed in [c for c, ids in _followers.items() if session in ids and c != code]:
            _forget(code_followed, session)
        _followers.setdefault(code, set()).add(session)
        if code in _watching:
            return
        _watching[code] = lambda: None  # (reserved: a watcher told at once must find it)
    try:
        stop = roomstore.store().watch(code, lambda version: _wake(code, version, rerun))
    except RoomError:  # the store is away: the next run of the follower's section tries again
        with _lock:
            _watching.pop(code, None)
        return
    with _lock:
        if code in _watching:
            _watching[code] = stop
        else:  # the room closed meanwhile
            stop()


def leave() -> None:
    """The session running this script follows no room any more."""
    if (session := runs.this_session()) is None:
        return
    with _lock:
        for code in [c for c, ids in _followers.items() if session in ids]:
            _forget(code, session)


def begun() -> Woken | None:
    """Called first in every run: the server's mark if this process started the run for a room's
    new view (None for a run the follower's own step started). For bench/follow, such a run writes
    down when it began. The mark stays until ``settled``: a woken run that another request
    replaces before it applied the view (the next wake-up, asked for while the first was starting)
    hands it on to the run that replaces it, which would otherwise look like the follower's own
    step onto another page."""
    if (session := runs.this_session()) is None:
        return None
    with _lock:
        woken = _woken.get(session)
    if woken is None:
        return None
    code, version, asked = woken
    room_watch.trace("begun", code, version)
    # The runs woken together start together: each waits (holding no CPU) until the server has
    # asked for all of them, rather than drawing its page while the others are still being
    # asked for. With thirty followers on two cores, asking for all thirty took 0.16 to 0.46 s
    # while the first ones ran, and mostly 0.03 to 0.09 s this way.
    asked.wait(ASKING_SECONDS)
    return woken


def settled(woken: Woken | None) -> None:
    """The run that ``begun`` marked has applied the room's view: the session's next run is its
    reader's own again (unless a newer wake-up marked it meanwhile)."""
    if woken is None or (session := runs.this_session()) is None:
        return
    with _lock:
        if _woken.get(session) is woken:
            del _woken[session]


def watch_answers(code: str) -> None:
    """The fragment running this (a leader's live tally of room ``code``) reruns as soon as a
    follower whose session lives in this process answers (``answered``)."""
    if (session := runs.this_session()) is None or (fragment := runs.this_fragment()) is None:
        return
    with _lock:
        for watched in _tallies.values():
            watched.pop(session, None)
        _tallies.setdefault(code, {})[session] = fragment


def answered(code: str) -> None:
    """A follower in this process answered in room ``code``: every live tally of it here reruns
    (sessions gone are forgotten)."""
    with _lock:
        watching = dict(_tallies.get(code, {}))
    if not watching:
        return
    gone = runs.rerun_fragments(watching)
    with _lock:
        for session in gone:
            _tallies.get(code, {}).pop(session, None)
        if not _tallies.get(code, True):
            _tallies.pop(code, None)


def followers(code: str) -> set[str]:
    """The sessions of this process that follow ``code`` (for tests)."""
    with _lock:
        return set(_followers.get(code, ()))


def _wake(code: str, version: int, rerun: Rerun) -> None:
    """A new version of ``code`` (0: it closed): every follower here reruns, on the room's page;
    sessions gone are forgotten, and so is a closed room."""
    room_watch.trace("heard", code, version, session=PROCESS)
    with _lock:
        sessions = list(_followers.get(code, ()))
    try:
        page = roomstore.store().look(code).view.get(PAGE) if version else None
        page = registry.current(page) if page else page
    except RoomError:  # it closed meanwhile: the run on the page it is on says so
        page = None
    asked = threading.Event()
    with _lock:
        _woken.update((session, (code, version, asked)) for session in sessions)

    def all_asked() -> None:
        room_watch.trace("asked", code, version, session=PROCESS)
        asked.set()

    gone = rerun(sessions, page, all_asked)
    with _lock:
        for session in gone:
            _forget(code, session)
        if version == 0:
            _followers.pop(code, None)
            _watching.pop(code, lambda: None)()


def _forget(code: str, session: str) -> None:
    ids = _followers.get(code, set())
    ids.discard(session)
    _woken.pop(session, None)
    if not ids:
        _followers.pop(code, None)
        _watching.pop(code, lambda: None)()
