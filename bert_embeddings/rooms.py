"""Workshop rooms: one person leads, everyone who joins sees what the leader shows.

A room holds one *view*: the page and every setting that decides what a page shows, as text
(components/links.py writes it and checks it on the way in, exactly as for a link; a room is
not limited by a URL's length, so it also carries a long sentence). Only the leader can
change the view: they hold the room's token, a secret that never appears in a follow link.
Followers read the view by the room's short code; each change raises its version.

The registry is one small interface, ``RoomStore``: open, show, look, close, ``leads``
(whether a token leads a room) and ``watch`` (a callback on every change, so that waiting
followers can be woken by a push instead of asking). ``MemoryRooms`` keeps rooms in the
server process; another backend (a file database, Redis) can take its place without the
pages knowing.

The limits, so that nobody can take the rooms from a presenter:
- a room closes after ``IDLE_HOURS`` without a change;
- a server keeps at most ``MOST_ROOMS`` open, of which ``RESERVED_FOR_PRESENTERS`` only
  holders of the host's presenter key may take, if the host set one;
- one client address opens at most ``OPENS_PER_CLIENT`` rooms in ``OPENS_WINDOW_MINUTES``.
A closed room is remembered for a day, so that its followers read why it closed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

from bert_embeddings.errors import ExplorerError

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed by a room
CODE_LENGTH = 6
IDLE_HOURS = 4.0
MOST_ROOMS = 50
RESERVED_FOR_PRESENTERS = 10  # of MOST_ROOMS, when the host set a presenter key
OPENS_PER_CLIENT = 5
OPENS_WINDOW_MINUTES = 10.0
REMEMBER_CLOSED_HOURS = 24.0
# A leader's page says it is still there every minute; a room whose leader has been silent this
# long (a closed tab, a lost laptop) gives its place to a new room when the server is full.
LEADER_AWAY_MINUTES = 10.0

Watcher = Callable[[int], None]  # called with the room's new version (0 once it has closed)


class RoomError(ExplorerError):
    """A room that cannot be opened, joined or led: the message says why."""


class RoomClosedError(RoomError):
    """The room existed and has closed: by its leader, or for idleness."""


@dataclass(frozen=True)
class Snapshot:
    """What a follower reads: the room's version and view (a copy of their own)."""

    version: int
    view: dict[str, str]


def normal_code(text: str) -> str:
    """A code as typed ('abc 234', ' ABC-234 ') in its one written form, or a message."""
    code = "".join(c for c in str(text).upper() if c.isalnum())
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        raise RoomError(f"A room code is {CODE_LENGTH} letters and digits (no 0, O, 1 or I), such as ABC234.")
    return code


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def token_hash(token: str) -> str:
    """What a store keeps of a leader's token: enough to check it, useless to a reader."""
    return hashlib.sha256(str(token).encode()).hexdigest()


def may_lead(required_key: str, given: str) -> bool:
    """Whether a person may open a room: always, unless the host set a presenter key."""
    return not required_key or hmac.compare_digest(required_key.encode(), str(given).encode())


def closed_message(code: str, reason: str, idle_hours: float = IDLE_HOURS) -> str:
    return {
        "closed": f"Room {code} was closed by its leader.",
        "idle": f"Room {code} closed after {idle_hours:g} hours without a change.",
        "away": f"Room {code} closed: its leader had been away for over {LEADER_AWAY_MINUTES:g} minutes "
        "and the server needed the room for someone else.",
    }.get(reason, f"Room {code} has closed.")


class RoomStore(ABC):
    """Every open room, safe to use from every session's thread."""

    @abstractmethod
    def open(self, view: dict[str, str], client: str = "", presenter: bool = False) -> tuple[str, str]:
        """A new room showing ``view``: its code (to share) and its token (for the leader only).
        ``client`` is the opener's address, for the rate limit; ``presenter`` says they gave
        the host's presenter key (which a host may require, and which opens reserved rooms)."""

    @abstractmethod
    def show(self, code: str, token: str, view: dict[str, str]) -> int:
        """The leader's new view (no new version if it is the same); returns the version."""

    @abstractmethod
    def beat(self, code: str, token: str) -> None:
        """The leader's page is still open (RoomError if the room closed or the token is wrong)."""

    @abstractmethod
    def look(self, code: str) -> Snapshot:
        """A follower's question; RoomClosedError or RoomError if there is no open room."""

    @abstractmethod
    def close(self, code: str, token: str) -> None:
        """The leader closes the room (a wrong token closes nothing)."""

    @abstractmethod
    def leads(self, code: str, token: str) -> bool:
        """Whether ``token`` leads the open room ``code``."""

    @abstractmethod
    def watch(self, code: str, watcher: Watcher) -> Callable[[], None]:
        """Call ``watcher`` with each new version of ``code`` (0 when it closes, or at once if it
        is not open), from whichever thread made the change; returns the function that stops
        watching."""


@dataclass
class _Room:
    code: str
    token_hash: str
    view: dict[str, str]
    version: int
    changed: float  # the view's last change (or the room's opening)
    presenter: bool
    seen: float  # the leader's last sign of life: a change, or their page's beat
    watchers: list[Watcher] = field(default_factory=list)


class MemoryRooms(RoomStore):
    """Rooms in this server process (one process serves a Community Cloud app). ``reserved``
    rooms of ``most`` are kept for holders of the presenter key: pass 0 when the host set none."""

    def __init__(
        self,
        most: int = MOST_ROOMS,
        idle_hours: float = IDLE_HOURS,
        clock: Callable[[], float] = time.time,
        reserved: int = 0,
    ) -> None:
        self._rooms: dict[str, _Room] = {}
        self._closed: dict[str, tuple[str, float]] = {}  # code -> (reason, when)
        self._opened_by: dict[str, list[float]] = {}  # client address -> times it opened a room
        self._lock = threading.Lock()
        self.most, self.reserved, self.idle_seconds, self.clock = most, reserved, idle_hours * 3600, clock

    @contextmanager
    def _locked(self):
        """The lock, with what has expired closed first; the watchers of every room that closed
        meanwhile are told once the lock is released (a watcher may call the store)."""
        told: list[Watcher] = []
        try:
            with self._lock:
                now = self.clock()
                for code, room in list(self._rooms.items()):
                    if now - room.changed > self.idle_seconds:
                        told += self._end(code, "idle")
                for code, (_, when) in list(self._closed.items()):
                    if now - when > REMEMBER_CLOSED_HOURS * 3600:
                        del self._closed[code]
                yield told
        finally:
            _tell(told, 0)

    def _end(self, code: str, reason: str) -> list[Watcher]:
        room = self._rooms.pop(code)
        self._closed[code] = (reason, self.clock())
        return room.watchers

    def _room(self, code: str, token: str | None = None) -> _Room:
        room = self._rooms.get(code)
        if room is None:
            if code in self._closed:
                raise RoomClosedError(closed_message(code, self._closed[code][0], self.idle_seconds / 3600))
            raise RoomError(f"There is no open room {code}: check the code, or ask for a new one.")
        if token is not None and not hmac.compare_digest(room.token_hash, token_hash(token)):
            raise RoomError(f"Only the person who opened room {code} can lead it.")
        return room

    def _check_limits(self, client: str, presenter: bool) -> list[Watcher]:
        """RoomError if ``client`` may not open a room now; the watchers of a room whose leader
        was long away, closed to make room, to be told."""
        now = self.clock()
        recent = [t for t in self._opened_by.get(client, []) if now - t < OPENS_WINDOW_MINUTES * 60]
        self._opened_by[client] = recent
        # (A session without an address, as in the app's headless tests, is not rate-limited.)
        if client and not presenter and len(recent) >= OPENS_PER_CLIENT:
            raise RoomError(
                f"You opened {OPENS_PER_CLIENT} rooms in the last {OPENS_WINDOW_MINUTES:g} minutes, this "
                "server's limit for one address: lead the room you have, or try again in a few minutes."
            )
        limit = self.most if presenter else self.most - self.reserved
        told = []
        needed, away = len(self._rooms) - limit + 1, self._away(now)
        if 0 < needed <= len(away):  # rooms whose leader is gone make room, longest gone first
            for code in away[:needed]:
                told += self._end(code, "away")
        if len(self._rooms) >= limit:
            raise RoomError(
                f"This server has as many open rooms as it allows ({len(self._rooms)}); a room closes "
                f"when its leader closes it, or after {self.idle_seconds / 3600:g} hours without a change. "
                "Try again later, or join an open room."
            )
        return told

    def _away(self, now: float) -> list[str]:
        """The rooms whose leader has been silent over LEADER_AWAY_MINUTES, longest first."""
        away = sorted((room.seen, code) for code, room in self._rooms.items())
        return [code for seen, code in away if now - seen > LEADER_AWAY_MINUTES * 60]

    def open(self, view: dict[str, str], client: str = "", presenter: bool = False) -> tuple[str, str]:
        with self._locked() as told:
            told += self._check_limits(client, presenter)
            code = new_code()
            while code in self._rooms or code in self._closed:
                code = new_code()
            token, now = secrets.token_urlsafe(24), self.clock()
            self._rooms[code] = _Room(code, token_hash(token), dict(view), 1, now, presenter, now)
            self._opened_by[client].append(now)
            return code, token

    def show(self, code: str, token: str, view: dict[str, str]) -> int:
        with self._locked():
            room = self._room(code, token)
            room.changed = room.seen = self.clock()
            changed = view != room.view
            if changed:
                room.view, room.version = dict(view), room.version + 1
            version, watchers = room.version, list(room.watchers)
        if changed:
            _tell(watchers, version)
        return version

    def beat(self, code: str, token: str) -> None:
        with self._locked():
            self._room(code, token).seen = self.clock()

    def look(self, code: str) -> Snapshot:
        with self._locked():
            room = self._room(code)
            return Snapshot(room.version, dict(room.view))

    def close(self, code: str, token: str) -> None:
        with self._locked() as told:
            room = self._rooms.get(code)
            if room is not None and hmac.compare_digest(room.token_hash, token_hash(token)):
                told += self._end(code, "closed")

    def leads(self, code: str, token: str) -> bool:
        with self._locked():
            room = self._rooms.get(code)
            return room is not None and hmac.compare_digest(room.token_hash, token_hash(token))

    def watch(self, code: str, watcher: Watcher) -> Callable[[], None]:
        with self._locked():
            room = self._rooms.get(code)
            if room is not None:
                room.watchers.append(watcher)
        if room is None:
            _tell([watcher], 0)

        def stop() -> None:
            with self._lock:
                if room is not None and watcher in room.watchers:
                    room.watchers.remove(watcher)

        return stop

    def __len__(self) -> int:
        with self._locked():
            return len(self._rooms)


def _tell(watchers: list[Watcher], version: int) -> None:
    for watcher in watchers:
        try:
            watcher(version)
        except Exception:  # a watcher's failure (a closed connection) is its own business
            pass
