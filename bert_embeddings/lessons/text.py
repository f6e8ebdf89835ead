"""What a lesson's text may hold, read once for every place it is shown: paragraphs (split at
blank lines), **bold**, *italics* and `inline code`, read by markdown-it-py as CommonMark reads
them. Nothing else means anything: HTML, LaTeX, links, headings, lists, entities, backslash
escapes and ``_`` are text, shown as typed, since a lesson may come from a stranger.

A character with no glyph of its own (a control or format character, a line or paragraph
separator, a tab inside a line) is given in the spans as its code point, ``[U+0000]``, as the page
shows a lesson's title (components/parts/echo.py): nothing invisible reaches the page or the
handout, and nothing can reorder the text around it.

The page and the handout each draw the spans read here in their own escaped form. The reader
has only the rules these marks need, each linear in the text's length whatever it holds, and
reads texts of a lesson's length (limits.LESSON_TEXT, which every lesson's texts are checked
against when it is opened).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from itertools import groupby
from operator import attrgetter

from markdown_it import MarkdownIt
from markdown_it.rules_core.state_core import StateCore
from markdown_it.rules_inline import emphasis
from markdown_it.rules_inline.state_inline import StateInline
from markdown_it.token import Token

from bert_embeddings import limits

PLAIN, BOLD, ITALIC, CODE = "plain", "bold", "italic", "code"


@dataclass(frozen=True)
class Span:
    kind: str  # PLAIN, BOLD, ITALIC or CODE
    text: str


def _stars(state: StateInline, silent: bool) -> bool:
    # CommonMark's emphasis, with only ``*`` as its marker: ``_`` is text (snake_case, __init__).
    return state.src[state.pos] == "*" and emphasis.tokenize(state, silent)


_NEWLINES = re.compile(r"\r\n?")


def _newlines(state: StateCore) -> None:
    # CommonMark's normalising, but for U+0000, which markdown-it-py turns into U+FFFD ("�"): kept,
    # it is shown as its code point with every other invisible character (``visible``).
    state.src = _NEWLINES.sub("\n", state.src)


# "zero" reads paragraphs and text only (no HTML, links, entities or escapes); the rest is enabled.
_READER = MarkdownIt("zero", {"html": False, "linkify": False, "typographer": False}).enable(
    ["newline", "backticks", "emphasis"]
)
_READER.inline.ruler.at("emphasis", _stars)
_READER.core.ruler.at("normalize", _newlines)
_MARKS = {"strong_open": BOLD, "em_open": ITALIC}


def paragraphs(text: str) -> list[list[Span]]:
    """The text's paragraphs, each its spans in order (a paragraph's own line breaks become
    spaces, as Markdown reads them). A text longer than a lesson's may be is refused before it is
    read (InputTooLongError): markdown-it-py takes some 5 microseconds a mark, 15 ms at the limit."""
    limits.LESSON_TEXT.check_text("A lesson's text", text)
    tokens = _READER.parse(text)
    return [spans for token in tokens if token.type == "inline" and (spans := _spans(token.children or []))]


def _spans(tokens: list[Token]) -> list[Span]:
    """One paragraph's inline tokens as spans: text in bold or italics takes the innermost of them."""
    found: list[Span] = []
    marks: list[str] = []  # the bold and italics open here, innermost last
    for token in tokens:
        if token.type in _MARKS:
            marks.append(_MARKS[token.type])
        elif token.type in ("strong_close", "em_close"):
            marks.pop()
        elif token.type in ("softbreak", "hardbreak"):
            found.append(Span(marks[-1] if marks else PLAIN, " "))
        elif token.content:
            kind = CODE if token.type == "code_inline" else marks[-1] if marks else PLAIN
            found.append(Span(kind, visible(token.content)))
    return joined(found)


_INVISIBLE = frozenset({"Cc", "Cf", "Zl", "Zp"})  # as components/parts/echo.py shows a title


def visible(text: str) -> str:
    """``text`` with each character that has no glyph of its own (control, format, line and
    paragraph separator: U+0000, a tab, U+202E, ...) written as its code point, ``[U+0000]``."""
    if text.isprintable():  # (true of none of those characters)
        return text
    return "".join(f"[U+{ord(c):04X}]" if unicodedata.category(c) in _INVISIBLE else c for c in text)


def joined(spans: list[Span] | tuple[Span, ...]) -> list[Span]:
    """The spans with each run of one kind made one span (a figure inside bold is bold with it;
    a paragraph's text pieces are one span), each joined once: linear however many there are."""
    return [
        Span(kind, "".join(span.text for span in run)) for kind, run in groupby(spans, key=attrgetter("kind"))
    ]


def plain_text(text: str) -> str:
    """The text without its markers (for a screen reader's announcement, a file name)."""
    return "\n\n".join("".join(span.text for span in paragraph) for paragraph in paragraphs(text))
