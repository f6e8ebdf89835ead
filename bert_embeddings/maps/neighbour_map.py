"""A map of every row of the token table that keeps neighbours: t-SNE, and how faithful it is.

PCA keeps the directions along which the rows vary most, and on BERT's vocabulary that leaves
one cloud: almost none of a row's nearest cosine neighbours are near it on the map. t-SNE
(openTSNE's FFT-accelerated version) instead places rows so that those which are neighbours
in the table are neighbours on the map. Every row is mapped, nothing sampled:

1. the exact 20 nearest cosine neighbours of every row, by blocked matrix products, each
   pair's computed once (bert_embeddings.maps.knn; the same cosine as the Neighbours page,
   ties by the lower id);
2. t-SNE affinities from those neighbours (perplexity 15);
3. the layout from the exact PCA of the table, first with early exaggeration, then without,
   500 iterations in all, with a fixed seed: the same table and settings give the same map;
4. the map's faithfulness: neighbour recall@10, the share of each row's 10 nearest cosine
   neighbours that are among its 10 nearest points on the map, per row and on average;
5. its regions and their most central pieces (bert_embeddings.maps.map_reading).

The defaults were chosen by measuring (docs/maps.md, "Choosing the t-SNE settings"): fewer
neighbours and fewer iterations kept more neighbours on the bundled model, in less time.

Pure computation: the app runs it in a separate low-priority process (bert_embeddings.maps.map_jobs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from bert_embeddings.maps import map_reading
from bert_embeddings.maps.knn import Progress, exact_neighbours, quiet

STAGES = (
    "exact neighbours",
    "affinities",
    "layout, early exaggeration",
    "layout",
    "faithfulness",
    "regions",
)
RECALL_K = 10


@dataclass(frozen=True)
class Settings:
    """Everything that decides the picture; part of the cache's name."""

    perplexity: float = 15.0
    neighbours: int = 20  # the exact neighbours the affinities are computed from
    iterations: int = 500  # early exaggeration takes the first third, at most 250
    exaggeration: float = 12.0
    seed: int = 42
    version: int = 3  # raised when the computation changes, so that old maps are not reused
    # Levers measured by bench/tsne_levers.py, left at openTSNE's own defaults:
    early_iterations: int = 0  # 0: the first third of the iterations, at most 250
    dof: float = 1.0  # the kernel's degrees of freedom; below 1, heavier tails
    learning_rate: float = 0.0  # 0: openTSNE's "auto", rows / exaggeration in each phase
    uniform: bool = False  # affinities alike for every listed neighbour instead of by perplexity

    @property
    def early(self) -> int:
        return min(self.early_iterations or min(250, self.iterations // 3), self.iterations)

    def name(self) -> str:
        parts = (
            self.version,
            self.perplexity,
            self.neighbours,
            self.iterations,
            self.exaggeration,
            self.seed,
        )
        name = "tsne-v{}-p{:g}-k{}-i{}-e{:g}-s{}".format(*parts)
        levers = (
            ("early", self.early_iterations, 0),
            ("dof", self.dof, 1.0),
            ("lr", self.learning_rate, 0.0),
        )
        name += "".join(f"-{label}{value:g}" for label, value, default in levers if value != default)
        return name + ("-uniform" if self.uniform else "")

    def as_dict(self) -> dict:
        return asdict(self)


def recall_at_k(coords: np.ndarray, true_ids: np.ndarray) -> float:
    """Mean share of each row's true neighbours (``true_ids``, (n, k)) that are among its k
    nearest other points on the map (Euclidean)."""
    return map_reading.recall(map_reading.kept_counts(coords, true_ids), true_ids.shape[1])


def pca_start(table: np.ndarray, block: int = 4096) -> np.ndarray:
    """The first two exact principal components, scaled as openTSNE starts a layout.

    The sums behind them are taken in float64, a fixed block of rows at a time and in a fixed
    order, each product on one BLAS thread, so the start does not depend on the thread count;
    it is rounded to float32, so that the last bits a CPU's kernels may change rarely reach it."""
    from threadpoolctl import threadpool_limits

    from bert_embeddings.analysis import projection

    n, hidden = table.shape
    total, gram = np.zeros(hidden), np.zeros((hidden, hidden))
    with threadpool_limits(limits=1, user_api="blas"):
        for start in range(0, n, block):
            rows = np.asarray(table[start : start + block], dtype=np.float64)
            total += rows.sum(axis=0)
            gram += rows.T @ rows
        basis = projection.fit_moments(n, total / n, gram, 2)
        coords = np.concatenate(
            [
                (np.asarray(table[i : i + block], dtype=np.float64) - basis.mean) @ basis.components.T
                for i in range(0, n, block)
            ]
        )
    coords = coords / np.std(coords[:, 0]) * 1e-4
    return coords.astype(np.float32).astype(np.float64)


@dataclass(frozen=True)
class NeighbourMap:
    coords: np.ndarray  # (n, 2) float32
    recall: float  # neighbour recall@10 of this map
    pca_recall: float  # the same for the first two principal components
    seconds: dict  # per stage
    neighbours: np.ndarray  # (n, 10) int32: each row's exact nearest cosine neighbours, best first
    kept: np.ndarray  # (n,) int8: how many of them are among its 10 nearest points on the map
    regions: map_reading.Regions


def compute(table: np.ndarray, settings: Settings = Settings(), threads: int = 2, progress: Progress = quiet):
    """The t-SNE map of every row of ``table``, with its faithfulness and PCA's.

    The same table and settings give bit-identical coordinates whatever ``threads`` is and
    whatever the process's BLAS thread count: the neighbours and the start are computed as
    their docstrings say; openTSNE's threads each compute whole points' gradients and
    affinities (its sums over all points run in one thread); any BLAS call is held to one
    thread."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _compute(table, settings, threads, progress)


def _affinities(ids: np.ndarray, sims: np.ndarray, settings: Settings, threads: int):
    """t-SNE's affinities from each row's first ``settings.neighbours`` exact neighbours."""
    from openTSNE import affinity
    from openTSNE.nearest_neighbors import PrecomputedNeighbors

    k = settings.neighbours
    knn = PrecomputedNeighbors(ids[:, :k], np.maximum(1.0 - sims[:, :k].astype(np.float64), 0.0))
    if settings.uniform:
        return affinity.Uniform(knn_index=knn, k_neighbors=k, n_jobs=threads, random_state=settings.seed)
    return affinity.PerplexityBasedNN(
        knn_index=knn, perplexity=settings.perplexity, n_jobs=threads, random_state=settings.seed
    )


def _optimise(
    embedding, phase: tuple[str, int], settings: Settings, threads: int, progress: Progress, **options
):
    """One phase of the layout (its stage name and iterations), reporting its progress."""
    stage, n_iter = phase
    every = max(1, n_iter // 20)
    progress(stage, 0.0)

    def report(iteration, error, current) -> bool:
        progress(stage, iteration / n_iter)
        return False

    return embedding.optimize(
        n_iter=n_iter,
        callbacks=report,
        callbacks_every_iters=every,
        n_jobs=threads,
        learning_rate=settings.learning_rate or "auto",
        **options,
    )


def layout(
    ids: np.ndarray,
    sims: np.ndarray,
    start: np.ndarray,
    settings: Settings = Settings(),
    threads: int = 2,
    progress: Progress = quiet,
    lap: Callable[[str], None] = lambda stage: None,
) -> np.ndarray:
    """t-SNE's layout, (n, 2) float32, from each row's exact neighbours (``ids``, best first,
    with their cosines ``sims``) and a ``start`` of scale about 1e-4 (``pca_start``, or another
    map's coordinates rescaled so): affinities, then early exaggeration, then the rest. ``lap``
    is told as each of the stages affinities, early and late ends."""
    from openTSNE import TSNEEmbedding

    affinities = _affinities(ids, sims, settings, threads)
    lap(STAGES[1])
    embedding = TSNEEmbedding(
        start,
        affinities,
        negative_gradient_method="fft",
        n_jobs=threads,
        random_state=settings.seed,
        dof=settings.dof,
    )
    embedding = _optimise(
        embedding,
        (STAGES[2], settings.early),
        settings,
        threads,
        progress,
        exaggeration=settings.exaggeration,
        momentum=0.5,
    )
    lap(STAGES[2])
    later = (STAGES[3], settings.iterations - settings.early)
    embedding = _optimise(embedding, later, settings, threads, progress, momentum=0.8)
    lap(STAGES[3])
    return np.asarray(embedding, dtype=np.float32)


def _compute(table: np.ndarray, settings: Settings, threads: int, progress: Progress) -> NeighbourMap:
    import time

    seconds = {}
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        seconds[stage] = round(now - clock, 2)
        clock = now

    ids, sims = exact_neighbours(
        table, max(settings.neighbours, RECALL_K), threads=threads, progress=progress
    )
    start = pca_start(table)  # the last read of the whole table (timed with the neighbours)
    lap(STAGES[0])
    progress(STAGES[1], 0.0)
    coords = layout(ids, sims, start, settings, threads, progress, lap)
    progress(STAGES[4], 0.0)
    nearest = np.ascontiguousarray(ids[:, :RECALL_K])
    kept = map_reading.kept_counts(coords, nearest)
    pca_recall = recall_at_k(start.astype(np.float32), nearest)
    lap(STAGES[4])
    progress(STAGES[5], 0.0)
    regions = map_reading.find_regions(coords, table)
    lap(STAGES[5])
    return NeighbourMap(coords, map_reading.recall(kept), pca_recall, seconds, nearest, kept, regions)
