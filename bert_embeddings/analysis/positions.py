"""Position embeddings beside the original Transformer's sinusoid.

BERT learns one row per position; the original Transformer ("Attention Is All You Need",
section 3.5) computed them from a formula instead:

    PE[pos, 2i]     = sin(pos / 10000 ** (2i / d))
    PE[pos, 2i + 1] = cos(pos / 10000 ** (2i / d))

Putting the two side by side, at the same size, shows what was learned.
"""

from __future__ import annotations

import numpy as np

from bert_embeddings import limits


def sinusoid(n_positions: int, dimensions: int) -> np.ndarray:
    """The sinusoidal encoding, (n_positions, dimensions) float32."""
    positions = np.arange(n_positions, dtype=np.float64)[:, None]  # (positions, 1)
    pair = np.arange(0, dimensions, 2, dtype=np.float64)[None, :]  # (1, dims / 2): the 2i
    angles = positions / np.power(10000.0, pair / dimensions)  # (positions, dims / 2)
    table = np.empty((n_positions, dimensions), dtype=np.float64)
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : dimensions // 2])
    return table.astype(np.float32)


def row_norms(rows: np.ndarray) -> np.ndarray:
    return np.linalg.norm(rows, axis=1).astype(np.float32)


def check_position(position: float, n_positions: int) -> int:
    return limits.whole_number(position, "A position", 0, n_positions - 1)
