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

Each random draw is a few matrix products over all the draws at once, not a loop of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

RESAMPLES = 1_000
RANDOM_AXES = 1_000
BEATS = 0.95  # an axis separates its poles if it beats this share of random axes ...
HELD = 0.8  # ... and at least this share of its held-out words land on their own side
SEED = 0

Rows = Callable[[np.ndarray], np.ndarray]  # vocabulary ids -> their vectors in the geometry


@dataclass(frozen=True)
class Card:
    held_out: int  # held-out words that landed on their own side
    held_total: int  # words that could be held out (from ends of two or more words)
    direction_interval: tuple[float, float]
    coordinates: np.ndarray  # (words,): each listed word's place on the whole axis
    word_intervals: np.ndarray  # (words, 2): each listed word's 95 % interval
    resampled_cosines: np.ndarray  # (RESAMPLES,)
    resampled_coordinates: np.ndarray  # (RESAMPLES, words)
    separation: float
    random_separations: np.ndarray  # (RANDOM_AXES,)
    p_value: float  # the share of random axes that separate at least as well
    coherence: float | None  # None unless the ends are pairs
    random_coherence: np.ndarray | None

    @property
    def beats(self) -> float:
        """The share of random axes this one separates better than."""
        return 1.0 - self.p_value

    def verdict(self) -> str:
        held = (
            f"held out {self.held_out} of {self.held_total}"
            if self.held_total
            else "no word could be held out"
        )
        beats = f"beats {self.beats:.1%} of random axes"
        if self.beats >= BEATS and (not self.held_total or self.held_out >= HELD * self.held_total):
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
    words or the spread is zero."""
    n1, n2 = start.shape[-1], end.shape[-1]
    if n1 + n2 <= 2:
        return np.full(start.shape[:-1], np.nan)
    squares = (n1 - 1) * np.var(start, axis=-1, ddof=min(1, n1 - 1)) if n1 > 1 else 0.0
    squares = squares + ((n2 - 1) * np.var(end, axis=-1, ddof=min(1, n2 - 1)) if n2 > 1 else 0.0)
    pooled = np.sqrt(squares / (n1 + n2 - 2))
    gap = end.mean(axis=-1) - start.mean(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pooled > 0, gap / np.where(pooled > 0, pooled, 1.0), np.nan)


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


def card(
    start: np.ndarray, end: np.ndarray, words: np.ndarray, rows: Rows, pool: np.ndarray, seed: int = SEED
) -> Card:
    """The card of the axis from ``start``'s words to ``end``'s ((n, hidden) each, in the
    geometry), with ``words`` ((m, hidden)) placed; ``rows`` gives vocabulary ids' vectors in the
    same geometry and ``pool`` the ids of the vocabulary's whole words."""
    rng = np.random.default_rng(seed)
    start, end, words = (np.asarray(v, dtype=np.float64) for v in (start, end, words))
    landed, total = held_out(start, end)
    cosines, coordinates = stability(start, end, words, rng)
    u = _unit(end.mean(axis=0) - start.mean(axis=0))
    real = float(separation(start @ u, end @ u))
    randoms = chance(len(start), len(end), rows, pool, rng)
    p_value = float(np.mean(randoms >= real)) if math.isfinite(real) else math.nan
    coherence, random_coherence = None, None
    if len(start) == len(end) >= 2:
        coherence = float(pair_coherence(start, end))
        pairs = rows(random_groups(pool, 2 * len(start), RANDOM_AXES, rng))
        random_coherence = pair_coherence(pairs[:, : len(start)], pairs[:, len(start) :])
    return Card(
        landed,
        total,
        tuple(float(v) for v in np.percentile(cosines, [2.5, 97.5])),
        words @ u,
        np.percentile(coordinates, [2.5, 97.5], axis=0).T,
        cosines,
        coordinates,
        real,
        randoms,
        p_value,
        coherence,
        random_coherence,
    )
