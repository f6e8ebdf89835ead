"""A lesson: a title, a one-line summary, and steps, each a view of the explorer with a short
text, maybe a question with its answer, and maybe notes for whoever leads a room.

A lesson is a TOML file. TOML, because a teacher reads and writes it in any editor (long texts
as triple-quoted strings, no indentation to get right, unlike YAML), Python reads it with its
own ``tomllib`` (no third-party parser sees a stranger's file), and a step's view is a table of
the very parameters a link holds:

    title = "The many embeddings of BERT"
    summary = "From a sentence to the vectors BERT's encoder reads."

    [[step]]
    title = "A sentence becomes pieces"
    text = \"\"\"BERT never sees words: its tokenizer cuts the text into **pieces**.\"\"\"
    question = "Which word of 'I am Sinan' is cut in two?"
    answer = "Sinan: `sin` and `##an`."

    [step.key]
    choices = ["I", "am", "Sinan"]
    right = "Sinan"

    [step.view]
    page = "tokens"
    a = "I am Sinan"

A file is read whole or not at all: every problem is collected, each naming its step and field,
and raised together (LessonError). Nothing in it is ever rendered as HTML, LaTeX or a link
(bert_embeddings.lessons.text says what its texts may hold).
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import tomli_w

from bert_embeddings import limits
from bert_embeddings.errors import LessonError
from bert_embeddings.figures import check
from bert_embeddings.lessons import answers, figures

STEP_FIELDS = ("title", "text", "question", "answer", "key", "notes", "view")
REQUIRED = ("title", "text", "view")


@dataclass(frozen=True)
class Step:
    title: str
    view: tuple[tuple[str, str], ...]  # (name, text) pairs as a link holds them, ``page`` first
    text: str
    question: str = ""
    answer: str = ""
    notes: str = ""  # for whoever leads a room, never shown to followers
    key: answers.Key | None = None  # the question takes an answer: a choice, a piece or a number

    @property
    def page(self) -> str:
        return dict(self.view)[check.PAGE]

    @property
    def params(self) -> dict[str, str]:
        """The view's settings as link parameters (its page aside)."""
        return {name: value for name, value in self.view if name != check.PAGE}


@dataclass(frozen=True)
class Lesson:
    title: str
    summary: str
    steps: tuple[Step, ...] = field(default_factory=tuple)


# What a path that is not a regular file is, as a host is told (os.stat's file types).
_NOT_FILES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def read_file(path: str | os.PathLike) -> bytes:
    """The bytes of the lesson file at ``path``, for ``read``: a path that is not a regular file is
    refused before it is opened (opening a named pipe waits for a writer; a device such as
    /dev/zero never ends), and no more than a lesson may hold, plus one byte, is ever read (a
    file may grow, or say it is empty, as /proc's do). LessonError for either; OSError for a
    file that cannot be read."""
    most = limits.LESSON_FILE.most
    _refuse_if_not_a_file(path, os.stat(path))
    # O_NONBLOCK: should the path become a named pipe after the check, opening it does not wait.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    with open(os.open(path, flags), "rb") as handle:
        status = os.fstat(handle.fileno())
        _refuse_if_not_a_file(path, status)
        if status.st_size > most:
            raise LessonError([_too_large(f"{status.st_size:,}")])
        data = handle.read(most + 1)
    if len(data) > most:
        raise LessonError([_too_large(f"more than {most:,}")])
    return data


def _refuse_if_not_a_file(path: str | os.PathLike, status: os.stat_result) -> None:
    if stat.S_ISREG(status.st_mode):
        return
    kind = next((kind for test, kind in _NOT_FILES if test(status.st_mode)), "a special file")
    raise LessonError([f"{os.fspath(path)} is {kind}, not a file; a lesson is read from a file"])


def _too_large(size: str) -> str:
    return f"the file has {size} bytes; a lesson may have at most {limits.LESSON_FILE.most:,}"


def read(data: bytes | str, check_view: Callable[[Mapping], list] = check.check_view) -> Lesson:
    """The lesson in ``data`` (a file's bytes, or its text), checked whole: its size first, then
    that it is text, nested no deeper than a lesson and TOML, then every field of every step, each
    view as a link is read. A LessonError lists every problem found."""
    if isinstance(data, str):
        data = data.encode("utf-8", errors="surrogatepass")
    if not isinstance(data, bytes | bytearray):
        raise LessonError([f"a lesson is a file's text, not {type(data).__name__}"])
    if len(data) > limits.LESSON_FILE.most:
        raise LessonError([_too_large(f"{len(data):,}")])
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        raise LessonError(["the file is not text (UTF-8)"]) from None
    if "\x00" in text:
        raise LessonError(["the file is not text (it holds NUL bytes)"])
    if (depth := limits.nesting(text, "toml")) > (most := limits.LESSON_DEPTH.most):  # (tomllib recurses)
        raise LessonError([f"the file nests arrays or tables {depth:,} deep; a lesson nests at most {most}"])
    try:
        found = tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        raise LessonError([f"the file is not a lesson file (TOML): {problem}"]) from None
    problems: list[str] = []
    lesson = _lesson(found, problems, check_view)
    if problems:
        raise LessonError(problems)
    return lesson


def _text(where: str, value: object, limit: limits.Limit, problems: list[str]) -> str:
    if not isinstance(value, str):
        problems.append(f"{where} must be text, not {type(value).__name__}")
        return ""
    if len(value) > limit.most:
        problems.append(f"{where} has {len(value):,} characters; at most {limit.most:,}")
    return value


def _lesson(found: dict, problems: list[str], check_view) -> Lesson:
    for name in found:
        if name not in ("title", "summary", "step"):
            problems.append(f"'{str(name)[:40]}' is not part of a lesson (title, summary, step)")
    title = _text("the lesson's title", found.get("title", ""), limits.LESSON_TITLE, problems)
    summary = _text("the lesson's summary", found.get("summary", ""), limits.LESSON_TITLE, problems)
    if not title.strip():
        problems.append("the lesson has no title")
    steps = found.get("step", [])
    if not isinstance(steps, list) or not steps or not all(isinstance(s, dict) for s in steps):
        problems.append("the lesson has no steps ([[step]] tables)")
        return Lesson(title, summary)
    if len(steps) > limits.LESSON_STEPS.most:
        problems.append(f"the lesson has {len(steps):,} steps; at most {limits.LESSON_STEPS.most:,}")
        return Lesson(title, summary)
    return Lesson(title, summary, tuple(_step(n, s, problems, check_view) for n, s in enumerate(steps, 1)))


def _step(number: int, found: dict, problems: list[str], check_view) -> Step:
    where = f"step {number}"
    for name in found:
        if name not in STEP_FIELDS:
            problems.append(
                f"{where}: '{str(name)[:40]}' is not a field of a step ({', '.join(STEP_FIELDS)})"
            )
    for name in REQUIRED:
        if name not in found:
            problems.append(f"{where}: it has no {name}")
    texts = {}
    for name in ("title", "text", "question", "answer", "notes"):
        limit = limits.LESSON_TITLE if name == "title" else limits.LESSON_TEXT
        texts[name] = _text(f"{where}, {name}", found.get(name, ""), limit, problems)
    for name in ("text", "question", "answer", "notes"):  # every figure named, known and well given
        problems.extend(f"{where}, {name}: {problem}" for problem in figures.problems(texts[name]))
    if texts["question"].strip() and not texts["answer"].strip():
        problems.append(f"{where}: its question has no answer")
    key = None
    if "key" in found:
        key = answers.read_key(f"{where}, key", found["key"], problems)
        if not texts["question"].strip():
            problems.append(f"{where}: it has a key but no question")
    view = found.get("view", {})
    if not isinstance(view, dict):
        problems.append(
            f"{where}, view: a table of a page and its link parameters, not {type(view).__name__}"
        )
        view = {}
    elif "view" in found:
        problems.extend(f"{where}, view.{p.name}: {p.reason}" for p in check_view(view))
    page = view.get(check.PAGE, "")
    pairs = ((check.PAGE, page), *((k, v) for k, v in view.items() if k != check.PAGE))
    view_pairs = tuple((str(k), str(v)) for k, v in pairs)
    return Step(texts["title"], view_pairs, texts["text"], **_optional(texts), key=key)


def _optional(texts: dict[str, str]) -> dict[str, str]:
    return {name: texts[name] for name in ("question", "answer", "notes")}


def write(lesson: Lesson) -> str:
    """The lesson as a file, which ``read`` gives back exactly (a test round-trips it)."""
    steps = []
    for step in lesson.steps:
        entry = {"title": step.title, "text": step.text}
        entry.update(
            {name: getattr(step, name) for name in ("question", "answer", "notes") if getattr(step, name)}
        )
        if step.key is not None:
            entry["key"] = step.key.as_table()
        entry["view"] = dict(step.view)
        steps.append(entry)
    return tomli_w.dumps(
        {"title": lesson.title, "summary": lesson.summary, "step": steps}, multiline_strings=True
    )
