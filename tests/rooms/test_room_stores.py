"""Several server processes sharing one room store, as replicas do: two stores on one SQLite file
(processes on one host), and two on one real Redis server (hosts). Each store here has its own
connections and its own watching loop, exactly as each process has; a change one makes reaches
the other only through the shared store. tests/rooms/test_replicas_browser.py runs the real thing:
two Streamlit processes behind HAProxy."""

from __future__ import annotations

import time

import pytest

from bert_embeddings import rooms
from bert_embeddings.rooms import RoomClosedError, RoomError, RoomsUnavailableError
from bert_embeddings.rooms.room_redis import RedisRooms
from testkit import services


def heard_within(heard: list[int], expected: list[int], seconds: float = 10) -> list[int]:
    deadline = time.monotonic() + seconds
    while heard != expected and time.monotonic() < deadline:
        time.sleep(0.02)
    return heard


def heard_up_to(heard: list[int], last: int, seconds: float = 10) -> list[int]:
    """What a watcher heard once it heard ``last``: new versions only, in order (a file's watcher
    reads the version a room has when it looks, so two quick changes may reach it as the second)."""
    deadline = time.monotonic() + seconds
    while heard[-1:] != [last] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert heard == sorted(set(heard)) and heard[-1:] == [last], heard
    return heard


def test_a_room_opened_on_one_replica_is_led_and_followed_on_the_other(replicas):
    a, b = replicas(), replicas()
    code, token = a.open({"page": "tokens"})
    assert b.look(code) == rooms.Snapshot(1, {"page": "tokens"})
    heard_on_b: list[int] = []
    b.watch(code, heard_on_b.append)
    a.show(code, token, {"page": "pca"})
    a.show(code, token, {"page": "axes"})
    heard_up_to(heard_on_b, 3)
    if isinstance(b, RedisRooms):  # a room's stream holds every version: each is told, once
        assert heard_on_b == [2, 3]
    # the leader's way back after a reload lands on the other replica: the token still leads
    assert b.leads(code, token)
    heard_on_a: list[int] = []
    a.watch(code, heard_on_a.append)
    assert b.show(code, token, {"page": "neighbours"}) == 4
    assert heard_within(heard_on_a, [4]) == [4]
    b.close(code, token)
    assert heard_within(heard_on_a, [4, 0]) == [4, 0]
    with pytest.raises(RoomClosedError, match="closed by its leader"):
        a.look(code)


def test_the_limits_count_every_replicas_rooms(replicas):
    a, b = replicas(most=3), replicas(most=3)
    a.open({}, client="10.0.0.1")
    b.open({}, client="10.0.0.2")
    b.open({}, client="10.0.0.3")
    for store in (a, b):  # the cap is the deployment's, not each replica's
        with pytest.raises(RoomError, match="as many open rooms"):
            store.open({}, client="10.0.0.4")
    assert len(a) == len(b) == 3
    c, d = replicas(), replicas()
    for i in range(rooms.OPENS_PER_CLIENT):  # one address, alternating replicas
        (c if i % 2 else d).open({}, client="10.0.9.9")
    for store in (c, d):
        with pytest.raises(RoomError, match="limit for one address"):
            store.open({}, client="10.0.9.9")


def test_rooms_survive_a_restart(replicas):
    before = replicas()
    code, token = before.open({"page": "tokens"})
    before.show(code, token, {"page": "pca", "q": "bank"})
    del before  # the process ends; a new one starts on the same store
    after = replicas()
    assert after.look(code) == rooms.Snapshot(2, {"page": "pca", "q": "bank"})
    assert after.leads(code, token) and not after.leads(code, "not-the-token")


@pytest.mark.server("a Redis server")
def test_a_redis_gone_mid_workshop_pauses_rooms_and_loses_no_version_when_it_is_back():
    if services.redis_path() is None:
        pytest.skip("no redis-server here: `make test` installs it (needs root and apt-get)")
    server = services.RedisServer(appendonly=True)
    server.start()
    try:
        leader, follower = RedisRooms(server.url), RedisRooms(server.url)
        code, token = leader.open({"page": "tokens"})
        heard: list[int] = []
        follower.watch(code, heard.append)
        server.stop()
        for call in (lambda: follower.look(code), lambda: leader.show(code, token, {"page": "pca"})):
            with pytest.raises(RoomsUnavailableError, match="cannot be reached"):
                call()
        assert not leader.leads(code, token)  # (a check, not an error: the page carries on)
        server.start()
        # shown at once, while the follower's process may still be reconnecting: its one
        # reader reads the room's stream from the last version it had, so it misses nothing
        leader.show(code, token, {"page": "pca"})
        leader.show(code, token, {"page": "axes"})
        assert heard_within(heard, [2, 3], seconds=20) == [2, 3]
        assert follower.look(code).view == {"page": "axes"}
    finally:
        server.close()


def test_a_rooms_file_that_cannot_be_used_turns_rooms_off_with_the_reason(tmp_path):
    """An unusable file (its folder is a file; a file that is not a database; a name that is no
    path): rooms are off with a message naming the setting, never kept in one process's memory
    unseen (two replicas would each keep rooms of their own)."""
    from components.rooms import roomstore

    (tmp_path / "not-a-folder").write_text("x")
    (tmp_path / "not-a-database.sqlite3").write_bytes(b"\x00" * 4096)
    for setting, why in (
        (tmp_path / "not-a-folder" / "rooms.sqlite3", "cannot be used"),
        (tmp_path / "not-a-database.sqlite3", "not a SQLite database"),
        ("bogus://x", "takes a redis://"),
    ):
        with pytest.raises(rooms.RoomsOffError) as off:
            roomstore.open_store(str(setting))
        assert "Workshop rooms are off on this server" in str(off.value) and why in str(off.value)
        assert str(setting) in str(off.value)
