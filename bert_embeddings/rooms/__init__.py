"""Workshop rooms: one person leads, everyone who joins sees what the leader shows.

A room holds one *view*: the page and every setting that decides what a page shows, as text
(components/view_state/links.py writes it and checks it on the way in, exactly as for a link; a room is
not limited by a URL's length, so it also carries a long sentence). Only the leader can
change the view: they hold the room's token, a secret that never appears in a follow link.
Followers read the view by the room's short code; each change raises its version.

The registry is one small interface, ``RoomStore``: open, show, beat, look, close, ``leads``
(whether a token leads a room) and ``watch`` (a callback on every change, so that waiting
followers can be woken by a push instead of asking). Two backends keep everything a room needs
(codes, hashed tokens, views with versions, expiry, the limits), so that several server
processes share them: bert_embeddings/rooms/room_sqlite.py (a file on one host, the default) and
bert_embeddings/rooms/room_redis.py (replicas on several hosts). Both decide who may open a room with
the one function ``admit``, and tell watchers through ``Watchers``.

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
import json
import secrets
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from bert_embeddings import limits
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


class RoomsUnavailableError(RoomError):
    """The store cannot be reached just now (a Redis server gone, a file that cannot be written):
    rooms wait, pages work."""

    def __init__(self) -> None:
        super().__init__(
            "The store that keeps the workshop rooms cannot be reached just now, so the room is "
            "paused. Every page still works on its own; the room carries on once it is back."
        )


class RoomsOffError(RoomError):
    """The host's setting for where rooms are kept cannot be used: rooms stay off on this server."""

    def __init__(self, problem: str) -> None:
        super().__init__(
            f"Workshop rooms are off on this server: {problem}. Every page works on its own; whoever "
            "hosts the app can correct the setting."
        )


class NoRoomsNowError(RoomError):
    """A room cannot be opened or joined while the store is away (no room to pause yet)."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what}: the store that keeps the workshop rooms cannot be reached just now. Every page "
            "still works on its own; try again in a moment."
        )


@dataclass(frozen=True)
class Tally:
    """A question's answers in a room (by voter) and whether its leader revealed it."""

    answers: dict[str, str]
    revealed: bool


@dataclass(frozen=True)
class Snapshot:
    """What a follower reads: the room's version and view (a copy of their own)."""

    version: int
    view: dict[str, str]


def stored_view(code: str, stored: str | bytes) -> dict[str, str]:
    """The view a store keeps for room ``code`` (the JSON the app wrote), or a RoomError naming why
    it cannot be one: its size and nesting checked before json reads it (json recurses once per
    level, and a few kB of '[' exhaust the stack), then that it is an object of texts. A store
    holds what the app wrote, unless something else wrote there (a Redis shared by mistake, a
    damaged file): the followers read why, and the leader's next change replaces it."""
    text = stored.decode("utf-8", errors="replace") if isinstance(stored, bytes) else str(stored)
    problem = None
    if len(text) > limits.VIEW_SIZE.most:
        problem = f"it has {len(text):,} characters, where a view has at most {limits.VIEW_SIZE.most:,}"
    elif (depth := limits.nesting(text, "json")) > limits.VIEW_DEPTH.most:
        problem = f"it nests {depth:,} levels deep, where a view nests at most {limits.VIEW_DEPTH.most}"
    else:
        try:
            view = json.loads(text)
        except ValueError:
            view = None
        if isinstance(view, dict) and all(isinstance(v, str) for v in view.values()):
            return view
        problem = "it is not a table of texts"
    raise RoomError(
        f"Room {code} holds a view this server cannot read ({problem}). Its leader's next change "
        "replaces it: join the room again then."
    )


def shows_another(stored: str | bytes, view: dict[str, str]) -> bool:
    """Whether ``view`` is another than the one stored (a stored view that cannot be read is)."""
    try:
        return stored_view("", stored) != view
    except RoomError:
        return True


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

    watchers: Watchers

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
    def answer(self, code: str, question: str, voter: str, given: str) -> None:
        """A follower's answer to the room's ``question``: one per ``voter``, a later one
        replacing it, until the leader reveals the question (then RoomError, as for a room that
        is not open, or a question that has counted room_answers.MOST_VOTERS voters)."""

    @abstractmethod
    def tally(self, code: str, question: str) -> Tally:
        """The question's answers so far, and whether it is revealed."""

    @abstractmethod
    def reveal(self, code: str, token: str, question: str) -> None:
        """The leader reveals ``question``: its answers are final (a wrong token reveals nothing:
        RoomError)."""

    @abstractmethod
    def here(self, code: str, voter: str) -> None:
        """A follower's page in room ``code`` is open (their browser's ``voter`` id)."""

    @abstractmethod
    def present(self, code: str) -> int:
        """How many followers' browsers said they are here within room_answers.PRESENT_SECONDS."""

    def leads(self, code: str, token: str) -> bool:
        """Whether ``token`` leads the open room ``code``."""
        try:
            self._check_leader(code, token)
            return True
        except RoomError:
            return False

    @abstractmethod
    def _check_leader(self, code: str, token: str) -> None:
        """RoomError unless ``token`` leads the open room ``code``."""

    def watch(self, code: str, watcher: Watcher) -> Callable[[], None]:
        """Call ``watcher`` with each new version of ``code`` (0 when it closes, or at once if it
        is not open): at once for a change this process makes, else from the backend's one
        watching loop (``_watching``). Returns the function that stops watching."""
        try:
            version = self.look(code).version
        except RoomsUnavailableError:
            raise
        except RoomError:
            version = 0
        if not version:
            watcher(0)
            return lambda: None
        stop = self.watchers.add(code, watcher, version)
        self._watching()
        try:  # (a change made between the look and the watch is told now)
            self.watchers.tell(code, self.look(code).version)
        except RoomsUnavailableError:
            pass
        except RoomError:
            self.watchers.tell(code, 0)
        return stop

    @abstractmethod
    def _watching(self) -> None:
        """A room is watched: the backend's watching loop runs, and reads it."""

    @abstractmethod
    def __len__(self) -> int:
        """How many rooms are open."""


def admit(
    now: float,
    seen: dict[str, float],
    recent_opens: int,
    client: str,
    presenter: bool,
    most: int,
    reserved: int,
    idle_hours: float,
) -> list[str]:
    """Whether ``client`` may open a room now, given every open room's leader's last sign of
    life (``seen``) and how many rooms ``client`` opened within the window: the rooms to close
    first to make room for it (their leader long away, longest first), or a RoomError. Every
    backend decides by this one function, inside its own transaction."""
    # (A session without an address, as in the app's headless tests, is not rate-limited.)
    if client and not presenter and recent_opens >= OPENS_PER_CLIENT:
        raise RoomError(
            f"You opened {OPENS_PER_CLIENT} rooms in the last {OPENS_WINDOW_MINUTES:g} minutes, this "
            "server's limit for one address: lead the room you have, or try again in a few minutes."
        )
    limit = most if presenter else most - reserved
    needed = len(seen) - limit + 1
    away = [code for when, code in sorted((when, code) for code, when in seen.items())]
    away = [code for code in away if now - seen[code] > LEADER_AWAY_MINUTES * 60]
    if needed <= 0:
        return []
    if needed <= len(away):  # rooms whose leader is gone make room, longest gone first
        return away[:needed]
    raise RoomError(
        f"This server has as many open rooms as it allows ({len(seen)}); a room closes "
        f"when its leader closes it, or after {idle_hours:g} hours without a change. "
        "Try again later, or join an open room."
    )


def no_room(code: str, closed_reason: str | None, idle_hours: float) -> RoomError:
    """The error for a code that names no open room: why it closed, if it was a room."""
    if closed_reason is not None:
        return RoomClosedError(closed_message(code, closed_reason, idle_hours))
    return RoomError(f"There is no open room {code}: check the code, or ask for a new one.")


def not_leader(code: str) -> RoomError:
    return RoomError(f"Only the person who opened room {code} can lead it.")


def same_token(stored_hash: str, token: str) -> bool:
    return hmac.compare_digest(str(stored_hash), token_hash(token))


class Watchers:
    """The watchers of rooms in this process, and the last version each was told: a version is
    told once, whether this process made the change (told at once) or another process did (told
    when the backend's one watching loop reads it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_code: dict[str, dict[int, tuple[Watcher, list[int]]]] = {}
        self._next = 0
        self.changed = threading.Event()  # set when a room is first watched (a loop may wait)

    def add(self, code: str, watcher: Watcher, version: int) -> Callable[[], None]:
        with self._lock:
            self._next += 1
            key = self._next
            self._by_code.setdefault(code, {})[key] = (watcher, [version])
        self.changed.set()

        def stop() -> None:
            with self._lock:
                watching = self._by_code.get(code, {})
                watching.pop(key, None)
                if not watching:
                    self._by_code.pop(code, None)

        return stop

    def codes(self) -> dict[str, int]:
        """Every watched room, with the lowest version any of its watchers was told."""
        with self._lock:
            return {code: min(seen[0] for _, seen in w.values()) for code, w in self._by_code.items() if w}

    def tell(self, code: str, version: int) -> None:
        """``version`` of ``code`` (0: it closed) to each watcher not yet told it."""
        with self._lock:
            told = []
            for watcher, seen in self._by_code.get(code, {}).values():
                if version == 0 or version > seen[0]:
                    seen[0] = version if version else seen[0]
                    told.append(watcher)
            if version == 0:
                self._by_code.pop(code, None)
        for watcher in told:
            try:
                watcher(version)
            except Exception:  # a watcher's failure (a closed connection) is its own business
                pass

    def __len__(self) -> int:
        with self._lock:
            return sum(len(w) for w in self._by_code.values())
