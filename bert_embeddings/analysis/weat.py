"""WEAT, the Word Embedding Association Test (Caliskan, Bryson and Narayanan 2017), exactly.

Two target groups X and Y (flowers, insects) against two attribute groups A and B (pleasant,
unpleasant), every word a vector (here: a row of a model's table, or the mean of its pieces'
rows), every cosine in float64:

- s(w) = mean over a in A of cos(w, a) - mean over b in B of cos(w, b), for each target word;
- the test statistic S = sum over X of s(x) - sum over Y of s(y);
- the effect size d = (mean over X of s - mean over Y of s) / the standard deviation of s
  over X and Y together, with n - 1 in its denominator;
- the one-sided p-value: the share of the re-partitions of X ∪ Y into groups of |X| and |Y|
  words, the observed one included, whose statistic is at least S. Exact (every partition)
  when there are at most ``EXACT_MOST`` of them; otherwise ``permutations`` random ones with
  a fixed seed, p = (1 + those at least S) / (1 + permutations), and said so;
- a 95 % bootstrap interval for d: X and Y each resampled with replacement ``resamples`` times
  (fixed seed), d recomputed, the 2.5th and 97.5th percentiles.

d needs a spread of s: where every target word has the same s, d is not given (None), nor is
its interval, and the result says why (``missing``); a bootstrap sample without a spread has no
d and is left out of the interval. No NaN is ever a figure of the result. The groups' words are
checked before (bert_embeddings.analysis.word_tests): two or more in each, none twice.

A re-partition's statistic depends only on the sum of s over the words it puts in X:
S' = 2 Σ_X' s - Σ s. Each is summed the same way, in the same order of words, so the observed
partition's statistic is computed exactly as every other one's.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis.axis_card import NotAssessed
from bert_embeddings.errors import ExplorerError

EXACT_MOST = 100_000  # partitions enumerated at most; beyond, random ones
PERMUTATIONS = 10_000
RESAMPLES = 1_000
LEAST_WORDS = 2
# Two statistics that differ by less than this share of the largest |s| are the same (ties count
# as "at least S"; float64 sums of the same words in another order may differ in the last bits).
TIE = 1e-12
# A standard deviation of s below this share of the largest |s| is rounding (the mean of equal
# numbers need not be exactly them), not a spread: d is then not given, never 0 / 1e-17.
FLAT = 1e-12
EFFECT_SIZE, INTERVAL = "effect size", "interval"  # the figures ``NotAssessed`` may name


class WeatInputError(ExplorerError):
    """Groups WEAT cannot test: too small, a word twice in a group, or in both groups of a pair."""


@dataclass(frozen=True)
class Weat:
    s: np.ndarray  # (|X| + |Y|,) each target word's association, X's words first
    statistic: float
    effect_size: float | None  # None: not assessed (see ``missing``)
    p_value: float
    exact: bool  # every partition counted (else ``partitions`` random ones)
    partitions: int  # how many partitions the p-value counts (the observed one included if exact)
    interval: tuple[float, float] | None  # 95 % bootstrap interval for the effect size
    resampled: np.ndarray  # (at most resamples,) the bootstrap's effect sizes, where s varied
    missing: tuple[NotAssessed, ...] = ()

    def why_not(self, figure: str) -> str | None:
        """Why ``figure`` (EFFECT_SIZE, INTERVAL) is not given, or None if it is."""
        return next((m.reason for m in self.missing if m.figure == figure), None)


def unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def associations(targets: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """s(w, A, B) of each target row, in float64."""
    t = unit(targets)
    return (t @ unit(a).T).mean(axis=1) - (t @ unit(b).T).mean(axis=1)


def effect_size(s_x: np.ndarray, s_y: np.ndarray) -> float | None:
    """d, or None where s has no spread over X and Y."""
    s = np.concatenate([s_x, s_y])
    spread = float(np.std(s, ddof=1))
    return float((s_x.mean() - s_y.mean()) / spread) if spread > FLAT * float(np.abs(s).max()) else None


def partition_count(nx: int, ny: int) -> int:
    return math.comb(nx + ny, nx)


def _statistics(s: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """S' of each row of ``chosen`` (the indices into ``s`` a partition puts in X, ascending)."""
    return 2.0 * s[chosen].sum(axis=1) - s.sum()


def _exact_statistics(s: np.ndarray, nx: int) -> np.ndarray:
    count = partition_count(nx, len(s) - nx)
    flat = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(len(s)), nx)), np.int64)
    return _statistics(s, flat.reshape(count, nx))


def check_groups(groups: dict[str, list[str]]) -> None:
    """Each group has at least two words (that no word is in a group twice, or in both groups of
    a pair, is checked on the words' pieces: word_tests.weat_for)."""
    for name, words in groups.items():
        if len(words) < LEAST_WORDS:
            raise WeatInputError(
                f"{name} has {len(words)} word(s): WEAT needs at least {LEAST_WORDS} in each group."
            )


def weat(
    x: np.ndarray,
    y: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    permutations: int = PERMUTATIONS,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> Weat:
    """WEAT of target vectors ``x``, ``y`` against attribute vectors ``a``, ``b`` (rows)."""
    if min(len(x), len(y), len(a), len(b)) < LEAST_WORDS:
        raise WeatInputError(f"WEAT needs at least {LEAST_WORDS} words in each group.")
    nx, ny = len(x), len(y)
    s = associations(np.concatenate([x, y]), a, b)
    observed = float(_statistics(s, np.arange(nx)[None, :])[0])
    tie = TIE * max(1.0, float(np.abs(s).max()) * len(s))
    rng = np.random.default_rng(seed)
    exact = partition_count(nx, ny) <= EXACT_MOST
    if exact:
        others = _exact_statistics(s, nx)
        p_value, counted = float(np.mean(others >= observed - tie)), len(others)
    else:
        chosen = np.sort(rng.random((permutations, nx + ny)).argsort(axis=1)[:, :nx], axis=1)
        others = _statistics(s, chosen)
        p_value, counted = float((1 + np.sum(others >= observed - tie)) / (1 + permutations)), permutations
    resampled = _bootstrap(s[:nx], s[nx:], resamples, rng)
    resampled = resampled[np.isfinite(resampled)]
    d, interval, missing = effect_size(s[:nx], s[nx:]), None, []
    if d is None:
        why = "every target word has the same association s: no spread to measure the gap in"
        missing += [NotAssessed(EFFECT_SIZE, why), NotAssessed(INTERVAL, why)]
    elif not len(resampled):
        missing.append(NotAssessed(INTERVAL, "no bootstrap sample had a spread of s to measure d in"))
    else:
        interval = tuple(float(v) for v in np.percentile(resampled, [2.5, 97.5]))
    return Weat(s, observed, d, p_value, exact, counted, interval, resampled, tuple(missing))


def _bootstrap(s_x: np.ndarray, s_y: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """The effect size of ``resamples`` bootstrap samples of X and of Y (each with replacement);
    nan where a sample's s has no spread."""
    bx = s_x[rng.integers(0, len(s_x), (resamples, len(s_x)))]
    by = s_y[rng.integers(0, len(s_y), (resamples, len(s_y)))]
    spread = np.std(np.concatenate([bx, by], axis=1), axis=1, ddof=1)
    gap = bx.mean(axis=1) - by.mean(axis=1)
    varies = spread > FLAT * max(float(np.abs(s_x).max()), float(np.abs(s_y).max()))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(varies, gap / np.where(varies, spread, 1.0), np.nan)
