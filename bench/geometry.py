"""The geometry lab's statistics and searches on a table of bert-base-uncased's shape.

Measured in one run on a random 30,522 x 768 float32 table (its rows share an offset, as
BERT's token rows share a direction), medians of interleaved repetitions:

- stats: the mean cosine over every pair of rows and each dimension's share of it
  (geometry.anisotropy), against one pass over the table (``W.sum(0)``);
- query: one top-10 query under each geometry (raw, centred, all-but-the-top 7,
  standardised: geometry.scores, then the best 10), against the bare matrix-vector product
  with a pre-normalised copy of the table, as bench.vocab_search measures its floor; the
  slowest geometry counts;
- memory: what a fitted geometry keeps (its row norms and a few vectors), in MB.

Before timing, each geometry's top 10 is checked against a ranking of the explicitly
transformed table.

    .venv/bin/python -m bench.geometry [--runs N]

With BENCH_QUICK=1 the table is 30,522 x 64 and each is timed 3 times (see bench/__init__.py).

Last line: geometry stats_ratio=S query_ratio=Q extra_mb_per_geometry=M
(targets: S <= 3, Q <= 1.3, M <= 1)
"""

from __future__ import annotations

import argparse

import numpy as np

from bench import full_or_quick
from bench.vocab_search import HIDDEN, median_seconds, token_table
from bert_embeddings.analysis import geometry, vocab_search

REMOVED = max(1, HIDDEN // 100)  # all-but-the-top's D: about the width / 100


def top10(table: np.ndarray, fitted: geometry.Geometry, query: np.ndarray, pieces: tuple) -> np.ndarray:
    everyone = np.ones(len(table), dtype=bool)
    return vocab_search.top(geometry.scores(table, fitted, query), everyone, 10, pieces).ids


def check(table: np.ndarray, fitted: geometry.Geometry, query: np.ndarray, pieces: tuple) -> None:
    """The fast top 10 is the top 10 of the explicitly transformed table."""
    rows = fitted.transform(table)
    expected = rows @ fitted.transform(query)[0] / np.linalg.norm(rows, axis=1)
    best = np.lexsort((np.arange(len(expected)), -expected))[:10]
    assert top10(table, fitted, query, pieces).tolist() == best.tolist(), fitted.name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=full_or_quick(30, 3))
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    table = token_table(rng)
    pieces = tuple(str(i) for i in range(len(table)))
    normalised = table / np.linalg.norm(table, axis=1, keepdims=True)
    query = table[2054]
    fitted = {
        name: geometry.fit(table, name, REMOVED if name == "all-but-the-top" else 0)
        for name in geometry.GEOMETRIES
    }
    for one in fitted.values():
        check(table, one, query, pieces)
    functions = {"floor": lambda: normalised @ query, "sum": lambda: table.sum(axis=0)}
    functions["stats"] = lambda: geometry.anisotropy(table)
    for name, one in fitted.items():
        functions[name] = lambda one=one: top10(table, one, query, pieces)
    medians = median_seconds(functions, args.runs)
    for name, seconds in medians.items():
        print(f"{name:16s} median {seconds * 1000:8.2f} ms")
    stats_ratio = medians["stats"] / medians["sum"]
    query_ratio = max(medians[name] for name in geometry.GEOMETRIES) / medians["floor"]
    kept = max(
        (one.norms.nbytes + one.mean.nbytes + one.scale.nbytes + one.directions.nbytes) / 1e6
        for one in fitted.values()
    )
    print(f"all-but-the-top removes {REMOVED} directions; a geometry keeps at most {kept:.3f} MB")
    figures = f"stats_ratio={stats_ratio:.2f} query_ratio={query_ratio:.2f} extra_mb_per_geometry={kept:.2f}"
    print(f"geometry {figures}")


if __name__ == "__main__":
    main()
