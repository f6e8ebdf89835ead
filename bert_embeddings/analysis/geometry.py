"""Why BERT's token rows look alike, measured exactly, and four geometries to compare them in.

**Anisotropy.** With each row scaled to length 1 (u_i; a row of zeros stays zero, its cosine
with anything 0), the mean cosine over all pairs of distinct rows is

    (|sum_i u_i|^2 - sum_i |u_i|^2) / (n (n - 1)),

one pass over the table, nothing sampled. It splits by dimension: dimension k contributes
((sum_i u_ik)^2 - sum_i u_ik^2) / (n (n - 1)), and the contributions sum to the mean. A few
"rogue" dimensions with large contributions decide most of every cosine.

**Geometries.** Each is an affine map of the rows, T(x) = P((x - m) / s):

- raw: T(x) = x, cosine as the Neighbours page has always computed it;
- centred: the vocabulary's mean m subtracted;
- all-but-the-top D: centred, then the top D principal directions removed (P projects them out);
- standardised: each dimension to zero mean and unit variance (s its standard deviation).

So a query q scores every row with one product with the raw table: T(w_i) . T(q) equals
w_i . a - m . a with a = T(q) / s, divided by |T(w_i)| (kept per row, one float each) and
|T(q)|. No transformed copy of the table is made.

A query made of signed terms (king - man + woman) stands for the same sum of the terms'
transformed rows: T(k) - T(m) + T(w) = P((q - c m) / s) with q the raw sum and c the sum of
the signs (its ``weight``; 1 for a single row or a mean of rows). So king - king is zero in
every geometry, and king + queen is not centred twice.

Pure computation: numpy and scipy only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from bert_embeddings import limits
from bert_embeddings.analysis import projection
from bert_embeddings.errors import OutOfRangeError, ZeroVectorError

GEOMETRIES = ("raw", "centred", "all-but-the-top", "standardised")
MOST_REMOVED = 20  # all-but-the-top removes 1 to 20 directions
BLOCK = 512  # rows per block of a pass over the table
STATS_BLOCK = 512  # rows per block of the statistics' pass: small enough to stay in the cache


@dataclass(frozen=True)
class Anisotropy:
    mean_cosine: float  # over every pair of distinct rows
    contributions: np.ndarray  # (hidden,) float64: each dimension's part; they sum to mean_cosine
    rows: int

    def top(self, count: int = 3) -> np.ndarray:
        """The dimensions with the largest contributions, largest first (ties by lower index)."""
        return np.lexsort((np.arange(len(self.contributions)), -self.contributions))[:count]


def anisotropy(rows: np.ndarray) -> Anisotropy:
    """The mean cosine over all pairs of distinct rows of ``rows`` (n, hidden), and each
    dimension's contribution to it."""
    return anisotropy_in_blocks(lambda start, stop: rows[start:stop], *rows.shape)


def anisotropy_in_blocks(block: Callable[[int, int], np.ndarray], n: int, hidden: int) -> Anisotropy:
    """The same for n rows made a block at a time by ``block(start, stop)`` (e.g. the layer's
    output for every vocabulary piece, never held whole). Each block's products are in its
    own precision (float32 for a model's table, so that the pass costs little more than
    reading it once); the sums across blocks in float64."""
    if n < 2:
        raise OutOfRangeError("The mean cosine between rows needs at least two rows.")
    total, squares = np.zeros(hidden), np.zeros(hidden)
    scratch = np.empty(0)  # the block's squares, written into the same memory each time
    for start in range(0, n, STATS_BLOCK):
        rows = np.asarray(block(start, min(n, start + STATS_BLOCK)))
        if scratch.dtype != rows.dtype or len(scratch) < len(rows):
            scratch = np.empty((STATS_BLOCK, hidden), dtype=rows.dtype)
        norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))
        inverse = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        total += inverse @ rows
        inverse *= inverse
        squares += inverse @ np.multiply(rows, rows, out=scratch[: len(rows)])
    contributions = (total * total - squares) / (n * (n - 1))
    return Anisotropy(float(contributions.sum()), contributions, n)


@dataclass(frozen=True)
class Geometry:
    """One geometry fitted to a table: T(x) = P((x - mean) / scale)."""

    name: str
    removed: int  # D for all-but-the-top, else 0
    mean: np.ndarray  # (hidden,) float64; zeros for raw
    scale: np.ndarray  # (hidden,) float64; ones but for standardised
    directions: np.ndarray  # (removed, hidden) float64, orthonormal: what P projects out
    norms: np.ndarray  # (n,) float64: |T(w_i)| for every row of the table

    def transform(self, rows: np.ndarray, weight: float | np.ndarray = 1.0) -> np.ndarray:
        """T of each row, explicitly, in float64 (for a sentence's few rows, or for checking).
        A row that is a signed sum of rows whose signs add up to ``weight`` (a float, or one per
        row) maps to the same signed sum of their transforms."""
        weight = np.reshape(np.asarray(weight, dtype=np.float64), (-1, 1))
        shifted = (np.atleast_2d(np.asarray(rows, dtype=np.float64)) - weight * self.mean) / self.scale
        return shifted - (shifted @ self.directions.T) @ self.directions


def default_removed(hidden: int) -> int:
    """D for all-but-the-top when none is chosen: about the width / 100, as Mu and Viswanath
    suggest (7 for bert-base's 768, 3 for a 384-wide model), from 1 to 20."""
    return max(1, min(MOST_REMOVED, hidden // 100))


REMOVED_LABEL = "D, the directions all-but-the-top removes,"


def check_d(removed: object) -> int:
    """D as given (by the notebook API, a link or the command line): a whole number from 1 to 20,
    whichever geometry it goes with."""
    return limits.whole_number(removed, REMOVED_LABEL, 1, MOST_REMOVED)


def check_name(name: object) -> str:
    """A geometry's name as given: one of GEOMETRIES."""
    if not isinstance(name, str) or name not in GEOMETRIES:
        raise OutOfRangeError(f"{str(name)[:40]!r} is not a geometry here: one of {', '.join(GEOMETRIES)}.")
    return name


def check_removed(removed: float, rows: int, hidden: int) -> int:
    """D for all-but-the-top: a whole number from 1 to 20, less than the table's rank allows."""
    removed = check_d(removed)
    if removed >= min(rows - 1, hidden):
        raise OutOfRangeError(
            f"This table has {rows:,} rows of {hidden:,} numbers: "
            f"too few to remove {int(removed)} directions."
        )
    return int(removed)


def key(name: str, removed: int | None) -> tuple[str, int]:
    """The key of a geometry: its name and D, which is 0 for every geometry but all-but-the-top."""
    return (name, int(removed or 0) if name == "all-but-the-top" else 0)


def pca_key(name: str, removed: int | None) -> tuple[str, int]:
    """The key of a geometry's PCA map: as ``key``, but centred is raw's (PCA centres the rows
    itself, so the two maps are the same, computed and kept once)."""
    name, removed = key(name, removed)
    return ("raw" if name == "centred" else name, removed)


def fit(table: np.ndarray, name: str, removed: float = 0) -> Geometry:
    """The geometry ``name`` (one of GEOMETRIES) for ``table`` (n, hidden), with its row norms."""
    return fit_all(table, removed, (check_name(name),))[name]


def fit_all(
    table: np.ndarray, removed: float, names: tuple[str, ...] = GEOMETRIES, problems: dict | None = None
) -> dict[str, Geometry]:
    """Each geometry of ``names`` for ``table``, from one pass for the moments they share.
    With ``problems`` (a dict), a geometry that cannot be fitted (D out of range, a dimension
    with no variance) is left out and the reason put there under its name; else it raises."""
    n, hidden = table.shape
    moments = _moments(table) if set(names) - {"raw"} else None
    fitted = {}
    for name in names:
        try:
            geometry = _fitted(name, n, hidden, moments, removed)
        except (OutOfRangeError, ZeroVectorError) as problem:
            if problems is None:
                raise
            problems[name] = str(problem)
            continue
        norms = [np.linalg.norm(geometry.transform(table[i : i + BLOCK]), axis=1) for i in range(0, n, BLOCK)]
        fitted[name] = replace(geometry, norms=np.concatenate(norms))
    return fitted


def _fitted(name: str, n: int, hidden: int, moments, removed: float) -> Geometry:
    """The geometry ``name`` from the table's moments, without its row norms."""
    mean, scale, directions = np.zeros(hidden), np.ones(hidden), np.zeros((0, hidden))
    if name == "all-but-the-top":
        removed = check_removed(removed, n, hidden)
    if name != "raw":
        total, gram = moments
        mean = total / n
        covariance = gram / n - np.outer(mean, mean)
        if name == "standardised":
            scale = _deviations(covariance)
        if name == "all-but-the-top":
            directions = _top_directions(covariance, removed)
    return Geometry(name, removed if name == "all-but-the-top" else 0, mean, scale, directions, np.zeros(0))


def _deviations(covariance: np.ndarray) -> np.ndarray:
    variance = np.maximum(np.diag(covariance), 0.0)
    flat = np.flatnonzero(variance <= 1e-12 * max(float(variance.max()), 1e-300))
    if flat.size:
        raise ZeroVectorError(
            f"Dimension {int(flat[0])} has the same value in every row, so it cannot be "
            "standardised (its variance is 0): pick another geometry."
        )
    return np.sqrt(variance)


def _moments(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sum_i w_i and sum_i w_i w_i^T in float64, a block at a time."""
    hidden = table.shape[1]
    total, gram = np.zeros(hidden), np.zeros((hidden, hidden))
    for start in range(0, len(table), BLOCK):
        block = np.asarray(table[start : start + BLOCK], dtype=np.float64)
        total += block.sum(axis=0)
        gram += block.T @ block
    return total, gram


def _top_directions(covariance: np.ndarray, count: int) -> np.ndarray:
    from scipy.linalg import eigh

    hidden = len(covariance)
    _, vectors = eigh(covariance, subset_by_index=[hidden - count, hidden - 1])
    return np.ascontiguousarray(vectors[:, ::-1].T)  # (count, hidden), largest variance first


def scores(
    table: np.ndarray, geometry: Geometry, query: np.ndarray, weight: float | np.ndarray = 1.0
) -> np.ndarray:
    """The cosine of T(q) with T(w_i) for every row and every query q: one product with the
    raw table. A query (hidden,) gives (n,); queries (m, hidden) give (m, n). ``weight``: the
    sum of the signs of the rows a query adds up (see the module's note)."""
    transformed = geometry.transform(query, weight)  # (m, hidden) float64
    lengths = np.linalg.norm(transformed, axis=1)
    if not np.all(lengths > 0):
        raise ZeroVectorError(f"The query is all zeros in the {geometry.name} geometry: it has no direction.")
    along = transformed / geometry.scale  # (m, hidden)
    raw = along.astype(table.dtype) @ table.T  # the one product, in the table's precision
    result = (raw.astype(np.float64) - (along @ geometry.mean)[:, None]) / lengths[:, None]
    result = np.divide(result, geometry.norms, out=np.zeros_like(result), where=geometry.norms > 0)
    return result[0] if np.ndim(query) == 1 else result


def transformed_table(table: np.ndarray, geometry: Geometry, dtype=np.float32) -> np.ndarray:
    """T of every row, made a block at a time, in ``dtype`` (for a worker that needs the rows
    themselves, such as the t-SNE map's; searches never do)."""
    if geometry.name == "raw":
        return np.asarray(table, dtype=dtype)
    out = np.empty(table.shape, dtype=dtype)
    for start in range(0, len(table), BLOCK):
        out[start : start + BLOCK] = geometry.transform(table[start : start + BLOCK])
    return out


def pca(
    table: np.ndarray, geometry: Geometry, components: int = projection.DEFAULT_COMPONENTS
) -> tuple[projection.PcaBasis, np.ndarray]:
    """PCA of the transformed rows T(w_i), and every row's coordinates, with no transformed
    copy of the table: their covariance is P S (C_m) S P, with C_m the raw rows' second moments
    about the geometry's mean and S the scaling (the raw table goes the usual way). So PCA of
    centred rows is the raw map (PCA centres anyway), and all-but-the-top D's components are
    raw's D+1st onward: the centred map is computed as raw's, the same to the last bit."""
    if geometry.name in ("raw", "centred"):
        basis = projection.fit(table, components)
        return basis, projection.project(basis, table)
    n, hidden = table.shape
    total, gram = _moments(table)
    mean, shift = total / n, geometry.mean
    about = gram - n * (np.outer(mean, shift) + np.outer(shift, mean) - np.outer(shift, shift))
    scaled = about / np.outer(geometry.scale, geometry.scale)
    keep = np.eye(hidden) - geometry.directions.T @ geometry.directions  # P
    basis = projection.fit_moments(n, geometry.transform(mean)[0], keep @ scaled @ keep, components)
    coords = [projection.project(basis, geometry.transform(table[i : i + BLOCK])) for i in range(0, n, BLOCK)]
    return basis, np.concatenate(coords)
