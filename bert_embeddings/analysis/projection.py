"""Principal component analysis of embedding rows: exact, over every row, nothing sampled.

The basis comes from the covariance matrix, built with one product ``X.T @ X`` over the
rows as they are (no centred copy of a 94 MB table) and corrected for the mean in float64:
C = (X.T X - n m m^T) / (n - 1). Only the top eigenpairs are solved for. Components follow
scikit-learn's sign convention (each component's largest-magnitude entry is positive), so
projections equal sklearn.decomposition.PCA's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings import limits
from bert_embeddings.errors import OutOfRangeError

DEFAULT_COMPONENTS = 10


@dataclass(frozen=True)
class PcaBasis:
    mean: np.ndarray  # (hidden,) float64
    components: np.ndarray  # (n_components, hidden) float64, unit rows, largest variance first
    explained_variance: np.ndarray  # (n_components,)
    explained_variance_ratio: np.ndarray  # (n_components,) share of the total variance

    @property
    def n_components(self) -> int:
        return int(self.components.shape[0])


def fit(rows: np.ndarray, n_components: int = DEFAULT_COMPONENTS) -> PcaBasis:
    """The top principal components of ``rows`` (n, hidden)."""
    mean = rows.mean(axis=0).astype(np.float64)  # (hidden,)
    gram = (rows.T @ rows).astype(np.float64)  # (hidden, hidden): the one big product
    return fit_moments(len(rows), mean, gram, n_components)


def fit_moments(n: int, mean: np.ndarray, gram: np.ndarray, n_components: int) -> PcaBasis:
    """The top principal components of n rows whose mean is ``mean`` and whose ``X.T @ X`` is
    ``gram`` (both float64): callers that need those sums in another order or precision
    (the t-SNE map's start) compute them themselves."""
    from scipy.linalg import eigh  # only PCA pages need scipy; keep it off the import path
    from threadpoolctl import threadpool_limits

    hidden = len(mean)
    n_components = min(n_components, hidden, max(n - 1, 1))
    covariance = (gram - n * np.outer(mean, mean)) / max(n - 1, 1)
    # numpy and scipy each bundle an OpenBLAS; right after the big product numpy's threads
    # still spin and the two pools fight over the cores (eigh: ~25 ms alone, ~105 ms with
    # both pools busy). One thread for this small solve avoids that.
    with threadpool_limits(limits=1, user_api="blas"):
        values, vectors = eigh(covariance, subset_by_index=[hidden - n_components, hidden - 1])
    values, vectors = values[::-1], vectors[:, ::-1].T  # largest first; (n_components, hidden)
    # Same sign rule as scikit-learn: the largest-magnitude entry of each component is positive.
    signs = np.sign(vectors[np.arange(len(vectors)), np.argmax(np.abs(vectors), axis=1)])
    vectors = vectors * signs[:, None]
    values = np.maximum(values, 0.0)
    total = max(float(np.trace(covariance)), np.finfo(np.float64).tiny)
    return PcaBasis(mean, vectors, values, values / total)


def project(basis: PcaBasis, rows: np.ndarray) -> np.ndarray:
    """Coordinates of ``rows`` (n, hidden) on every component: (n, n_components) float32."""
    centred_projection = rows @ basis.components.T.astype(rows.dtype)  # (n, n_components)
    return (centred_projection - (basis.mean @ basis.components.T)).astype(np.float32)


def check_components(basis: PcaBasis, *indices: float) -> tuple[int, ...]:
    """Validate 1-based component numbers as people write them (PC1, PC2, ...)."""
    indices = tuple(limits.whole_number(i, "A component", 1, basis.n_components) for i in indices)
    if len(set(indices)) != len(indices):
        raise OutOfRangeError("Pick a different component for each axis.")
    return tuple(i - 1 for i in indices)
