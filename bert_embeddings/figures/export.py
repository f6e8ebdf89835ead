"""The numbers behind a figure, as files: CSV with labels for spreadsheets, .npy for numpy.

CSV values are written with just enough digits to read back as the same float: 9
significant digits for float32, 17 for float64. So a file exported from the explorer holds
exactly the numbers on screen, not rounded ones.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Sequence

import numpy as np


def _digits(values: np.ndarray) -> str | None:
    if np.issubdtype(values.dtype, np.floating):
        return ".9g" if values.dtype.itemsize <= 4 else ".17g"
    return None  # integers and booleans are written as they are


def as_matrix(values: np.ndarray) -> np.ndarray:
    """A vector becomes one column; a matrix stays as it is."""
    values = np.asarray(values)
    if values.ndim == 1:
        return values[:, None]
    if values.ndim != 2:
        raise ValueError(f"expected a vector or a matrix, got {values.ndim} dimensions")
    return values


def matrix_csv(
    values: np.ndarray,
    row_labels: Sequence[object] | None = None,
    column_labels: Sequence[object] | None = None,
    corner: str = "",
) -> bytes:
    """A header row of column labels, then one row per matrix row, led by its label."""
    values = as_matrix(values)
    rows, columns = values.shape
    row_labels = range(rows) if row_labels is None else row_labels
    column_labels = range(columns) if column_labels is None else column_labels
    if len(row_labels) != rows or len(column_labels) != columns:
        raise ValueError(f"{len(row_labels)} x {len(column_labels)} labels for a {rows} x {columns} matrix")
    digits = _digits(values)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([corner, *column_labels])
    for label, row in zip(row_labels, values.tolist(), strict=True):
        writer.writerow([label, *(row if digits is None else (format(v, digits) for v in row))])
    return text.getvalue().encode("utf-8")


def matrix_npy(values: np.ndarray) -> bytes:
    """The array in numpy's own format, dtype and shape included (no pickled objects)."""
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(values), allow_pickle=False)
    return buffer.getvalue()


STEM_LENGTH = 120


def file_stem(*parts: str) -> str:
    """A file name from free text: letters, digits, dots and dashes only, at most STEM_LENGTH
    characters. A longer one is cut and ends in a short hash of the whole, so that two names
    that differ only after the cut (say a long model folder's two figures) stay two files."""
    words = "-".join(str(p) for p in parts if p)
    stem = "".join(c if c.isalnum() or c in ".-" else "-" for c in words.lower())
    stem = "-".join(filter(None, stem.split("-"))).strip(".-")
    if len(stem) > STEM_LENGTH:
        digest = hashlib.blake2b(stem.encode(), digest_size=4).hexdigest()
        stem = f"{stem[: STEM_LENGTH - 9].strip('.-')}-{digest}"
    return stem or "export"
