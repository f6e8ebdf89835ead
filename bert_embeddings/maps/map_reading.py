"""Reading a neighbour map: which pieces it keeps in place, which rows are hubs, and its regions.

Everything here starts from two things the map's job has anyway: the map's coordinates and
each row's exact 10 nearest cosine neighbours (neighbour_map.exact_neighbours).

- **Kept neighbours**, per piece: how many of its 10 nearest pieces by cosine are among its
  10 nearest points on the map (0 to 10). Their mean over all pieces, divided by 10, is the
  map's recall@10.
- **k-occurrence**, per piece: in how many other pieces' lists of 10 nearest neighbours it
  appears. The counts sum to 10 times the rows; a few rows near the middle of the cloud
  ("hubs") appear in hundreds of lists, many rows in none.
- **Regions**: dense islands of the 2-D map (HDBSCAN on the coordinates), at most 30, the
  largest first, each with its most central pieces in the original cosine space, so that
  a label can name what the island holds.

Pure computation: numpy and scikit-learn, no Streamlit, no Plotly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import cosine

RECALL_K = 10
MAX_REGIONS = 30
CENTRAL = 24  # pieces kept per region, the most central first
# What a region mostly holds, by vocab_search.KINDS: whole word, ## continuation, special /
# unused, number, punctuation.
KIND_NAMES = ("words", "## endings", "special / unused", "numbers", "punctuation")
MOSTLY = 0.6  # a region is named after a kind of piece when at least this share is of that kind


def map_nearest(coords: np.ndarray, rows: np.ndarray, k: int = RECALL_K) -> np.ndarray:
    """Each of ``rows``' k nearest other points on the map (Euclidean), (len(rows), k), nearest
    first. The same function answers for one clicked point and for every point at once."""
    from sklearn.neighbors import NearestNeighbors

    rows = np.atleast_1d(np.asarray(rows, dtype=np.int64))
    k = min(k, len(coords) - 1)
    found = NearestNeighbors(n_neighbors=k + 1).fit(coords).kneighbors(coords[rows], return_distance=False)
    nearest = np.empty((len(rows), k), dtype=np.int64)
    for i, (row, near) in enumerate(zip(rows, found, strict=True)):
        nearest[i] = near[near != row][:k]  # the point itself (or a duplicate listed before it)
    return nearest


def kept_counts(coords: np.ndarray, true_ids: np.ndarray) -> np.ndarray:
    """Per row, how many of its true neighbours (``true_ids``, (n, k)) are among its k nearest
    other points on the map: (n,) int8, 0 to k."""
    k = true_ids.shape[1]
    near = map_nearest(coords, np.arange(len(coords)), k)
    return (near[:, :, None] == true_ids[:, None, :]).any(axis=2).sum(axis=1).astype(np.int8)


def recall(kept: np.ndarray, k: int = RECALL_K) -> float:
    """The map's recall@k: the mean of the per-row counts, as a share of k."""
    return float(np.mean(kept, dtype=np.float64) / k)


def k_occurrence(true_ids: np.ndarray, rows: int) -> np.ndarray:
    """Per row, in how many rows' neighbour lists (``true_ids``, (n, k)) it appears: (rows,)
    int32, summing to n * k."""
    return np.bincount(np.asarray(true_ids).ravel(), minlength=rows).astype(np.int32)


def top_hubs(occurrence: np.ndarray, count: int = 20) -> np.ndarray:
    """The ids of the ``count`` rows with the largest k-occurrence, largest first (ties by the
    lower id)."""
    order = np.lexsort((np.arange(len(occurrence)), -occurrence.astype(np.int64)))
    return order[:count]


@dataclass(frozen=True)
class Regions:
    """Dense islands of a 2-D map, numbered from the largest."""

    of_row: np.ndarray  # (n,) int16: each row's region, or -1 for none
    central: tuple[tuple[int, ...], ...]  # each region's most central row ids, best first
    sizes: tuple[int, ...]  # each region's number of rows
    anchors: np.ndarray  # (regions, 2) float32: where its label goes (a member's point)


def clusterer(n: int):
    """HDBSCAN as find_regions runs it on a map of ``n`` points, not yet fitted: leaf clusters
    of at least n / 300 points, density judged from each point's 10 nearest (itself and 9
    others), on an exact minimum spanning tree found by Boruvka's algorithm on a k-d tree.

    That tree takes about n log n steps on 2-D points; scikit-learn's HDBSCAN finds the same
    tree's weights by Prim's algorithm, n squared, minutes on 120,000 points."""
    import hdbscan

    size = max(10, n // 300)
    return hdbscan.HDBSCAN(
        min_cluster_size=size,
        min_samples=min(size, 10) - 1,  # this package counts the neighbours other than the point
        cluster_selection_method="leaf",
        algorithm="boruvka_kdtree",
        approx_min_span_tree=False,
        core_dist_n_jobs=1,
    )


def find_regions(
    coords: np.ndarray, table: np.ndarray, most: int = MAX_REGIONS, central: int = CENTRAL
) -> Regions:
    """The map's dense islands: HDBSCAN's leaf clusters on the 2-D coordinates (the finest
    stable ones, which on a vocabulary's map are its islands, rather than the one or two
    blobs that hold most of the map), as ``clusterer`` finds them, the ``most`` largest kept
    (ties by the lowest row).

    For each, its rows ordered by cosine with the region's mean direction in the table
    (summed in float64 in one fixed order, so that the order does not depend on the CPU),
    and the member nearest the members' median point, where its label is drawn."""
    n = len(coords)
    found = clusterer(n).fit_predict(np.array(coords, dtype=np.float64))
    clusters = [np.flatnonzero(found == c) for c in range(found.max() + 1)]
    clusters.sort(key=lambda members: (-len(members), members[0]))
    clusters = clusters[:most]
    of_row = np.full(n, -1, dtype=np.int16)
    orders, anchors = [], []
    for number, members in enumerate(clusters):
        of_row[members] = number
        orders.append(tuple(int(i) for i in _by_centrality(table, members)[:central]))
        points = np.asarray(coords[members], dtype=np.float64)
        middle = np.median(points, axis=0)
        anchors.append(points[np.argmin(((points - middle) ** 2).sum(axis=1))])
    return Regions(
        of_row,
        tuple(orders),
        tuple(len(m) for m in clusters),
        np.asarray(anchors, dtype=np.float32).reshape(-1, 2),
    )


def _by_centrality(table: np.ndarray, members: np.ndarray) -> np.ndarray:
    """``members`` ordered by cosine with their mean unit row, best first, ties by lower id."""
    unit = cosine.unit_rows(np.asarray(table[members], dtype=np.float64))
    direction = unit.sum(axis=0)
    scores = (unit * direction).sum(axis=1)  # numpy's own fixed-order sum, no BLAS
    return members[np.lexsort((members, -scores))]


@dataclass(frozen=True)
class Label:
    short: str  # on the map: "numbers · 1912, 1987, 2003"
    details: str  # on hover: the kinds' shares and more of its pieces


def label(central_pieces: Sequence[str], member_kinds: np.ndarray, shown: int = 3) -> Label:
    """A region's label, from its most central pieces (already made legible) and the kinds of
    all its members (vocab_search kind numbers)."""
    counts = np.bincount(np.asarray(member_kinds, dtype=np.int64), minlength=len(KIND_NAMES))
    shares = counts / max(1, counts.sum())
    top = int(np.argmax(shares))
    name = KIND_NAMES[top] if shares[top] >= MOSTLY else "mixed"
    mix = ", ".join(
        f"{share:.0%} {KIND_NAMES[kind]}"
        for kind, share in sorted(enumerate(shares), key=lambda x: -x[1])
        if share
    )
    details = f"{int(counts.sum()):,} pieces ({mix}). Most central: {', '.join(central_pieces)}"
    return Label(f"{name} · {', '.join(central_pieces[:shown])}", details)


def labels(
    regions: Regions, pieces: Sequence[str], kinds: np.ndarray, show: Callable[[str], str] = str
) -> tuple[Label, ...]:
    """Every region's label, its pieces shown through ``show`` (e.g. glyphs.legible)."""
    return tuple(
        label([show(pieces[i]) for i in central], kinds[regions.of_row == number])
        for number, central in enumerate(regions.central)
    )
