"""This browser in a room: an id the server makes once per browser, so that a follower's answer
counts once however many times they reload or however many tabs they open, and so that the leader
can count who follows now (``present``).

The id is random (32 hex digits) and says nothing about the person. The follower's room component
(components/rooms/room_watch.py) keeps it in a cookie; every later session of that browser reads it
back from the cookie (``st.context.cookies``) on its first run.
"""

from __future__ import annotations

import secrets
import time

from bert_embeddings import rooms
from bert_embeddings.rooms import RoomError, room_answers
from components.frame import runs
from components.parts import cookie as browser_cookie
from components.rooms import roomstore
from components.view_state import session_entries

COOKIE = "bert_explorer_voter"
# The room entry's fields: this browser's id; when it last said "here"; the leader's last count
VOTER, SEEN, COUNTED = "voter", "seen", "counted"
HERE_EVERY_SECONDS = 20.0  # a follower's section says "here" at most this often (the store keeps 90 s)
COUNT_EVERY_SECONDS = 5.0  # a leader's screen counts who follows at most this often between whole runs


def voter() -> str:
    """This browser's id: the cookie's, else one made now (which the cookie then keeps)."""
    entry = session_entries.entry(session_entries.ROOM)
    if VOTER not in entry:
        kept = browser_cookie.read(COOKIE)
        try:
            room_answers.check_voter(kept)
        except RoomError:
            kept = secrets.token_hex(16)
        entry[VOTER] = kept
    return entry[VOTER]


def cookie() -> str:
    """What the room component writes, so that later sessions of this browser are the same voter."""
    return f"{COOKIE}={voter()}; path=/; max-age={int(rooms.IDLE_HOURS * 3600)}; SameSite=Strict"


def here(code: str) -> None:
    """A follower's section ran: tell the room this browser is in it (at most every 20 s)."""
    entry = session_entries.entry(session_entries.ROOM)
    said_in, said_at = entry.get(SEEN, (None, 0.0))
    if said_in == code and time.monotonic() - said_at < HERE_EVERY_SECONDS:
        return
    try:
        roomstore.store().here(code, voter())
    except RoomError:  # (the section says why the room cannot be reached)
        return
    entry[SEEN] = (code, time.monotonic())


def present(code: str) -> int | None:
    """How many follow room ``code`` now (None while the store is away): counted afresh by a
    whole run, and at most every 5 s by the reruns of a part of the page alone (the leader's
    live tally, the room section's count)."""
    entry = session_entries.entry(session_entries.ROOM)
    kept = entry.get(COUNTED)
    recent = kept is not None and kept[0] == code and time.monotonic() - kept[2] < COUNT_EVERY_SECONDS
    if recent and runs.fragment_alone():
        return kept[1]
    try:
        count = roomstore.store().present(code)
    except RoomError:
        return None
    entry[COUNTED] = (code, count, time.monotonic())
    return count
