"""What the Geometry page measures, for one model: how alike its vectors are in each
geometry, which dimensions make them alike, and how the rows' lengths run along the ids.

Two tables are measured whole, each under the geometries fitted to itself:

- the token rows (word_embeddings);
- the embedding layer's output for every vocabulary piece alone at position 1, segment A
  (decompose.vocabulary_outputs), made a block at a time.

A sentence's own vectors are measured under the geometries of the table their stage belongs
to: the token table's up to the sum, the output table's after LayerNorm.

Pure computation: numpy only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import geometry

TABLES = ("token rows", "layer output")  # the two whole tables, by short name
NEAR_ZERO = 0.01  # a mean cosine this close to 0 has no meaningful shares (the page and lessons say so)
# Where a piece sits in a BERT vocabulary's layout, in the order of the ids.
LAYOUT = ("[unused]", "special", "single character", "whole word", "## piece")
UNUSED, SPECIAL, CHARACTER, WHOLE_WORD, CONTINUATION = range(len(LAYOUT))
OUTPUT_BLOCK = 2048  # rows of the layer's output made at a time


@dataclass(frozen=True)
class Lab:
    removed: int  # all-but-the-top's D
    stats: dict[str, dict[str, geometry.Anisotropy]]  # table -> geometry -> its mean cosine and shares
    fitted: dict[str, dict[str, geometry.Geometry]]  # table -> geometry -> the geometry itself
    lengths: np.ndarray  # (n,) float32: each token row's length
    layout: np.ndarray  # (n,) int8: index into LAYOUT
    whole_word_spearman: float  # rank correlation of length with id among whole words
    problems: dict[str, dict[str, str]]  # table -> geometry -> why it could not be fitted there


def layout(pieces: Sequence[str]) -> np.ndarray:
    """Each piece's place in the vocabulary's layout (index into LAYOUT)."""
    kinds = np.empty(len(pieces), dtype=np.int8)
    for i, piece in enumerate(pieces):
        if piece.startswith("[unused"):
            kinds[i] = UNUSED
        elif piece.startswith("[") and piece.endswith("]") or piece.startswith("<") and piece.endswith(">"):
            kinds[i] = SPECIAL
        elif piece.startswith("##"):
            kinds[i] = CONTINUATION
        elif len(piece) == 1:
            kinds[i] = CHARACTER
        else:
            kinds[i] = WHOLE_WORD
    return kinds


def output_table(outputs: Callable[[int, int], np.ndarray], n: int) -> np.ndarray:
    """The layer's output for ids 0..n-1, from ``outputs(start, stop)`` a block at a time:
    (n, width) float32, each block written into the table and let go before the next is made
    (a list of every block, then their concatenation, held the table twice: 188 MB for
    bert-base, the blocks' half of it kept afterwards by the allocator's arenas)."""
    first = np.asarray(outputs(0, min(n, OUTPUT_BLOCK)), dtype=np.float32)
    table = np.empty((n, *first.shape[1:]), dtype=np.float32)
    table[: len(first)] = first
    del first
    for i in range(OUTPUT_BLOCK, n, OUTPUT_BLOCK):
        table[i : i + OUTPUT_BLOCK] = outputs(i, min(n, i + OUTPUT_BLOCK))
    return table


def measure_table(table: np.ndarray, removed: int) -> tuple[dict, dict, dict]:
    """Each geometry fitted to ``table``, the table's mean cosine and shares under each, and
    why any geometry could not be fitted (it is then left out of the other two)."""
    problems: dict[str, str] = {}
    fitted = geometry.fit_all(table, removed, problems=problems)
    stats = {}
    for name, space in fitted.items():
        if name == "raw":
            stats[name] = geometry.anisotropy(table)
        else:
            n, hidden = table.shape
            stats[name] = geometry.anisotropy_in_blocks(
                lambda a, b, s=space: s.transform(table[a:b]), n, hidden
            )
    return fitted, stats, problems


def measure(
    table: np.ndarray, outputs: Callable[[int, int], np.ndarray], pieces: Sequence[str], removed: int
) -> Lab:
    """The lab's figures for a model: ``table`` its token rows, ``outputs`` its layer's output."""
    fitted, stats, problems = {}, {}, {}
    fitted[TABLES[0]], stats[TABLES[0]], problems[TABLES[0]] = measure_table(table, removed)
    output = output_table(outputs, len(table))
    fitted[TABLES[1]], stats[TABLES[1]], problems[TABLES[1]] = measure_table(output, removed)
    lengths = np.linalg.norm(table, axis=1).astype(np.float32)
    kinds = layout(pieces)
    words = np.flatnonzero(kinds == WHOLE_WORD)
    rho = rank_correlation(words, lengths[words]) if len(words) > 2 else float("nan")
    return Lab(removed, stats, fitted, lengths, kinds, rho, problems)


def rank_correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation of ``x`` and ``y``: Pearson's correlation of their ranks, tied
    values sharing their mean rank; nan if either is constant or holds a nan. The same float as
    scipy.stats.spearmanr (the same ranks, each a whole or half number, then np.corrcoef), without
    importing scipy.stats: some 170 modules and 20 MB that a server would keep for this one figure."""
    pairs = np.column_stack((x, y))  # (n, 2) float64, as spearmanr stacks them
    if len(pairs) < 2 or np.isnan(pairs).any() or (pairs == pairs[0]).all(axis=0).any():
        return float("nan")
    ranked = np.column_stack([_mean_ranks(column) for column in pairs.T])
    return float(np.corrcoef(ranked, rowvar=False)[1, 0])


def _mean_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks from 1, tied values sharing the mean of their ranks (scipy's rankdata, 'average')."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    new = np.r_[True, ordered[1:] != ordered[:-1]]
    group = np.empty(len(values), dtype=np.intp)
    group[order] = np.cumsum(new)  # each value's group of equal values, from 1
    bounds = np.r_[np.flatnonzero(new), len(values)]  # where each group starts, and the end
    return 0.5 * (bounds[group] + bounds[group - 1] + 1)


def sentence_cosines(
    lab: Lab, stages: dict[str, np.ndarray], output_stage: str
) -> dict[str, dict[str, float]]:
    """The mean cosine between a sentence's vectors at each stage, under each geometry: the
    token table's geometries, or for ``output_stage`` the output table's. Empty with fewer
    than two vectors."""
    if not stages or len(next(iter(stages.values()))) < 2:
        return {}
    found = {}
    for stage, rows in stages.items():
        spaces = lab.fitted[TABLES[1] if stage == output_stage else TABLES[0]]
        found[stage] = {
            name: geometry.anisotropy(space.transform(rows)).mean_cosine for name, space in spaces.items()
        }
    return found


def shares(stats: geometry.Anisotropy, count: int = 3) -> tuple[np.ndarray, float]:
    """The ``count`` dimensions that give most of the mean cosine, and the share they give together."""
    top = stats.top(count)
    total = stats.mean_cosine
    return top, float(stats.contributions[top].sum() / total) if total else float("nan")
