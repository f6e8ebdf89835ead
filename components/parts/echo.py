"""Showing what a person or a link typed as plain text, inside Streamlit's Markdown elements.

Streamlit renders every message, caption, label and option as Markdown, with LaTeX between
dollar signs, coloured ``:red[...]`` directives and bare URLs turned into links. A value a
stranger put into a link must appear as the characters it is, never as a live link or
formatting, so every message that can hold such a value goes through ``plain``:

- every ASCII punctuation character gets a backslash, which CommonMark defines as "this
  character, literally": no emphasis, link, heading, HTML, LaTeX or directive can start;
- bare URLs and e-mail addresses are found after the Markdown is parsed (escapes cannot stop
  that), so a WORD JOINER (U+2060, invisible and zero-width) goes after every ':', '.' and
  '@' in them, which keeps them from being recognised;
- line breaks, tabs and invisible control or format characters (which can reorder text on
  screen) are shown as their code points, e.g. [U+202E].
"""

from __future__ import annotations

import re
import string
import unicodedata

_JOINER = JOINER = "\u2060"
_BREAK_LINKS = {":", ".", "@"}
_ESCAPED = {c: "\\" + c for c in string.punctuation}


def _visible(char: str) -> str:
    if char == " ":
        return char
    if char in "\n\r\t" or unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
        return f"[U+{ord(char):04X}]"
    return char


def plain(text: object, limit: int | None = None) -> str:
    """``text`` as Markdown that Streamlit shows literally; cut to ``limit`` characters if given."""
    text = str(text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    out = []
    for char in "".join(_visible(c) for c in text):
        out.append(_ESCAPED.get(char, char))
        if char in _BREAK_LINKS:
            out.append(_JOINER)
    return "".join(out)


def code(text: object) -> str:
    """``text`` as one Markdown code span, whatever it holds (a lesson's figure may give a piece
    made of backticks): the fence is one backtick longer than the longest run inside, as CommonMark
    reads it, padded where the text starts or ends with one, so nothing in it closes the span;
    invisible characters that could reorder the text show as their code points, as in ``plain``."""
    text = "".join(_visible(c) for c in str(text))
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
