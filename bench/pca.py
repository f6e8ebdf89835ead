"""PCA of a table of bert-base-uncased's shape, and the size of the vocabulary map it feeds.

- fit_ratio: projection.fit on a 30,522 x 768 float32 table against one covariance product
  X.T @ X on the same table, medians of interleaved runs (target <= 1.5);
- payload_mb: the vocabulary map's figure as Plotly serialises it for the browser, with
  bert-base-uncased's 30,522 pieces and a sentence highlighted (target <= 3).

    .venv/bin/python -m bench.pca [--runs N]

With BENCH_QUICK=1 the table is 30,522 x 64 and each is timed 3 times (see bench/__init__.py).

Last line: pca fit_ratio=R payload_mb=P
"""

from __future__ import annotations

import argparse

import numpy as np
import plotly.io
from sklearn.decomposition import PCA

from bench import full_or_quick
from bench.vocab_search import median_seconds, token_table
from bert_embeddings.analysis import projection, vocab_search
from bert_embeddings.figures import map_charts, map_marks
from bert_embeddings.models import checkpoints


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=full_or_quick(15, 3))
    args = parser.parse_args()

    table = token_table(np.random.default_rng(0))
    basis = projection.fit(table)
    reference = PCA(10, svd_solver="covariance_eigh").fit(table)
    assert np.allclose(basis.explained_variance_ratio, reference.explained_variance_ratio_, rtol=1e-4)

    medians = median_seconds(
        {"gram": lambda: table.T @ table, "fit": lambda: projection.fit(table)}, args.runs
    )
    for name, seconds in medians.items():
        print(f"{name:5s} median {seconds * 1000:7.1f} ms")

    tokenizer = checkpoints.load_bundled().tokenizer  # bert-base-uncased's pieces
    index = vocab_search.build_index(table, tokenizer)
    # The sentence marked as the Maps page marks it (pages/maps.py), in a fixed dark colour
    # where the page takes the theme's text colour.
    sentence = np.unique(tokenizer.encode("The river bank flooded after the storm.").ids)
    request = map_charts.VocabularyMap(
        projection.project(basis, table),
        index.pieces,
        index.kinds,
        (0, 1),
        basis.explained_variance_ratio,
        range(len(vocab_search.KINDS)),
        [map_marks.Highlight("your sentence", sentence, "#111111", map_charts.SENTENCE_SYMBOL)],
    )
    figure = map_charts.vocabulary_map(request)
    payload_mb = len(plotly.io.to_json(figure, validate=False)) / 1e6
    print(f"pca fit_ratio={medians['fit'] / medians['gram']:.2f} payload_mb={payload_mb:.2f}")


if __name__ == "__main__":
    main()
