"""Predict, then reveal, in a workshop room (components/rooms/asking.py), with AppTest sessions on
one store: followers answer into the room, see only their own answer until the leader reveals it,
then their verdict, the answer and the room's answers; the leader sees who follows and the counts
as they come in, and reveals once for everyone. Bad answers are refused and never reach the store."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings.lessons import answers, tally
from components.lessons import answering, player
from components.rooms import asking, follow, roomstore
from testkit.apptest import button, click, lead, lesson_fields, messages, room_fields, session, shown
from tests.app.test_answering import answer, said, score

pytestmark = [pytest.mark.usefixtures("offline"), pytest.mark.slow("a room's lesson in AppTests")]

REVEAL = "Reveal the answer to the room"
HELICOPTER_ANSWER = "The helicopter and the rocket, equally"


def captions(at: AppTest) -> str:
    return " ".join(shown(c.value) for c in at.caption)


def room_of(count: int) -> tuple[AppTest, str, list[AppTest]]:
    """A leader on the first step of the built-in lesson, and ``count`` followers on it."""
    leader, code = lead()
    leader.switch_page("pages/concepts.py").run()
    click(leader, "Start the lesson")
    followers = [session({"follow": code}) for _ in range(count)]
    for each in followers:
        assert lesson_fields(each)[player.PLAYING].step == 0, messages(each)
    return leader, code, followers


def stored(code: str, question: str) -> dict[str, str]:
    return roomstore.store().tally(code, question).answers


def test_followers_answer_the_leader_sees_the_counts_and_reveals_to_everyone():
    leader, code, (first, second, third) = room_of(3)
    question = player.question_name(lesson_fields(leader)[player.PLAYING])
    assert question == "embeddings:1"
    answer(first, "the helicopter", "Send my answer")
    answer(second, "the jet", "Send my answer")
    answer(second, "the eagle", "Change my answer")  # changeable until the reveal: one answer
    # Until the reveal, a follower sees only their own answer; nobody sees the right one.
    assert "Your answer: “the eagle”. You may change it until the answer is revealed." in said(second)
    for each in (first, second, third):
        assert not any(HELICOPTER_ANSWER in shown(m.value) for m in each.markdown)
        assert not any(b.label == "Skip: show the answer" for b in each.button)
        assert room_fields(each)[follow.FOLLOW] == code  # answering is not stepping away
    assert sorted(stored(code, question).values()) == ["the eagle", "the helicopter"]

    leader.run()
    assert "The room: 3 follow now; 2 answered." in captions(leader)
    chart = next(c.proto.spec for c in leader.get("plotly_chart") if "The room's 2 answers" in c.proto.spec)
    assert '"the eagle"' in chart and "(right)" not in chart  # the projector keeps the secret
    folded = next(e for e in leader.expander if e.label == "The answer: only you see it")
    assert [HELICOPTER_ANSWER in shown(m.value) for m in folded.markdown] == [True]
    assert sum(HELICOPTER_ANSWER in shown(m.value) for m in leader.markdown) == 1  # that one, folded

    button(leader, REVEAL).click().run()
    assert not leader.exception, messages(leader)
    assert roomstore.store().tally(code, question).revealed
    assert "The room: 2 answered; 1 right." in captions(leader)
    assert not any(b.label == REVEAL for b in leader.button)
    for each in (first, second, third):
        each.run()  # (the server reruns each follower; AppTest does it by hand)
        assert any(HELICOPTER_ANSWER in shown(m.value) for m in each.markdown), messages(each)
        assert "The room: 2 answered; 1 right." in captions(each)
        assert not any(b.label in ("Send my answer", "Change my answer") for b in each.button)
    assert "You answered “the helicopter”. Right." in said(first)
    assert "You answered “the eagle”. Not this time" in said(second)
    assert "You did not answer this question." in captions(third)
    assert score(first).startswith("Your answers: 1 right of 1 answered")

    click(leader, "Next")  # the room moves on; the next question starts with no answers
    for each in (first, second, third):
        each.run()
        assert lesson_fields(each)[player.PLAYING].step == 1
        assert room_fields(each)[follow.FOLLOW] == code


def test_a_follower_s_bad_answers_are_refused_and_never_reach_the_store():
    leader, code, (follower,) = room_of(1)
    for _ in range(3):
        click(leader, "Next")
    follower.run()
    now = lesson_fields(follower)[player.PLAYING]
    assert now.current.key.kind == answers.NUMBER
    question = player.question_name(now)
    for hostile in ("<img src=x onerror=alert(1)>", "1e999", "nan", "6" * 200_000, "$x$ **bold**"):
        answer(follower, hostile, "Send my answer")
        assert said(follower), hostile[:40]  # (why, under the box)
        assert stored(code, question) == {}
        assert room_fields(follower)[follow.FOLLOW] == code
    answer(follower, " 6.0 ", "Send my answer")
    assert list(stored(code, question).values()) == ["6.0"]
    assert "Your answer: 6." in said(follower)


def test_an_answer_sent_as_the_answer_is_revealed_is_refused_with_why():
    leader, code, (late,) = room_of(1)
    leader.run()
    button(leader, REVEAL).click().run()
    question = player.question_name(lesson_fields(leader)[player.PLAYING])
    answer(late, "the jet", "Send my answer")  # (the form drawn before the reveal reached them)
    assert stored(code, question) == {}
    assert "has revealed this question's answer: it takes no more answers" in said(late)
    assert "You did not answer this question." in captions(late)
    click(leader, "Next")
    late.run()
    assert "it takes no more answers" not in said(late)  # (said once, not on the next step)


def test_each_reveal_changes_the_rooms_view_so_that_its_followers_are_rerun():
    """A reveal reaches followers because the room's view changes (its version goes up): also
    for the same question revealed again in a room the same tab opens later."""
    leader, code, _ = room_of(0)
    leader.run()
    before = roomstore.store().look(code).version
    button(leader, REVEAL).click().run()
    shown = roomstore.store().look(code)
    assert shown.version > before and shown.view[follow.REVEALED] == f"{code}:embeddings:1"
    button(leader, "Close the room").click().run()
    leader.button(key="room_open").click().run()
    second, _token = room_fields(leader)[follow.LEAD]
    leader.switch_page("pages/concepts.py").run()
    click(leader, "Start the lesson")
    before = roomstore.store().look(second).version
    button(leader, REVEAL).click().run()
    shown = roomstore.store().look(second)
    assert shown.version > before and shown.view[follow.REVEALED] == f"{second}:embeddings:1"


def test_the_tally_in_words_for_each_state():
    key = answers.Key(answers.CHOICE, ("yes", "no"), ("yes",))
    truth = answers.Truth(answers.CHOICE, ("yes",))
    assert asking.counted_words(tally.count(key, [])) == "The room: nobody has answered yet."
    assert asking.counted_words(tally.count(key, [], truth)) == "The room: nobody answered."
    assert (
        asking.counted_words(tally.count(key, ["yes", "no"]), here=3) == "The room: 3 follow now; 2 answered."
    )
    assert asking.counted_words(tally.count(key, ["yes", "no"], truth)) == "The room: 2 answered; 1 right."
    assert answers.as_text(6.0) == "6.0" and answers.as_text(0.1 + 0.2) == repr(0.1 + 0.2)
    assert answers.as_text("the jet") == "the jet" and answers.as_text(6) == "6"
    assert answering.answer_text(6.0) == "6"
