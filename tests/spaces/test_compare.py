"""The figures that compare two spaces, each against float64 brute force: scikit-learn's exact
neighbours, explicit sets and loops, scipy's Procrustes, and CKA written out on whole matrices."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import procrustes
from sklearn.neighbors import NearestNeighbors

from bert_embeddings.errors import NothingLeftError, OutOfRangeError
from bert_embeddings.spaces import compare

K = 10


def tables(seed: int = 0, n: int = 300, widths: tuple[int, int] = (16, 24)):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, widths[0])).astype(np.float32)
    # B shares some structure with A (a random linear map of it) and noise of its own.
    mixed = a @ rng.standard_normal((widths[0], widths[1])) + 0.8 * rng.standard_normal((n, widths[1]))
    return a, mixed.astype(np.float32)


def brute_lists(table: np.ndarray, k: int) -> np.ndarray:
    """scikit-learn's exact cosine neighbours in float64, the row itself left out."""
    found = NearestNeighbors(n_neighbors=k + 1, metric="cosine", algorithm="brute").fit(
        table.astype(np.float64)
    )
    ids = found.kneighbors(table.astype(np.float64))[1]
    return np.array([[j for j in row if j != i][:k] for i, row in enumerate(ids)])


def brute_cosines(table: np.ndarray) -> np.ndarray:
    unit = table.astype(np.float64)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    return unit @ unit.T


def test_neighbour_lists_are_scikit_learns_exact_ones():
    a, b = tables()
    for table in (a, b):
        assert np.array_equal(compare.neighbour_lists(table, K), brute_lists(table, K))
        # a shorter k is the longer list's start (so one list of 100 serves every k)
        assert np.array_equal(compare.neighbour_lists(table, 40)[:, :K], brute_lists(table, K))


def test_overlap_second_order_cka_and_procrustes_equal_brute_force():
    a, b = tables(1)
    lists_a, lists_b = compare.neighbour_lists(a, 30), compare.neighbour_lists(b, 30)
    ca, cb = brute_cosines(a), brute_cosines(b)
    for k in (1, 5, K, 30):
        result = compare.compare(a, b, lists_a, lists_b, k)
        expected_overlap, expected_second = [], []
        for i in range(len(a)):
            mine, theirs = set(lists_a[i, :k]), set(lists_b[i, :k])
            expected_overlap.append(len(mine & theirs) / k)
            union = sorted(mine | theirs)
            x, y = ca[i, union], cb[i, union]
            expected_second.append(x @ y / np.linalg.norm(x) / np.linalg.norm(y))
        np.testing.assert_array_equal(result.overlap, expected_overlap)
        np.testing.assert_allclose(result.second_order, expected_second, rtol=0, atol=1e-6)
        assert result.mean_overlap == pytest.approx(np.mean(expected_overlap), abs=1e-12)
    # linear CKA on the whole centred matrices
    x = a.astype(np.float64) - a.mean(axis=0, dtype=np.float64)
    y = b.astype(np.float64) - b.mean(axis=0, dtype=np.float64)
    cka = np.linalg.norm(x.T @ y) ** 2 / (np.linalg.norm(x.T @ x) * np.linalg.norm(y.T @ y))
    assert result.cka == pytest.approx(cka, abs=1e-10)
    assert result.procrustes is None  # widths 16 and 24
    same_width = tables(2, widths=(16, 16))
    moments = compare.moments(*same_width)
    disparity = procrustes(same_width[0].astype(np.float64), same_width[1].astype(np.float64))[2]
    assert compare.procrustes_residual(moments) == pytest.approx(disparity, abs=1e-10)
    assert 0 < disparity < 1


def test_a_space_compared_with_a_rotation_of_itself_keeps_everything():
    a, _ = tables(3, widths=(16, 16))
    rotation = np.linalg.qr(np.random.default_rng(4).standard_normal((16, 16)))[0]
    b = (a.astype(np.float64) @ rotation * 3.0).astype(np.float32)
    lists_a, lists_b = compare.neighbour_lists(a, K), compare.neighbour_lists(b, K)
    result = compare.compare(a, b, lists_a, lists_b, K)
    assert result.mean_overlap == 1.0 and result.mean_overlap_10 == 1.0
    np.testing.assert_allclose(result.second_order, 1.0, atol=1e-6)
    assert result.cka == pytest.approx(1.0, abs=1e-9)
    assert result.procrustes == pytest.approx(0.0, abs=1e-9)


def test_a_planted_block_of_permuted_rows_is_found_and_only_it():
    """B is A with a block of 40 rows shuffled among themselves: those pieces, and only those,
    lose their neighbours, and they lead the movers."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((400, 32)).astype(np.float32)
    block = np.sort(rng.choice(400, 40, replace=False))
    b = a.copy()
    b[block] = a[np.roll(block, 7)]  # every row of the block gets another block row's vector
    result = compare.compare(a, b, compare.neighbour_lists(a, K), compare.neighbour_lists(b, K), K)
    others = np.setdiff1d(np.arange(400), block)
    assert result.overlap[block].max() < result.overlap[others].min()
    assert set(result.movers()[:40]) == set(block)
    # the filters of the movers: only the allowed rows, in the same order
    allowed = np.zeros(400, dtype=bool)
    allowed[block[:5]] = allowed[others[:5]] = True
    ranked = result.movers(allowed)
    assert set(ranked[:5]) == set(block[:5]) and set(ranked[5:]) == set(others[:5])


def test_movers_rank_by_overlap_then_second_order_then_order():
    result = compare.Comparison(
        1, np.array([0.5, 0.0, 0.5, 0.0]), np.array([0.2, 0.9, 0.1, 0.9]), 0.25, 0.25, 1.0, None
    )
    assert result.movers().tolist() == [1, 3, 2, 0]


def test_shared_pieces_match_by_string_in_as_order():
    shared = compare.shared_pieces(["[CLS]", "the", "##s", "cat", "Ġdog"], ["cat", "dog", "the", "[CLS]"])
    assert shared.pieces == ("[CLS]", "the", "cat")
    assert shared.rows_a.tolist() == [0, 1, 3] and shared.rows_b.tolist() == [3, 2, 0]
    assert (shared.only_a, shared.only_b) == (2, 1)
    with pytest.raises(NothingLeftError, match="share 0 pieces"):
        compare.shared_pieces(["a", "b"], ["c", "d"])


@pytest.mark.parametrize("k", [0, 101, 2.5, "ten", True, None])
def test_k_out_of_range_is_a_message(k):
    with pytest.raises(OutOfRangeError, match="k"):
        compare.check_k(k)


def test_side_by_side_marks_kept_lost_and_gained():
    a, b = tables(6)
    lists_a, lists_b = compare.neighbour_lists(a, K), compare.neighbour_lists(b, K)
    row = 17
    shown = compare.side_by_side(a, b, lists_a, lists_b, row, K)
    assert shown.kept_a.tolist() == [j in set(lists_b[row]) for j in lists_a[row]]
    assert shown.gained_b.tolist() == [j not in set(lists_a[row]) for j in lists_b[row]]
    np.testing.assert_allclose(shown.cosines_a, brute_cosines(a)[row, lists_a[row]], atol=1e-12)
    np.testing.assert_allclose(shown.cosines_b, brute_cosines(b)[row, lists_b[row]], atol=1e-12)


def test_kinds_of_pieces():
    kinds = compare.piece_kinds(["the", "##ing", "1999", "##5", "!", "[unused3]", "[CLS]", "<s>"])
    assert [compare.KINDS[k] for k in kinds] == [
        "whole word",
        "## continuation",
        "number",
        "number",
        "punctuation",
        "special / unused",
        "special / unused",
        "special / unused",
    ]
    by_kind = compare.overlap_by_kind(np.array([1, 0.5, 0, 0.5, 1, 0, 0, 1.0]), kinds)
    assert by_kind[0] == ("whole word", 1, 1.0) and by_kind[2] == ("special / unused", 3, 1 / 3)
    assert by_kind[3] == ("number", 2, 0.25)


def test_mean_cosine_is_the_mean_over_every_pair_of_different_rows():
    a, _ = tables(9, n=300)
    a[5] = 0  # a zero row counts, with cosine 0
    a[:40] += 3.0  # a common direction in some rows
    unit = a.astype(np.float64)
    norms = np.linalg.norm(unit, axis=1)
    cosines = (unit @ unit.T) / np.outer(np.where(norms > 0, norms, 1), np.where(norms > 0, norms, 1))
    off_diagonal = cosines[~np.eye(len(a), dtype=bool)]
    assert compare.mean_cosine(a, block=64) == pytest.approx(off_diagonal.mean(), abs=1e-12)


def test_the_whole_overlap_says_the_k_it_is_at_when_the_pieces_are_too_few_for_10():
    """9 shared pieces have 8 others each: the whole spaces' overlap is at k = 8 and says so
    (it read 1.0 as "mean overlap@10")."""
    a, b = tables(6, widths=(8, 8))
    few = compare.compare(
        a[:9], b[:9], compare.neighbour_lists(a[:9], K), compare.neighbour_lists(b[:9], K), 3
    )
    assert few.whole_k == 8
    near_a, near_b = brute_lists(a[:9], 8), brute_lists(b[:9], 8)  # every other piece: all 8
    expected = np.mean([len(set(x) & set(y)) / 8 for x, y in zip(near_a, near_b, strict=True)])
    assert few.mean_overlap_10 == pytest.approx(expected, abs=1e-12) == 1.0
    many = compare.compare(a, b, compare.neighbour_lists(a, K), compare.neighbour_lists(b, K), 3)
    assert many.whole_k == compare.WHOLE_K == 10
