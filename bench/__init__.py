"""Benchmarks: each prints ratios against a reference measured in the same run.

Run from the project root as ``.venv/bin/python -m bench.NAME``; the last line printed is
the result. These are measurements, not tests: tests check correctness.

With ``BENCH_QUICK=1`` in the environment each benchmark runs in a quick mode instead:
the same code end to end and the same last line, but on a small random checkpoint, with
one or two sessions and a few repetitions, so that it takes seconds. Its figures mean
nothing; tests/test_benchmarks.py runs every benchmark that way so that none of them rots.
A quick run can also be handed its small checkpoint ready-made, in the folder named by
``BENCH_QUICK_CHECKPOINT`` (the test writes one for all of them): writing it takes each run
seconds, most of them spent importing transformers. This is the one place that reads either.
"""

from __future__ import annotations

import os
from typing import TypeVar

T = TypeVar("T")
QUICK = os.environ.get("BENCH_QUICK", "").strip() == "1"
QUICK_CHECKPOINT = os.environ.get("BENCH_QUICK_CHECKPOINT", "").strip() if QUICK else ""
# A quick run's random checkpoints keep the first pieces of the vocabulary (every special one and
# the most common words; a word cut off reads as [UNK]): a whole-vocabulary computation (a map's
# exact neighbours, a stage space's lists) then takes a fraction of 30,522 rows' time.
QUICK_PIECES = 8000


def full_or_quick(full: T, quick: T) -> T:
    """``full`` in a real run, ``quick`` under BENCH_QUICK=1."""
    return quick if QUICK else full


def bundled_or_quick(folder):
    """The bundled model for a real run; under BENCH_QUICK=1 a small random checkpoint in
    ``folder`` (a copy of BENCH_QUICK_CHECKPOINT when it names one)."""
    import shutil
    from pathlib import Path

    from bert_embeddings.models import checkpoints

    if not QUICK:
        return checkpoints.load_bundled()
    if QUICK_CHECKPOINT:
        return checkpoints.load_model(str(shutil.copytree(QUICK_CHECKPOINT, Path(folder) / "quick")))
    from testkit.random_models import keep_first_pieces, write_random_bert

    quick = write_random_bert(Path(folder) / "quick", layers=2)
    return checkpoints.load_model(str(keep_first_pieces(quick, QUICK_PIECES)))
