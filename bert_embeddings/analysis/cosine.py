"""Cosine similarity between rows, computed the same careful way everywhere.

Each row is first divided by its largest absolute value, which leaves its direction as it
is: squaring 1e308 would overflow to infinity and squaring 1e-320 underflow to zero, so
without that step such rows would get a cosine of 0 or NaN instead of their true value. A
row of zeros has no direction; its cosine with anything is 0. (The neighbour search has its
own form, over a table normalised once: vocab_search.)
"""

from __future__ import annotations

import numpy as np


def unit_rows(rows: np.ndarray, in_place: bool = False) -> np.ndarray:
    """(n, d) -> the same rows scaled to length 1 (zero rows stay zero). With ``in_place``, a
    float array is scaled where it is, without a copy (for a whole vocabulary table)."""
    rows = np.atleast_2d(np.asarray(rows))
    largest = np.max(np.abs(rows), axis=1, keepdims=True) if rows.size else np.ones((len(rows), 1))
    if in_place and rows.dtype.kind == "f":
        rows /= np.where(largest > 0, largest, 1)
        rows /= np.where((norms := np.linalg.norm(rows, axis=1, keepdims=True)) > 0, norms, 1)
        return rows
    scaled = rows / np.where(largest > 0, largest, 1)
    norms = np.linalg.norm(scaled, axis=1, keepdims=True)
    return scaled / np.where(norms > 0, norms, 1)


def matrix(rows: np.ndarray) -> np.ndarray:
    """Cosine of every row with every other row, (n, n) float32."""
    unit = unit_rows(rows)
    return np.clip(unit @ unit.T, -1, 1).astype(np.float32)


def paired(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of a[i] with b[i] for each i, (n,) float32."""
    return np.clip(np.sum(unit_rows(a) * unit_rows(b), axis=1), -1, 1).astype(np.float32)
