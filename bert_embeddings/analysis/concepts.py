"""A toy embedding space with three named dimensions, for explaining embeddings at all.

Items are written one per line as ``name, value, value, value``; the first line names the
dimensions. Small enough to edit by hand, and to see that similar things point the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings import limits
from bert_embeddings.errors import ToySpaceError

DEFAULT_TEXT = """item, animal, size, domestic
kitten, 0.9, 0.1, 0.9
cat, 0.9, 0.3, 0.9
dog, 0.9, 0.5, 0.8
wolf, 0.9, 0.6, 0.05
elephant, 0.9, 1.0, 0.1
car, 0.0, 0.7, 0.5
bicycle, 0.0, 0.3, 0.6"""


# The arrows are drawn to scale on linear axes: far larger or smaller numbers beside ordinary
# ones leave nothing to see. (Cosine itself is computed stably for any finite numbers.)
SMALLEST, LARGEST = 1e-6, 1e6


@dataclass(frozen=True)
class ToySpace:
    dimensions: tuple[str, str, str]
    names: tuple[str, ...]
    vectors: np.ndarray  # (items, 3)


def parse(text: str) -> ToySpace:
    """Read the toy items; every problem is reported with its line number.

    Sizes are checked first (the whole text, then the number of items), so a large paste is
    refused before anything is split, drawn or multiplied."""
    text = limits.TOY_TEXT.check_text("The items' text", text)
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    limits.TOY_ITEMS.check("The list", len(lines) - 1)
    if len(lines) < 2:
        raise ToySpaceError(
            "Write a header line (item, dimension, dimension, dimension) and at least one item."
        )
    header = [cell.strip() for cell in lines[0][1].split(",")]
    if len(header) != 4 or not all(header):
        raise ToySpaceError(
            "The first line must name the item column and three dimensions, separated by commas."
        )
    for name in header:
        limits.TOY_NAME.check_text("A name in the first line", name)
    names, vectors = [], []
    for number, line in lines[1:]:
        cells = [cell.strip() for cell in line.split(",")]
        if len(cells) != 4:
            raise ToySpaceError(f"Line {number} has {len(cells)} values; write a name and three numbers.")
        if not cells[0]:
            raise ToySpaceError(f"Line {number} has no name.")
        limits.TOY_NAME.check_text(f"The name on line {number}", cells[0])
        values = []
        for dimension, cell in zip(header[1:], cells[1:], strict=True):
            try:
                value = float(cell)
            except ValueError:
                raise ToySpaceError(
                    f"Line {number} ({cells[0]}): {dimension} = '{cell}' is not a number."
                ) from None
            if not np.isfinite(value):
                raise ToySpaceError(f"Line {number} ({cells[0]}): {dimension} must be a finite number.")
            if not (value == 0 or SMALLEST <= abs(value) <= LARGEST):
                raise ToySpaceError(
                    f"Line {number} ({cells[0]}): {dimension} = {cell} is outside what the picture can "
                    f"show. Use 0, or a number from {SMALLEST:.6f} to {LARGEST:,.0f} in size (either sign)."
                )
            values.append(value)
        if not any(values):
            raise ToySpaceError(f"Line {number} ({cells[0]}) is all zeros: it has no direction to compare.")
        names.append(cells[0])
        vectors.append(values)
    if len(set(names)) != len(names):
        raise ToySpaceError("Two items have the same name; give each item its own.")
    return ToySpace(tuple(header[1:]), tuple(names), np.array(vectors, dtype=np.float64))
