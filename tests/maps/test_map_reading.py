"""Reading a map: per-piece kept neighbours, k-occurrence and hubs, and the labelled regions,
each against a brute-force count; and the map's neighbour lists against the Neighbours page's
own search."""

from __future__ import annotations

import numpy as np
import pytest

from bert_embeddings.analysis import vocab_search
from bert_embeddings.maps import map_reading, neighbour_map
from bert_embeddings.models import glyphs
from testkit.brute import brute_cosines, random_table


def brute_kept(coords: np.ndarray, table: np.ndarray, k: int = 10) -> np.ndarray:
    """For each row: its k nearest by cosine (float64, ties by lower id) and its k nearest
    points (Euclidean, float64, ties by lower id), and how many of the first are in the second."""
    sims = brute_cosines(table)
    counts = []
    for i in range(len(coords)):
        true = np.lexsort((np.arange(len(table)), -sims[i]))[:k]
        distance = np.linalg.norm(coords.astype(np.float64) - coords[i], axis=1)
        distance[i] = np.inf
        near = np.lexsort((np.arange(len(coords)), distance))[:k]
        counts.append(len(set(true.tolist()) & set(near.tolist())))
    return np.array(counts)


@pytest.mark.parametrize("seed", [0, 3])
def test_kept_neighbours_per_piece_equal_a_brute_force_count_and_average_to_the_recall(seed):
    table = random_table(rows=400, seed=seed)
    rng = np.random.default_rng(seed)
    coords = (table[:, :2] + 0.3 * rng.standard_normal((400, 2))).astype(np.float32)  # a loose map
    ids, _ = neighbour_map.exact_neighbours(table, 10)
    kept = map_reading.kept_counts(coords, ids)
    assert kept.dtype == np.int8 and kept.min() >= 0 and kept.max() <= 10
    np.testing.assert_array_equal(kept, brute_kept(coords, table))
    assert map_reading.recall(kept) == pytest.approx(kept.mean() / 10)
    assert map_reading.recall(kept) == pytest.approx(neighbour_map.recall_at_k(coords, ids))
    # and the same nearest points answer for one clicked row as for all rows at once
    for row in (0, 17, 399):
        one = map_reading.map_nearest(coords, [row])[0]
        assert np.intersect1d(one, ids[row]).size == kept[row]


def test_k_occurrence_equals_a_brute_force_count_and_sums_to_k_times_rows():
    table = random_table(rows=300, seed=2)
    ids, _ = neighbour_map.exact_neighbours(table, 10)
    occurrence = map_reading.k_occurrence(ids, len(table))
    brute = [sum(j in ids[i].tolist() for i in range(len(table))) for j in range(len(table))]
    np.testing.assert_array_equal(occurrence, brute)
    assert occurrence.sum() == 10 * len(table)
    top = map_reading.top_hubs(occurrence, 20)
    assert occurrence[top].tolist() == sorted(occurrence, reverse=True)[:20]
    for a, b in zip(top[:-1], top[1:], strict=True):  # ties by the lower id
        assert occurrence[a] > occurrence[b] or a < b


def blobs(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A map of five dense islands and scattered points between them, and a table whose rows
    point the way of their island (so each island has a centre in cosine too)."""
    rng = np.random.default_rng(seed)
    sizes = (400, 300, 250, 150, 100)
    centres = np.array([[0, 0], [30, 0], [0, 30], [30, 30], [60, 15]], dtype=np.float64)
    island = np.repeat(np.arange(5), sizes)
    coords = centres[island] + rng.standard_normal((sum(sizes), 2))
    scatter = rng.uniform(-10, 70, (60, 2))
    coords = np.concatenate([coords, scatter]).astype(np.float32)
    directions = rng.standard_normal((5, 32)) * 4
    table = np.concatenate([directions[island], np.zeros((60, 32))]) + rng.standard_normal((len(coords), 32))
    return coords, table.astype(np.float32), np.concatenate([island, np.full(60, -1)])


def test_regions_are_the_maps_islands_and_each_labels_pieces_are_its_own():
    coords, table, island = blobs()
    regions = map_reading.find_regions(coords, table)
    assert regions.sizes == tuple(sorted(regions.sizes, reverse=True))
    assert len(regions.sizes) <= map_reading.MAX_REGIONS and len(regions.sizes) >= 5
    for number, central in enumerate(regions.central):
        members = np.flatnonzero(regions.of_row == number)
        assert len(members) == regions.sizes[number]
        assert set(central) <= set(members.tolist())  # a label's pieces belong to its region
        assert len(set(island[members].tolist()) - {-1}) == 1  # a region never spans two islands
        # its most central piece is the member closest in cosine to the members' mean direction
        unit = table[members] / np.linalg.norm(table[members], axis=1, keepdims=True)
        scores = unit @ unit.sum(axis=0)
        assert central[0] == members[np.argmax(scores)]
        assert tuple(regions.anchors[number]) in {tuple(p) for p in coords[members]}
    again = map_reading.find_regions(coords.copy(), table.copy())
    assert again.central == regions.central and np.array_equal(again.of_row, regions.of_row)


def test_the_regions_tree_is_an_exact_minimum_spanning_tree_of_mutual_reachability():
    """Brute force: every pair's mutual reachability (the larger of their distance and each
    point's distance to its 10th nearest, itself included), scipy's minimum spanning tree of
    that dense graph. Any minimum spanning tree has the same sorted weights, which are the
    heights at which HDBSCAN's hierarchy joins."""
    from scipy.sparse.csgraph import minimum_spanning_tree
    from scipy.spatial.distance import cdist

    coords, _, _ = blobs(seed=4)
    points = coords.astype(np.float64)
    distance = cdist(points, points)
    core = np.sort(distance, axis=1)[:, 9]
    reach = np.maximum(distance, np.maximum(core[:, None], core[None, :]))
    np.fill_diagonal(reach, 0.0)
    expected = np.sort(minimum_spanning_tree(reach).data)
    fitted = map_reading.clusterer(len(points)).set_params(gen_min_span_tree=True).fit(points)
    found = np.sort(fitted.minimum_spanning_tree_.to_numpy()[:, 2])
    assert len(found) == len(points) - 1
    np.testing.assert_allclose(found, expected, rtol=1e-12)


def test_a_map_too_small_for_regions_has_none():
    rng = np.random.default_rng(1)
    for n in (3, 9):
        regions = map_reading.find_regions(rng.normal(size=(n, 2)), rng.normal(size=(n, 8)))
        assert regions.sizes == () and (regions.of_row == -1).all()


def test_a_label_names_the_kind_most_of_its_pieces_are_and_its_central_pieces():
    numbers = np.array([vocab_search.NUMBER] * 8 + [vocab_search.WHOLE_WORD] * 2)
    label = map_reading.label(["1912", "1987", "2003", "1850"], numbers)
    assert label.short == "numbers · 1912, 1987, 2003"
    assert "10 pieces (80% numbers, 20% words)" in label.details and "1850" in label.details
    mixed = np.array([vocab_search.NUMBER] * 5 + [vocab_search.CONTINUATION] * 5)
    assert map_reading.label(["a", "##b"], mixed).short == "mixed · a, ##b"


@pytest.fixture(scope="module")
def bundled_slice(bundled):
    """The bundled model's first 2,000 rows, as a table of their own with its search index."""
    table = np.ascontiguousarray(bundled.tables.word_embeddings[:2000])
    return table, vocab_search.build_index(table, bundled.tokenizer)


def test_the_maps_neighbour_lists_are_the_neighbours_pages_answer(bundled_slice):
    """The lists the colours and hubs count from are what the Neighbours page answers for each
    piece with every piece shown (specials too) but itself."""
    table, index = bundled_slice
    ids, _ = neighbour_map.exact_neighbours(table, 10)
    for row in range(len(table)):
        page = vocab_search.nearest(
            index, table[row], 10, filters=vocab_search.Filters(hide_special=False, exclude_ids=(row,))
        )
        assert ids[row].tolist() == page.ids.tolist(), (row, index.pieces[row])


@pytest.fixture(scope="module")
def slice_map(bundled_slice):
    table, _ = bundled_slice
    return neighbour_map.compute(table, neighbour_map.Settings(perplexity=10, iterations=60)).coords


def test_labels_on_the_bundled_model_read_as_their_pieces(bundled_slice, slice_map):
    table, index = bundled_slice
    coords = slice_map
    regions = map_reading.find_regions(coords, table)
    labels = map_reading.labels(regions, index.pieces, index.kinds, glyphs.legible)
    assert len(labels) == len(regions.central) >= 1
    for number, label in enumerate(labels):
        first = glyphs.legible(index.pieces[regions.central[number][0]])
        assert first in label.short and f"{regions.sizes[number]:,} pieces" in label.details


def test_labels_that_would_overlap_a_larger_regions_are_left_out_and_none_is_cut_off():
    from bert_embeddings.figures import map_marks

    coords = np.array([[0, 0], [100, 100]], dtype=np.float32)  # a map 100 wide and high
    anchors = np.array([[50, 50], [51, 50], [50, 80], [1, 20], [99, 20]], dtype=np.float32)
    texts = ["numbers · 1, 2, 3", "words · a, b, c", "mixed · x", "left edge label", "right edge label"]
    placed = dict(map_marks.placed_labels(anchors, texts, coords))
    assert 0 in placed and 1 not in placed  # the second lies on the first: left out
    assert placed[2] == "middle center"
    assert placed[3] == "middle right" and placed[4] == "middle left"  # drawn inward


def test_regions_on_the_bundled_model_are_scikit_learns_hdbscan_clusters(bundled_slice, slice_map):
    """The same clusters as scikit-learn's HDBSCAN with the same settings (its min_samples
    counts the point itself) on a real map, but for the few points whose place in the
    hierarchy depends on which of several equally light edges each tree took."""
    from sklearn.cluster import HDBSCAN
    from sklearn.metrics import adjusted_rand_score

    table, _ = bundled_slice
    size = max(10, len(slice_map) // 300)
    reference = HDBSCAN(min_cluster_size=size, min_samples=10, cluster_selection_method="leaf", copy=True)
    expected = reference.fit_predict(slice_map.astype(np.float64))
    regions = map_reading.find_regions(slice_map, table)
    assert len(regions.sizes) == min(map_reading.MAX_REGIONS, expected.max() + 1)
    assert (
        adjusted_rand_score(
            expected, map_reading.clusterer(len(slice_map)).fit_predict(slice_map.astype(np.float64))
        )
        > 0.97
    )
