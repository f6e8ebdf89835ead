"""Pieces shown so that every reader can tell what they are, whatever fonts their computer has.

A vocabulary holds pieces in dozens of scripts, and some pieces are a lone accent or an
invisible character. A browser draws a character it has no font for as an empty box, and
two boxes look alike: the reader cannot tell ``め`` from ``内``, or either from ``ो``. So
wherever the explorer prints a piece (tables, the sentence grid, bars, hover text, map
labels, the sentence's row labels), it prints ``legible(piece)``: the piece itself, with
the code point of each character that might not be drawn beside it, e.g. ``ो (U+094B)``.

Which characters count, by their Unicode general category (``unicodedata``) and block:

- **No glyph of its own**: control (Cc), format (Cf: zero-width and direction marks, which
  can also reorder the text around them), surrogate (Cs), private use (Co), unassigned (Cn),
  and every separator but the ordinary space (Zs, Zl, Zp: a no-break or ideographic space
  looks like nothing). These are replaced by ``[U+XXXX]`` in place, the way
  components/parts/echo.py shows them in messages, so that nothing invisible is printed.
- **A combining mark with nothing to sit on** (Mn, Mc, Me with no letter or number before
  it, e.g. a piece that is only a vowel sign, or ``##`` then a mark): drawn alone it lands on
  a dotted circle, a box, or the ``#`` before it.
- **A script the page cannot count on**: the page's own fonts (Streamlit's Source Sans and
  Source Code, and the sans-serif font that every desktop and phone uses for the figures)
  draw Latin, Greek, Cyrillic, and the punctuation, number and symbol blocks. Any other
  script (Arabic, Hebrew, Devanagari, Thai, Hangul, kana, CJK ideographs, full-width forms,
  ...) is drawn only if the reader's computer has a font for it, which many do and many do
  not (a minimal Linux install, or this project's test browser, shows boxes for all of
  them). Naming the code point costs a few characters even where the glyph is drawn, and it
  lets a reader who cannot read the script tell two pieces apart and look them up.

Everything else (ASCII, accented Latin, Greek, Cyrillic, common symbols) is printed as it is.
"""

from __future__ import annotations

import unicodedata

# Blocks drawn by the fonts the page itself uses (see the module docstring), as inclusive
# ranges of code points.
DRAWN_BY_THE_PAGE = (
    (0x0020, 0x007E),  # Basic Latin (printable)
    (0x00A0, 0x024F),  # Latin-1 Supplement, Latin Extended-A and -B
    (0x0250, 0x036F),  # IPA Extensions, Spacing Modifier Letters, Combining Diacritical Marks
    (0x0370, 0x052F),  # Greek and Coptic, Cyrillic, Cyrillic Supplement
    (0x1D00, 0x1DBF),  # Phonetic Extensions (modifier letters such as superscript a)
    (0x1E00, 0x1FFF),  # Latin Extended Additional, Greek Extended
    (0x2000, 0x2BFF),  # punctuation, super- and subscripts, currency, letterlike, numbers, arrows,
    # mathematical and technical symbols, shapes and dingbats
)
NO_GLYPH = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"})
MARKS = frozenset({"Mn", "Mc", "Me"})


def _drawn_by_the_page(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in DRAWN_BY_THE_PAGE)


def code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def legible(piece: str) -> str:
    """``piece`` as every reader can tell it: characters with no glyph of their own replaced by
    ``[U+XXXX]``; then, if any character is a lone combining mark or from a script the page
    cannot count on, the code points of those characters (each once) in parentheses beside it.
    Pieces of Latin, Greek, Cyrillic and common symbols come back unchanged."""
    if piece.isascii() and piece.isprintable():  # most pieces: nothing to look at
        return piece
    shown, named = [], []
    on_base = False  # whether a combining mark here would sit on a letter or number
    for char in piece:
        category = unicodedata.category(char)
        if char != " " and category in NO_GLYPH:
            shown.append(f"[{code_point(char)}]")
            on_base = False
            continue
        shown.append(char)
        mark = category in MARKS
        if (mark and not on_base) or not _drawn_by_the_page(char):
            if char not in named:
                named.append(char)
        on_base = category[0] in "LN" or (mark and on_base)
    if not named:
        return "".join(shown)
    return "".join(shown) + " (" + " ".join(code_point(c) for c in named) + ")"
