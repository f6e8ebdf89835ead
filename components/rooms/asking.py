"""A lesson's question in a workshop room: predict, then reveal.

A follower's answer goes to the room's store (one per browser, components/rooms/voter.py), where it
can be changed until the leader reveals the answer; until then the follower sees only their own
answer. The leader sees, live, how many follow now and what the room answered, and reveals with
one click: the reveal goes into the room's view, so that the server reruns every follower
(components/rooms/room_wake.py), whose bar then shows their verdict, the answer and the room's
answers. Nothing but a choice, a piece of the vocabulary or a number reaches the store
(answering.typed reads every answer first), and every stored answer is read again before it is
shown or counted (tally.taken_as).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from bert_embeddings.errors import ExplorerError
from bert_embeddings.lessons import answers, lesson, tally, tally_chart
from bert_embeddings.rooms import RoomError, Tally
from components.frame import runs
from components.lessons import answering, player
from components.parts import draw, echo
from components.rooms import follow, room_wake, voter
from components.rooms.follow import FOLLOW, JUST_REVEALED, LEAD, PROBLEM, REVEALED

# How often the leader's live tally reads the room's answers by itself: an answer given in this
# server process reruns it at once (room_wake.answered); this brings those given on other replicas.
TALLY_SECONDS = 2.0
FRESH = "fresh_tally"  # (room entry) (question, tally) a whole run read, for its live tally to draw


def part() -> Callable | None:
    """The room's part in the lesson bar's questions (answering.question), for a session that
    leads or follows a room; None for a learner alone."""
    state = follow.mine()
    if state.get(LEAD):
        return _leader
    if state.get(FOLLOW):
        return _follower
    return None


def _question() -> str:
    return player.question_name(player.playing())


def _tally(code: str, question: str) -> Tally | None:
    try:
        return follow.store().tally(code, question)
    except RoomError as problem:
        st.warning(echo.plain(problem), icon=":material/cloud_off:")
        return None


# --- a follower ---------------------------------------------------------------------------------


def _follower(step_number: int, step: lesson.Step, found: answers.Truth, key_of: Callable, markdown) -> None:
    code, question = follow.mine()[FOLLOW], _question()
    if (asked := _tally(code, question)) is None:
        return
    given = asked.answers.get(voter.voter())
    mine = tally.taken_as(step.key, given) if given is not None else None
    if asked.revealed:
        if told := answering.told():  # (sent as the answer was revealed)
            st.warning(echo.plain(told), icon=":material/edit_off:")
        if mine is None:
            st.caption("You did not answer this question.")
        else:
            judged = answering.Given(mine, answers.verdict(found, mine))
            answering.keep(step_number, judged)
            answering.said(judged)
        st.markdown(f"*Answer:* {markdown(step.answer)}")
        room_answers_drawn(asked, step.key, found, key_of("tally"))
        return
    if mine is not None:
        told = f"Your answer: {answering.answer_text(mine)}. You may change it until the answer is revealed."
        st.info(echo.plain(told), icon=":material/how_to_vote:")
    label = "Change my answer" if mine is not None else "Send my answer"
    answering.ask(step.key, key_of, label, _send, (code, question, step.key))
    st.caption("The answer shows when the room's leader reveals it.")


def _send(code: str, question: str, key: answers.Key) -> None:
    """on_click of "Send my answer": the answer read as the question takes it, then kept in the
    room's store as this browser's; else why not, said under the box."""
    try:
        given = answering.typed(key)
        follow.store().answer(code, question, voter.voter(), answers.as_text(given))
    except ExplorerError as problem:  # (a RoomError too: revealed meanwhile, the room away)
        answering.tell(str(problem))
        return
    answering.clear_box()
    room_wake.answered(code)


# --- the leader ---------------------------------------------------------------------------------


def _leader(step_number: int, step: lesson.Step, found: answers.Truth, key_of: Callable, markdown) -> None:
    code, token = follow.mine()[LEAD]
    question = _question()
    if (asked := _tally(code, question)) is None:
        return
    if asked.revealed:
        if follow.mine().get(REVEALED) != revealed_mark(code, question):
            # (revealed from another tab, or before this tab reloaded: the next run tells the room)
            follow.mine()[REVEALED] = revealed_mark(code, question)
            st.rerun(scope="app")
        st.markdown(f"*Answer:* {markdown(step.answer)}")
        room_answers_drawn(asked, step.key, found, key_of("tally"))
        return
    # (The leader's screen is often the projector: the answer stays folded until they open it.)
    with st.expander("The answer: only you see it", key=key_of("answer")):
        st.markdown(markdown(step.answer))
    follow.mine()[FRESH] = (question, asked)
    _live(code, token, question, step.key, key_of("tally"), key_of("reveal"))


@st.fragment(run_every=TALLY_SECONDS)
def _live(code: str, token: str, question: str, key: answers.Key, chart_key: str, button_key: str) -> None:
    """The room's answers as they come in, and the reveal. The reveal reruns the whole app, whose
    run tells the room (follow.publish)."""
    state = follow.mine()
    if state.pop(JUST_REVEALED, None):
        st.rerun(scope="app")
    room_wake.watch_answers(code)
    fresh = state.pop(FRESH, None)  # (what the whole run's bar has just read)
    if fresh is not None and fresh[0] == question and not runs.fragment_alone():
        asked = fresh[1]
    elif (asked := _tally(code, question)) is None:
        return
    if asked.revealed:  # (revealed from another tab of this leader's: _leader tells the room)
        st.rerun(scope="app")
    room_answers_drawn(asked, key, None, chart_key, voter.present(code))
    st.button(
        "Reveal the answer to the room",
        key=button_key,
        icon=":material/campaign:",
        type="primary",
        on_click=_reveal,
        args=(code, token, question),
    )


def revealed_mark(code: str, question: str) -> str:
    """What the leader's view carries once ``question`` is revealed in room ``code``: another
    value for each room and question, so that the view changes and the server reruns every
    follower (a room opened later in the same tab reveals the same question anew)."""
    return f"{code}:{question}"


def _reveal(code: str, token: str, question: str) -> None:
    state = follow.mine()
    try:
        follow.store().reveal(code, token, question)
    except RoomError as problem:
        state[PROBLEM] = str(problem)
        return
    state[REVEALED] = revealed_mark(code, question)
    state[JUST_REVEALED] = True


# --- the room's answers, drawn ------------------------------------------------------------------


def counted_words(counted: tally.Counted, here: int | None = None) -> str:
    """How many follow now (for the leader), how many answered, and how many were right once
    the answer is revealed."""
    parts = [] if here is None else [f"{here:,} follow now"]
    nobody = "nobody answered" if counted.right is not None else "nobody has answered yet"
    parts.append(f"{counted.answered:,} answered" if counted.answered else nobody)
    if counted.right is not None and counted.answered:
        parts.append(f"{counted.right:,} right")
    return "The room: " + "; ".join(parts) + "."


def room_answers_drawn(
    asked: Tally,
    key: answers.Key,
    truth: answers.Truth | None,
    chart_key: str,
    here: int | None = None,
) -> None:
    """The room's answers in words, and as a chart once there are any."""
    counted = tally.count(key, asked.answers.values(), truth)
    st.caption(echo.plain(counted_words(counted, here)))
    if (figure := tally_chart.chart(counted, truth, draw.ink())) is not None:
        draw.chart(figure, key=chart_key, at_once=True)  # (the bar is at the top, where the reader is)
