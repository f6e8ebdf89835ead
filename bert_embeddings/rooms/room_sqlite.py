"""Rooms in a SQLite file: the default store. It needs no server, rooms survive a restart of the
app, and every process on the host that opens the same file shares them, exactly as replicas
share Redis (bert_embeddings/rooms/room_redis.py): each change is one transaction that every process
sees, and the limits are counted in the file.

``path=":memory:"`` keeps the rooms in this process alone (tests).

Watching: a change this process makes is told to this process's watchers at once. Changes from
other processes reach them through one loop per process, whatever the number of rooms or
followers: it asks SQLite's ``data_version`` (a counter in memory that moves when another
connection commits) every ``POLL_SECONDS``, and reads the watched rooms' versions only when it
moved.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager, suppress
from pathlib import Path

from bert_embeddings import rooms
from bert_embeddings.rooms import RoomsUnavailableError, Snapshot, Tally, room_answers

POLL_SECONDS = 0.05
EXPIRE_EVERY_SECONDS = 30.0  # the loop closes idle rooms this often even if nobody asks
SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, token_hash TEXT NOT NULL, view TEXT NOT NULL,
    version INTEGER NOT NULL, changed REAL NOT NULL, presenter INTEGER NOT NULL, seen REAL NOT NULL);
CREATE TABLE IF NOT EXISTS closed (code TEXT PRIMARY KEY, reason TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS opens (client TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS answers (code TEXT NOT NULL, question TEXT NOT NULL, voter TEXT NOT NULL,
    given TEXT NOT NULL, PRIMARY KEY (code, question, voter));
CREATE TABLE IF NOT EXISTS revealed (code TEXT NOT NULL, question TEXT NOT NULL,
    PRIMARY KEY (code, question));
CREATE TABLE IF NOT EXISTS present (code TEXT NOT NULL, voter TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (code, voter));
"""


class SqliteRooms(rooms.RoomStore):
    """Rooms in the SQLite file ``path``. ``reserved`` rooms of ``most`` are kept for holders of
    the presenter key: pass 0 when the host set none."""

    def __init__(
        self,
        path: str | Path = ":memory:",
        most: int = rooms.MOST_ROOMS,
        idle_hours: float = rooms.IDLE_HOURS,
        clock: Callable[[], float] = time.time,
        reserved: int = 0,
    ) -> None:
        self.path, self.most, self.reserved, self.clock = str(path), most, reserved, clock
        self.idle_seconds = idle_hours * 3600
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = self._connect()
        with self._lock:
            self._db.executescript(SCHEMA)
        self.watchers = rooms.Watchers()
        self._loop: threading.Thread | None = None

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10, check_same_thread=False, isolation_level=None)
        if self.path != ":memory:":
            db.execute("PRAGMA journal_mode=WAL")  # readers never wait for the writer
            # A commit is not flushed to the disk at once (SQLite's advice for WAL): a process that
            # stops or restarts loses nothing, and only a crash of the machine itself could lose
            # the last moments of a workshop. Flushing each follower's "here" and answer held every
            # other session's reads of the store behind the disk.
            db.execute("PRAGMA synchronous=NORMAL")
        return db

    @contextmanager
    def _transaction(self):
        """One transaction that no other process interleaves with, with what has expired closed
        first; the watchers of every room that closed meanwhile are told afterwards."""
        closed: list[str] = []
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as problem:  # (locked for longer than the timeout, or unwritable)
                raise RoomsUnavailableError() from problem
            try:
                now = self.clock()
                idle = [
                    row[0]
                    for row in self._db.execute(
                        "SELECT code FROM rooms WHERE changed < ?", (now - self.idle_seconds,)
                    )
                ]
                for code in idle:
                    self._end(code, "idle")
                closed += idle
                self._db.execute(
                    "DELETE FROM closed WHERE at < ?", (now - rooms.REMEMBER_CLOSED_HOURS * 3600,)
                )
                yield closed
                self._db.execute("COMMIT")
            except BaseException as problem:
                with suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                if isinstance(problem, sqlite3.Error):  # (a full disk, a file gone)
                    raise RoomsUnavailableError() from problem
                raise
        for code in closed:
            self.watchers.tell(code, 0)

    def _end(self, code: str, reason: str) -> None:
        self._db.execute("DELETE FROM rooms WHERE code = ?", (code,))
        for table in ("answers", "revealed", "present"):  # (names of this module's own tables)
            self._db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
        self._db.execute("INSERT OR REPLACE INTO closed VALUES (?, ?, ?)", (code, reason, self.clock()))

    def _row(self, code: str, token: str | None = None) -> tuple:
        row = self._db.execute(
            "SELECT token_hash, view, version FROM rooms WHERE code = ?", (code,)
        ).fetchone()
        if row is None:
            reason = self._db.execute("SELECT reason FROM closed WHERE code = ?", (code,)).fetchone()
            raise rooms.no_room(code, reason[0] if reason else None, self.idle_seconds / 3600)
        if token is not None and not rooms.same_token(row[0], token):
            raise rooms.not_leader(code)
        return row

    def open(self, view: dict[str, str], client: str = "", presenter: bool = False) -> tuple[str, str]:
        with self._transaction() as closed:
            now = self.clock()
            window = now - rooms.OPENS_WINDOW_MINUTES * 60
            self._db.execute("DELETE FROM opens WHERE at < ?", (window,))
            recent = self._db.execute("SELECT COUNT(*) FROM opens WHERE client = ?", (client,)).fetchone()[0]
            seen = dict(self._db.execute("SELECT code, seen FROM rooms"))
            for code in rooms.admit(
                now, seen, recent, client, presenter, self.most, self.reserved, self.idle_seconds / 3600
            ):
                self._end(code, "away")
                closed.append(code)
            code = rooms.new_code()
            while self._db.execute(
                "SELECT 1 FROM rooms WHERE code = ? UNION SELECT 1 FROM closed WHERE code = ?", (code, code)
            ).fetchone():
                code = rooms.new_code()
            token = secrets.token_urlsafe(24)
            self._db.execute(
                "INSERT INTO rooms VALUES (?, ?, ?, 1, ?, ?, ?)",
                (code, rooms.token_hash(token), json.dumps(view), now, int(presenter), now),
            )
            self._db.execute("INSERT INTO opens VALUES (?, ?)", (client, now))
            return code, token

    def show(self, code: str, token: str, view: dict[str, str]) -> int:
        with self._transaction():
            _, old, version = self._row(code, token)
            now = self.clock()
            changed = rooms.shows_another(old, view)
            version += changed
            self._db.execute(
                "UPDATE rooms SET view = ?, version = ?, changed = ?, seen = ? WHERE code = ?",
                (json.dumps(view), version, now, now, code),
            )
        if changed:
            self.watchers.tell(code, version)
        return version

    def beat(self, code: str, token: str) -> None:
        with self._transaction():
            self._row(code, token)
            self._db.execute("UPDATE rooms SET seen = ? WHERE code = ?", (self.clock(), code))

    def look(self, code: str) -> Snapshot:
        """Thirty followers look at once, on every run: an open room that is not idle is read in
        one statement, which no other process's write holds up (WAL), and only a room missing or
        idle takes the write transaction that closes what expired and says why. (The shared
        connection's lock is then held for one statement instead of five.)"""
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT view, version FROM rooms WHERE code = ? AND changed >= ?",
                    (code, self.clock() - self.idle_seconds),
                ).fetchone()
        except sqlite3.Error as problem:  # (a file gone or unreadable)
            raise RoomsUnavailableError() from problem
        if row is None:
            with self._transaction():
                _, *row = self._row(code)
        view, version = row
        return Snapshot(version, rooms.stored_view(code, view))

    def close(self, code: str, token: str) -> None:
        with self._transaction() as closed:
            row = self._db.execute("SELECT token_hash FROM rooms WHERE code = ?", (code,)).fetchone()
            if row is not None and rooms.same_token(row[0], token):
                self._end(code, "closed")
                closed.append(code)

    def answer(self, code: str, question: str, voter: str, given: str) -> None:
        room_answers.check_answer(question, voter, given)
        with self._transaction():
            self._row(code)
            if self._db.execute(
                "SELECT 1 FROM revealed WHERE code = ? AND question = ?", (code, question)
            ).fetchone():
                raise room_answers.revealed(code)
            known = self._db.execute(
                "SELECT 1 FROM answers WHERE code = ? AND question = ? AND voter = ?", (code, question, voter)
            ).fetchone()
            count = self._db.execute(
                "SELECT COUNT(*) FROM answers WHERE code = ? AND question = ?", (code, question)
            ).fetchone()[0]
            if not known and count >= room_answers.MOST_VOTERS:
                raise room_answers.full()
            self._db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)", (code, question, voter, given)
            )

    def tally(self, code: str, question: str) -> Tally:
        room_answers.check_question(question)
        with self._transaction():
            self._row(code)
            found = self._db.execute(
                "SELECT voter, given FROM answers WHERE code = ? AND question = ?", (code, question)
            )
            answers = dict(found)
            shown = self._db.execute(
                "SELECT 1 FROM revealed WHERE code = ? AND question = ?", (code, question)
            ).fetchone()
        return Tally(answers, shown is not None)

    def reveal(self, code: str, token: str, question: str) -> None:
        room_answers.check_question(question)
        with self._transaction():
            self._row(code, token)
            self._db.execute("INSERT OR IGNORE INTO revealed VALUES (?, ?)", (code, question))

    def here(self, code: str, voter: str) -> None:
        room_answers.check_voter(voter)
        with self._transaction():
            self._row(code)
            self._db.execute("INSERT OR REPLACE INTO present VALUES (?, ?, ?)", (code, voter, self.clock()))

    def present(self, code: str) -> int:
        with self._transaction():
            self._row(code)
            since = self.clock() - room_answers.PRESENT_SECONDS
            self._db.execute("DELETE FROM present WHERE code = ? AND at < ?", (code, since))
            return self._db.execute("SELECT COUNT(*) FROM present WHERE code = ?", (code,)).fetchone()[0]

    def _check_leader(self, code: str, token: str) -> None:
        with self._transaction():
            self._row(code, token)

    def _watching(self) -> None:
        with self._lock:
            if (self._loop is None or not self._loop.is_alive()) and self.path != ":memory:":
                self._loop = threading.Thread(target=self._watch_loop, name="rooms-sqlite-watch", daemon=True)
                self._loop.start()

    def _watch_loop(self) -> None:
        """This process's one watcher of the file: news from other processes, and idle rooms."""
        db, last, expired = None, None, time.monotonic()
        while True:
            self.watchers.changed.clear()
            if not self.watchers.codes():  # nothing to watch: sleep until a room is watched
                self.watchers.changed.wait(EXPIRE_EVERY_SECONDS)
            time.sleep(POLL_SECONDS)
            try:
                db = db or self._connect()
                if time.monotonic() - expired > EXPIRE_EVERY_SECONDS:
                    expired = time.monotonic()
                    len(self)  # (a transaction closes the rooms that expired, and tells)
                moved = db.execute("PRAGMA data_version").fetchone()[0]
                if moved != last and (watched := self.watchers.codes()):
                    last = moved
                    marks = ",".join("?" * len(watched))
                    query = f"SELECT code, version FROM rooms WHERE code IN ({marks})"
                    found = dict(db.execute(query, list(watched)))
                    for code in watched:
                        self.watchers.tell(code, found.get(code, 0))
            except Exception:  # (a busy, full or replaced file: the next turn tries again)
                last = None
                time.sleep(1)

    def __len__(self) -> int:
        with self._transaction():
            return self._db.execute("SELECT COUNT(*) FROM rooms").fetchone()[0]
