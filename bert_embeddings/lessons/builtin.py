"""The lessons that ship with the explorer, by name (``lesson=embeddings`` in a link): files in
``builtin/``, read and checked like any other lesson. Every statement they make about what a page
shows is checked against the core for the bundled model by tests/lessons/."""

from __future__ import annotations

import functools
from importlib import resources

from bert_embeddings.errors import LessonError
from bert_embeddings.lessons import lesson

# In the order the first page offers them.
NAMES = ("embeddings", "alike", "layers")


def names() -> tuple[str, ...]:
    return NAMES


@functools.lru_cache(maxsize=len(NAMES))
def load(name: str) -> lesson.Lesson:
    """The built-in lesson ``name``; LessonError naming the lessons there are for any other."""
    if name not in NAMES:
        raise LessonError(
            [f"{str(name)[:40]!r} is not a lesson of the explorer (its lessons: {', '.join(NAMES)})"]
        )
    return lesson.read(resources.files(__package__).joinpath("builtin", f"{name}.toml").read_bytes())
