"""Workshop rooms: one person leads, everyone who joins sees what the leader shows.

A room holds one *view*: the page and the settings a shareable link would carry, as the same
text (components/links.py writes it and checks it on the way in, exactly as for a link). Only
the session that opened the room can change its view: it holds the room's token, a secret
that never appears in a link. Followers ask for the view by the room's short code and a
version number, which is cheap: a dictionary lookup under a lock, no model, no figures.

Rooms live in the server process (one process serves a Community Cloud app). They close
after ``IDLE_HOURS`` without a change, and a server keeps at most ``MOST_ROOMS`` open.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field

from bert_embeddings.errors import ExplorerError

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed by a room
CODE_LENGTH = 6
IDLE_HOURS = 4.0
MOST_ROOMS = 50


class RoomError(ExplorerError):
    """A room that cannot be opened, joined or led: the message says why."""


@dataclass
class Room:
    code: str
    token: str
    view: dict[str, str] = field(default_factory=dict)  # "page" and the link's parameters
    version: int = 0
    changed: float = field(default_factory=time.time)


def normal_code(text: str) -> str:
    """A code as typed ('abc 234', ' ABC-234 ') in its one written form, or a message."""
    code = "".join(c for c in str(text).upper() if c.isalnum())
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        raise RoomError(f"A room code is {CODE_LENGTH} letters and digits (no 0, O, 1 or I), such as ABC234.")
    return code


class Rooms:
    """Every open room of this server, safe to use from every session's thread."""

    def __init__(self, most: int = MOST_ROOMS, idle_hours: float = IDLE_HOURS, clock=time.time) -> None:
        self._rooms: dict[str, Room] = {}
        self._lock = threading.Lock()
        self.most, self.idle_seconds, self.clock = most, idle_hours * 3600, clock

    def _expire(self) -> None:
        now = self.clock()
        for code in [c for c, r in self._rooms.items() if now - r.changed > self.idle_seconds]:
            del self._rooms[code]

    def open(self, view: dict[str, str]) -> tuple[str, str]:
        """A new room showing ``view``: its code (to share) and its token (for the leader only)."""
        with self._lock:
            self._expire()
            if len(self._rooms) >= self.most:
                raise RoomError(
                    f"This server already has {self.most} open rooms, its limit; one closes after "
                    f"{IDLE_HOURS:g} hours without a change. Try again later, or join an open room."
                )
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            while code in self._rooms:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            token = secrets.token_urlsafe(24)
            self._rooms[code] = Room(code, token, dict(view), 1, self.clock())
            return code, token

    def show(self, code: str, token: str, view: dict[str, str]) -> int:
        """The leader's new view (a no-op if it is the same); returns the room's version."""
        with self._lock:
            self._expire()
            room = self._rooms.get(code)
            if room is None:
                raise RoomError(f"Room {code} has closed (after {IDLE_HOURS:g} hours without a change).")
            if not hmac.compare_digest(room.token, token):
                raise RoomError(f"Only the person who opened room {code} can lead it.")
            if view != room.view:
                room.view, room.version = dict(view), room.version + 1
            room.changed = self.clock()
            return room.version

    def look(self, code: str) -> tuple[int, dict[str, str]]:
        """A follower's question: the room's version and view, or a message if there is no such room."""
        with self._lock:
            self._expire()
            room = self._rooms.get(code)
            if room is None:
                raise RoomError(f"There is no open room {code}: check the code, or ask for a new one.")
            return room.version, dict(room.view)

    def close(self, code: str, token: str) -> None:
        with self._lock:
            room = self._rooms.get(code)
            if room is not None and hmac.compare_digest(room.token, token):
                del self._rooms[code]

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._rooms)


def may_lead(required_key: str, given: str) -> bool:
    """Whether a person may open a room: always, unless the host set a presenter key."""
    return not required_key or hmac.compare_digest(required_key.encode(), str(given).encode())
