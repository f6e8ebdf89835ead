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

from dataclasses import dataclass, replace

import numpy as np
from tokenizers import Tokenizer

from bert_embeddings import limits
from bert_embeddings.analysis import geometry, vocab_search
from bert_embeddings.errors import EmptyQueryError, ExplorerError, QuerySyntaxError, ZeroVectorError

NAMES = ("x", "y", "z")
ENDS = ("from", "to")
# From this |cosine| on, two axes are reported as nearly parallel: the chart's two coordinates
# then largely repeat one another.
PARALLEL = 0.8
EXTREMES = 20  # rows listed towards each end of each axis
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


def split_words(text: str, label: str, limit: limits.Limit) -> tuple[str, ...]:
    """'he, him,\\nman' -> ('he', 'him', 'man'): commas or new lines between words; blanks and
    repeats dropped; the box's length checked before anything else, then the number of words."""
    text = limits.AXIS_TEXT.check_text(label, text)
    words = tuple(dict.fromkeys(w.strip() for w in text.replace("\n", ",").split(",") if w.strip()))
    limit.check(label, len(words))
    return words


def word(index: vocab_search.VocabIndex, tokenizer: Tokenizer, text: str) -> Word:
    """One word's vector: its row, or the mean of its pieces' rows (vocab_search's rules)."""
    ids = vocab_search.word_ids(index, tokenizer, text)
    return Word(text, ids, index.table[list(ids)].astype(np.float64).mean(axis=0))


def build_axis(
    index: vocab_search.VocabIndex, tokenizer: Tokenizer, name: str, start_text: str, end_text: str
) -> Axis | None:
    """The axis from one end's words to the other's; None when both ends are left empty."""
    ends = []
    for end_name, text in zip(ENDS, (start_text, end_text), strict=True):
        label = f"Axis {name}, '{end_name}' end"
        ends.append(
            tuple(
                _word_in(index, tokenizer, w, label) for w in split_words(text, label, limits.AXIS_END_WORDS)
            )
        )
    start, end = ends
    if not start and not end:
        return None
    for end_name, words in zip(ENDS, ends, strict=True):
        if not words:
            raise EmptyQueryError(
                f"Axis {name} has no words at its '{end_name}' end: give at least one word at each end "
                "(or clear both to leave the axis out)."
            )
    start_ids = {w.ids: w.text for w in start}
    for w in end:
        if w.ids in start_ids:
            same = "" if start_ids[w.ids] == w.text else f" (as '{start_ids[w.ids]}', the same pieces)"
            raise QuerySyntaxError(
                f"Axis {name} has '{w.text}' at both ends{same}: a word can pull an axis only one way."
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


def _word_in(index: vocab_search.VocabIndex, tokenizer: Tokenizer, text: str, label: str) -> Word:
    try:
        return word(index, tokenizer, text)
    except ExplorerError as problem:
        raise type(problem)(f"{label}: {problem}") from None


def build_axes(
    index: vocab_search.VocabIndex, tokenizer: Tokenizer, ends: dict[str, tuple[str, str]]
) -> list[Axis]:
    """x, y and z from their ends' texts. x is needed; an axis left empty (both ends) is left out,
    and z only counts when y is given."""
    axes = []
    for name in NAMES:
        axis = build_axis(index, tokenizer, name, *ends.get(name, ("", "")))
        if axis is None:
            if name == "x":
                raise EmptyQueryError("Axis x has no words: give at least one word at each of its ends.")
            if name == "y" and any(t.strip() for t in ends.get("z", ("", ""))):
                raise EmptyQueryError("Axis z needs axis y: fill in y first.")
            continue
        axes.append(axis)
    return axes


def words_to_place(
    index: vocab_search.VocabIndex, tokenizer: Tokenizer, text: str
) -> tuple[list[Word], list[str]]:
    """The words to place, and one message per word that cannot be placed (the rest are)."""
    placed, problems = [], []
    for text_word in split_words(text, "The words to place", limits.AXIS_WORDS):
        try:
            placed.append(word(index, tokenizer, text_word))
        except ExplorerError as problem:
            problems.append(str(problem))
    return placed, problems


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
