"""The numbers behind a figure, as files: CSV with labels for spreadsheets, .npy for numpy.

CSV values are written with just enough digits to read back as the same float: 9
significant digits for float32, 17 for float64. So a file exported from the explorer holds
exactly the numbers on screen, not rounded ones.

A file's name is made from the figure's name (file_stem): every clause of it stays, so that a
name stands for one set of numbers (the page, the model, the stage, the geometry, k, the piece),
and a piece is spelled so that none of it vanishes (Verbatim).
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def _digits(values: np.ndarray) -> str | None:
    if np.issubdtype(values.dtype, np.floating):
        return ".9g" if values.dtype.itemsize <= 4 else ".17g"
    return None  # integers and booleans are written as they are


def as_matrix(values: np.ndarray) -> np.ndarray:
    """A vector becomes one column; a matrix stays as it is."""
    values = np.asarray(values)
    if values.ndim == 1:
        return values[:, None]
    if values.ndim != 2:
        raise ValueError(f"expected a vector or a matrix, got {values.ndim} dimensions")
    return values


def matrix_csv(
    values: np.ndarray,
    row_labels: Sequence[object] | None = None,
    column_labels: Sequence[object] | None = None,
    corner: str = "",
) -> bytes:
    """A header row of column labels, then one row per matrix row, led by its label."""
    values = as_matrix(values)
    rows, columns = values.shape
    row_labels = range(rows) if row_labels is None else row_labels
    column_labels = range(columns) if column_labels is None else column_labels
    if len(row_labels) != rows or len(column_labels) != columns:
        raise ValueError(f"{len(row_labels)} x {len(column_labels)} labels for a {rows} x {columns} matrix")
    digits = _digits(values)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([corner, *column_labels])
    for label, row in zip(row_labels, values.tolist(), strict=True):
        writer.writerow([label, *(row if digits is None else (format(v, digits) for v in row))])
    return text.getvalue().encode("utf-8")


def matrix_npy(values: np.ndarray) -> bytes:
    """The array in numpy's own format, dtype and shape included (no pickled objects)."""
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(values), allow_pickle=False)
    return buffer.getvalue()


STEM_LENGTH = 120
# Where a name's free text divides into clauses: "per-piece figures, what moved: M, token rows →
# layer 6 (all-but-the-top 5, k 10)" is the file's kind, the page, the model, each stage, the
# geometry and k.
_CLAUSE = re.compile(r"[,;:()→]")
_DIGEST = 8  # hex digits of the hash that ends a shortened name


class Verbatim(str):
    """A piece or a word as it is (``"##ing"``, ``","``, ``"King"``) in a download's name: spelled
    by ``spelled`` so that none of it vanishes and two different ones never share a name."""


Name = str | tuple[str, ...]  # one text, or its parts (free text and Verbatim pieces)


def parts_of(name: Name) -> tuple[str, ...]:
    return (name,) if isinstance(name, str) else tuple(name)


def title(name: Name) -> str:
    """The name for people (a button's help): its parts joined by spaces."""
    return " ".join(part for part in parts_of(name) if part)


def _character(char: str) -> str:
    return unicodedata.name(char, f"u{ord(char):04x}").lower().replace(" ", "-")


def spelled(text: str) -> str:
    """A piece or word for a file name: letters and digits as they are (in lower case), spaces
    as dashes, every other character by its Unicode name (``"##ing"`` is
    ``number-sign-number-sign-ing``, ``","`` is ``comma``); then, unless the text was already
    written so (lower-case letters and digits), a short hash of the text itself, so that
    ``King`` and ``king``, or ``,`` and ``comma``, stay two names."""
    words, run = [], ""
    for char in text:
        if char.isalnum():
            run += char.lower()
            continue
        words.append(run)
        run = ""
        if not char.isspace():
            words.append(_character(char))
    words.append(run)
    spelling = "-".join(filter(None, words))
    if spelling == text:
        return spelling
    return f"{spelling}-{hashlib.blake2b(text.encode(), digest_size=3).hexdigest()}"


def _slug(text: str) -> str:
    safe = "".join(c if c.isalnum() or c in ".-" else "-" for c in text.lower())
    return "-".join(filter(None, safe.split("-"))).strip(".-")


@dataclass(frozen=True)
class _Clause:
    words: str  # letters, digits, dots and dashes
    piece: bool  # a Verbatim piece: shortened only when nothing else can be


def _clauses(parts: tuple[str, ...]) -> list[_Clause]:
    """Each part's clauses as file-name words: free text divided at its commas, colons, brackets
    and arrows; a Verbatim part is one clause, spelled."""
    found = []
    for part in parts:
        piece = isinstance(part, Verbatim)
        texts = [spelled(part)] if piece else _CLAUSE.split(str(part))
        found.extend(_Clause(words, piece) for words in map(_slug, texts) if words)
    return found


def _shortened(clause: str, length: int) -> str:
    """A clause cut to at most ``length`` characters in its middle: whole words from its start
    and its end in turn (a model folder's last part, the number in "layer 12"); a clause whose
    first and last words are too long is cut at characters."""
    if len(clause) <= length:
        return clause
    words = clause.split("-")
    head, tail, used = [], [], -1  # (no dash before the first word)
    first, last = 0, len(words) - 1
    while first <= last:
        if used + 1 + len(words[first]) <= length:
            used += 1 + len(words[first])
            head.append(words[first])
            first += 1
        if first <= last and used + 1 + len(words[last]) <= length:
            used += 1 + len(words[last])
            tail.insert(0, words[last])
            last -= 1
        elif not head or used + 1 + len(words[first]) > length:
            break
    if head and tail:
        return "-".join(head + tail)
    if length < 3:
        return clause[:length]
    end = (length - 1) // 2
    start = length - 1 - end
    return "-".join(filter(None, (clause[:start].strip(".-"), clause[len(clause) - end :].strip(".-"))))


SHORTEST = 12  # characters a cut clause keeps while another clause can still be cut instead


def file_stem(*parts: str) -> str:
    """A file name from a figure's name: letters, digits, dots and dashes only, at most
    STEM_LENGTH characters.

    Every clause of the name (between commas, colons, brackets and arrows, and each Verbatim
    piece) stays: what the file is, the page, the model, the stage, the geometry, k, the piece.
    A name too long is shortened in its longest clause first (a model's folder path, a Hub id),
    cut in its middle to what fits; only if that clause would keep fewer than SHORTEST
    characters are the two longest cut, and so on; a piece is cut last. The name then ends in
    a short hash of the whole, so that two names that differ only in a cut part (a long model
    folder's two figures) stay two files. The short clauses, which tell one file of a page from
    another (a stage, a geometry, k), come through whole.
    """
    clauses = _clauses(parts)
    stem = "-".join(c.words for c in clauses)
    if len(stem) <= STEM_LENGTH:
        return stem or "export"
    digest = hashlib.blake2b(stem.encode(), digest_size=_DIGEST // 2).hexdigest()
    room = STEM_LENGTH - len(digest) - len(clauses)  # (a dash after each clause)
    order = sorted(range(len(clauses)), key=lambda i: (clauses[i].piece, -len(clauses[i].words)))
    for count in range(1, len(clauses) + 1):  # cut the longest clause, then the two longest, ...
        chosen = order[:count]
        whole = sum(len(c.words) for i, c in enumerate(clauses) if i not in chosen)
        lengths = _fitted([len(clauses[i].words) for i in chosen], room - whole)
        if lengths and all(
            n >= min(SHORTEST, len(clauses[i].words)) for i, n in zip(chosen, lengths, strict=True)
        ):
            break
    kept = [c.words for c in clauses]
    for i, length in zip(chosen, lengths or [1] * len(chosen), strict=True):
        kept[i] = _shortened(kept[i], length)
    head = "-".join(filter(None, kept))[: STEM_LENGTH - len(digest) - 1].strip(".-")
    return f"{head}-{digest}"


def _fitted(lengths: list[int], room: int) -> list[int] | None:
    """The clauses' lengths cut to one cap, the largest that fits ``room`` (the room left over
    going one character each to the first ones cut); None if not even 1 each fits."""
    if room < len(lengths):
        return None
    cap = max(lengths)
    while sum(min(n, cap) for n in lengths) > room:
        cap -= 1
    spare = room - sum(min(n, cap) for n in lengths)
    fitted = []
    for n in lengths:
        extra = 1 if n > cap and spare > 0 else 0
        spare -= extra
        fitted.append(min(n, cap + extra))
    return fitted
