"""A map of every row of the token table that keeps neighbours: t-SNE, and how faithful it is.

PCA keeps the directions along which the rows vary most, and on BERT's vocabulary that leaves
one cloud: almost none of a row's nearest cosine neighbours are near it on the map. t-SNE
(openTSNE's FFT-accelerated version) instead places rows so that those which are neighbours
in the table are neighbours on the map. Every row is mapped, nothing sampled:

1. the exact 90 nearest cosine neighbours of every row, by blocked matrix products (the same
   cosine as the Neighbours page; ties by the lower id);
2. t-SNE affinities from those neighbours (perplexity 30);
3. the layout from the exact PCA of the table, first with early exaggeration, then without,
   with a fixed seed: the same table and settings give the same map;
4. the map's faithfulness: neighbour recall@10, the share of each row's 10 nearest cosine
   neighbours that are among its 10 nearest points on the map.

Pure computation: the app runs it in a separate low-priority process (bert_embeddings.map_jobs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from bert_embeddings import cosine

Progress = Callable[[str, float], None]  # (stage, fraction of that stage done)

STAGES = (
    "exact neighbours",
    "affinities",
    "layout, early exaggeration",
    "layout",
    "faithfulness",
)
# Rough share of the whole computation each stage takes (measured on 30,522 x 768), for the
# estimate the page shows.
STAGE_WEIGHTS = (0.2, 0.02, 0.14, 0.63, 0.01)
RECALL_K = 10


@dataclass(frozen=True)
class Settings:
    """Everything that decides the picture; part of the cache's name."""

    perplexity: float = 30.0
    iterations: int = 750  # early exaggeration takes the first third, at most 250
    exaggeration: float = 12.0
    seed: int = 42
    version: int = 1  # raised when the computation changes, so that old maps are not reused

    @property
    def early(self) -> int:
        return min(250, self.iterations // 3)

    @property
    def neighbours(self) -> int:
        return int(3 * self.perplexity)

    def name(self) -> str:
        parts = (self.version, self.perplexity, self.iterations, self.exaggeration, self.seed)
        return "tsne-v{}-p{:g}-i{}-e{:g}-s{}".format(*parts)

    def as_dict(self) -> dict:
        return asdict(self)


def _quiet(stage: str, fraction: float) -> None:
    pass


def exact_neighbours(
    table: np.ndarray, k: int, block: int = 256, progress: Progress = _quiet
) -> tuple[np.ndarray, np.ndarray]:
    """For every row, its k most cosine-similar other rows: ids (n, k) int32, best first (ties
    by the lower id), and their cosines (n, k) float32. One (block x n) product at a time."""
    unit = cosine.unit_rows(np.array(table, dtype=np.float32), in_place=True)  # one copy of the table
    n = len(unit)
    k = min(k, n - 1)
    ids = np.empty((n, k), dtype=np.int32)
    sims = np.empty((n, k), dtype=np.float32)
    for start in range(0, n, block):
        stop = min(n, start + block)
        scores = unit[start:stop] @ unit.T  # (block, n)
        scores[np.arange(stop - start), np.arange(start, stop)] = -np.inf  # not itself
        # Everything tied with the k-th best stays a candidate, so the tie-break below is exact.
        kth = np.partition(scores, n - k, axis=1)[:, n - k : n - k + 1]
        for row in range(stop - start):
            candidates = np.flatnonzero(scores[row] >= kth[row])
            order = np.lexsort((candidates, -scores[row, candidates]))[:k]
            ids[start + row] = candidates[order]
            sims[start + row] = scores[row, candidates[order]]
        progress(STAGES[0], stop / n)
    return ids, sims


def recall_at_k(coords: np.ndarray, true_ids: np.ndarray) -> float:
    """Mean share of each row's true neighbours (``true_ids``, (n, k)) that are among its k
    nearest other points on the map (Euclidean)."""
    from sklearn.neighbors import NearestNeighbors

    k = true_ids.shape[1]
    found = NearestNeighbors(n_neighbors=k + 1).fit(coords).kneighbors(coords, return_distance=False)
    hits = 0
    for row, (near, true) in enumerate(zip(found, true_ids, strict=True)):
        near = near[near != row][:k]  # the point itself (or a duplicate point listed first)
        hits += np.intersect1d(near, true, assume_unique=False).size
    return hits / (len(coords) * k)


def pca_start(table: np.ndarray) -> np.ndarray:
    """The first two exact principal components, scaled as openTSNE starts a layout."""
    from bert_embeddings import projection

    basis = projection.fit(table)
    start = projection.project(basis, table)[:, :2].astype(np.float64)
    return start / np.std(start[:, 0]) * 1e-4


@dataclass(frozen=True)
class NeighbourMap:
    coords: np.ndarray  # (n, 2) float32
    recall: float  # neighbour recall@10 of this map
    pca_recall: float  # the same for the first two principal components
    seconds: dict  # per stage


def compute(
    table: np.ndarray, settings: Settings = Settings(), threads: int = 2, progress: Progress = _quiet
):
    """The t-SNE map of every row of ``table``, with its faithfulness and PCA's."""
    import time

    from openTSNE import TSNEEmbedding, affinity
    from openTSNE.nearest_neighbors import PrecomputedNeighbors

    seconds = {}
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        seconds[stage] = round(now - clock, 2)
        clock = now

    ids, sims = exact_neighbours(table, settings.neighbours, progress=progress)
    lap(STAGES[0])
    progress(STAGES[1], 0.0)
    knn = PrecomputedNeighbors(ids, np.maximum(1.0 - sims.astype(np.float64), 0.0))
    affinities = affinity.PerplexityBasedNN(
        knn_index=knn, perplexity=settings.perplexity, n_jobs=threads, random_state=settings.seed
    )
    start = pca_start(table)
    lap(STAGES[1])

    def optimise(embedding, stage: str, n_iter: int, **options):
        every = max(1, n_iter // 20)

        def report(iteration, error, current) -> bool:
            progress(stage, iteration / n_iter)
            return False

        return embedding.optimize(
            n_iter=n_iter, callbacks=report, callbacks_every_iters=every, n_jobs=threads, **options
        )

    embedding = TSNEEmbedding(
        start, affinities, negative_gradient_method="fft", n_jobs=threads, random_state=settings.seed
    )
    embedding = optimise(
        embedding, STAGES[2], settings.early, exaggeration=settings.exaggeration, momentum=0.5
    )
    lap(STAGES[2])
    embedding = optimise(embedding, STAGES[3], settings.iterations - settings.early, momentum=0.8)
    lap(STAGES[3])
    progress(STAGES[4], 0.0)
    coords = np.asarray(embedding, dtype=np.float32)
    recall = recall_at_k(coords, ids[:, :RECALL_K])
    pca_recall = recall_at_k(start.astype(np.float32), ids[:, :RECALL_K])
    lap(STAGES[4])
    return NeighbourMap(coords, recall, pca_recall, seconds)
