"""Followers woken by the server itself: each server process watches every room its own
followers follow, once, and on a new version starts each of their runs at once
(components/runs.py), with no round trip through their browsers. Thirty followers are thirty
idle sessions, not thirty queries.

The browsers' push (components/room_stream.py, components/room_watch.py) stays as the way back
for whatever this misses: a follower whose session lives in another process, or one that
reconnected meanwhile. It wakes a page only if no run began there soon after the push.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from bert_embeddings.rooms import RoomError
from components import room_watch, roomstore, runs

PAGE = "page"  # a view's page (its address); components/follow.py names it so too
_lock = threading.RLock()
_followers: dict[str, set[str]] = {}  # room code -> ids of this process's sessions following it
_watching: dict[str, Callable[[], None]] = {}  # room code -> stops watching it
_woken: dict[str, tuple[str, int]] = {}  # session -> (room, version) it was rerun for, until that run begins


def follow(code: str, rerun: Callable[[str, str | None], bool] = runs.rerun_session) -> None:
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
    stop = roomstore.store().watch(code, lambda version: _wake(code, version, rerun))
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


def begun() -> bool:
    """Called first in every run: whether this process started the run for a room's new view
    (a run that the follower's own step started is not). For bench/follow, such a run writes down
    when it began."""
    if (session := runs.this_session()) is None:
        return False
    with _lock:
        woken = _woken.pop(session, None)
    if woken is not None:
        room_watch.trace("begun", *woken)
    return woken is not None


def followers(code: str) -> set[str]:
    """The sessions of this process that follow ``code`` (for tests)."""
    with _lock:
        return set(_followers.get(code, ()))


def _wake(code: str, version: int, rerun: Callable[[str, str | None], bool]) -> None:
    """A new version of ``code`` (0: it closed): every follower here reruns, on the room's page;
    sessions gone are forgotten, and so is a closed room."""
    with _lock:
        sessions = list(_followers.get(code, ()))
    try:
        page = roomstore.store().look(code).view.get(PAGE) if version else None
    except RoomError:  # it closed meanwhile: the run on the page it is on says so
        page = None
    with _lock:
        _woken.update((session, (code, version)) for session in sessions)
    gone = [session for session in sessions if not rerun(session, page)]
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
