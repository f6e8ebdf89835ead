"""A report card for an axis (bert_embeddings.analysis.axes): does it mean anything, or would any
two groups of words give as much? Everything in float64, on the vectors as the chosen geometry
makes them, with fixed seeds:

- **held out:** each pole word left out in turn (from an end of two or more words), the axis
  built from the rest; does the word land on its own side of the midpoint between the two
  ends' means? The count that do, of those that could be held out.
- **stability:** the pole words resampled with replacement ``RESAMPLES`` times (each end
  keeping its size); a 95 % interval for the cosine between the resampled and the full
  direction, and for each listed word's coordinate.
- **against chance:** ``RANDOM_AXES`` axes between random groups of whole words of the same
  sizes; the *separation* of an axis is the gap between its two ends' mean coordinates in
  units of their pooled standard deviation (n - 1 in each group's variance); the share of
  random axes that separate at least as well is the permutation p-value.
- **coherence** (ends of equal size, read as pairs in order: he-she, him-her, man-woman): the
  share of variance the first principal component explains over the pairs' centred vectors
  (each pair's two words minus their mean, Bolukbasi et al. 2016), beside the same for random
  pairs of whole words.
- **a verdict** in words from these figures alone, with its thresholds.

A figure the words cannot give is not given: it is None, and the card says why (``missing``).
Holding out and resampling need two or more words at an end; the separation needs a spread
within the ends (more than one word in all, at different places on the axis); coherence needs
two or more pairs. With one word at each end there is no verdict, only the reason. No NaN is
ever a figure of a card.

Each random draw is a few matrix products over all the draws at once, not a loop of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

RESAMPLES = 1_000
RANDOM_AXES = 1_000
BEATS = 0.95  # an axis separates its poles if it beats this share of random axes ...
HELD = 0.8  # ... and at least this share of its held-out words land on their own side
SEED = 0
# A pooled spread below this share of the largest |coordinate| is rounding (the mean of equal
# numbers need not be exactly them), not a spread: the separation is then not given.
FLAT = 1e-12

# The card's figures, as ``NotAssessed`` names them.
HELD_OUT, STABILITY, CHANCE, COHERENCE = "held out", "stability", "against chance", "coherence"

Rows = Callable[[np.ndarray], np.ndarray]  # vocabulary ids -> their vectors in the geometry


@dataclass(frozen=True)
class NotAssessed:
    """A figure the words cannot give, and why, in words for the reader."""

    figure: str
    reason: str


@dataclass(frozen=True)
class Card:
    held_out: int  # held-out words that landed on their own side
    held_total: int  # words that could be held out (from ends of two or more words)
    direction_interval: tuple[float, float] | None  # None: not assessed (see ``missing``)
    coordinates: np.ndarray  # (words,): each listed word's place on the whole axis
    word_intervals: np.ndarray | None  # (words, 2): each listed word's 95 % interval
    resampled_cosines: np.ndarray | None  # (RESAMPLES,)
    resampled_coordinates: np.ndarray | None  # (RESAMPLES, words)
    separation: float | None
    random_separations: np.ndarray | None  # (random axes with a spread, at most RANDOM_AXES,)
    p_value: float | None  # the share of random axes that separate at least as well
    coherence: float | None  # None unless the ends are two or more pairs
    random_coherence: np.ndarray | None
    missing: tuple[NotAssessed, ...] = ()  # every figure not given, with its reason

    @property
    def beats(self) -> float | None:
        """The share of random axes this one separates better than (None: not assessed)."""
        return None if self.p_value is None else 1.0 - self.p_value

    @property
    def assessed(self) -> bool:
        """Whether the card can give a verdict: words held out, and a comparison with chance."""
        return self.held_total > 0 and self.p_value is not None

    def why_not(self, figure: str) -> str | None:
        """Why ``figure`` is not given, or None if it is."""
        return next((m.reason for m in self.missing if m.figure == figure), None)

    def verdict(self) -> str:
        if not self.assessed:  # each reason is "cause: what it leaves out"; one cause said once
            causes: dict[str, list[str]] = {}
            for m in self.missing:
                if m.figure != COHERENCE:
                    cause, _, left_out = m.reason.partition(": ")
                    causes.setdefault(cause, []).append(left_out)
            said = "; ".join(f"{cause}: {', '.join(left)}" for cause, left in causes.items())
            return f"no verdict ({said})"
        held = f"held out {self.held_out} of {self.held_total}"
        beats = f"beats {self.beats:.1%} of random axes"
        if self.beats >= BEATS and self.held_out >= HELD * self.held_total:
            return f"{held}, {beats}: this axis separates its poles"
        if self.beats >= BEATS:
            return f"{held}, {beats}: it separates its poles, but depends on which words are chosen"
        return f"{held}, {beats}: no better than chance"


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def separation(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The gap between two groups' mean coordinates over their pooled standard deviation:
    ``start`` (..., n1) and ``end`` (..., n2) coordinates; nan where both groups are single
    words or the spread is zero (``card`` never hands such a nan on: it says why instead)."""
    n1, n2 = start.shape[-1], end.shape[-1]
    if n1 + n2 <= 2:
        return np.full(start.shape[:-1], np.nan)
    squares = (n1 - 1) * np.var(start, axis=-1, ddof=min(1, n1 - 1)) if n1 > 1 else 0.0
    squares = squares + ((n2 - 1) * np.var(end, axis=-1, ddof=min(1, n2 - 1)) if n2 > 1 else 0.0)
    pooled = np.sqrt(squares / (n1 + n2 - 2))
    gap = end.mean(axis=-1) - start.mean(axis=-1)
    size = np.maximum(np.abs(start).max(axis=-1), np.abs(end).max(axis=-1))
    spread = pooled > FLAT * size
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(spread, gap / np.where(spread, pooled, 1.0), np.nan)


def held_out(start: np.ndarray, end: np.ndarray) -> tuple[int, int]:
    """(words on their own side, words held out): each word of an end of two or more left out."""
    landed = total = 0
    for ends, side in ((start, 0), (end, 1)):
        if len(ends) < 2:
            continue
        for i in range(len(ends)):
            rest = np.delete(ends, i, axis=0)
            low, high = (rest, end) if side == 0 else (start, rest)
            u = _unit(high.mean(axis=0) - low.mean(axis=0))
            middle = (low.mean(axis=0) @ u + high.mean(axis=0) @ u) / 2
            place = ends[i] @ u
            landed += bool(place > middle) if side == 1 else bool(place < middle)
            total += 1
    return landed, total


def _directions(start_groups: np.ndarray, end_groups: np.ndarray) -> np.ndarray:
    """(draws, hidden) unit directions from (draws, n, hidden) groups of each end."""
    return _unit(end_groups.mean(axis=1) - start_groups.mean(axis=1))


def stability(start: np.ndarray, end: np.ndarray, words: np.ndarray, rng: np.random.Generator):
    """(cosines with the full direction, coordinates of ``words``) of each resampled axis."""
    full = _unit(end.mean(axis=0) - start.mean(axis=0))
    picks_start = rng.integers(0, len(start), (RESAMPLES, len(start)))
    picks_end = rng.integers(0, len(end), (RESAMPLES, len(end)))
    directions = _directions(start[picks_start], end[picks_end])
    return directions @ full, directions @ words.T if len(words) else np.empty((RESAMPLES, 0))


def random_groups(pool: np.ndarray, size: int, draws: int, rng: np.random.Generator) -> np.ndarray:
    """(draws, size) ids from ``pool``, distinct within each draw."""
    picks = pool[rng.integers(0, len(pool), (draws, size))]
    while True:
        ordered = np.sort(picks, axis=1)
        repeated = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        if not len(repeated):
            return picks
        picks[repeated] = pool[rng.integers(0, len(pool), (len(repeated), size))]


def chance(n_start: int, n_end: int, rows: Rows, pool: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The separation of ``RANDOM_AXES`` axes between random groups of whole words."""
    ids = random_groups(pool, n_start + n_end, RANDOM_AXES, rng)
    vectors = rows(ids)  # (axes, n, hidden)
    start, end = vectors[:, :n_start], vectors[:, n_start:]
    u = _directions(start, end)
    places = np.einsum("anh,ah->an", vectors, u)
    return separation(places[:, :n_start], places[:, n_start:])


def pair_coherence(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The share of variance of the first principal component of the pairs' centred vectors:
    ``start`` and ``end`` (..., pairs, hidden)."""
    middle = (start + end) / 2
    centred = np.concatenate([start - middle, end - middle], axis=-2)  # (..., 2 pairs, hidden)
    values = np.linalg.svd(centred, compute_uv=False) ** 2  # (the centred vectors' mean is 0)
    total = values.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, values[..., 0] / np.where(total > 0, total, 1.0), np.nan)


def _ends(n_start: int, n_end: int) -> str:
    if n_start == n_end == 1:
        return "one word at each end"
    return f"one word at the '{'from' if n_start == 1 else 'to'}' end"


def _against_chance(
    start: np.ndarray, end: np.ndarray, rows: Rows, pool: np.ndarray, rng: np.random.Generator, missing: list
) -> tuple[float | None, np.ndarray | None, float | None]:
    """(separation, random axes' separations, p-value) from the ends' coordinates (``start``,
    ``end``: (n,) each); None for what cannot be given, with its reason added to ``missing``."""
    n1, n2 = len(start), len(end)
    if n1 + n2 <= 2:
        missing.append(
            NotAssessed(CHANCE, f"{_ends(n1, n2)}: no spread within an end to set the gap against")
        )
        return None, None, None
    real = float(separation(start, end))
    if not np.isfinite(real):
        why = "the words of each end sit at one place on the axis: no spread to set the gap against"
        missing.append(NotAssessed(CHANCE, why))
        return None, None, None
    drawn = chance(n1, n2, rows, pool, rng)
    randoms = drawn[np.isfinite(drawn)]  # (a random draw without a spread has no separation)
    if not len(randoms):
        missing.append(NotAssessed(CHANCE, "no random axis had a spread within its ends to compare with"))
        return real, None, None
    return real, randoms, float(np.mean(randoms >= real))


def _coherence(
    start: np.ndarray, end: np.ndarray, rows: Rows, pool: np.ndarray, rng: np.random.Generator, missing: list
) -> tuple[float | None, np.ndarray | None]:
    """(the pairs' coherence, random pairs' coherence), or None with the reason in ``missing``."""
    n1, n2 = len(start), len(end)
    if n1 != n2:
        why = f"the ends have {n1} and {n2} words, so they cannot be read as pairs"
        missing.append(NotAssessed(COHERENCE, why))
        return None, None
    if n1 < 2:
        missing.append(NotAssessed(COHERENCE, "one pair: a single difference is always one direction"))
        return None, None
    pairs = rows(random_groups(pool, 2 * n1, RANDOM_AXES, rng))
    random_coherence = pair_coherence(pairs[:, :n1], pairs[:, n1:])
    coherence = float(pair_coherence(start, end))
    if not np.isfinite(coherence):
        missing.append(NotAssessed(COHERENCE, "each pair's two words are one vector: no differences"))
        return None, None
    return coherence, random_coherence[np.isfinite(random_coherence)]


def card(
    start: np.ndarray, end: np.ndarray, words: np.ndarray, rows: Rows, pool: np.ndarray, seed: int = SEED
) -> Card:
    """The card of the axis from ``start``'s words to ``end``'s ((n, hidden) each, in the
    geometry), with ``words`` ((m, hidden)) placed; ``rows`` gives vocabulary ids' vectors in the
    same geometry and ``pool`` the ids of the vocabulary's whole words."""
    rng = np.random.default_rng(seed)
    start, end, words = (np.asarray(v, dtype=np.float64) for v in (start, end, words))
    n1, n2 = len(start), len(end)
    missing = []
    landed, total = held_out(start, end)
    if not total:
        missing.append(NotAssessed(HELD_OUT, f"{_ends(n1, n2)}: nothing to hold out"))
    direction_interval, word_intervals, cosines, coordinates = None, None, None, None
    if min(n1, n2) >= 2:
        cosines, coordinates = stability(start, end, words, rng)
        direction_interval = tuple(float(v) for v in np.percentile(cosines, [2.5, 97.5]))
        word_intervals = np.percentile(coordinates, [2.5, 97.5], axis=0).T
    else:
        missing.append(NotAssessed(STABILITY, f"{_ends(n1, n2)}: nothing to resample"))
    u = _unit(end.mean(axis=0) - start.mean(axis=0))
    real, randoms, p_value = _against_chance(start @ u, end @ u, rows, pool, rng, missing)
    coherence, random_coherence = _coherence(start, end, rows, pool, rng, missing)
    return Card(
        landed,
        total,
        direction_interval,
        words @ u,
        word_intervals,
        cosines,
        coordinates,
        real,
        randoms,
        p_value,
        coherence,
        random_coherence,
        tuple(missing),
    )
