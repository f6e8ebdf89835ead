"""What a lesson's text may hold, read once for every place it is shown: paragraphs (split at
blank lines), **bold**, *italics* and `inline code`. Nothing else means anything: HTML, LaTeX,
links and any other Markdown are text, shown as typed, since a lesson may come from a stranger.

The page and the handout each draw the spans read here in their own escaped form; the reader is
one pass over the text (linear in its length, whatever it holds). A marker left open is text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PLAIN, BOLD, ITALIC, CODE = "plain", "bold", "italic", "code"
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class Span:
    kind: str  # PLAIN, BOLD, ITALIC or CODE
    text: str


def paragraphs(text: str) -> list[list[Span]]:
    """The text's paragraphs, each its spans in order (empty paragraphs dropped; a paragraph's
    own line breaks become spaces, as Markdown reads them)."""
    found = []
    for part in _PARAGRAPHS.split(text.replace("\r\n", "\n").replace("\r", "\n")):
        line = " ".join(piece.strip() for piece in part.split("\n") if piece.strip())
        if line:
            found.append(spans(line))
    return found


def spans(line: str) -> list[Span]:
    """One paragraph's spans: a marker opens a span only where its closing marker follows."""
    found: list[Span] = []
    plain: list[str] = []
    at = 0
    closed = set()  # markers with no closing one left: never searched for again (linear time)
    while at < len(line):
        for marker, kind in (("`", CODE), ("**", BOLD), ("*", ITALIC)):
            if marker not in closed and line.startswith(marker, at):
                end = line.find(marker, at + len(marker))
                if end == -1:
                    closed.add(marker)
                inner = line[at + len(marker) : end] if end != -1 else ""
                if inner.strip() and (kind == CODE or "`" not in inner):
                    if plain:
                        found.append(Span(PLAIN, "".join(plain)))
                        plain = []
                    found.append(Span(kind, inner))
                    at = end + len(marker)
                    break
        else:
            plain.append(line[at])
            at += 1
            continue
    if plain:
        found.append(Span(PLAIN, "".join(plain)))
    return found


def joined(spans: list[Span] | tuple[Span, ...]) -> list[Span]:
    """The spans with each run of one kind made one span (a figure inside bold is bold with it)."""
    found: list[Span] = []
    for span in spans:
        if found and found[-1].kind == span.kind:
            found[-1] = Span(span.kind, found[-1].text + span.text)
        else:
            found.append(span)
    return found


def plain_text(text: str) -> str:
    """The text without its markers (for a screen reader's announcement, a file name)."""
    return "\n\n".join("".join(span.text for span in paragraph) for paragraph in paragraphs(text))
