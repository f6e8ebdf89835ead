"""A lesson's text in the bar: Markdown that shows exactly what the lesson says, its figures
computed for the model in use."""

from __future__ import annotations

from bert_embeddings.lessons import figure_kit, figures, text
from components.caches import lesson_figures
from components.parts import echo


def markdown(source: str) -> str:
    """A lesson's text as Markdown that shows exactly it, its figures computed for the model in
    use: its bold, italics and code; every other character escaped (no HTML, LaTeX or link from a
    lesson is ever rendered). A figure that waits for the page's background work says so once.

    Spans of one kind next to each other are one span (a figure inside bold stays inside it), and
    two marked spans side by side are kept apart by an invisible joiner, so that no two markers
    run together into another marker."""
    return as_markdown(lesson_figures.rendered(source))


def as_markdown(found: figures.Rendered) -> str:
    """A text read and its figures computed, as the Markdown ``markdown`` describes."""
    marks = {text.BOLD: "**", text.ITALIC: "*"}
    shown = []
    for paragraph in found.paragraphs:
        parts, marked_before = [], False
        for span in text.joined(paragraph):
            if span.kind == text.PLAIN:
                parts.append(echo.plain(span.text))
            else:
                parts.append(echo.JOINER if marked_before else "")
                parts.append(_marked(span, marks))
            marked_before = span.kind != text.PLAIN
        shown.append("".join(parts))
    if found.pending:
        shown.append(f"*{echo.plain(figure_kit.WAITING)}*")
    return "\n\n".join(shown)


def _marked(span: text.Span, marks: dict[str, str]) -> str:
    """A bold, italic or code span; emphasis keeps its spaces outside its markers (CommonMark
    reads no emphasis that starts or ends with a space)."""
    if span.kind == text.CODE:
        return echo.code(span.text)
    inner = span.text.strip()
    if not inner:
        return echo.plain(span.text)
    lead = " " if span.text[0].isspace() else ""
    trail = " " if span.text[-1].isspace() else ""
    return f"{lead}{marks[span.kind]}{echo.plain(inner)}{marks[span.kind]}{trail}"
