"""Rooms in Redis: for replicas of the app on several hosts (``BERT_EXPLORER_ROOMS=redis://...``).

Redis's own mechanisms do the work:
- each room is a hash whose key expires after ``IDLE_HOURS`` without a change (a change renews
  it); a second key, renewed with it, remembers why it closed, so that its followers read it;
- each room has a Stream with one entry per version (its id is ``VERSION-0``; the close is
  ``VERSION-1``): a process reads it with a blocking ``XREAD`` from the last version its
  watchers were told, so nothing is lost while it reconnects (pub/sub would drop it);
- the open rooms (with their leaders' last beat) and each address's recent openings are sorted
  sets, so the cap, the presenters' reserve and the rate limit count every replica's rooms;
- the changes that must not interleave (open, show, beat, close) hold one Redis lock.

Each process reads every room its followers follow with one connection and one blocking read at a
time, however many followers wait. A change this process makes is told to its own watchers at
once. When Redis cannot be reached, every call raises ``RoomsUnavailableError`` (the pages say so
and keep working) and the watching loop tries again until it is back.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from bert_embeddings import rooms
from bert_embeddings.rooms import RoomError, RoomsUnavailableError, Snapshot, Tally, room_answers

BLOCK_MS = 2000  # one blocking read waits this long at most, then looks for rooms that expired
RETRY_SECONDS = (0.2, 0.5, 1.0, 2.0)  # the watching loop's waits while Redis is away
LOG_LENGTH = 64  # versions a room's stream keeps (a reader more behind than that reads the room)


class RedisRooms(rooms.RoomStore):
    """Rooms in the Redis server at ``url``, under ``prefix``."""

    def __init__(
        self,
        url: str,
        most: int = rooms.MOST_ROOMS,
        idle_hours: float = rooms.IDLE_HOURS,
        clock: Callable[[], float] = time.time,
        reserved: int = 0,
        prefix: str = "bert-explorer:rooms:",
    ) -> None:
        self.url, self.prefix, self.most, self.reserved, self.clock = url, prefix, most, reserved, clock
        self.idle_seconds = idle_hours * 3600
        # Redis away: a call fails at once (one attempt), so that a page says so and goes on
        options = {"socket_connect_timeout": 2, "health_check_interval": 30, "retry": Retry(NoBackoff(), 0)}
        self._redis = redis.Redis.from_url(url, socket_timeout=5, **options)
        self._options = options
        self._reader: redis.Redis | None = None  # (made by the watching loop: it connects at once)
        self._reader_id: int | None = None
        self.watchers = rooms.Watchers()
        self._loop: threading.Thread | None = None
        self._loop_lock = threading.Lock()

    def _key(self, kind: str, name: str = "") -> str:
        return f"{self.prefix}{kind}:{name}" if name else f"{self.prefix}{kind}"

    @contextmanager
    def _reached(self, locked: bool = False) -> Iterator[None]:
        """Redis's errors as the rooms' own; with ``locked``, the rooms' one lock held."""
        try:
            if locked:
                with self._redis.lock(self._key("lock"), timeout=10, blocking_timeout=10):
                    yield
            else:
                yield
        except redis.RedisError as problem:
            raise RoomsUnavailableError() from problem

    def _remember(self) -> int:
        return int(rooms.REMEMBER_CLOSED_HOURS * 3600 * 1000)

    def _row(self, code: str, token: str | None = None) -> tuple[bytes, int]:
        found = self._redis.hmget(self._key("room", code), "token_hash", "view", "version")
        if found[0] is None:
            reason = self._redis.get(self._key("closed", code))
            raise rooms.no_room(code, reason.decode() if reason else None, self.idle_seconds / 3600)
        if token is not None and not rooms.same_token(found[0].decode(), token):
            raise rooms.not_leader(code)
        return found[1], int(found[2])

    def _end(self, code: str, reason: str) -> None:
        """Close ``code`` (the lock held); the caller tells this process's watchers after."""
        version = self._redis.hget(self._key("room", code), "version")
        pipe = self._redis.pipeline()
        pipe.delete(self._key("room", code))
        pipe.set(self._key("closed", code), reason, px=self._remember())
        pipe.zrem(self._key("open"), code)
        for question in self._redis.smembers(self._key("questions", code)):
            pipe.delete(self._key("answers", f"{code}:{question.decode()}"))
        pipe.delete(self._key("questions", code), self._key("revealed", code), self._key("present", code))
        if version is not None:
            pipe.xadd(self._key("log", code), {"closed": reason}, id=f"{int(version)}-1")
        pipe.execute()

    def _open_rooms(self) -> dict[str, float]:
        """The open rooms and their leaders' last beat (forgetting those that expired)."""
        seen = {
            code.decode(): when
            for code, when in self._redis.zrange(self._key("open"), 0, -1, withscores=True)
        }
        gone = [code for code in seen if not self._redis.exists(self._key("room", code))]
        if gone:
            self._redis.zrem(self._key("open"), *gone)
        return {code: when for code, when in seen.items() if code not in gone}

    def open(self, view: dict[str, str], client: str = "", presenter: bool = False) -> tuple[str, str]:
        with self._reached(locked=True):
            now, opens = self.clock(), self._key("opens", client)
            self._redis.zremrangebyscore(opens, "-inf", now - rooms.OPENS_WINDOW_MINUTES * 60)
            recent = self._redis.zcard(opens)
            seen = self._open_rooms()
            idle_hours = self.idle_seconds / 3600
            away = rooms.admit(now, seen, recent, client, presenter, self.most, self.reserved, idle_hours)
            for code in away:
                self._end(code, "away")
            code = rooms.new_code()
            while self._redis.exists(self._key("room", code), self._key("closed", code)):
                code = rooms.new_code()
            token = secrets.token_urlsafe(24)
            room = {"token_hash": rooms.token_hash(token), "view": json.dumps(view), "version": 1}
            pipe = self._redis.pipeline()
            pipe.delete(self._key("log", code))
            pipe.hset(self._key("room", code), mapping={**room, "presenter": int(presenter)})
            self._renew(pipe, code, 1)
            pipe.zadd(self._key("open"), {code: now})
            pipe.zadd(opens, {f"{now}:{secrets.token_hex(4)}": now})
            pipe.pexpire(opens, int(rooms.OPENS_WINDOW_MINUTES * 60 * 1000))
            pipe.execute()
        for gone in away:
            self.watchers.tell(gone, 0)
        return code, token

    def _renew(self, pipe: redis.client.Pipeline, code: str, version: int | None) -> None:
        """A change: the room's keys live ``idle_hours`` more (then "idle" is why it closed); a
        new version goes into its stream."""
        idle = int(self.idle_seconds * 1000)
        pipe.pexpire(self._key("room", code), idle)
        pipe.set(self._key("closed", code), "idle", px=idle + self._remember())
        if version is not None:
            pipe.xadd(self._key("log", code), {"v": version}, id=f"{version}-0", maxlen=LOG_LENGTH)
        pipe.pexpire(self._key("log", code), idle + self._remember())

    def show(self, code: str, token: str, view: dict[str, str]) -> int:
        with self._reached(locked=True):
            old, version = self._row(code, token)
            changed = rooms.shows_another(old, view)
            version += changed
            now = self.clock()
            pipe = self._redis.pipeline()
            pipe.hset(self._key("room", code), mapping={"view": json.dumps(view), "version": version})
            pipe.zadd(self._key("open"), {code: now})
            self._renew(pipe, code, version if changed else None)
            pipe.execute()
        if changed:
            self.watchers.tell(code, version)
        return version

    def beat(self, code: str, token: str) -> None:
        with self._reached(locked=True):
            self._row(code, token)
            self._redis.zadd(self._key("open"), {code: self.clock()})

    def look(self, code: str) -> Snapshot:
        with self._reached():
            view, version = self._row(code)
        return Snapshot(version, rooms.stored_view(code, view))

    def close(self, code: str, token: str) -> None:
        with self._reached(locked=True):
            try:
                self._row(code, token)
            except RoomError:
                return
            self._end(code, "closed")
        self.watchers.tell(code, 0)

    def _kept_while_open(self, pipe: redis.client.Pipeline, *keys: str) -> None:
        """A room's answers and presence live as long as it can stay open without a change."""
        for key in keys:
            pipe.pexpire(key, int(self.idle_seconds * 1000) + self._remember())

    def answer(self, code: str, question: str, voter: str, given: str) -> None:
        room_answers.check_answer(question, voter, given)
        answers = self._key("answers", f"{code}:{question}")
        with self._reached(locked=True):
            self._row(code)
            if self._redis.sismember(self._key("revealed", code), question):
                raise room_answers.revealed(code)
            if (
                not self._redis.hexists(answers, voter)
                and self._redis.hlen(answers) >= room_answers.MOST_VOTERS
            ):
                raise room_answers.full()
            pipe = self._redis.pipeline()
            pipe.hset(answers, voter, given)
            pipe.sadd(self._key("questions", code), question)
            self._kept_while_open(pipe, answers, self._key("questions", code))
            pipe.execute()

    def tally(self, code: str, question: str) -> Tally:
        room_answers.check_question(question)
        with self._reached():
            self._row(code)
            pipe = self._redis.pipeline()
            pipe.hgetall(self._key("answers", f"{code}:{question}"))
            pipe.sismember(self._key("revealed", code), question)
            found, shown = pipe.execute()
        return Tally({voter.decode(): given.decode() for voter, given in found.items()}, bool(shown))

    def reveal(self, code: str, token: str, question: str) -> None:
        room_answers.check_question(question)
        with self._reached(locked=True):
            self._row(code, token)
            pipe = self._redis.pipeline()
            pipe.sadd(self._key("revealed", code), question)
            self._kept_while_open(pipe, self._key("revealed", code))
            pipe.execute()

    def here(self, code: str, voter: str) -> None:
        room_answers.check_voter(voter)
        with self._reached():
            self._row(code)
            pipe = self._redis.pipeline()
            pipe.zadd(self._key("present", code), {voter: self.clock()})
            self._kept_while_open(pipe, self._key("present", code))
            pipe.execute()

    def present(self, code: str) -> int:
        with self._reached():
            self._row(code)
            since = self.clock() - room_answers.PRESENT_SECONDS
            pipe = self._redis.pipeline()
            pipe.zremrangebyscore(self._key("present", code), "-inf", f"({since}")
            pipe.zcard(self._key("present", code))
            return int(pipe.execute()[1])

    def _check_leader(self, code: str, token: str) -> None:
        with self._reached():
            self._row(code, token)

    def _watching(self) -> None:
        with self._loop_lock:
            if self._loop is None or not self._loop.is_alive():
                self._loop = threading.Thread(target=self._watch_loop, name="rooms-redis-watch", daemon=True)
                self._loop.start()
            elif self._reader_id is not None:  # the blocking read restarts with this room in it
                try:
                    self._redis.client_unblock(self._reader_id)
                except redis.RedisError:
                    pass

    def _watch_loop(self) -> None:
        """This process's one reader of every watched room's stream."""
        failures, checked = 0, time.monotonic()
        while True:
            self.watchers.changed.clear()
            if not (watched := self.watchers.codes()):
                self.watchers.changed.wait(BLOCK_MS / 1000)
                continue
            try:
                if self._reader is None:
                    self._reader = redis.Redis.from_url(
                        self.url,
                        socket_timeout=BLOCK_MS / 1000 + 5,
                        single_connection_client=True,
                        **self._options,
                    )
                # (asked each time: the connection may have been made again meanwhile)
                self._reader_id = int(self._reader.client_id())
                if self.watchers.changed.is_set():  # a room was watched meanwhile: read it too
                    continue
                streams = {self._key("log", code): f"{version}-0" for code, version in watched.items()}
                for stream, entries in self._reader.xread(streams, block=BLOCK_MS) or []:
                    code = stream.decode().rsplit(":", 1)[1]
                    for _, fields in entries:
                        self.watchers.tell(code, 0 if b"closed" in fields else int(fields[b"v"]))
                if time.monotonic() - checked > BLOCK_MS / 1000:  # rooms whose key expired
                    checked = time.monotonic()
                    for code in watched:
                        if not self._redis.exists(self._key("room", code)):
                            self.watchers.tell(code, 0)
                failures = 0
            except Exception:  # (Redis away, or a reply not understood: try again, more slowly)
                self._reader_id, self._reader = None, None
                time.sleep(RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)])
                failures += 1

    def __len__(self) -> int:
        with self._reached():
            return len(self._open_rooms())
