"""Making a lesson while exploring: "Add this view as a step" takes the page and every setting
its link holds; each step then gets a title and a text, edited in place, a place in the order, or
is removed; "Download the lesson" writes the file, which opens again as the same steps.

The draft lives in the session only (a lesson file is how it is kept), in the sidebar's "Make a
lesson" section.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from bert_embeddings.errors import LessonError
from bert_embeddings.figures import check, settings
from bert_embeddings.lessons import lesson
from bert_embeddings.views import pages as registry
from components.lessons import player
from components.parts import echo, exports
from components.view_state import links


def draft() -> lesson.Lesson:
    return player.mine().get(player.DRAFT) or lesson.Lesson("My lesson", "", ())


def _keep(found: lesson.Lesson) -> None:
    player.mine()[player.DRAFT] = found


def _add(page: str) -> None:
    """on_click of "Add this view as a step": the page and its settings, titled by the page."""
    now = draft()
    view = ((check.PAGE, page), *links.view_params(page, text_limit=None).items())
    title = registry.BY_URL[page].title if page in registry.BY_URL else page
    _keep(dataclasses.replace(now, steps=(*now.steps, lesson.Step(title, tuple(view), ""))))
    _select(len(now.steps))


def _select(number: int) -> None:
    """Show step ``number`` (0-based) in the edit boxes."""
    steps = draft().steps
    state = st.session_state
    state[settings.LESSON_EDIT_STEP] = number
    state[settings.LESSON_EDIT_TITLE] = steps[number].title if steps else ""
    state[settings.LESSON_EDIT_TEXT] = steps[number].text if steps else ""


def _chosen() -> None:
    """on_change of the step picker."""
    _select(st.session_state.get(settings.LESSON_EDIT_STEP) or 0)


def _edited() -> None:
    """on_change of the title and text boxes: the chosen step takes them."""
    now, state = draft(), st.session_state
    number = state.get(settings.LESSON_EDIT_STEP) or 0
    if not now.steps:
        return
    step = dataclasses.replace(
        now.steps[number],
        title=state.get(settings.LESSON_EDIT_TITLE) or "",
        text=state.get(settings.LESSON_EDIT_TEXT) or "",
    )
    _keep(dataclasses.replace(now, steps=(*now.steps[:number], step, *now.steps[number + 1 :])))


def _named() -> None:
    """on_change of the lesson's title and summary."""
    state = st.session_state
    title, summary = state.get(settings.LESSON_EDIT_NAME) or "", state.get(settings.LESSON_EDIT_SUMMARY) or ""
    _keep(dataclasses.replace(draft(), title=title, summary=summary))


def _move(number: int, by: int) -> None:
    """on_click of Move up, Move down (``by`` -1 or 1) and Remove (``by`` 0)."""
    steps = list(draft().steps)
    if by == 0:
        del steps[number]
    else:
        steps[number], steps[number + by] = steps[number + by], steps[number]
    _keep(dataclasses.replace(draft(), steps=tuple(steps)))
    _select(min(max(number + by, 0), len(steps) - 1) if steps else 0)


def _checked() -> tuple[str | None, str | None]:
    """(the lesson file, or None; why it cannot be one yet, or None)."""
    written = lesson.write(draft())
    try:
        lesson.read(written)
    except LessonError as problem:
        return None, str(problem)
    return written, None


def section(page: str) -> None:
    """The sidebar's "Make a lesson": add the view shown, edit, order, download, play."""
    now = draft()
    with st.sidebar.expander("Make a lesson"):
        st.button(
            "Add this view as a step", icon=":material/add:", on_click=_add, args=(page,), key="lesson_add"
        )
        if not now.steps:
            st.caption("Each step is a page and its settings, with a title and a text you write.")
            return
        state = st.session_state
        state.setdefault(settings.LESSON_EDIT_NAME, now.title)
        state.setdefault(settings.LESSON_EDIT_SUMMARY, now.summary)
        st.text_input(
            "Lesson title", key=settings.LESSON_EDIT_NAME, persist_state="session", on_change=_named
        )
        st.text_input(
            "One-line summary", key=settings.LESSON_EDIT_SUMMARY, persist_state="session", on_change=_named
        )
        state.setdefault(settings.LESSON_EDIT_STEP, 0)
        if state[settings.LESSON_EDIT_STEP] >= len(now.steps):
            _select(len(now.steps) - 1)
        number = st.selectbox(
            "Step",
            range(len(now.steps)),
            format_func=lambda n: echo.plain(f"{n + 1}. {now.steps[n].title} ({now.steps[n].page})"),
            key=settings.LESSON_EDIT_STEP,
            persist_state="session",
            on_change=_chosen,
        )
        st.text_input(
            "Step title", key=settings.LESSON_EDIT_TITLE, persist_state="session", on_change=_edited
        )
        st.text_area(
            "Step text",
            key=settings.LESSON_EDIT_TEXT,
            persist_state="session",
            on_change=_edited,
            help="Paragraphs, **bold**, *italics* and `code`; anything else shows as typed.",
        )
        with st.container(horizontal=True):
            st.button("Up", key="lesson_up", disabled=number == 0, on_click=_move, args=(number, -1))
            st.button(
                "Down",
                key="lesson_down",
                disabled=number == len(now.steps) - 1,
                on_click=_move,
                args=(number, 1),
            )
            st.button("Remove", key="lesson_remove", on_click=_move, args=(number, 0))
        _keep_or_play(now)


def _keep_or_play(now: lesson.Lesson) -> None:
    """The made lesson's ways out: its file, its handout, playing it (once it checks)."""
    written, problem = _checked()
    if problem:
        st.warning(echo.plain(problem), icon=":material/edit_note:")
        return
    exports.file_button(
        "Download the lesson",
        ("lesson", now.title),
        "toml",
        lambda: written.encode("utf-8"),
        "application/toml",
    )
    player.handout_button(now, "maker")
    st.button(
        "Play it",
        key="lesson_play",
        icon=":material/play_arrow:",
        on_click=player.open_lesson,
        args=(now,),
    )
