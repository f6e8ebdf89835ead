"""Workshop rooms, the core: open, lead, follow, forged tokens, expiry, the cap, the rate limit,
the presenters' reserve, closed rooms' reasons and watchers, with every backend: SQLite in
memory and in a file, and a real Redis server (tests/rooms/test_room_stores.py checks what several
processes sharing one store see)."""

from __future__ import annotations

import json
import secrets
import time

import pytest

from bert_embeddings import limits, rooms
from bert_embeddings.rooms import RoomClosedError, RoomError
from bert_embeddings.rooms.room_redis import RedisRooms
from bert_embeddings.rooms.room_sqlite import SqliteRooms
from testkit.brute import nesting_depth


@pytest.fixture(
    params=["sqlite-memory", "sqlite-file", pytest.param("redis", marks=pytest.mark.server("a Redis server"))]
)
def make_rooms(request, tmp_path):
    """Makes a fresh store of the backend under test (each its own rooms)."""
    if request.param == "sqlite-memory":
        return lambda **options: SqliteRooms(":memory:", **options)
    if request.param == "sqlite-file":
        return lambda **options: SqliteRooms(tmp_path / f"rooms-{secrets.token_hex(4)}.sqlite3", **options)
    url = request.getfixturevalue("redis_url")
    return lambda **options: RedisRooms(url, prefix=f"test-{secrets.token_hex(4)}:", **options)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_room_shows_its_leaders_view_with_a_version_that_moves_only_on_change(make_rooms):
    room = make_rooms()
    code, token = room.open({"page": "neighbours", "q": "bank"})
    assert len(code) == rooms.CODE_LENGTH and set(code) <= set(rooms.CODE_ALPHABET)
    assert token not in code and len(token) >= 24
    assert room.look(code) == rooms.Snapshot(1, {"page": "neighbours", "q": "bank"})
    assert room.show(code, token, {"page": "neighbours", "q": "bank"}) == 1  # nothing changed
    assert room.show(code, token, {"page": "pca", "x": "3"}) == 2
    room.look(code).view["page"] = "tampered"  # a follower's copy cannot change the room
    assert room.look(code) == rooms.Snapshot(2, {"page": "pca", "x": "3"})


def test_only_the_leaders_token_can_change_the_view(make_rooms):
    room = make_rooms()
    code, token = room.open({"page": "tokens"})
    other_code, other_token = room.open({"page": "tokens"})
    for forged in ("", "x" * 32, other_token, token[:-1]):
        with pytest.raises(RoomError, match="Only the person who opened"):
            room.show(code, forged, {"page": "pca"})
    assert room.look(code) == rooms.Snapshot(1, {"page": "tokens"})
    room.close(code, other_token)  # a wrong token closes nothing
    assert room.look(code).version == 1
    assert room.leads(code, token) and not room.leads(code, other_token) and not room.leads(code, "")


def test_rooms_close_after_hours_without_a_change_and_a_server_keeps_a_few(make_rooms):
    clock = Clock()
    room = make_rooms(most=2, idle_hours=1, clock=clock)
    if isinstance(room, RedisRooms):
        pytest.skip("Redis's key expiry keeps Redis's own time: test_redis_rooms_expire_by_redis_key_expiry")
    first, token = room.open({})
    clock.now += 500
    room.show(first, token, {"page": "a"})  # a change keeps it open
    second, second_token = room.open({}, client="other")
    with pytest.raises(RoomError, match="as many open rooms as it allows"):
        room.open({}, client="third")
    for i in range(8):  # only the first room's view changes
        clock.now += 500
        room.show(first, token, {"page": f"p{i}"})
    with pytest.raises(rooms.RoomClosedError, match=f"{second} closed after 1 hours without a change"):
        room.look(second)
    assert len(room) == 1
    room.open({}, client="third")  # room for new ones again


def test_followers_of_a_closed_room_read_that_it_closed_not_that_they_mistyped(make_rooms):
    room = make_rooms()
    code, token = room.open({})
    room.close(code, token)
    with pytest.raises(rooms.RoomClosedError, match=f"Room {code} was closed by its leader"):
        room.look(code)
    with pytest.raises(RoomError, match="check the code"):
        room.look("ABCDEF" if code != "ABCDEF" else "ABCDEG")
    assert not room.leads(code, token)


def test_one_address_cannot_fill_the_server_and_presenters_keep_their_reserve(make_rooms):
    """Fifty "reload, then lead a new room" from one address: the sixth within ten minutes is
    refused; from many addresses, the last rooms stay for holders of the presenter key."""
    clock = Clock()
    room = make_rooms(most=12, reserved=2, clock=clock)
    opened = [room.open({}, client="10.0.0.1") for _ in range(rooms.OPENS_PER_CLIENT)]
    with pytest.raises(RoomError, match="limit for one address"):
        room.open({}, client="10.0.0.1")
    opened += [room.open({}, client=f"10.0.1.{i}") for i in range(5)]
    last = opened[-1]
    with pytest.raises(RoomError, match="as many open rooms"):
        room.open({}, client="10.0.2.1")
    reserved = [room.open({}, client="10.0.2.1", presenter=True) for _ in range(2)]
    with pytest.raises(RoomError, match="as many open rooms"):
        room.open({}, client="10.0.2.2", presenter=True)
    # Ten minutes on, the window has moved on for that address; every leader's page is still
    # open (it beats), so the server is still full.
    clock.now += rooms.OPENS_WINDOW_MINUTES * 60 + 1
    for code, token in (*opened, *reserved):
        room.beat(code, token)
    with pytest.raises(RoomError, match="as many open rooms"):
        room.open({}, client="10.0.0.1")
    for code, token in (*reserved, last):
        room.close(code, token)
    room.open({}, client="10.0.0.1")


def test_a_room_whose_leader_is_gone_gives_its_place_when_the_server_is_full(make_rooms):
    """A closed tab stops the leader's beat: once the server is full, the room silent longest
    (over LEADER_AWAY_MINUTES) closes for a new one, and its followers read why."""
    clock = Clock()
    room = make_rooms(most=2, clock=clock)
    gone, kept = room.open({}), room.open({})
    heard: list[int] = []
    room.watch(gone[0], heard.append)
    clock.now += rooms.LEADER_AWAY_MINUTES * 60 - 5
    with pytest.raises(RoomError, match="as many open rooms"):  # not away long enough yet
        room.open({})
    room.beat(*kept)
    clock.now += 10
    newest = room.open({})
    assert heard == [0] and room.leads(*kept) and room.leads(*newest)
    with pytest.raises(RoomClosedError, match="leader had been away"):
        room.look(gone[0])


def test_watching_a_room_that_is_not_open_hears_at_once_that_it_is_closed(make_rooms):
    room = make_rooms()
    heard: list[int] = []
    room.watch("ABCDEF", heard.append)
    assert heard == [0]


def test_watchers_hear_each_new_version_and_the_close_at_once(make_rooms):
    room = make_rooms()
    code, token = room.open({"page": "a"})
    heard: list[int] = []
    stop = room.watch(code, heard.append)
    room.show(code, token, {"page": "a"})  # no change, no news
    room.show(code, token, {"page": "b"})
    room.show(code, token, {"page": "c"})
    assert heard == [2, 3]
    stop()
    room.show(code, token, {"page": "d"})
    assert heard == [2, 3]
    room.watch(code, heard.append)
    room.watch(code, lambda version: room.look(code))  # a watcher may call the store
    room.close(code, token)
    assert heard == [2, 3, 0]


def written_by_another(room: rooms.RoomStore, code: str, stored: str) -> None:
    """Something other than the app writes a room's view into the store (a Redis shared by mistake)."""
    if isinstance(room, RedisRooms):
        room._redis.hset(room._key("room", code), "view", stored)
    else:
        with room._lock:
            room._db.execute("UPDATE rooms SET view = ? WHERE code = ?", (stored, code))


def unreadable(code: str, why: str) -> str:
    return (
        f"Room {code} holds a view this server cannot read ({why}). Its leader's next change replaces "
        "it: join the room again then."
    )


def test_a_stored_view_nested_thousands_deep_is_named_and_the_leaders_next_change_replaces_it(make_rooms):
    """json itself runs out of stack on it; the store says why it cannot be read, before json
    reads it. The leader still leads, and the next view shown replaces it for everyone."""
    deep = '{"page": ' + "[" * 5_000 + "]" * 5_000 + "}"
    with pytest.raises(RecursionError):
        json.loads(deep)
    room = make_rooms()
    code, token = room.open({"page": "tokens"})
    heard: list[int] = []
    room.watch(code, heard.append)
    written_by_another(room, code, deep)
    most = limits.VIEW_DEPTH.most
    with pytest.raises(RoomError) as raised:
        room.look(code)
    assert str(raised.value) == unreadable(
        code, f"it nests 5,001 levels deep, where a view nests at most {most}"
    )
    assert room.leads(code, token)
    room.beat(code, token)
    assert room.show(code, token, {"page": "tokens"}) == 2  # (what cannot be read is another view)
    assert room.look(code) == rooms.Snapshot(2, {"page": "tokens"}) and heard == [2]


def test_every_other_stored_view_the_app_did_not_write_is_named(make_rooms):
    """Too long, one level deeper than a view may nest, not JSON, not a table of texts."""
    room = make_rooms()
    code, token = room.open({"page": "tokens"})
    most, longest = limits.VIEW_DEPTH.most, limits.VIEW_SIZE.most
    nested = '{"page": ' + "[" * most + "]" * most + "}"  # one level more than a view may nest
    assert nesting_depth(json.loads(nested)) == most + 1
    long = '{"page": "' + "x" * longest + '"}'
    for stored, why in (
        (long, f"it has {len(long):,} characters, where a view has at most {longest:,}"),
        (nested, f"it nests {most + 1} levels deep, where a view nests at most {most}"),
        (nested.replace("[", "", 1).replace("]", "", 1), "it is not a table of texts"),
        ("not JSON", "it is not a table of texts"),
        ('["tokens"]', "it is not a table of texts"),
        ('{"page": 1}', "it is not a table of texts"),
    ):
        written_by_another(room, code, stored)
        with pytest.raises(RoomError) as raised:
            room.look(code)
        assert str(raised.value) == unreadable(code, why)
    room.show(code, token, {"page": "pca"})
    assert room.look(code).view == {"page": "pca"}


@pytest.mark.parametrize(
    ("typed", "code"), [("abc234", "ABC234"), (" ABC-234 ", "ABC234"), ("abc 234", "ABC234")]
)
def test_a_code_is_read_as_people_type_it(typed, code):
    assert rooms.normal_code(typed) == code


@pytest.mark.parametrize("typed", ["", "ABC23", "ABC2345", "ABCO23", "ABC1I2", "<a href>", "x" * 10_000])
def test_a_code_that_cannot_be_one_gets_a_message(typed):
    with pytest.raises(RoomError, match="letters and digits"):
        rooms.normal_code(typed)


def test_a_host_can_require_a_presenter_key(make_rooms):
    assert rooms.may_lead("", "")
    assert rooms.may_lead("s3cret", "s3cret")
    assert not rooms.may_lead("s3cret", "")
    assert not rooms.may_lead("s3cret", "S3cret")


@pytest.mark.server("a Redis server")
def test_redis_rooms_expire_by_redis_key_expiry(redis_url):
    """An idle room's keys expire in Redis itself (a change renews them); its watchers and
    followers hear why. Read from Redis' own clock (PTTL), so a paused machine cannot fail it."""
    room = RedisRooms(redis_url, idle_hours=3 / 3600, prefix=f"test-{secrets.token_hex(4)}:")
    code, token = room.open({"page": "a"})
    heard: list[int] = []
    room.watch(code, heard.append)
    key = room._key("room", code)
    deadline = time.monotonic() + 15
    while room._redis.pttl(key) > 2_500 and time.monotonic() < deadline:  # some of its time gone
        time.sleep(0.05)
    left = room._redis.pttl(key)
    assert 0 < left <= 2_500
    room.show(code, token, {"page": "b"})  # a change renews the room
    assert room._redis.pttl(key) > left
    assert room.look(code).version == 2
    deadline = time.monotonic() + 15
    while heard[-1:] != [0] and time.monotonic() < deadline:  # (the watching loop looks again)
        time.sleep(0.1)
    assert heard == [2, 0]
    with pytest.raises(RoomClosedError, match="hours without a change"):
        room.look(code)
    assert len(room) == 0


def test_followers_read_a_sqlite_room_while_another_process_writes(tmp_path):
    """A follower's look is a read: another process holding the file's write lock (a leader's
    change, a follower's presence) does not hold it up, nor does this process's own lock wait for
    it; an idle room is still closed, with why, when looked at."""
    import sqlite3

    clock = Clock()
    path = tmp_path / "rooms.sqlite3"
    room = SqliteRooms(path, idle_hours=1, clock=clock)
    code, _ = room.open({"page": "tokens"})
    other, _ = room.open({"page": "pca"}, client="other")
    writer = sqlite3.connect(path, timeout=0, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        began = time.perf_counter()
        assert room.look(code) == rooms.Snapshot(1, {"page": "tokens"})
        assert time.perf_counter() - began < 1.0  # (SQLite's busy wait is 10 s)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    clock.now += 3601
    with pytest.raises(rooms.RoomClosedError, match=f"{other} closed after 1 hours without a change"):
        room.look(other)
    assert len(room) == 0  # (the transaction that said so closed the other idle room too)
