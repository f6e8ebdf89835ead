"""Opening a lesson: from the first page ("Take a lesson"), from a link (``lesson=`` and
``step=``), or from a lesson file a person uploads. Whatever a file or a link holds is checked
whole before anything of it is used; a problem is a message, and the page goes on."""

from __future__ import annotations

import streamlit as st

from bert_embeddings import limits
from bert_embeddings.errors import LessonError
from bert_embeddings.figures import settings
from bert_embeddings.lessons import builtin, lesson
from components.lessons import player
from components.parts import echo
from components.view_state import links


def from_link(params: dict[str, str]) -> None:
    """On a session's first run: the lesson a link names, at its step. The step's view is applied
    only when the link holds nothing else (a link with settings shows them as they were shared)."""
    if links.LESSON not in params:
        return
    alone = set(params) <= {links.LESSON, links.STEP, *links.STREAMLIT_PARAMS}
    if problem := player.take_from_view(params, apply=alone):
        links.add_unused(f"lesson={params[links.LESSON][:40]!r} ({problem})")


def _start() -> None:
    """on_click of "Start the lesson"."""
    player.open_builtin(st.session_state.get(settings.LESSON_CHOICE) or builtin.NAMES[0])


def _upload() -> None:
    """on_change of the lesson file box: the file is checked whole, then opened."""
    uploaded = st.session_state.get(FILE_BOX)
    if uploaded is None:
        return
    try:
        if uploaded.size > limits.LESSON_FILE.most:  # (said before a byte of it is read)
            most = limits.LESSON_FILE.most
            raise LessonError([f"the file has {uploaded.size:,} bytes; a lesson may have at most {most:,}"])
        player.open_lesson(lesson.read(uploaded.getvalue()))
    except LessonError as problem:
        player.mine()[player.PROBLEM] = str(problem)


# The file box's key: not a setting (Streamlit keeps an uploaded file itself; no link or room
# carries the box, a room carries the lesson opened from it).
FILE_BOX = "lesson_file_box"
# Streamlit's box takes a limit in whole megabytes, the smallest being 1: the browser refuses a
# larger file before sending a byte, and _upload says the lesson's own limit for the rest. The
# box's own line ("1MB per file • TOML") would contradict the label, which says both the type
# and the true limit, so it is not shown (the key is the box's CSS class, st-key-...).
UPLOAD_MB = 1
_BOX_LINE = f".st-key-{FILE_BOX} [data-testid='stFileUploaderDropzoneInstructions']"
# A file the browser refuses (over UPLOAD_MB, or not .toml when dropped) never reaches the server:
# Streamlit marks its chip with a red icon, and says why only in a tooltip (hover, which a touch
# screen never shows) and to screen readers ("File must be 1.0MB or smaller", against the label's
# 200 kB). Under such a chip (only a refused one is wrapped in the error tooltip's target) the
# page says in words what the label says.
REFUSED = f"Not opened: a lesson file is a TOML file of at most {limits.LESSON_FILE.most // 1000:,} kB."
_REFUSED_CHIP = f".st-key-{FILE_BOX} [data-testid='stTooltipErrorHoverTarget']"
_BOX_STYLE = (
    f"<style>{_BOX_LINE} {{ display: none; }}"
    f" {_REFUSED_CHIP} {{ flex-wrap: wrap; }}"
    f' {_REFUSED_CHIP}::after {{ content: "{REFUSED}"; flex-basis: 100%; font-size: 0.875rem;'
    " padding: 0.25rem 0.5rem 0; }</style>"
)


def take_a_lesson() -> None:
    """The first page's offer: a built-in lesson, or a lesson file."""
    titles = {name: builtin.load(name).title for name in builtin.NAMES}
    with st.container(border=True):
        st.header("Take a lesson")  # h2: it follows the page title
        st.markdown(
            "A guided walk through the explorer, one view at a time: each step opens a page with its "
            "settings and says what to look at. You can explore freely and come back to the step."
        )
        choice, start = st.columns([3, 1], vertical_alignment="bottom")
        choice.selectbox(
            "Lesson",
            list(titles),
            format_func=titles.__getitem__,
            key=settings.LESSON_CHOICE,
            persist_state="session",
        )
        start.button("Start the lesson", icon=":material/school:", on_click=_start)
        st.file_uploader(
            f"...or open a lesson file (TOML, at most {limits.LESSON_FILE.most // 1000:,} kB)",
            type=["toml"],
            max_upload_size=UPLOAD_MB,
            key=FILE_BOX,
            on_change=_upload,
        )
        st.html(_BOX_STYLE)
        if problem := player.mine().pop(player.PROBLEM, None):
            st.error(echo.plain(problem), icon=":material/error:")
