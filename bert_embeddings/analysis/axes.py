"""Axes of the reader's choosing: directions from one group of words to another.

An axis runs from a "from" end to a "to" end. Each end is one or more words; a word's vector
is its token row (the mean of its rows when the tokenizer splits it into several pieces), and
an end's vector is the mean of its words' vectors. The axis is the unit vector
``u = (to - from) / |to - from|``. A vector v is placed on it at ``v . u``. Under another
geometry T (bert_embeddings.analysis.geometry, T(x) = P((x - m) / s)) both are transformed first: the
axis runs along ``T(to) - T(from) = P((to - from) / s)``, and v is placed at ``T(v) . u``.
Centring only moves the origin to the average row, so it leaves every distance along an axis
as it is; all-but-the-top and standardising turn the axis itself.

Up to three axes can be given; they need not be at right angles, so the page reports the
cosine between each pair. Everything here is float64 except the one product over the whole
table (``extremes``), which reads the float32 table as it is, without a copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from tokenizers import Tokenizer

from bert_embeddings import limits
from bert_embeddings.analysis import geometry, vocab_search
from bert_embeddings.errors import (
    EmptyQueryError,
    ExplorerError,
    NotTextError,
    QuerySyntaxError,
    UnknownWordError,
    ZeroVectorError,
)

NAMES = ("x", "y", "z")
ENDS = ("from", "to")
# From this |cosine| on, two axes are reported as nearly parallel: the chart's two coordinates
# then largely repeat one another.
PARALLEL = 0.8
EXTREMES = 20  # rows listed towards each end of each axis
# The box of words to place, as its messages name it ("... has 61 words").
TO_PLACE = "The list of words to place"
# The words placed by default: pairs a gender axis and a size axis pull apart, and
# occupations whose place on the gender axis is worth a look.
DEFAULT_WORDS = (
    "king, queen, prince, princess, boy, girl, father, mother, "
    "doctor, nurse, engineer, teacher, mouse, elephant, ant, whale, village, city"
)
DEFAULT_ENDS = {
    "x": ("he, him, man", "she, her, woman"),
    "y": ("small, tiny", "big, huge"),
    "z": ("", ""),
}


@dataclass(frozen=True)
class Word:
    """A word as it is placed: its text, its vocabulary ids, and its vector (mean of their rows)."""

    text: str
    ids: tuple[int, ...]
    vector: np.ndarray  # (hidden,) float64


@dataclass(frozen=True)
class Axis:
    name: str  # x, y or z
    start: tuple[Word, ...]  # the "from" end
    end: tuple[Word, ...]  # the "to" end
    direction: np.ndarray  # (hidden,) float64, unit length
    length: float  # |to - from| before normalising

    @property
    def label(self) -> str:
        return f"{', '.join(w.text for w in self.start)} → {', '.join(w.text for w in self.end)}"

    @property
    def ids(self) -> tuple[int, ...]:
        """Every vocabulary id either end is made of."""
        return tuple(dict.fromkeys(i for w in (*self.start, *self.end) for i in w.ids))


Words = str | Sequence[str] | None  # words as commas (or new lines) between them, or a list or tuple


def as_text(words: Words, label: str) -> str:
    """Words as the box holds them: text as it is (None counts as empty), a list or tuple of words
    joined by commas, so that both go through the same checks. A word of a list that holds a
    comma or a line break would silently become two words: it is an error instead."""
    if isinstance(words, list | tuple):
        for item in words:
            if not isinstance(item, str):
                raise NotTextError(
                    f"{label}: each word must be text, not {type(item).__name__} {str(item)[:40]}."
                )
            if "," in item or "\n" in item:
                raise QuerySyntaxError(
                    f"{label}: '{item[:40]}' holds a comma or a line break; give one word per item "
                    "of the list."
                )
        words = ", ".join(words)
    elif words is not None and not isinstance(words, str):
        raise NotTextError(
            f"{label} must be text or a list of words, not {type(words).__name__} {str(words)[:40]}."
        )
    return limits.AXIS_TEXT.check_text(label, words)


def split_words(words: Words, label: str, limit: limits.Limit) -> tuple[str, ...]:
    """'he, him,\\nman' (or ['he', 'him', 'man']) -> ('he', 'him', 'man'): commas or new lines
    between words; blanks and repeats dropped; the box's length checked before anything else,
    then the number of words."""
    text = as_text(words, label)
    words = tuple(dict.fromkeys(w.strip() for w in text.replace("\n", ",").split(",") if w.strip()))
    limit.check(label, len(words))
    return words


def word(index: vocab_search.VocabIndex, tokenizer: Tokenizer, text: str) -> Word:
    """One word's vector: its row, or the mean of its pieces' rows (vocab_search's rules)."""
    ids = vocab_search.word_ids(index, tokenizer, text)
    return Word(text, ids, index.table[list(ids)].astype(np.float64).mean(axis=0))


def same_pieces(first: Sequence[Word], second: Sequence[Word] | None = None) -> tuple[Word, Word] | None:
    """Two words that are the same word, as the model reads them: made of the same pieces, however
    written ('HE' and 'he' for an uncased tokenizer). With ``second``, the first word of ``second``
    that is also in ``first``; without, the first word of ``first`` that repeats an earlier one.
    (earlier, later), or None. The one check of Your own axes' ends and of WEAT's groups."""
    seen: dict[tuple[int, ...], Word] = {}
    for w in first:
        if second is None and w.ids in seen:
            return seen[w.ids], w
        seen.setdefault(w.ids, w)
    for w in second or ():
        if w.ids in seen:
            return seen[w.ids], w
    return None


def named(pair: tuple[Word, Word]) -> str:
    """The later word of a ``same_pieces`` pair as a message names it: 'HE' (as 'he', the same pieces)."""
    earlier, later = pair
    same = "" if earlier.text == later.text else f" (as '{earlier.text}', the same pieces)"
    return f"'{later.text}'{same}"


def build_axis(
    index: vocab_search.VocabIndex, tokenizer: Tokenizer, name: str, start_text: Words, end_text: Words
) -> Axis | None:
    """The axis from one end's words to the other's; None when both ends are left empty."""
    ends = []
    for end_name, text in zip(ENDS, (start_text, end_text), strict=True):
        label = f"Axis {name}, '{end_name}' end"
        ends.append(_words_in(index, tokenizer, split_words(text, label, limits.AXIS_END_WORDS), label))
    start, end = ends
    if not start and not end:
        return None
    for end_name, words in zip(ENDS, ends, strict=True):
        if not words:
            raise EmptyQueryError(
                f"Axis {name} has no words at its '{end_name}' end: give at least one word at each end "
                "(or clear both to leave the axis out)."
            )
        if pair := same_pieces(words):
            raise QuerySyntaxError(
                f"Axis {name} has {named(pair)} twice at its '{end_name}' end: each word counts once."
            )
    if pair := same_pieces(start, end):
        raise QuerySyntaxError(
            f"Axis {name} has {named(pair)} at both ends: a word can pull an axis only one way."
        )
    low = np.mean([w.vector for w in start], axis=0)
    high = np.mean([w.vector for w in end], axis=0)
    difference = high - low
    length = float(np.linalg.norm(difference))
    scale = max(float(np.linalg.norm(low)), float(np.linalg.norm(high)), 1e-30)
    if not length > 1e-6 * scale:
        raise ZeroVectorError(
            f"Axis {name} has no direction: the means of its two ends are the same vector. "
            "Give the ends different words."
        )
    return Axis(name, start, end, difference / length, length)


def _words_in(
    index: vocab_search.VocabIndex, tokenizer: Tokenizer, texts: tuple[str, ...], label: str
) -> tuple[Word, ...]:
    """Each word of an end, or an error naming every word that cannot be placed (of the first
    problem's kind)."""
    found, problems = [], []
    for text in texts:
        try:
            found.append(word(index, tokenizer, text))
        except ExplorerError as problem:
            problems.append(problem)
    if problems:
        raise type(problems[0])(f"{label}: {'; '.join(str(p) for p in problems)}")
    return tuple(found)


def build_axes(
    index: vocab_search.VocabIndex, tokenizer: Tokenizer, ends: dict[str, tuple[Words, Words]]
) -> list[Axis]:
    """x, y and z from their ends' texts. x is needed; an axis left empty (both ends) is left out,
    and z only counts when y is given."""
    axes = []
    for name in NAMES:
        axis = build_axis(index, tokenizer, name, *ends.get(name, ("", "")))
        if axis is None:
            if name == "x":
                raise EmptyQueryError("Axis x has no words: give at least one word at each of its ends.")
            if name == "y" and any(as_text(t, "Axis z").strip() for t in ends.get("z", ("", ""))):
                raise EmptyQueryError("Axis z needs axis y: fill in y first.")
            continue
        axes.append(axis)
    return axes


def words_to_place(
    index: vocab_search.VocabIndex, tokenizer: Tokenizer, words: Words
) -> tuple[list[Word], list[str]]:
    """The words to place, and one message per word that cannot be placed (the rest are)."""
    placed, problems = [], []
    for text_word in split_words(words, TO_PLACE, limits.AXIS_WORDS):
        try:
            placed.append(word(index, tokenizer, text_word))
        except ExplorerError as problem:
            problems.append(str(problem))
    return placed, problems


def unplaced(problems: Sequence[str], label: str = TO_PLACE) -> UnknownWordError:
    """The error for words that cannot be placed, naming every one of them (the notebook's rule:
    every word asked for is placed, or none is, so its rows always match what was asked)."""
    count, them = (f"{len(problems)} words", "them") if len(problems) > 1 else ("a word", "it")
    return UnknownWordError(
        f"{label} has {count} that cannot be placed (leave {them} out and ask again): {'; '.join(problems)}"
    )


def placeable(index: vocab_search.VocabIndex, tokenizer: Tokenizer, words: Words) -> list[Word]:
    """Every word to place, or ``unplaced``'s error; at least one word."""
    placed, problems = words_to_place(index, tokenizer, words)
    if problems:
        raise unplaced(problems)
    if not placed:
        raise EmptyQueryError("Give at least one word to place, e.g. words='ice, fire'.")
    return placed


def placed_on(
    index: vocab_search.VocabIndex,
    tokenizer: Tokenizer,
    start: Words,
    end: Words,
    words: Words,
    space: geometry.Geometry | None = None,
) -> dict[str, float]:
    """Each word (``placeable``) by its coordinate on the axis from ``start`` to ``end`` under ``space``."""
    turned = in_space([build_axis(index, tokenizer, "x", start, end)], space)
    placed = placeable(index, tokenizer, words)
    coords = coordinates(np.array([w.vector for w in placed]), turned, space)
    return {w.text: float(c) for w, c in zip(placed, coords[:, 0], strict=True)}


def directions(axes: list[Axis]) -> np.ndarray:
    """(axes, hidden) float64: the unit directions, one per row."""
    return np.stack([a.direction for a in axes])


def in_space(axes: list[Axis], space: geometry.Geometry | None) -> list[Axis]:
    """The axes as they run under ``space``: each direction P((to - from) / s), made unit
    length (an axis that vanishes there, e.g. along a removed direction, is an error)."""
    if space is None or space.name == "raw":
        return axes
    turned = []
    for axis in axes:
        shifted = axis.direction * axis.length / space.scale  # (to - from) / s
        along = shifted - (shifted @ space.directions.T) @ space.directions
        length = float(np.linalg.norm(along))
        if length <= 1e-9 * axis.length:
            raise ZeroVectorError(
                f"Axis {axis.name} vanishes in the {space.name} geometry: its two ends differ only along "
                "directions it removes. Pick other ends or another geometry."
            )
        turned.append(replace(axis, direction=along / length, length=length))
    return turned


def coordinates(vectors: np.ndarray, axes: list[Axis], space: geometry.Geometry | None = None) -> np.ndarray:
    """(n, hidden) -> (n, axes) float64: each vector's place on each axis (axes as
    ``in_space`` turned them), with the vectors transformed by ``space`` first."""
    vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
    if space is not None and space.name != "raw":
        vectors = space.transform(vectors)
    return vectors @ directions(axes).T


def between(axes: list[Axis]) -> np.ndarray:
    """(axes, axes): the cosine between every two axes (their directions are unit vectors)."""
    u = directions(axes)
    return np.clip(u @ u.T, -1.0, 1.0)


def nearly_parallel(axes: list[Axis]) -> list[tuple[str, str, float]]:
    """Pairs of axes whose |cosine| is at least PARALLEL, with that cosine."""
    cos = between(axes)
    return [
        (axes[i].name, axes[j].name, float(cos[i, j]))
        for i in range(len(axes))
        for j in range(i + 1, len(axes))
        if abs(cos[i, j]) >= PARALLEL
    ]


_EVERY_ROW = vocab_search.Filters(hide_special=False)


def extremes(
    index: vocab_search.VocabIndex,
    axis: Axis,
    space: geometry.Geometry | None = None,
    filters: vocab_search.Filters = _EVERY_ROW,
    k: int = EXTREMES,
    match: vocab_search.Matcher = vocab_search.matching_rows,
) -> tuple[vocab_search.Neighbours, vocab_search.Neighbours]:
    """The k rows of the whole token table furthest towards the axis' "to" end and towards
    its "from" end (``axis`` as ``in_space`` turned it), with their coordinates; every row
    scored, ties broken by the lower id. T(w) . u = w . (u / s) - m . (u / s) for a direction u
    that P keeps: one product with the raw table and one scalar."""
    allowed = vocab_search.allowed_rows(index, filters, match)
    along = axis.direction if space is None else axis.direction / space.scale
    scores = index.table @ along.astype(np.float32)  # (vocab,) float32, the table not copied
    if space is not None and space.name != "raw":
        scores = scores - np.float32(space.mean @ along)
    towards_end = vocab_search.top(scores, allowed, k, index.pieces)
    towards_start = vocab_search.top(-scores, allowed, k, index.pieces)
    towards_start = vocab_search.Neighbours(towards_start.ids, towards_start.pieces, -towards_start.scores)
    return towards_end, towards_start
