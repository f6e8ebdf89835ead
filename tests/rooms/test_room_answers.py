"""A room's answers to a lesson's questions, in both stores, shared by two replicas: one answer per
follower's browser per question, changeable until the leader reveals it; who is here; and what a
follower cannot do (reveal, answer for a made-up browser beyond the room's count, send anything but
a short answer)."""

from __future__ import annotations

import secrets

import pytest

from bert_embeddings.rooms import RoomClosedError, RoomError, Tally, room_answers

QUESTION = "embeddings:1"


def voter() -> str:
    return secrets.token_hex(16)


def test_answers_count_once_per_browser_on_either_replica_until_revealed(replicas):
    a, b = replicas(), replicas()
    code, token = a.open({"page": "concepts"})
    first, second = voter(), voter()
    a.answer(code, QUESTION, first, "the jet")
    b.answer(code, QUESTION, second, "the rocket")
    b.answer(code, QUESTION, first, "the helicopter")  # changed on the other replica: still one
    assert a.tally(code, QUESTION) == Tally({first: "the helicopter", second: "the rocket"}, False)
    assert b.tally(code, "embeddings:2") == Tally({}, False)
    b.reveal(code, token, QUESTION)
    assert a.tally(code, QUESTION).revealed
    with pytest.raises(RoomError, match="revealed"):
        a.answer(code, QUESTION, first, "the jet")
    with pytest.raises(RoomError, match="revealed"):
        b.answer(code, QUESTION, voter(), "the jet")
    assert a.tally(code, QUESTION).answers == {first: "the helicopter", second: "the rocket"}
    b.answer(code, "embeddings:2", first, "yes")  # the next question takes answers
    assert a.tally(code, "embeddings:2").answers == {first: "yes"}


def test_answers_survive_a_restart_and_close_with_the_room(replicas):
    a = replicas()
    code, token = a.open({})
    given = voter()
    a.answer(code, QUESTION, given, "6")
    restarted = replicas()
    assert restarted.tally(code, QUESTION).answers == {given: "6"}
    restarted.close(code, token)
    with pytest.raises(RoomClosedError):
        a.tally(code, QUESTION)
    with pytest.raises(RoomClosedError):
        a.answer(code, QUESTION, given, "7")


def test_only_the_leader_reveals(replicas):
    a = replicas()
    code, token = a.open({})
    with pytest.raises(RoomError, match="not the leader|lead"):
        a.reveal(code, "not-the-token", QUESTION)
    assert not a.tally(code, QUESTION).revealed


@pytest.mark.parametrize(
    ("question", "who", "given", "said"),
    [
        ("embeddings:1", "A" * 32, "yes", "cannot be told apart"),
        ("embeddings:1", "abc", "yes", "cannot be told apart"),
        ("embeddings:1", None, "yes", "cannot be told apart"),
        ("<script>", "0" * 32, "yes", "not one of this room's questions"),
        ("x" * 81, "0" * 32, "yes", "not one of this room's questions"),
        ("embeddings:1", "0" * 32, "y" * 121, "at most 120 characters"),
        ("embeddings:1", "0" * 32, "   ", "at most 120 characters"),
        ("embeddings:1", "0" * 32, ["yes"], "at most 120 characters"),
    ],
)
def test_anything_but_the_apps_own_names_ids_and_short_answers_is_refused(
    replicas, question, who, given, said
):
    a = replicas()
    code, _ = a.open({})
    with pytest.raises(RoomError, match=said):
        a.answer(code, question, who, given)
    assert a.tally(code, QUESTION).answers == {}


def test_a_question_counts_at_most_its_room_s_number_of_browsers(replicas, monkeypatch):
    monkeypatch.setattr(room_answers, "MOST_VOTERS", 3)
    a = replicas()
    code, _ = a.open({})
    known = [voter() for _ in range(3)]
    for each in known:
        a.answer(code, QUESTION, each, "yes")
    with pytest.raises(RoomError, match="as many as a room counts"):
        a.answer(code, QUESTION, voter(), "yes")
    a.answer(code, QUESTION, known[0], "no")  # a browser already counted may still change its answer
    assert sorted(a.tally(code, QUESTION).answers.values()) == ["no", "yes", "yes"]


def test_who_is_here_counts_the_browsers_seen_lately_on_either_replica(replicas):
    now = [1_000_000.0]
    a, b = replicas(clock=lambda: now[0]), replicas(clock=lambda: now[0])
    code, _ = a.open({})
    first, second = voter(), voter()
    a.here(code, first)
    b.here(code, second)
    a.here(code, first)  # (a second tab, or a reload: the same browser)
    assert a.present(code) == b.present(code) == 2
    now[0] += room_answers.PRESENT_SECONDS - 1
    b.here(code, second)
    now[0] += 2
    assert a.present(code) == 1
    with pytest.raises(RoomError, match="cannot be told apart"):
        a.here(code, "someone")
