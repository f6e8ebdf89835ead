"""Workshop rooms, the core: open, lead, follow, forged tokens, expiry and the cap."""

from __future__ import annotations

import pytest

from bert_embeddings import rooms
from bert_embeddings.rooms import RoomError


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_room_shows_its_leaders_view_with_a_version_that_moves_only_on_change():
    room = rooms.Rooms()
    code, token = room.open({"page": "neighbours", "q": "bank"})
    assert len(code) == rooms.CODE_LENGTH and set(code) <= set(rooms.CODE_ALPHABET)
    assert token not in code and len(token) >= 24
    assert room.look(code) == (1, {"page": "neighbours", "q": "bank"})
    assert room.show(code, token, {"page": "neighbours", "q": "bank"}) == 1  # nothing changed
    assert room.show(code, token, {"page": "pca", "x": "3"}) == 2
    version, view = room.look(code)
    view["page"] = "tampered"  # a follower's copy cannot change the room
    assert room.look(code) == (2, {"page": "pca", "x": "3"})


def test_only_the_leaders_token_can_change_the_view():
    room = rooms.Rooms()
    code, token = room.open({"page": "tokens"})
    other_code, other_token = room.open({"page": "tokens"})
    for forged in ("", "x" * 32, other_token, token[:-1]):
        with pytest.raises(RoomError, match="Only the person who opened"):
            room.show(code, forged, {"page": "pca"})
    assert room.look(code) == (1, {"page": "tokens"})
    room.close(code, other_token)  # a wrong token closes nothing
    assert room.look(code)[0] == 1


def test_rooms_close_after_hours_without_a_change_and_a_server_keeps_a_few():
    clock = Clock()
    room = rooms.Rooms(most=2, idle_hours=1, clock=clock)
    first, token = room.open({})
    clock.now += 3000
    room.show(first, token, {"page": "a"})  # a change keeps it open
    second, _ = room.open({})
    with pytest.raises(RoomError, match="already has 2 open rooms"):
        room.open({})
    clock.now += 3601
    with pytest.raises(RoomError, match="no open room"):
        room.look(second)
    with pytest.raises(RoomError, match="has closed"):
        room.show(first, token, {"page": "b"})
    assert len(room) == 0
    room.open({})  # room for new ones again


@pytest.mark.parametrize(
    ("typed", "code"), [("abc234", "ABC234"), (" ABC-234 ", "ABC234"), ("abc 234", "ABC234")]
)
def test_a_code_is_read_as_people_type_it(typed, code):
    assert rooms.normal_code(typed) == code


@pytest.mark.parametrize("typed", ["", "ABC23", "ABC2345", "ABCO23", "ABC1I2", "<a href>", "x" * 10_000])
def test_a_code_that_cannot_be_one_gets_a_message(typed):
    with pytest.raises(RoomError, match="letters and digits"):
        rooms.normal_code(typed)


def test_a_host_can_require_a_presenter_key():
    assert rooms.may_lead("", "")
    assert rooms.may_lead("s3cret", "s3cret")
    assert not rooms.may_lead("s3cret", "")
    assert not rooms.may_lead("s3cret", "S3cret")
