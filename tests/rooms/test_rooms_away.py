"""A workshop whose Redis goes away mid-room, in the app: the leader and the followers read why
in the sidebar, every page keeps working, and the room carries on once Redis is back. With a
real redis-server, stopped and started again on its port."""

from __future__ import annotations

import pytest

from bert_embeddings.rooms.room_redis import RedisRooms
from components.rooms import follow, roomstore
from testkit import services
from testkit.apptest import lead, messages, page_title, room_fields, session

AWAY = "cannot be reached just now"

pytestmark = [
    pytest.mark.usefixtures("offline"),  # the default model resolves offline at once
    pytest.mark.server("a Redis server stopped and started again"),
]


@pytest.fixture
def redis(monkeypatch):
    if services.redis_path() is None:
        pytest.skip("no redis-server here: `make test` installs it (needs root and apt-get)")
    server = services.RedisServer(appendonly=True)
    server.start()
    monkeypatch.setattr(roomstore, "_store", RedisRooms(server.url))
    yield server
    server.close()


def test_a_redis_gone_mid_workshop_is_said_in_the_sidebar_and_every_page_keeps_working(redis):
    leader, code = lead()
    leader.switch_page("pages/neighbours.py").run()
    follower = session({"follow": code})
    assert page_title(follower) == "Nearest neighbours in the vocabulary"

    redis.stop()
    leader.switch_page("pages/tokens.py").run()
    follower.run()
    for person in (leader, follower):
        assert not person.exception
        assert AWAY in messages(person)
    assert page_title(leader) == "Tokens" and room_fields(leader)[follow.LEAD][0] == code
    assert room_fields(follower)[follow.FOLLOW] == code  # still following: the room only waits
    # the room waits: the follower stays on the room's last page, drawn in full (its table)
    assert page_title(follower) == "Nearest neighbours in the vocabulary"
    assert any("rank" in frame.value.columns for frame in follower.dataframe), messages(follower)
    newcomer = session()  # someone who never joined a room sees nothing of it
    assert not newcomer.exception and AWAY not in messages(newcomer)
    newcomer.switch_page("pages/maps.py").run()
    assert not newcomer.exception and page_title(newcomer) == "Maps"

    redis.start()
    leader.run()  # the leader's page publishes its view again
    follower.run()
    assert not follower.exception and page_title(follower) == "Tokens"
    assert AWAY not in messages(follower)


def test_a_room_led_or_joined_while_redis_is_away_is_refused_and_nothing_is_paused(monkeypatch):
    """A process that starts while Redis is away: leading or joining a room says that rooms cannot
    be opened or joined now (not that a room which never existed is paused), and the store starts
    working once Redis answers (nothing connects when the store is made)."""
    monkeypatch.setattr(roomstore, "_store", RedisRooms("redis://127.0.0.1:1/0"))
    person = session()
    person.button(key="room_open").click().run()
    assert not person.exception and AWAY in messages(person)
    assert "A room cannot be opened: " in messages(person) and "paused" not in messages(person)
    assert follow.LEAD not in room_fields(person)
    person.switch_page("pages/tokens.py").run()
    assert not person.exception and page_title(person) == "Tokens"
    for joining in (session({"follow": "ABC234"}), session()):
        if follow.FOLLOW not in room_fields(joining) and not messages(joining):  # by the Join box
            joining.text_input(key="room_code").set_value("ABC234").run()
            joining.button(key="room_join").click().run()
        said = messages(joining)
        assert not joining.exception and "Room ABC234 cannot be joined: " in said and AWAY in said, said
        assert "paused" not in said and follow.FOLLOW not in room_fields(joining)
