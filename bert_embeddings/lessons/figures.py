"""The figures a lesson's text may name (``{{name arg=value}}``, read by lessons.expressions),
each computed for the model on screen by the core, as the page that shows it computes it.

A figure is a name, the arguments it takes (each read and bounded as a link's value is), and what
it computes: spans of text (numbers in the text's words, pieces as code). A figure that this model
cannot give (no segment table in DistilBERT, a word that is not one piece, neighbour lists that a
background job has not made yet) is said in words: ``Missing`` carries why, and the text shows it
in parentheses, never as NaN or as another model's number.

``Facts`` gives the figures what the pages compute (their ``Sources``) and What moved's stages
(``Stages``); the app hands in its own caches, so a step's figures cost what its page computed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bert_embeddings.errors import ExplorerError

# The figures themselves: each module adds its figures to FIGURES as it loads.
from bert_embeddings.lessons import model_figures, vocabulary_figures  # noqa: F401
from bert_embeddings.lessons import text as markup
from bert_embeddings.lessons.expressions import Expression, ExpressionError, split
from bert_embeddings.lessons.figure_kit import FIGURES, Facts, Figure, Missing, Result, Shown
from bert_embeddings.lessons.text import ITALIC, PLAIN, Span

# --- checking and showing a text ------------------------------------------------------------------


def problems(text: str) -> list[str]:
    """What is wrong with the figures of ``text``: a figure that cannot be read, an unknown figure
    or argument, a missing or bad value. Empty: every figure can be computed for any model."""
    try:
        found = [part for part in split(text) if isinstance(part, Expression)]
    except ExpressionError as problem:
        return [str(problem)]
    said = []
    for expression in found:
        try:
            arguments(expression)
        except ExpressionError as problem:
            said.append(str(problem))
    return said


def arguments(expression: Expression) -> tuple[Figure, dict]:
    """The figure an expression names and its arguments read; ExpressionError naming what is wrong."""
    known = FIGURES.get(expression.name)
    if known is None:
        raise ExpressionError(
            f"{expression.source!r}: no figure is called {expression.name!r} (see docs/lessons.md)"
        )
    given = dict(expression.args)
    if unknown := [name for name in given if name not in known.args]:
        takes = ", ".join(known.args) or "no arguments"
        raise ExpressionError(f"{expression.source!r}: {known.name} takes {takes}, not {', '.join(unknown)}")
    read = {}
    for name, arg in known.args.items():
        if name not in given and arg.default is None:
            raise ExpressionError(f"{expression.source!r}: {known.name} needs {name}= ({arg.about})")
        value = given.get(name, arg.default)
        try:
            read[name] = arg.read(value) if name in given or value != "" else value
        except (ValueError, ExplorerError) as problem:
            raise ExpressionError(f"{expression.source!r}: {name}={value[:40]!r} is not {problem}") from None
    return known, read


def value(expression: Expression, facts: Facts) -> Result:
    """One figure for ``facts``' model: its spans, or Missing. A figure the model refuses (a word it
    cannot place) is Missing with the core's reason; nothing raises for a figure that was checked."""
    try:
        known, read = arguments(expression)
    except ExpressionError as problem:
        return Missing(str(problem))
    try:
        return known.compute(facts, read)
    except ExplorerError as problem:
        return Missing(str(problem).rstrip("."))


def shown(result: Result) -> Shown:
    """A figure as spans in the text: a missing one as its reason, in italics and parentheses."""
    return (Span(ITALIC, f"({result.reason})"),) if isinstance(result, Missing) else result


def as_text(result: Result) -> str:
    """A figure as plain text (what a test or the handout's search reads)."""
    return "".join(span.text for span in shown(result))


# A figure stands in the text as one private-use character while the text's markup is read, so
# that bold or italics around a figure hold it, and nothing a figure gives is read as markup.
_MARK = 0xE000
_MARKS = re.compile("[\ue000-\ue0ff]")


@dataclass(frozen=True)
class Rendered:
    paragraphs: tuple[tuple[Span, ...], ...]
    pending: bool  # a figure waits for a background job: show it again once that is done


def render(source: str, facts: Facts | None) -> Rendered:
    """A step's text with its figures computed for ``facts``' model: paragraphs of spans, as
    lessons.text reads a text without figures. A text whose figures cannot be read is shown as
    typed, with the problem (``lesson --check`` and opening a lesson refuse such a file first).
    Without ``facts`` (they failed), each figure says that it could not be computed."""
    source = _MARKS.sub("", source)
    try:
        parts = split(source)
    except ExpressionError as problem:
        return Rendered(
            (*(tuple(p) for p in markup.paragraphs(source)), (Span(ITALIC, f"({problem})"),)), False
        )
    values: list[Result] = []
    marked = []
    for part in parts:
        if isinstance(part, Expression):
            marked.append(chr(_MARK + len(values)))
            values.append(value(part, facts) if facts is not None else Missing("could not be computed"))
        else:
            marked.append(part)
    paragraphs = []
    for paragraph in markup.paragraphs("".join(marked)):
        spans: list[Span] = []
        for span in paragraph:
            spans.extend(_filled(span, values))
        paragraphs.append(tuple(spans))
    pending = any(isinstance(v, Missing) and v.pending for v in values)
    return Rendered(tuple(paragraphs), pending)


def _filled(span: Span, values: list[Result]) -> list[Span]:
    found: list[Span] = []
    at = 0
    for mark in _MARKS.finditer(span.text):
        if mark.start() > at:
            found.append(Span(span.kind, span.text[at : mark.start()]))
        for given in shown(values[ord(mark.group()) - _MARK]):  # in bold, italics or code: as they are
            found.append(Span(given.kind if span.kind == PLAIN else span.kind, given.text))
        at = mark.end()
    if at < len(span.text):
        found.append(Span(span.kind, span.text[at:]))
    return found
