"""Two embedding spaces compared over every piece they share, exactly.

A space is a table with one row per vocabulary piece (a model's token rows, its embedding
layer's output, or an encoder layer's hidden state: bert_embeddings.spaces.stages). Two
spaces are compared over the pieces both vocabularies hold, matched by their string, in A's
order; each piece's neighbours are searched among those shared pieces only, in each space
under the same geometry (its fitted to that space's shared rows).

For piece i with N_A(i) and N_B(i) its exact k nearest others by cosine (best first, ties by
the lower row):

- overlap@k(i) = |N_A(i) ∩ N_B(i)| / k, the share of A's neighbours that B keeps;
- second-order similarity (Hamilton et al. 2016): with U = N_A(i) ∪ N_B(i), the cosine
  between (cos_A(i, u))_u∈U and (cos_B(i, u))_u∈U. It compares how i relates to the same
  pieces in each space, so the spaces need no alignment and may differ in width;
- linear CKA (Kornblith et al. 2019), with X and Y the two tables' rows, each column centred:
  ‖XᵀY‖²_F / (‖XᵀX‖_F ‖YᵀY‖_F), 1 when one is a rotation and scaling of the other;
- for equal widths, the orthogonal Procrustes residual: X and Y centred and each scaled to
  Frobenius norm 1, min over rotations R and scales s of ‖X − s Y R‖²_F = 1 − (Σ σ)², σ the
  singular values of XᵀY (what scipy.spatial.procrustes calls the disparity).

Cosines are summed in float64; the neighbour lists come from maps.neighbour_map's exact
search (a float32 product picks candidates, float64 decides). Pure computation: numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bert_embeddings import limits
from bert_embeddings.analysis import cosine, geometry, vocab_search
from bert_embeddings.errors import NothingLeftError
from bert_embeddings.maps import neighbour_map

MAX_K = limits.NEIGHBOURS.most  # neighbour lists are kept this long; any k up to it is a prefix
# The whole spaces' mean overlap is at k = 10, whatever k the page shows (fewer shared pieces
# than 11 allow at most their number less one: Comparison.whole_k says which).
WHOLE_K = 10
BLOCK_VALUES = 1 << 22  # floats per block of gathered rows (32 MB in float64)
# How a piece is counted in the overlap by kind: the Maps page's kinds.
KINDS = vocab_search.KINDS


@dataclass(frozen=True)
class Shared:
    """The pieces two vocabularies share, in A's order, and where each sits in A and in B."""

    pieces: tuple[str, ...]
    rows_a: np.ndarray  # (shared,) int64: its row in A's table
    rows_b: np.ndarray  # (shared,) int64: its row in B's table
    only_a: int  # A's pieces that B has not
    only_b: int  # B's pieces that A has not


def shared_pieces(pieces_a: Sequence[str], pieces_b: Sequence[str]) -> Shared:
    """The pieces in both vocabularies, matched by their string, in A's order. A string that a
    vocabulary holds twice (it should not) counts at its first row."""
    in_b: dict[str, int] = {}
    for row, piece in enumerate(pieces_b):
        in_b.setdefault(piece, row)
    seen: set[str] = set()
    pieces, rows_a, rows_b = [], [], []
    for row, piece in enumerate(pieces_a):
        if piece in in_b and piece not in seen:
            seen.add(piece)
            pieces.append(piece)
            rows_a.append(row)
            rows_b.append(in_b[piece])
    if len(pieces) < 2:
        raise NothingLeftError(
            f"The two vocabularies share {len(pieces)} piece{'s' * (len(pieces) != 1)}: there is "
            "nothing to compare. Pick two models whose tokenizers have pieces in common."
        )
    return Shared(
        tuple(pieces),
        np.asarray(rows_a, dtype=np.int64),
        np.asarray(rows_b, dtype=np.int64),
        len(set(pieces_a)) - len(pieces),
        len(set(pieces_b)) - len(pieces),
    )


def in_geometry(table: np.ndarray, name: str = "raw", removed: int = 0) -> np.ndarray:
    """The table's rows under a geometry fitted to that table, (n, width) float32: what both
    the neighbour lists and the figures of a comparison are computed from."""
    if name == "raw":
        return np.asarray(table, dtype=np.float32)
    return geometry.transformed_table(table, geometry.fit(table, name, removed))


def neighbour_lists(
    table: np.ndarray, k: int = MAX_K, threads: int = 1, progress: neighbour_map.Progress | None = None
) -> np.ndarray:
    """Every row's exact k nearest other rows by cosine, best first, ties by the lower row:
    (n, min(k, n - 1)) int32 (maps.neighbour_map's search, float64 deciding)."""
    report = {} if progress is None else {"progress": progress}
    return neighbour_map.exact_neighbours(table, k, threads=threads, **report)[0]


def check_k(k: object, rows: int | None = None) -> int:
    """k, the neighbours compared per piece: a whole number from 1 to 100 (and fewer than the
    shared pieces)."""
    most = MAX_K if rows is None else min(MAX_K, rows - 1)
    return limits.whole_number(k, "k", 1, most)


def overlap(lists_a: np.ndarray, lists_b: np.ndarray, k: int) -> np.ndarray:
    """overlap@k of every piece: (n,) float64, from the first k of each (n, ≥k) list."""
    a, b = lists_a[:, :k], lists_b[:, :k]
    kept = np.empty(len(a), dtype=np.int64)
    step = max(1, BLOCK_VALUES // (k * k))
    for start in range(0, len(a), step):
        block = a[start : start + step, :, None] == b[start : start + step, None, :]
        kept[start : start + step] = block.any(axis=2).sum(axis=1)
    return kept / k


class UnitRows:
    """A table's rows scaled to length 1, made in float64 only for the rows asked for
    (``unit[ids]``): no scaled copy of the whole table is kept (a zero row stays zero)."""

    def __init__(self, table: np.ndarray):
        self.table = table
        self.shape = table.shape
        norms = np.concatenate(
            [
                np.linalg.norm(np.asarray(table[i : i + 4096], dtype=np.float64), axis=1)
                for i in range(0, len(table), 4096)
            ]
        )
        self.scale = 1.0 / np.where(norms > 0, norms, 1.0)

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        return np.asarray(self.table[ids], dtype=np.float64) * self.scale[ids][..., None]


def second_order(unit_a: np.ndarray, unit_b: np.ndarray, lists_a: np.ndarray, lists_b: np.ndarray, k: int):
    """Second-order similarity of every piece: (n,) float64. ``unit_a`` and ``unit_b`` are the
    two spaces' rows scaled to length 1, as arrays or ``UnitRows`` (row i the same piece in
    both); the lists index them."""
    units = [u if isinstance(u, UnitRows) else UnitRows(u) for u in (unit_a, unit_b)]
    union = np.sort(np.concatenate([lists_a[:, :k], lists_b[:, :k]], axis=1), axis=1)  # (n, 2k)
    once = np.ones(union.shape, dtype=bool)
    once[:, 1:] = union[:, 1:] != union[:, :-1]  # each piece of the union counted once
    out = np.empty(len(union))
    width = max(unit_a.shape[1], unit_b.shape[1])
    step = max(1, BLOCK_VALUES // (2 * k * width))
    for start in range(0, len(union), step):
        rows = np.arange(start, min(len(union), start + step))
        ids, keep = union[rows], once[rows]
        sims = []
        for unit in units:  # the products of the rows as they are, then scaled: one pass of width
            gathered = np.asarray(unit.table[ids], dtype=np.float64)  # (block, 2k, width)
            own = np.asarray(unit.table[rows], dtype=np.float64)[:, :, None]
            products = np.matmul(gathered, own)[:, :, 0]
            sims.append(products * unit.scale[ids] * unit.scale[rows][:, None] * keep)
        dot = (sims[0] * sims[1]).sum(axis=1)
        lengths = np.linalg.norm(sims[0], axis=1) * np.linalg.norm(sims[1], axis=1)
        out[rows] = np.divide(dot, lengths, out=np.zeros_like(dot), where=lengths > 0)
    return out


def mean_cosine(table: np.ndarray, block: int = 4096) -> float:
    """The mean cosine over every pair of different rows (anisotropy, Ethayarajh 2019), exactly
    and without the n x n products: with u_i the rows scaled to length 1 (in float64),
    Σ_{i≠j} u_i·u_j = ‖Σ u_i‖² − Σ ‖u_i‖², over n (n − 1) pairs."""
    n = len(table)
    total, squares = np.zeros(table.shape[1]), 0.0
    for start in range(0, n, block):
        unit = cosine.unit_rows(np.asarray(table[start : start + block], dtype=np.float64))
        total += unit.sum(axis=0)
        squares += float(np.einsum("ij,ij->", unit, unit))
    return float((total @ total - squares) / (n * (n - 1))) if n > 1 else 0.0


@dataclass(frozen=True)
class Moments:
    """What CKA and Procrustes need of two tables, in float64: each one's column sums and
    second moments, and their cross moments. Computed once, a block of rows at a time."""

    n: int
    sum_a: np.ndarray
    sum_b: np.ndarray
    aa: np.ndarray  # AᵀA
    bb: np.ndarray  # BᵀB
    ab: np.ndarray  # AᵀB


def moments(table_a: np.ndarray, table_b: np.ndarray, block: int = 2048) -> Moments:
    n = len(table_a)
    wa, wb = table_a.shape[1], table_b.shape[1]
    sa, sb = np.zeros(wa), np.zeros(wb)
    aa, bb, ab = np.zeros((wa, wa)), np.zeros((wb, wb)), np.zeros((wa, wb))
    for start in range(0, n, block):
        a = np.asarray(table_a[start : start + block], dtype=np.float64)
        b = np.asarray(table_b[start : start + block], dtype=np.float64)
        sa += a.sum(axis=0)
        sb += b.sum(axis=0)
        aa += a.T @ a
        bb += b.T @ b
        ab += a.T @ b
    return Moments(n, sa, sb, aa, bb, ab)


def _centred(m: Moments) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """XᵀX, YᵀY and XᵀY of the column-centred tables."""
    ma, mb = m.sum_a / m.n, m.sum_b / m.n
    return (
        m.aa - m.n * np.outer(ma, ma),
        m.bb - m.n * np.outer(mb, mb),
        m.ab - m.n * np.outer(ma, mb),
    )


def linear_cka(m: Moments) -> float:
    xx, yy, xy = _centred(m)
    denominator = np.linalg.norm(xx) * np.linalg.norm(yy)
    return float(np.sum(xy**2) / denominator) if denominator > 0 else 0.0


def procrustes_residual(m: Moments) -> float | None:
    """The orthogonal Procrustes residual after centring and scaling; None for unequal widths."""
    if m.aa.shape != m.bb.shape:
        return None
    xx, yy, xy = _centred(m)
    scale = np.sqrt(np.trace(xx) * np.trace(yy))
    if scale <= 0:
        return None
    singular = np.linalg.svd(xy / scale, compute_uv=False)
    return float(max(0.0, 1.0 - singular.sum() ** 2))


@dataclass(frozen=True)
class Comparison:
    """Every figure of one comparison: per shared piece (in A's order) and for the whole."""

    k: int
    overlap: np.ndarray  # (n,) overlap@k
    second_order: np.ndarray  # (n,)
    mean_overlap: float  # of overlap@k
    mean_overlap_10: float  # at k = whole_k, whatever k is
    cka: float
    procrustes: float | None  # None: the widths differ
    whole_k: int = WHOLE_K  # the k of mean_overlap_10: WHOLE_K, or fewer for fewer than 11 pieces

    def movers(self, allowed: np.ndarray | None = None) -> np.ndarray:
        """The pieces (row numbers) ranked least kept first: by overlap@k, then by
        second-order similarity, then in A's order; only ``allowed`` ones if given."""
        rows = np.arange(len(self.overlap)) if allowed is None else np.flatnonzero(allowed)
        order = np.lexsort((rows, self.second_order[rows], self.overlap[rows]))
        return rows[order]


def compare(
    table_a: np.ndarray,
    table_b: np.ndarray,
    lists_a: np.ndarray,
    lists_b: np.ndarray,
    k: int = WHOLE_K,
) -> Comparison:
    """Compare two spaces over the same pieces: ``table_a`` (n, p) and ``table_b`` (n, q) hold
    row i for the same piece (under the chosen geometry), ``lists_a`` and ``lists_b`` (n, ≥k)
    its exact nearest others in each, best first."""
    k = check_k(k, len(table_a))
    if min(lists_a.shape[1], lists_b.shape[1]) < max(k, min(WHOLE_K, len(table_a) - 1)):
        raise ValueError("the neighbour lists are shorter than k")
    unit_a, unit_b = UnitRows(table_a), UnitRows(table_b)
    kept = overlap(lists_a, lists_b, k)
    whole_k = min(WHOLE_K, len(table_a) - 1)
    kept_10 = kept if k == whole_k else overlap(lists_a, lists_b, whole_k)
    m = moments(table_a, table_b)
    return Comparison(
        k=k,
        overlap=kept,
        second_order=second_order(unit_a, unit_b, lists_a, lists_b, k),
        mean_overlap=float(kept.mean()),
        mean_overlap_10=float(kept_10.mean()),
        cka=linear_cka(m),
        procrustes=procrustes_residual(m),
        whole_k=whole_k,
    )


@dataclass(frozen=True)
class SideBySide:
    """One piece's neighbours in A and in B: each list's rows and cosines, and which of A's
    are kept in B (the rest lost) and which of B's are new (gained)."""

    rows_a: np.ndarray
    cosines_a: np.ndarray
    rows_b: np.ndarray
    cosines_b: np.ndarray
    kept_a: np.ndarray  # (k,) bool: A's neighbour is among B's
    gained_b: np.ndarray  # (k,) bool: B's neighbour is not among A's


def side_by_side(
    table_a: np.ndarray, table_b: np.ndarray, lists_a: np.ndarray, lists_b: np.ndarray, row: int, k: int
) -> SideBySide:
    """Piece ``row``'s k nearest in each space, with their cosines (float64)."""
    a, b = lists_a[row, :k], lists_b[row, :k]

    def cosines(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
        unit = cosine.unit_rows(np.asarray(table[np.concatenate([[row], ids])], dtype=np.float64))
        return unit[1:] @ unit[0]

    return SideBySide(a, cosines(table_a, a), b, cosines(table_b, b), np.isin(a, b), ~np.isin(b, a))


def piece_kinds(pieces: Sequence[str]) -> np.ndarray:
    """Each piece's kind (index into KINDS)."""
    return np.array([vocab_search.piece_kind(piece) for piece in pieces], dtype=np.int8)


def overlap_by_kind(overlap_k: np.ndarray, kinds: np.ndarray) -> list[tuple[str, int, float]]:
    """For each kind that occurs: its name, how many pieces, and their mean overlap@k."""
    return [
        (name, int((kinds == kind).sum()), float(overlap_k[kinds == kind].mean()))
        for kind, name in enumerate(KINDS)
        if (kinds == kind).any()
    ]
