"""Predict, then reveal, for a learner alone: a step's question with a key takes an answer before
its answer shows; the bar then says whether it was right and by how much, and keeps the score."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings.figures import settings
from bert_embeddings.lessons import builtin
from components.lessons import answering, player
from testkit.apptest import button, click, lesson_fields, messages, shown, started

pytestmark = [pytest.mark.usefixtures("offline"), pytest.mark.slow("a lesson taken step by step in AppTests")]


def answer(at: AppTest, given: str, label: str = "Check my answer") -> AppTest:
    """Give ``given`` (a choice, or typed) and click ``label``."""
    prompt = next((r for r in at.radio if r.label == answering.PROMPTS["choice"]), None)
    if prompt is not None:
        prompt.set_value(given)
    else:
        next(t for t in at.text_input if t.label.startswith("Your answer")).input(given)
    button(at, label).click().run()
    assert not at.exception, messages(at)
    return at


def said(at: AppTest) -> str:
    return " ".join(shown(str(m.value)) for m in (*at.success, *at.info, *at.warning))


def score(at: AppTest) -> str:
    return " ".join(shown(c.value) for c in at.caption if shown(c.value).startswith("Your answers:"))


def test_a_learner_answers_first_then_sees_the_verdict_the_answer_and_the_score():
    keyed = sum(step.key is not None for step in builtin.load("embeddings").steps)
    at = started()
    answer_text = "The helicopter and the rocket, equally"
    assert not any(answer_text in shown(m.value) for m in at.markdown)  # the answer waits for one
    answer(at, "the jet")
    assert "You answered “the jet”. Not this time: the answer is the helicopter and the rocket." in said(at)
    assert any(answer_text in shown(m.value) for m in at.markdown)
    assert score(at) == f"Your answers: 0 right of 1 answered ({keyed} questions in this lesson take one)."

    click(at, "Next")  # a question without a key keeps "Show the answer"
    assert any(e.label == "Show the answer" for e in at.expander) and not at.radio
    click(at, "Next")
    answer(at, "yes")
    assert "Right." in said(at)
    assert score(at).startswith("Your answers: 1 right of 2 answered")

    click(at, "Next")  # a number: a word or a percent is refused with why, the box kept
    for refused, why in (("six", "The question takes a number"), ("6%", "without the % sign")):
        answer(at, refused)
        assert why in said(at)
        assert lesson_fields(at)[answering.ANSWERS].get(3) is None
        assert any(t.label.startswith("Your answer") for t in at.text_input)
    answer(at, "6,0")  # a decimal comma is a decimal point
    assert "You answered 6. Right: exactly 6." in said(at)
    assert score(at).startswith("Your answers: 2 right of 3 answered")

    click(at, "Next")
    click(at, "Next")  # skipping shows the answer, and counts as no answer
    button(at, "Skip: show the answer").click().run()
    assert any("normalises each piece's own vector" in shown(m.value) for m in at.markdown)
    assert score(at).startswith("Your answers: 2 right of 3 answered")

    click(at, "Back")  # an answer given is kept for the lesson
    click(at, "Back")
    assert "You answered 6. Right: exactly 6." in said(at)


def test_another_lesson_starts_a_new_score():
    at = started()
    answer(at, "the rocket")
    assert score(at).startswith("Your answers: 1 right of 1 answered")
    at.switch_page("pages/concepts.py").run()  # the same session opens another lesson
    at.selectbox(key=settings.LESSON_CHOICE).set_value("alike").run()
    click(at, "Start the lesson")
    assert lesson_fields(at)[player.PLAYING].name == "alike"
    assert score(at) == "" and not lesson_fields(at).get(answering.ANSWERS)
