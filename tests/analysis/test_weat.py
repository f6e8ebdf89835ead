"""WEAT against float64 brute force written out here, and against scipy's permutation test:
the associations, the statistic, the effect size, the exact p-value over every partition, the
sampled one, and the bootstrap interval; a planted association is found, and none where there
is none."""

from __future__ import annotations

import itertools
import math
import statistics

import numpy as np
import pytest
from scipy import stats

from bert_embeddings.analysis import weat


def cos(u, v) -> float:
    return sum(p * q for p, q in zip(u, v, strict=True)) / math.sqrt(
        sum(p * p for p in u) * sum(q * q for q in v)
    )


def brute(x, y, a, b):
    """s of each target word, S, d and the exact p-value, by loops over words and partitions."""
    targets = [*x, *y]
    s = [statistics.fmean(cos(w, v) for v in a) - statistics.fmean(cos(w, v) for v in b) for w in targets]
    observed = sum(s[: len(x)]) - sum(s[len(x) :])
    d = (statistics.fmean(s[: len(x)]) - statistics.fmean(s[len(x) :])) / statistics.stdev(s)
    at_least = total = 0
    for chosen in itertools.combinations(range(len(s)), len(x)):
        rest = [i for i in range(len(s)) if i not in chosen]
        total += 1
        at_least += sum(s[i] for i in chosen) - sum(s[i] for i in rest) >= observed - 1e-12
    return s, observed, d, at_least / total


def groups(seed: int, sizes=(5, 4, 6, 5), width: int = 12, planted: float = 0.0):
    """Random groups; with ``planted``, X leans towards A's direction and Y towards B's."""
    rng = np.random.default_rng(seed)
    toward_a, toward_b = rng.standard_normal(width), rng.standard_normal(width)
    x, y, a, b = (rng.standard_normal((n, width)) for n in sizes)
    a, b = a + 2 * toward_a, b + 2 * toward_b
    return x + planted * toward_a, y + planted * toward_b, a, b


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_statistic_effect_size_and_exact_p_against_brute_force(seed):
    x, y, a, b = groups(seed)
    found = weat.weat(x, y, a, b)
    s, observed, d, p = brute(x.tolist(), y.tolist(), a.tolist(), b.tolist())
    np.testing.assert_allclose(found.s, s, atol=1e-12)
    assert found.statistic == pytest.approx(observed, abs=1e-12)
    assert found.effect_size == pytest.approx(d, abs=1e-12)
    assert found.exact and found.partitions == math.comb(9, 5)
    assert found.p_value == p


def test_the_exact_p_value_is_scipys_permutation_test():
    x, y, a, b = groups(3, sizes=(6, 6, 4, 4), planted=0.3)
    found = weat.weat(x, y, a, b)
    scipy_test = stats.permutation_test(
        (found.s[:6], found.s[6:]),
        lambda p, q, axis: np.sum(p, axis=axis) - np.sum(q, axis=axis),
        permutation_type="independent",
        alternative="greater",
        n_resamples=np.inf,
        vectorized=True,
    )
    assert found.p_value == pytest.approx(scipy_test.pvalue, abs=1e-12)
    assert found.statistic == pytest.approx(scipy_test.statistic, abs=1e-12)


def test_past_the_exact_limit_random_partitions_with_a_fixed_seed():
    x, y, a, b = groups(4, sizes=(10, 10, 5, 5), planted=0.15)
    assert math.comb(20, 10) > weat.EXACT_MOST
    found = weat.weat(x, y, a, b, permutations=4000, seed=7)
    assert not found.exact and found.partitions == 4000
    again = weat.weat(x, y, a, b, permutations=4000, seed=7)
    assert again.p_value == found.p_value and again.interval == found.interval
    # every one of the 184,756 partitions, by numpy here: the sample's p is within 4 standard errors
    chosen = np.array(list(itertools.combinations(range(20), 10)))
    everything = 2 * found.s[chosen].sum(axis=1) - found.s.sum()
    truth = float(np.mean(everything >= found.statistic - 1e-12))
    assert abs(found.p_value - truth) <= 4 * math.sqrt(truth * (1 - truth) / 4000) + 1 / 4000


def test_the_bootstrap_interval_is_the_loops_percentiles():
    x, y, a, b = groups(5)
    found = weat.weat(x, y, a, b, seed=11, resamples=300)
    rng = np.random.default_rng(11)  # the exact test draws nothing: the bootstrap draws first
    picks_x, picks_y = rng.integers(0, 5, (300, 5)), rng.integers(0, 4, (300, 4))
    s_x, s_y = found.s[:5].tolist(), found.s[5:].tolist()
    loops = []
    for px, py in zip(picks_x, picks_y, strict=True):
        bx, by = [s_x[i] for i in px], [s_y[i] for i in py]
        spread = statistics.stdev(bx + by)
        loops.append((statistics.fmean(bx) - statistics.fmean(by)) / spread if spread > 0 else math.nan)
    finite = [v for v in loops if not math.isnan(v)]
    np.testing.assert_allclose(found.resampled, finite, atol=1e-12)  # (samples with a spread of s)
    assert found.interval == pytest.approx(tuple(np.percentile(finite, [2.5, 97.5])), abs=1e-12)
    assert found.interval[0] <= found.effect_size <= found.interval[1]


def test_a_planted_association_is_found_and_none_where_there_is_none():
    planted = weat.weat(*groups(6, sizes=(8, 8, 8, 8), planted=1.5))
    assert planted.effect_size > 1.2 and planted.p_value < 0.01 and planted.exact
    nulls = [weat.weat(*groups(seed, sizes=(8, 8, 8, 8))).p_value for seed in range(40)]
    assert 0.25 < float(np.mean(nulls)) < 0.75  # p is about uniform when nothing is planted
    assert np.mean(np.array(nulls) < 0.05) < 0.2


def test_groups_it_cannot_test_are_refused_with_a_message():
    with pytest.raises(weat.WeatInputError, match="at least 2"):
        weat.check_groups({"X": ["rose"], "Y": ["ant", "bee"], "A": ["joy", "love"], "B": ["war", "pain"]})
    x, y, a, b = groups(7)
    with pytest.raises(weat.WeatInputError):
        weat.weat(x[:1], y, a, b)


def test_without_a_spread_of_s_there_is_no_effect_size_and_no_nan():
    """Every target word with the same s (here one vector throughout): d would be 0 / 0. It is
    None with the reason, as is its interval; S and p are still given (p = 1: every partition ties)."""
    x, _, a, b = groups(8)
    same = np.repeat(x[:1], 3, axis=0)
    found = weat.weat(same, same, a, b, resamples=200)
    assert found.effect_size is None and found.interval is None and len(found.resampled) == 0
    assert "no spread" in found.why_not(weat.EFFECT_SIZE) and found.why_not(weat.INTERVAL)
    assert found.statistic == pytest.approx(0.0, abs=1e-12) and found.p_value == 1.0
    for value in (found.statistic, found.p_value, *found.s):
        assert math.isfinite(value)
    assert weat.effect_size(found.s[:3], found.s[3:]) is None
    planted = weat.weat(*groups(6, sizes=(8, 8, 8, 8), planted=1.5))
    assert planted.missing == () and np.all(np.isfinite(planted.resampled))


# --- the words: the same word is the same pieces, however written ---------------------------


@pytest.fixture(scope="module")
def index(bundled):
    from bert_embeddings.analysis import vocab_search

    return vocab_search.build_index(bundled.tables.word_embeddings, bundled.tokenizer)


def weat_of(index, tokenizer, **texts):
    from bert_embeddings.analysis import word_tests

    groups = {"X": "rose, tulip, lily", "Y": "ant, flea, moth", "A": "love, peace", "B": "crash, filth"}
    return word_tests.weat_for(index, tokenizer, {**groups, **texts}, permutations=100)


@pytest.mark.parametrize(
    ("texts", "said"),
    [
        ({"Y": "ROSE, TULIP, LILY"}, "'ROSE' (as 'rose', the same pieces) in both Group X and Group Y"),
        ({"Y": "ant, Rose"}, "'Rose' (as 'rose', the same pieces) in both Group X and Group Y"),
        ({"B": "crash, Café", "A": "love, cafe"}, "'Café' (as 'cafe', the same pieces) in both Group A and"),
        ({"Y": "ant, rose"}, "'rose' in both Group X and Group Y"),
        ({"X": "rose, Rose"}, "Group X has 'Rose' (as 'rose', the same pieces) twice: each word counts once"),
        ({"A": "love, LOVE, peace"}, "Group A has 'LOVE' (as 'love', the same pieces) twice"),
    ],
)
def test_a_word_in_both_groups_or_twice_in_one_is_refused_however_written(bundled, index, texts, said):
    """Capital letters or accents (the uncased tokenizer drops both) do not make another word:
    ROSE against rose once gave d 0.000, p 0.7 as a result, and rose, Rose counted one vector twice."""
    from bert_embeddings.analysis import weat as weat_module

    with pytest.raises(weat_module.WeatInputError) as raised:
        weat_of(index, bundled.tokenizer, **texts)
    assert said in str(raised.value)


def test_words_that_cannot_be_placed_are_each_named(bundled, index):
    from bert_embeddings.errors import UnknownWordError

    with pytest.raises(UnknownWordError) as raised:
        weat_of(index, bundled.tokenizer, A="love, \u2603, peace, \U0001f99c")
    said = str(raised.value)
    assert said.startswith("Group A has 2 words that cannot be placed")
    assert "'\u2603'" in said and "'\U0001f99c'" in said
