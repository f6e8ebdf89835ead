"""Aligned maps of two spaces over their shared pieces: where each piece sits in A and in B on
one picture, so that a piece that moved is seen to move.

1. A's t-SNE map, from A's exact neighbour lists and the PCA start, as the Maps page draws it
   (bert_embeddings.maps.neighbour_map, the same settings: aligned_jobs passes the maps' own).
2. B's map, laid out from B's own neighbour lists but *started from A's map* (its coordinates
   rescaled to the start's scale): t-SNE keeps the large arrangement it starts from, so what B
   keeps of A stays where it was.
3. That map turned, mirrored, scaled and moved onto A's by orthogonal Procrustes (least squares;
   distances keep their ratios, so its recall is untouched).
4. B's independent map (from B's PCA start) for comparison: each map's recall@10 (the share of
   each piece's 10 nearest cosine neighbours among its 10 nearest points on the map) is stated,
   and the aligned map must keep within ``GAP`` of the independent one, so that aligning costs
   no faithfulness.

The same tables, lists and settings give the same maps whatever the thread count, as the Maps
page's do (one BLAS thread; openTSNE's own threads each own whole points).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bert_embeddings.maps import neighbour_map

GAP = 0.02  # how far the aligned map's recall@10 may fall below the independent map's
START_SCALE = 1e-4  # the standard deviation of a start's first column, as pca_start scales it
DEFAULT = neighbour_map.Settings()  # t-SNE's defaults (the app's jobs pass the host's: aligned_jobs)
STEPS = ("A's map", "B started from A's map", "B's own map")


@dataclass(frozen=True)
class AlignedMaps:
    a: np.ndarray  # (n, 2) float32: A's map
    b: np.ndarray  # (n, 2) float32: B's map started from A's, Procrustes-aligned onto it
    b_alone: np.ndarray  # (n, 2) float32: B's independent map (its own PCA start)
    recall_a: float
    recall_b: float  # of ``b``
    recall_b_alone: float

    @property
    def gap(self) -> float:
        """How far the aligned map's recall@10 falls below the independent map's (negative: above)."""
        return self.recall_b_alone - self.recall_b

    def between(self, t: float) -> np.ndarray:
        """The points a share ``t`` of the way from A's map (0) to B's aligned map (1)."""
        if not 0.0 <= t <= 1.0:
            raise ValueError(f"t must be from 0 to 1, not {t}")
        return ((1.0 - t) * self.a.astype(np.float64) + t * self.b.astype(np.float64)).astype(np.float32)


def listed_cosines(table: np.ndarray, lists: np.ndarray, block: int = 4096) -> np.ndarray:
    """The cosine, in float64, between each row and each row its list names (zero rows: 0)."""
    table = np.asarray(table, dtype=np.float64)
    norms = np.linalg.norm(table, axis=1)
    unit = table / np.where(norms > 0, norms, 1.0)[:, None]
    out = np.empty(lists.shape, dtype=np.float64)
    for start in range(0, len(lists), block):
        ids = lists[start : start + block]
        out[start : start + block] = np.einsum("ij,ikj->ik", unit[start : start + len(ids)], unit[ids])
    return out


def procrustes_onto(moving: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """``moving`` turned (or mirrored), scaled by one factor and shifted to lie as close as it can
    to ``fixed`` in least squares (orthogonal Procrustes with scaling), in float64."""
    moving, fixed = np.asarray(moving, dtype=np.float64), np.asarray(fixed, dtype=np.float64)
    centre_m, centre_f = moving.mean(axis=0), fixed.mean(axis=0)
    m, f = moving - centre_m, fixed - centre_f
    u, singular, vt = np.linalg.svd(m.T @ f)
    size = float(np.sum(m * m))
    scale = float(singular.sum() / size) if size > 0 else 1.0
    return scale * (m @ (u @ vt)) + centre_f


def rescaled_start(coords: np.ndarray) -> np.ndarray:
    """A finished map as a start for another layout: centred, scaled as ``pca_start`` scales,
    and rounded to float32 as it rounds."""
    coords = np.asarray(coords, dtype=np.float64)
    coords = coords - coords.mean(axis=0)
    spread = float(np.std(coords[:, 0]))
    coords = coords / (spread if spread > 0 else 1.0) * START_SCALE
    return coords.astype(np.float32).astype(np.float64)


def aligned_maps(
    tables: tuple[np.ndarray, np.ndarray],
    lists: tuple[np.ndarray, np.ndarray],
    settings: neighbour_map.Settings = DEFAULT,
    threads: int = 2,
    progress: Callable[[str, float], None] = lambda step, done: None,
) -> AlignedMaps:
    """The three maps of two spaces over the same rows: ``tables`` (A's, B's; the rows in the
    geometry compared, widths may differ) and ``lists`` (each row's exact nearest others in its
    space, best first, at least ``settings.neighbours`` of them)."""
    from threadpoolctl import threadpool_limits

    k = settings.neighbours
    if any(lst.shape[1] < max(k, neighbour_map.RECALL_K) for lst in lists):
        raise ValueError(f"the lists need {max(k, neighbour_map.RECALL_K)} neighbours per row")
    if len(tables[0]) != len(tables[1]) or any(
        len(t) != len(lst) for t, lst in zip(tables, lists, strict=True)
    ):
        raise ValueError("both spaces' tables and lists must have the same rows")
    with threadpool_limits(limits=1, user_api="blas"):
        ids = [np.ascontiguousarray(lst[:, :k]) for lst in lists]
        sims = [listed_cosines(table, i) for table, i in zip(tables, ids, strict=True)]

        def lay_out(side: int, start: np.ndarray, step: str) -> np.ndarray:
            return neighbour_map.layout(
                ids[side], sims[side], start, settings, threads, lambda _, done: progress(step, done)
            )

        a = lay_out(0, neighbour_map.pca_start(tables[0]), STEPS[0])
        b = procrustes_onto(lay_out(1, rescaled_start(a), STEPS[1]), a).astype(np.float32)
        b_alone = lay_out(1, neighbour_map.pca_start(tables[1]), STEPS[2])
    truth = [np.ascontiguousarray(lst[:, : neighbour_map.RECALL_K]) for lst in lists]
    return AlignedMaps(
        a,
        b,
        b_alone,
        neighbour_map.recall_at_k(a, truth[0]),
        neighbour_map.recall_at_k(b, truth[1]),
        neighbour_map.recall_at_k(b_alone, truth[1]),
    )
