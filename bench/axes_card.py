"""Axes you can trust, measured: the report card and WEAT on the bundled model.

In one run, 2 BLAS threads, medians of interleaved repetitions:

- C: the whole card (held out, 1,000 resamples, 1,000 random axes, coherence against 1,000
  random pairings) for three axes (he/she, small/big, cold/hot) with 20 words placed, words
  looked up from their text as the page does (word_tests.card_for, raw geometry);
- the reference: one pass of 1,000 axes' projections as a single matrix product, the whole
  token table (float32) times 1,000 unit directions;
- W: WEAT with 8 words per group (flowers and insects), exact over its 12,870 partitions,
  with its 1,000 bootstrap resamples.

    .venv/bin/python -m bench.axes_card [--runs N]

With BENCH_QUICK=1: one repetition (after the warm-up run every figure has).

Last line: axes_card card_s=C card_ratio=R weat_s=W
(targets: R <= 3, W <= 1)
"""

from __future__ import annotations

import argparse

import numpy as np

from bench import full_or_quick
from bench.vocab_search import median_seconds
from bert_embeddings.analysis import vocab_search, word_tests
from bert_embeddings.models import checkpoints

AXES = (("he, him, man", "she, her, woman"), ("small, tiny", "big, huge"), ("cold, cool", "hot, warm"))
WORDS = (
    "king, queen, prince, princess, boy, girl, father, mother, doctor, nurse, engineer, teacher, "
    "mouse, elephant, ant, whale, village, city, ice, fire"
)


def main() -> None:
    from threadpoolctl import threadpool_limits

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=full_or_quick(5, 1))
    runs = parser.parse_args().runs
    # (a quick run too: the bundled model is read in a moment, where writing a small random
    # checkpoint means importing torch and transformers)
    model = checkpoints.load_bundled()
    index = vocab_search.build_index(model.tables.word_embeddings, model.tokenizer)
    directions = np.random.default_rng(0).standard_normal((index.table.shape[1], 1000)).astype(np.float32)
    directions /= np.linalg.norm(directions, axis=0)

    def cards():
        return [word_tests.card_for(index, model.tokenizer, start, end, WORDS) for start, end in AXES]

    def weat():
        return word_tests.weat_for(index, model.tokenizer, word_tests.FLOWERS_INSECTS)

    with threadpool_limits(limits=2, user_api="blas"):
        seconds = median_seconds(
            {"card": cards, "product": lambda: index.table @ directions, "weat": weat}, runs
        )
    for (start, end), found in zip(AXES, cards(), strict=True):
        print(f"{start} -> {end}: {found.card.verdict()}")
    test = weat().test
    print(
        f"WEAT flowers/insects: d {test.effect_size:.3f}, p {test.p_value:.4g} "
        f"over {test.partitions:,} partitions"
    )
    print(f"1,000 axes' projections of {index.table.shape[0]:,} rows: {seconds['product']:.3f} s")
    print(
        f"axes_card card_s={seconds['card']:.2f} card_ratio={seconds['card'] / seconds['product']:.2f} "
        f"weat_s={seconds['weat']:.3f}"
    )


if __name__ == "__main__":
    main()
