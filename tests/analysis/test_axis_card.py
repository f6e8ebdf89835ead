"""The axis report card against direct loops on random tables with a planted direction: held
out, the bootstrap, the random axes and the coherence each written out word by word here (and
the coherence against scikit-learn's PCA); a planted axis passes, random ones do not."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from sklearn.decomposition import PCA

from bert_embeddings.analysis import axis_card

WIDTH, VOCAB = 16, 3000


@pytest.fixture(scope="module")
def world():
    """A vocabulary of random rows, and pole words that differ along one planted direction."""
    rng = np.random.default_rng(0)
    table = rng.standard_normal((VOCAB, WIDTH))
    planted = rng.standard_normal(WIDTH)
    planted /= np.linalg.norm(planted)
    base = rng.standard_normal((3, WIDTH))
    start, end = base - 2.5 * planted, base + 2.5 * planted  # he/she-like pairs
    words = rng.standard_normal((5, WIDTH))
    return table, start, end, words


def rows_of(table):
    return lambda ids: table[ids]


def loop_unit(v):
    return v / math.sqrt(sum(x * x for x in v))


def loop_direction(start, end):
    low = [statistics.fmean(col) for col in zip(*start, strict=True)]
    high = [statistics.fmean(col) for col in zip(*end, strict=True)]
    return loop_unit(np.array(high) - np.array(low))


def loop_separation(start_places, end_places):
    n1, n2 = len(start_places), len(end_places)
    squares = sum((p - statistics.fmean(start_places)) ** 2 for p in start_places)
    squares += sum((p - statistics.fmean(end_places)) ** 2 for p in end_places)
    return (statistics.fmean(end_places) - statistics.fmean(start_places)) / math.sqrt(
        squares / (n1 + n2 - 2)
    )


def test_held_out_words_as_a_loop_finds_them(world):
    _, start, end, _ = world
    rng = np.random.default_rng(1)
    start, end = start + rng.standard_normal(start.shape) * 2, end + rng.standard_normal(end.shape) * 2
    expected = 0
    for group, other, towards_end in ((start, end, False), (end, start, True)):
        for i in range(len(group)):
            rest = [g for j, g in enumerate(group) if j != i]
            low, high = (other, rest) if towards_end else (rest, other)
            u = loop_direction(low, high)
            middle = (np.mean(low, axis=0) @ u + np.mean(high, axis=0) @ u) / 2
            expected += (group[i] @ u > middle) if towards_end else (group[i] @ u < middle)
    assert axis_card.held_out(start, end) == (expected, 6)
    assert axis_card.held_out(start[:1], end) == (
        axis_card.held_out(start[:1], end)[0],
        3,
    )  # one word: not held out


def test_separation_is_the_pooled_spread_formula():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal(4), rng.standard_normal(3) + 1
    assert float(axis_card.separation(a, b)) == pytest.approx(
        loop_separation(a.tolist(), b.tolist()), abs=1e-12
    )
    assert math.isnan(float(axis_card.separation(np.array([1.0]), np.array([2.0]))))


def test_the_bootstrap_and_the_random_axes_as_loops(world):
    table, start, end, words = world
    card = axis_card.card(start, end, words, rows_of(table), np.arange(VOCAB), seed=5)
    rng = np.random.default_rng(5)  # the draws in the card's order: resamples, then random axes
    picks_start = rng.integers(0, 3, (axis_card.RESAMPLES, 3))
    picks_end = rng.integers(0, 3, (axis_card.RESAMPLES, 3))
    full = loop_direction(start, end)
    np.testing.assert_allclose(card.coordinates, [w @ full for w in words], atol=1e-12)
    for r in (0, 1, 499, 999):
        u = loop_direction(start[picks_start[r]], end[picks_end[r]])
        assert card.resampled_cosines[r] == pytest.approx(u @ full, abs=1e-12)
        np.testing.assert_allclose(card.resampled_coordinates[r], words @ u, atol=1e-12)
    assert card.direction_interval == pytest.approx(
        tuple(np.percentile(card.resampled_cosines, [2.5, 97.5])), abs=1e-15
    )
    for w in range(len(words)):
        low, high = np.percentile(card.resampled_coordinates[:, w], [2.5, 97.5])
        assert tuple(card.word_intervals[w]) == pytest.approx((low, high), abs=1e-15)
    ids = table[axis_card.random_groups(np.arange(VOCAB), 6, axis_card.RANDOM_AXES, rng)]
    for r in (0, 7, 999):
        u = loop_direction(ids[r, :3], ids[r, 3:])
        expected = loop_separation((ids[r, :3] @ u).tolist(), (ids[r, 3:] @ u).tolist())
        assert card.random_separations[r] == pytest.approx(expected, abs=1e-9)
    u = loop_direction(start, end)
    assert card.separation == pytest.approx(
        loop_separation((start @ u).tolist(), (end @ u).tolist()), abs=1e-9
    )
    assert card.p_value == float(np.mean(card.random_separations >= card.separation))


def test_coherence_is_pcas_first_share_over_centred_pairs(world):
    _, start, end, _ = world
    middle = (start + end) / 2
    centred = np.concatenate([start - middle, end - middle])
    expected = PCA().fit(centred).explained_variance_ratio_[0]
    assert float(axis_card.pair_coherence(start, end)) == pytest.approx(expected, abs=1e-12)


def test_a_planted_axis_passes_and_random_ones_do_not(world):
    table, start, end, words = world
    planted = axis_card.card(start, end, words, rows_of(table), np.arange(VOCAB))
    assert planted.held_out == planted.held_total == 6
    assert planted.beats >= axis_card.BEATS and "this axis separates its poles" in planted.verdict()
    assert planted.coherence > 0.9 and planted.coherence > np.percentile(planted.random_coherence, 99)
    rng = np.random.default_rng(3)
    passed = 0
    for trial in range(20):
        ids = rng.choice(VOCAB, 6, replace=False)
        random = axis_card.card(
            table[ids[:3]], table[ids[3:]], words, rows_of(table), np.arange(VOCAB), seed=trial
        )
        passed += "this axis separates its poles" in random.verdict()
    assert passed <= 3  # about one in twenty by chance, at a 95 % threshold


def test_the_same_seed_gives_the_same_card(world):
    table, start, end, words = world
    first = axis_card.card(start, end, words, rows_of(table), np.arange(VOCAB), seed=9)
    second = axis_card.card(start, end, words, rows_of(table), np.arange(VOCAB), seed=9)
    assert np.array_equal(first.random_separations, second.random_separations)
    assert np.array_equal(first.resampled_coordinates, second.resampled_coordinates)
    assert first.verdict() == second.verdict()


# --- figures the words cannot give: None and the reason, never NaN, and no verdict -------------


def figures_of(card: axis_card.Card) -> dict[str, object]:
    return {name: getattr(card, name) for name in card.__dataclass_fields__ if name != "missing"}


def assert_no_nan(card: axis_card.Card) -> None:
    """Every figure is a finite number (or array of them) or None: nothing reads "nan"."""
    for name, value in figures_of(card).items():
        if value is None:
            continue
        assert np.all(np.isfinite(np.asarray(value, dtype=np.float64))), name
    assert "nan" not in card.verdict()


def test_one_word_at_each_end_gives_no_verdict_and_says_why(world):
    """he -> she: nothing to hold out or resample, no spread to set against chance; no verdict."""
    table, start, end, words = world
    card = axis_card.card(start[:1], end[:1], words, rows_of(table), np.arange(VOCAB))
    assert_no_nan(card)
    assert card.held_total == 0 and not card.assessed
    for name in ("direction_interval", "word_intervals", "resampled_cosines", "separation", "p_value"):
        assert getattr(card, name) is None, name
    assert card.beats is None and card.coherence is None
    assert card.why_not(axis_card.HELD_OUT) == "one word at each end: nothing to hold out"
    assert card.why_not(axis_card.STABILITY) == "one word at each end: nothing to resample"
    assert "no spread" in card.why_not(axis_card.CHANCE)
    assert card.verdict().startswith("no verdict (one word at each end: nothing to hold out, nothing to")
    assert "chance" not in card.verdict() and "separates" not in card.verdict()
    np.testing.assert_allclose(card.coordinates, words @ loop_direction(start[:1], end[:1]), atol=1e-12)


def test_one_word_at_one_end_is_held_out_and_compared_but_not_resampled(world):
    """he -> she, her, woman: the three are held out and the axis set against chance, but an end
    of one word cannot be resampled, so there is no interval (it would hold that end fixed)."""
    table, start, end, words = world
    card = axis_card.card(start[:1], end, words, rows_of(table), np.arange(VOCAB))
    assert_no_nan(card)
    assert card.held_total == 3 and card.assessed and card.p_value is not None
    assert card.separation == pytest.approx(
        loop_separation(
            [float(start[0] @ loop_direction(start[:1], end))],
            (end @ loop_direction(start[:1], end)).tolist(),
        ),
        abs=1e-9,
    )
    assert card.direction_interval is None and card.word_intervals is None
    assert card.why_not(axis_card.STABILITY) == "one word at the 'from' end: nothing to resample"
    assert card.why_not(axis_card.COHERENCE) == "the ends have 1 and 3 words, so they cannot be read as pairs"
    assert card.verdict().startswith("held out ")


def test_ends_without_a_spread_are_not_set_against_chance(world):
    """Three words at each end that sit at one place on the axis (the same vector thrice): the
    pooled spread is 0 but for rounding, so the separation would be huge or NaN; the card says so
    instead."""
    table, start, end, words = world
    card = axis_card.card(start[[0, 0, 0]], end[[1, 1, 1]], words, rows_of(table), np.arange(VOCAB))
    assert_no_nan(card)
    assert card.separation is None and card.p_value is None and not card.assessed
    assert "no spread" in card.why_not(axis_card.CHANCE) and card.verdict().startswith("no verdict")


def test_a_card_with_every_figure_has_none_missing(world):
    table, start, end, words = world
    card = axis_card.card(start, end, words, rows_of(table), np.arange(VOCAB))
    assert_no_nan(card)
    assert card.missing == () and card.assessed
    assert all(value is not None for value in figures_of(card).values())
