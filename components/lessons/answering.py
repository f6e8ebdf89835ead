"""A step's question in the lesson bar. A question with a key (bert_embeddings.lessons.answers)
takes an answer first: a choice, a piece of the vocabulary or a number; the learner then sees
whether it was right and by how much, and the answer. They may skip, which shows the answer. A
question without a key, or whose key this model cannot give, shows its answer on request.

The session keeps one answer per step of the lesson it plays (the lesson entry's ``answers``),
so that the bar can keep the learner's score; opening another lesson starts a new one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from bert_embeddings.analysis import vocab_search
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import settings
from bert_embeddings.lessons import answers, figures, lesson
from components.caches import lesson_figures, model_caches
from components.parts import cookie, echo, widgets
from components.view_state import session_entries

ANSWERS = "answers"  # the lesson entry's {step: Given} for the lesson playing
TOLD = "answer_told"  # why the last answer could not be taken, said once under the question
READ_BACK = "answers_read_back"  # the lesson whose answers this session read from the browser
# The cookie in which a learner's browser keeps their answers to the lesson they play, so that a
# reload (a new session) keeps their score; a room's follower has theirs in the room's store.
COOKIE = "bert_explorer_answers"
KEPT_SECONDS = 24 * 3600


@dataclass(frozen=True)
class Given:
    """A learner's answer to a step's question, and its verdict; ``answer`` None: skipped."""

    answer: str | float | None
    verdict: answers.Verdict | None


def _kept() -> dict:
    return session_entries.entry(session_entries.LESSON).setdefault(ANSWERS, {})


def forget() -> None:
    """A new lesson: no answers yet."""
    entry = session_entries.entry(session_entries.LESSON)
    entry.pop(ANSWERS, None)
    entry.pop(TOLD, None)


def truth(step: lesson.Step) -> answers.Truth | figures.Missing | None:
    """The step's key for the model in use (None: its question takes no answer)."""
    if step.key is None:
        return None
    return answers.truth(step.key, lesson_figures.rendered)


def is_piece(typed: str) -> str | None:
    """The piece of the model's vocabulary that ``typed`` names (as written, or as the tokenizer
    reads a word of one piece); None if none."""
    index, model = model_caches.vocab_index(), model_caches.require_model()
    try:
        ids = vocab_search.word_ids(index, model.tokenizer, typed)
    except ExplorerError:
        return None
    return index.pieces[ids[0]] if len(ids) == 1 else None


def clear_box() -> None:
    """A step opened: its answer box starts empty (one box serves every step's question), and
    nothing is said of the last step's answer."""
    widgets.forget(settings.LESSON_ANSWER)
    session_entries.entry(session_entries.LESSON).pop(TOLD, None)


def typed(key: answers.Key) -> str | float:
    """The answer in the box, as the question takes it (an ExplorerError says why not)."""
    return answers.read_answer(key, st.session_state.get(settings.LESSON_ANSWER) or "", is_piece)


def tell(problem: str) -> None:
    """Why the answer could not be taken: said once, under the question."""
    session_entries.entry(session_entries.LESSON)[TOLD] = problem


def told() -> str | None:
    """Why the last answer could not be taken, once (then forgotten)."""
    return session_entries.entry(session_entries.LESSON).pop(TOLD, None)


def keep(step_number: int, given: Given) -> None:
    """The learner's answer to a step, for the score."""
    _kept()[step_number] = given


def kept_by_the_browser(name: str, steps: tuple[lesson.Step, ...]) -> None:
    """A learner alone: on the session's first run of lesson ``name``, the answers their browser
    kept are read back (each read again as its question takes it, and judged afresh); on every
    run, the browser keeps the answers given so far."""
    entry = session_entries.entry(session_entries.LESSON)
    if entry.get(READ_BACK) != name:
        entry[READ_BACK] = name
        _read_back(name, steps)
    given = {number: None if g.answer is None else answers.as_text(g.answer) for number, g in _kept().items()}
    if given:
        cookie.keep(COOKIE, answers.kept_text(name, given), KEPT_SECONDS, key="lesson_answers_kept")


def _read_back(name: str, steps: tuple[lesson.Step, ...]) -> None:
    kept = answers.read_kept(cookie.read(COOKIE))
    if kept is None or kept[0] != name:
        return
    for number, text in kept[1].items():
        if number >= len(steps) or (key := steps[number].key) is None or number in _kept():
            continue
        if text is None:
            _skip(number)
            continue
        try:
            given = answers.read_answer(key, text, is_piece)
        except ExplorerError:
            continue
        step_truth = answers.truth(key, lesson_figures.rendered)
        found = answers.verdict(step_truth, given) if isinstance(step_truth, answers.Truth) else None
        keep(number, Given(given, found))


def _check(step_number: int, key: answers.Key) -> None:
    """on_click of "Check my answer": the answer read, judged and kept; else why not, said once."""
    found = None
    try:
        given = typed(key)
    except ExplorerError as problem:
        tell(str(problem))
        return
    step_truth = answers.truth(key, lesson_figures.rendered)
    if isinstance(step_truth, answers.Truth):
        found = answers.verdict(step_truth, given)
    keep(step_number, Given(given, found))
    clear_box()


def _skip(step_number: int) -> None:
    _kept()[step_number] = Given(None, None)


def question(
    step_number: int,
    step: lesson.Step,
    key_of: Callable[[str], str],
    markdown,
    room: Callable[[int, lesson.Step, answers.Truth, Callable, Callable], None] | None = None,
) -> None:
    """The step's question, its answer controls and, once answered or skipped, the verdict and
    the answer. ``key_of(part)``: a widget key of this lesson and step's own; ``markdown``: how
    the bar shows a lesson's text; ``room``: in a workshop room, what the room makes of a question
    that takes an answer (components/rooms/asking.py), in place of the learner's own."""
    st.markdown(f"*Question:* {markdown(step.question)}")
    found = truth(step)
    if not isinstance(found, answers.Truth):
        with st.expander("Show the answer", key=key_of("answer")):
            st.markdown(markdown(step.answer))
        return
    if room is not None:
        room(step_number, step, found, key_of, markdown)
        return
    given = _kept().get(step_number)
    if given is None:
        ask(step.key, key_of, "Check my answer", _check, (step_number, step.key))
        st.button(
            "Skip: show the answer",
            key=key_of("skip"),
            icon=":material/visibility:",
            on_click=_skip,
            args=(step_number,),
        )
        return
    said(given)
    st.markdown(f"*Answer:* {markdown(step.answer)}")


def said(given: Given) -> None:
    """The verdict on an answer given (nothing for one skipped)."""
    if given.verdict is not None:
        say = st.success if given.verdict.right else st.info
        icon = ":material/check_circle:" if given.verdict.right else ":material/cancel:"
        say(echo.plain(f"You answered {answer_text(given.answer)}. {given.verdict.said}"), icon=icon)


def answer_text(answer: str | float | None) -> str:
    return answers.typed_text(answer) if isinstance(answer, float) else f"“{answer}”"


PROMPTS = {
    answers.CHOICE: "Your answer",
    answers.PIECE: "Your answer: one piece of the vocabulary",
    answers.NUMBER: "Your answer: a number",
}


def ask(key: answers.Key, key_of: Callable[[str], str], label: str, on_submit, args: tuple) -> None:
    """The answer box (a choice, or a text for a piece or a number) in a form whose button
    ``label`` calls ``on_submit(*args)``; why the last answer could not be taken, under it."""
    with st.form(key_of("form"), border=False, enter_to_submit=True):
        if key.kind == answers.CHOICE:
            st.radio(
                PROMPTS[key.kind],
                key.choices,
                index=None,
                key=settings.LESSON_ANSWER,
                persist_state="session",
                format_func=echo.plain,
            )
        else:
            st.text_input(
                PROMPTS[key.kind],
                key=settings.LESSON_ANSWER,
                persist_state="session",
                placeholder="e.g. dog" if key.kind == answers.PIECE else "e.g. 0.25",
            )
        if said_why := told():
            st.warning(echo.plain(said_why), icon=":material/edit_off:")
        st.form_submit_button(label, icon=":material/check:", on_click=on_submit, args=args)


def score(steps: tuple[lesson.Step, ...]) -> str | None:
    """The learner's score in this lesson, once they have answered a question: how many right of
    how many answered, and how many of the lesson's questions take an answer."""
    judged = [given for given in _kept().values() if given.verdict is not None]
    if not judged:
        return None
    right = sum(given.verdict.right for given in judged)
    return answers.score_said(right, len(judged), sum(step.key is not None for step in steps))
