"""Aligned maps: the Procrustes step against scipy, the cosines against explicit float64 loops,
the recall each map states against a brute-force count, and the alignment's promise (B's map
started from A's keeps as many neighbours as B's own) on planted clusters."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import orthogonal_procrustes
from sklearn.neighbors import NearestNeighbors

from bert_embeddings.maps import neighbour_map
from bert_embeddings.spaces import aligned, compare

SMALL = neighbour_map.Settings(iterations=150)


def clustered(seed: int, n: int = 600, width: int = 12, clusters: int = 8) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, width)) * 3
    return (centres[rng.integers(0, clusters, n)] + rng.standard_normal((n, width))).astype(np.float32)


def brute_recall(coords: np.ndarray, truth: np.ndarray) -> float:
    """Each row's 10 nearest other points on the map by scikit-learn, against its true list."""
    k = truth.shape[1]
    found = NearestNeighbors(n_neighbors=k + 1).fit(coords.astype(np.float64))
    near = found.kneighbors(coords.astype(np.float64))[1]
    return float(np.mean([len(set(row[row != i][:k]) & set(truth[i])) / k for i, row in enumerate(near)]))


@pytest.fixture(scope="module")
def maps():
    a = clustered(0)
    # B: A's rows turned and stretched into another width, with noise, and a block of rows
    # swapped among themselves (those pieces move).
    rng = np.random.default_rng(1)
    b = a @ rng.standard_normal((12, 20)) + 0.5 * rng.standard_normal((600, 20))
    b[:60] = b[rng.permutation(60)]
    tables = (a, b.astype(np.float32))
    lists = tuple(compare.neighbour_lists(t, 20, threads=1) for t in tables)
    return tables, lists, aligned.aligned_maps(tables, lists, SMALL, threads=2)


def test_procrustes_finds_a_planted_turn_scale_and_shift():
    rng = np.random.default_rng(2)
    fixed = rng.standard_normal((50, 2))
    turn = np.linalg.qr(rng.standard_normal((2, 2)))[0]
    moving = 3.5 * fixed @ turn.T + np.array([4.0, -2.0])
    assert np.allclose(aligned.procrustes_onto(moving, fixed), fixed, atol=1e-12)


def test_procrustes_is_scipys_least_squares_turn():
    rng = np.random.default_rng(3)
    moving, fixed = rng.standard_normal((80, 2)), rng.standard_normal((80, 2))
    m, f = moving - moving.mean(0), fixed - fixed.mean(0)
    turn, singular_sum = orthogonal_procrustes(m, f)
    expected = singular_sum / np.sum(m * m) * m @ turn + fixed.mean(0)
    assert np.allclose(aligned.procrustes_onto(moving, fixed), expected, atol=1e-12)
    # nothing closer: any other turn or scale of the same points is further from ``fixed``
    best = np.sum((aligned.procrustes_onto(moving, fixed) - fixed) ** 2)
    for angle in np.linspace(0, 2 * np.pi, 13):
        other = m @ np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]) + fixed.mean(
            0
        )
        assert np.sum((other - fixed) ** 2) >= best - 1e-9


def test_listed_cosines_are_explicit_float64_cosines():
    table = clustered(4, n=40)
    table[5] = 0  # a zero row has cosine 0 with everything
    lists = np.random.default_rng(5).integers(0, 40, (40, 7))
    got = aligned.listed_cosines(table, lists, block=9)
    t = table.astype(np.float64)
    for i in range(40):
        for j, other in enumerate(lists[i]):
            norms = np.linalg.norm(t[i]) * np.linalg.norm(t[other])
            want = t[i] @ t[other] / norms if norms else 0.0
            assert got[i, j] == pytest.approx(want, abs=1e-12)


@pytest.mark.slow("aligned t-SNE maps of two tables")
def test_each_map_states_its_brute_force_recall(maps):
    _, lists, found = maps
    assert found.recall_a == pytest.approx(brute_recall(found.a, lists[0][:, :10]), abs=1e-9)
    assert found.recall_b == pytest.approx(brute_recall(found.b, lists[1][:, :10]), abs=1e-9)
    assert found.recall_b_alone == pytest.approx(brute_recall(found.b_alone, lists[1][:, :10]), abs=1e-9)
    assert found.gap == pytest.approx(found.recall_b_alone - found.recall_b)


@pytest.mark.slow("aligned t-SNE maps of two tables")
def test_the_aligned_map_keeps_bs_faithfulness_and_lies_on_as(maps):
    _, _, found = maps
    assert found.recall_b > 0.5  # planted clusters: a faithful map, not noise
    assert found.gap <= aligned.GAP
    # aligned onto A: the pieces that kept their neighbours stay near where they were on A's map,
    # much nearer than on B's own map turned onto A's the same way
    kept = slice(60, None)
    moved_aligned = np.linalg.norm(found.b[kept] - found.a[kept], axis=1).mean()
    own = aligned.procrustes_onto(found.b_alone, found.a)
    moved_alone = np.linalg.norm(own[kept] - found.a[kept], axis=1).mean()
    assert moved_aligned < 0.5 * moved_alone


@pytest.mark.slow("aligned t-SNE maps of two tables")
def test_between_goes_from_a_to_b(maps):
    _, _, found = maps
    assert np.array_equal(found.between(0.0), found.a)
    assert np.allclose(found.between(1.0), found.b, atol=1e-5)
    assert np.allclose(found.between(0.5), (found.a + found.b) / 2, atol=1e-5)
    with pytest.raises(ValueError):
        found.between(1.5)


@pytest.mark.slow("aligned t-SNE maps of two tables")
def test_the_same_input_gives_the_same_maps_whatever_the_threads(maps):
    tables, lists, found = maps
    again = aligned.aligned_maps(tables, lists, SMALL, threads=1)
    for first, second in ((found.a, again.a), (found.b, again.b), (found.b_alone, again.b_alone)):
        assert np.array_equal(first, second)


def test_lists_too_short_or_rows_unequal_are_refused():
    a = clustered(6, n=50)
    short = compare.neighbour_lists(a, 5, threads=1)
    with pytest.raises(ValueError, match="neighbours per row"):
        aligned.aligned_maps((a, a), (short, short), SMALL)
    lists = compare.neighbour_lists(a, 20, threads=1)
    with pytest.raises(ValueError, match="same rows"):
        aligned.aligned_maps((a, a[:40]), (lists, lists[:40]), SMALL)
