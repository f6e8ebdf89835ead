"""The lesson bar: a lesson played on top of the explorer, one step at a time.

A session holds at most one lesson (built-in, by name, or one a person uploaded or made) and its
step. Opening a step applies its view as a link is applied: the page, the sentence and every
setting it names; every setting it does not name keeps its value. The person may explore freely
meanwhile; the bar then offers the way back to the step's view. Closing the lesson leaves them
where they are.

The step is applied at the start of the next run, before any widget is drawn (Streamlit refuses
a widget's value set after the widget), as a room's view is (components/rooms/follow.py).
"""

from __future__ import annotations

import functools
import html
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from bert_embeddings import limits
from bert_embeddings.errors import LessonError
from bert_embeddings.lessons import builtin, lesson
from bert_embeddings.views import pages as registry
from components.caches import handouts
from components.lessons import answering, step_text
from components.parts import echo, exports
from components.view_state import links, session_entries

# The fields of the session's lesson entry (session_entries.LESSON).
PLAYING = "playing"  # the Playing record of this session's lesson
PENDING = "pending"  # a step whose view is applied before any widget, until its page is drawn
ON_ITS_PAGE = "pending_on_its_page"  # the pending step, in a run on the step's page that applied it
DRAWN_STEP = "pending_drawn"  # the pending step this run is drawing (put back if it is replaced)
STEP_TOLD = "step_told"  # which step a link's step that the lesson lacks opened, said once
PROBLEM = "problem"  # why the last lesson file could not be opened, said once (opening.py)
DRAFT = "draft"  # the Lesson being made in the sidebar (maker.py)
LINK_LESSON, LINK_STEP = links.LESSON, links.STEP  # a view's lesson fields, as a link names them
LINK_FILE = "lesson_file"  # a lesson that is not built in, whole: only a room's view carries it


@dataclass(frozen=True)
class Playing:
    """A lesson in a session: the lesson, its source (a built-in lesson's name, or None for one
    uploaded or made here, which travels whole), and the step shown (0-based)."""

    lesson: lesson.Lesson
    name: str | None
    step: int

    @property
    def current(self) -> lesson.Step:
        return self.lesson.steps[self.step]

    @functools.cached_property
    def known_as(self) -> str:
        """The lesson's name in a room: a built-in lesson's, or a digest of a lesson file
        (computed once for each record, not on every run)."""
        return self.name or f"file-{zlib.crc32(lesson.write(self.lesson).encode()):08x}"


def mine() -> dict:
    """This session's lesson fields (above)."""
    return session_entries.entry(session_entries.LESSON)


def playing() -> Playing | None:
    return mine().get(PLAYING)


def open_lesson(found: lesson.Lesson, name: str | None = None, step: int = 0) -> None:
    """Start ``found`` at ``step``; its view is applied at the start of the next run."""
    step = min(max(step, 0), len(found.steps) - 1)
    if (now := playing()) is None or now.lesson != found:
        answering.forget()
    answering.clear_box()
    mine()[PLAYING] = Playing(found, name, step)
    mine()[PENDING] = step


def open_builtin(name: str, step: int = 0) -> None:
    open_lesson(builtin.load(name), name, step)


def go(step: int) -> None:
    """on_click of Back, Next and "Back to this step's view": show ``step`` and apply its view. A
    click sent from an earlier step's view (a second tap on Next that left before the first was
    answered) moves nothing: sent_earlier then shows the step with its view."""
    if (now := playing()) is None or addressed_step() not in (None, now.step):
        return
    open_lesson(now.lesson, now.name, step)


def close() -> None:
    """on_click of "Close the lesson": the person stays where they are."""
    mine().pop(PLAYING, None)
    mine().pop(PENDING, None)


def addressed_step() -> int | None:
    """The step (from 0) that this run's address names for the lesson playing, read before the
    run writes the address: the step shown when the browser sent its request."""
    now = playing()
    lessons, steps = st.query_params.get_all(LINK_LESSON), st.query_params.get_all(LINK_STEP)
    if now is None or lessons != [now.name] or len(steps) != 1:
        return None
    step, told = step_asked(steps[0], len(now.lesson.steps))
    return None if told else step


def sent_earlier(addressed: int | None, from_history: bool) -> None:
    """Before apply_pending: a run whose address names another step than the one playing was
    asked for from an earlier view. The browser's back or forward button opens that step. Any
    other such request left before the step shown was drawn (a second tap on Next or Back, whose
    click Streamlit drops when it comes from a page the session has left) and carries that
    view's widget values: it is answered on the step's own page, with the step's view."""
    if (now := playing()) is None or addressed is None or addressed == now.step or PENDING in mine():
        return
    if from_history:
        open_lesson(now.lesson, now.name, addressed)
    else:
        mine()[PENDING] = now.step


def apply_pending(current_page: str) -> str | None:
    """Before any widget is drawn: the step just opened has its view applied (only the settings
    it names); returns the page to switch to, if the step shows another.

    The view is applied again in every run until a run on the step's page is drawn to the end.
    A run can be replaced before it draws (the browser asks for a rerun: a job panel's timer, a
    click), and the browser's request then carries the values of the last page's widgets; a
    widget of the same setting on the step's page would start from them (the geometry of step
    4's page over step 5's). Applied in the run that draws the page, the step's values win."""
    state = mine()
    if (step := state.get(PENDING)) is None:
        return None
    if (now := playing()) is None or step >= len(now.lesson.steps):
        state.pop(PENDING, None)
        return None
    shown = now.lesson.steps[step]
    links.apply_named(shown.params)
    target = registry.current(shown.page)
    if target != current_page:
        return target
    state[ON_ITS_PAGE] = step
    return None


def drawn() -> None:
    """The app's run is about to draw its page (app.py calls this through components/frame/runs.py):
    a step applied in this run on its own page is no longer pending, unless the run is replaced."""
    state = mine()
    state.pop(DRAWN_STEP, None)
    step = state.pop(ON_ITS_PAGE, None)
    if step is not None and state.get(PENDING) == step:
        state[DRAWN_STEP] = state.pop(PENDING)


def replaced() -> None:
    """Another run replaced this one before its page was drawn to the end: the step it was
    drawing is pending again (unless another step was opened meanwhile)."""
    state = mine()
    if (step := state.pop(DRAWN_STEP, None)) is not None:
        state.setdefault(PENDING, step)


def differs(page: str) -> bool:
    """Whether the person has moved away from the step's view: another page, or a setting the
    step names with another value."""
    now = playing()
    if now is None:
        return False
    return registry.current(now.current.page) != page or links.differs_from(now.current.params)


# --- as a view: what links and rooms carry ---------------------------------------------------


def view_fields(whole: bool) -> dict[str, str]:
    """The lesson's part of a view: a built-in lesson's name and the step (numbered from 1); with
    ``whole``, a lesson that is not built in travels as its file (a room's store holds it; a link
    cannot)."""
    now = playing()
    if now is None:
        return {}
    if now.name is not None:
        return {LINK_LESSON: now.name, LINK_STEP: str(now.step + 1)}
    return {LINK_FILE: lesson.write(now.lesson), LINK_STEP: str(now.step + 1)} if whole else {}


def take_from_view(view: dict[str, str], apply: bool) -> str | None:
    """Open the lesson a view names (a link's or a room's) at its step; None, or why it cannot.
    With ``apply``, the step's view is applied too (a link naming nothing else)."""
    if LINK_LESSON not in view and LINK_FILE not in view:
        if playing() is not None and apply is False:
            close()  # a room's view without a lesson: the leader closed it
        return None
    try:
        found = builtin.load(view[LINK_LESSON]) if LINK_LESSON in view else lesson.read(view[LINK_FILE])
    except LessonError as problem:
        return str(problem)
    step, told = step_asked(view.get(LINK_STEP, "1"), len(found.steps))
    if told:
        mine()[STEP_TOLD] = told
    name = view.get(LINK_LESSON)
    now = playing()
    if apply:
        open_lesson(found, name, step)
    elif now is None or now.lesson != found or now.step != step:
        if now is None or now.lesson != found:
            answering.forget()
        answering.clear_box()  # (a room's next step: its question's box starts empty)
        mine()[PLAYING] = Playing(found, name, step)
    return None


def step_asked(text: str, count: int) -> tuple[int, str | None]:
    """The step (from 0) that a view's ``step=`` (numbered from 1) opens in a lesson of ``count``
    steps; and for a step the lesson does not have (999, -3, abc), the sentence that says which
    step it opens instead: the last for a number past the end, else the first."""
    try:
        number = limits.whole_number_text(text)
    except limits.TooManyDigitsError as big:  # a number, past one end or the other
        number = 0 if big.negative else count + 1
    except ValueError:  # not a number as a link writes one
        number = None
    if number is not None and 1 <= number <= count:
        return number - 1, None
    opens = count if number is not None and number > count else 1
    asked = text if number is not None and len(text) <= 20 else repr(text[:20])
    return (
        opens - 1,
        f"The link asks for step {asked}; this lesson has steps 1 to {count}, so it opens at step {opens}.",
    )


# --- the bar ---------------------------------------------------------------------------------


_ANNOUNCE = (
    "<div role='status' aria-live='polite' style='position:absolute;width:1px;height:1px;overflow:hidden;"
    "clip:rect(0 0 0 0);white-space:nowrap'>{}</div>"
)


def bar(
    page: str,
    leading: bool = False,
    room: Callable[[], None] | None = None,
    room_answers: Callable | None = None,
) -> None:
    """The lesson bar at the top of every page while a lesson is open: the lesson's title, step n
    of N with a progress bar, the step's title and text, its question with the answer on request,
    Back and Next, the way back to the step's view, and Close. ``leading``: a room's leader also
    sees the step's notes and the next step's title. ``room``: for a follower who stepped away
    from a room, the way back is into the room, at the step and view it shows now (the step
    in the bar may be one the room has left). ``room_answers``: in a room, what the room makes of
    a question that takes an answer (answering.question)."""
    now = playing()
    if now is None:
        return
    steps, number = now.lesson.steps, now.step + 1
    step = now.current
    with st.container(border=True, key="lesson_bar"):
        st.html(_ANNOUNCE.format(html.escape(f"Lesson step {number} of {len(steps)}: {step.title}")))
        if told := mine().pop(STEP_TOLD, None):
            st.info(echo.plain(told), icon=":material/link_off:")
        st.progress(
            number / len(steps), text=echo.plain(f"{now.lesson.title}: step {number} of {len(steps)}")
        )
        st.markdown(f"**{echo.plain(step.title)}**")
        _text_and_question(now, folded=room_answers is not None and not leading, room_answers=room_answers)
        if leading and (step.notes.strip() or number < len(steps)):
            # (The same element from step to step: a leader who folds the notes, before a
            # projector say, keeps them folded.)
            with st.expander("Presenter notes", expanded=True):
                if step.notes.strip():
                    st.markdown(step_text.markdown(step.notes))
                if number < len(steps):
                    st.caption(echo.plain(f"Next: {steps[now.step + 1].title}"))
        _moves(now, page, room)


def _text_and_question(now: Playing, folded: bool, room_answers: Callable | None) -> None:
    """The step's text and its question: side by side on a wide screen, so that the step's figure
    is in sight below them; one above the other on a phone (Streamlit stacks columns there).
    A room's follower, who hears the presenter, has the text folded: on a phone the question and
    the figure come first."""
    step = now.current
    words, asked = st.columns([3, 2], gap="medium") if step.question.strip() else (st.container(), None)
    with words:
        if folded:
            with st.expander("The step's text", key=_step_key(now, "text")):
                st.markdown(step_text.markdown(step.text))
        else:
            st.markdown(step_text.markdown(step.text))
    if room_answers is None:
        answering.kept_by_the_browser(now.known_as, now.lesson.steps)
    with asked or words:
        if asked is not None:
            keyed = functools.partial(_step_key, now)
            answering.question(now.step, step, keyed, step_text.markdown, room_answers)
        if said := answering.score(now.lesson.steps):
            st.caption(echo.plain(said))


def _moves(now: Playing, page: str, room: Callable[[], None] | None) -> None:
    """The bar's buttons: Back, Next, the way back to the step's view, Close and the handout."""
    number, steps = now.step + 1, now.lesson.steps
    with st.container(horizontal=True):
        st.button(
            "Back",
            key="lesson_back",
            icon=":material/arrow_back:",
            disabled=number == 1,
            on_click=go,
            args=(now.step - 1,),
        )
        st.button(
            "Next",
            key="lesson_next",
            icon=":material/arrow_forward:",
            disabled=number == len(steps),
            on_click=go,
            args=(now.step + 1,),
        )
        if differs(page):
            st.button(
                "Back to this step's view",
                key="lesson_view",
                icon=":material/undo:",
                on_click=room or go,
                args=() if room else (now.step,),
            )
        st.button("Close the lesson", key="lesson_close", icon=":material/close:", on_click=close)
        handout_button(now.lesson, "bar")


def _step_key(now: Playing, part: str) -> str:
    """The key of a part of the bar that a reader can open or change (the answer): one of its own
    for each lesson and step. The browser keeps such a part's state for as long as the element
    stays the same one; a key of the step's own makes each step's a new element, which arrives
    as its step draws it (the answer folded), alone and in a room."""
    return f"lesson_{part}_{zlib.crc32(now.lesson.title.encode())}_{now.step}"


def question_name(now: Playing) -> str:
    """The name a room gives the question of the step shown: the lesson's (a built-in lesson's
    name, or a digest of a lesson file) and the step's number."""
    return f"{now.known_as}:{now.step + 1}"


def handout_button(found: lesson.Lesson, where: str) -> None:
    """ "Download a handout": the lesson as one HTML file, made on the click."""
    exports.file_button(
        "Download a handout",
        ("handout", found.title),
        "html",
        handouts.maker(found),
        "text/html",
        help="The whole lesson as one web page to keep: each step's text and its figures, "
        "interactive, with the model in use. It opens offline. Making it takes a few seconds.",
        where=where,
    )
