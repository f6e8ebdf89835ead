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


def random_table(rows: int = 700, hidden: int = 24, seed: int = 0) -> np.ndarray:
    """A table with clusters, as a vocabulary has, an all-zero row (5, like an untrained
    [PAD]) and a row in another's very direction (9 = 2.5 x row 3)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((8, hidden)) * 3  # clusters, as a vocabulary has
    table = centres[rng.integers(0, 8, rows)] + rng.standard_normal((rows, hidden))
    table[5] = 0  # an all-zero row, like an untrained [PAD]
    table[9] = table[3] * 2.5  # the same direction: cosine 1
    return table.astype(np.float32)


def brute_cosines(table: np.ndarray) -> np.ndarray:
    """Every pair's cosine in float64 (a zero row's: 0), a row with itself at -inf."""
    w = table.astype(np.float64)
    norms = np.linalg.norm(w, axis=1)
    unit = w / np.where(norms > 0, norms, 1)[:, None]
    sims = unit @ unit.T
    np.fill_diagonal(sims, -np.inf)
    return sims


def nesting_depth(value: object) -> int:
    """How deep a parsed document (dicts and lists, as tomllib and json return) nests, its outermost
    table or array counted. Walked without recursion, which a few thousand levels would overflow."""
    most, waiting = 0, [(value, 1)]
    while waiting:
        value, depth = waiting.pop()
        if isinstance(value, dict | list):
            most = max(most, depth)
            waiting.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return most
