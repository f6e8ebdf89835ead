"""Reference answers written out plainly with numpy and scikit-learn, for tests to compare
the core against: nothing here shares code with bert_embeddings."""

from __future__ import annotations

import numpy as np


def transformed(table: np.ndarray, name: str, removed: int = 0, rows: np.ndarray | None = None) -> np.ndarray:
    """Each geometry's version of ``rows`` (default: the table itself), fitted to ``table``:
    raw; centred (the table's mean subtracted); standardised (also divided by each dimension's
    standard deviation); all-but-the-top (centred, then the top ``removed`` principal
    components, as scikit-learn's PCA finds them, projected out). In float64."""
    from sklearn.decomposition import PCA

    w = table.astype(np.float64)
    x = w if rows is None else np.atleast_2d(np.asarray(rows, dtype=np.float64))
    if name == "raw":
        return x
    centred = x - w.mean(axis=0)
    if name == "centred":
        return centred
    if name == "standardised":
        return centred / w.std(axis=0)
    components = PCA(n_components=removed).fit(w).components_
    return centred - centred @ components.T @ components
