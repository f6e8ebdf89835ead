"""What moved, measured: two embedding spaces compared over the whole vocabulary.

In one run, on the bundled model (all-MiniLM-L6-v2, 30,522 x 384, 6 layers), in a cache folder
of its own, 2 threads:

- S: every stage space cold - the token rows, the output and the 6 layers, each with its exact
  neighbour lists (pair.prepare_stages, what ``python -m bert_embeddings map --stages`` runs);
- W: one comparison of the token rows with layer 6, their lists cached (read from disk), every
  figure the page shows included (overlap, second-order, mean cosine, CKA, Procrustes, kinds);
- G: the aligned maps of the same two spaces - how far B's map started from A's falls below B's
  own map in recall@10 (negative: above);
- M: what that comparison adds to the process's memory at its peak (tracemalloc, which sees
  numpy's buffers): both lists read, the figures, the result kept;
- the cold comparison of two bert-base-shaped stand-ins (30,522 x 768 random rows): both lists
  and every figure, as a ratio to one neighbour stage of the map job on one of them
  (neighbour_map.exact_neighbours, 20 neighbours).

    .venv/bin/python -m bench.compare

With BENCH_QUICK=1: a small random 2-layer checkpoint of the vocabulary's first 8,000 pieces for
the bundled model, of whose stages only the token rows, the output and the last layer are made
(a table, the embedding layer's output and a layer's pass: every way a stage is made), one
repetition of the warm comparison, stand-ins of 1,000 x 64, and 10 t-SNE iterations.

Last line: compare rows=R stages_cold_s=S warm_s=W aligned_recall_gap=G extra_mb=M
(targets: S <= 60, W <= 1, G <= 0.02, M <= 200; the stand-ins' ratio <= 2.2)
"""

from __future__ import annotations

import os
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from bench import bundled_or_quick, full_or_quick
from bert_embeddings.analysis import contextual
from bert_embeddings.maps import knn, neighbour_map
from bert_embeddings.models.threads import torch_module
from bert_embeddings.spaces import aligned, compare, pair, space_jobs, stages

STAND_IN_ROWS, STAND_IN_WIDTH = full_or_quick((30522, 768), (1000, 64))
WARM_RUNS = full_or_quick(3, 1)
SETTINGS = full_or_quick(neighbour_map.Settings(), neighbour_map.Settings(iterations=10))
SHAPE = ("raw", 0)


def cold_stages(model) -> tuple[float, dict[str, float]]:
    """Seconds to make every stage space cold (pair.prepare_stages, a stage at a time), and how
    they split between the stages' tables (the layers' from one pass) and the neighbour lists."""
    spent = {pair.TABLE: 0.0, knn.STAGE: 0.0}
    now = {"step": None, "since": time.perf_counter()}

    def heard(step: str, done: float) -> None:
        if step != now["step"]:
            clock = time.perf_counter()
            if now["step"] is not None:
                spent[now["step"]] += clock - now["since"]
            now.update(step=step, since=clock)

    began = time.perf_counter()
    key = space_jobs.model_key(model)
    for stage in made_stages(model):
        pair.prepare_stage(model, key, stage, SHAPE, threads=2, progress=heard)
        heard("", 0.0)
        now["step"] = None
    return time.perf_counter() - began, spent


def made_stages(model) -> tuple[str, ...]:
    """Every stage; in a quick run the token rows, the output and the last layer only."""
    every = stages.stage_names(model)
    return full_or_quick(every, (*every[:2], every[-1]))


def bare_forward(model) -> float:
    """Seconds of the layer pass's floor: the whole model run over the same inputs in the same
    batches ([CLS] piece [SEP], every piece), keeping nothing."""
    torch = torch_module()
    full = contextual.load_full_model(model)
    start_id, end_id = stages.template(model)
    began = time.perf_counter()
    with torch.inference_mode():
        for first in range(0, model.vocab_size, stages.BATCH):
            pieces = torch.arange(first, min(model.vocab_size, first + stages.BATCH))
            ids = torch.stack([torch.full_like(pieces, start_id), pieces, torch.full_like(pieces, end_id)], 1)
            full(input_ids=ids, attention_mask=torch.ones_like(ids))
    return time.perf_counter() - began


def warm_comparison(a: pair.Space, b: pair.Space) -> tuple[float, float, compare.Comparison]:
    """Seconds (best of WARM_RUNS) and peak extra MB of a comparison whose lists are on disk."""
    best = float("inf")
    for _ in range(WARM_RUNS):
        tracemalloc.start()
        began = time.perf_counter()
        lists = (pair.lists_now(a, SHAPE, None), pair.lists_now(b, SHAPE, None))
        result = pair.compare_spaces(a, b, SHAPE, lists)
        compare.overlap_by_kind(result.overlap, compare.piece_kinds(a.pieces))
        best = min(best, time.perf_counter() - began)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    return best, peak, result


def stand_ins() -> tuple[float, float]:
    """(seconds of a cold comparison of two stand-ins, seconds of one map neighbour stage)."""
    rng = np.random.default_rng(0)
    tables = [
        (rng.standard_normal((STAND_IN_ROWS, STAND_IN_WIDTH), dtype=np.float32) * 0.05 + 0.01)
        for _ in range(2)
    ]
    began = time.perf_counter()
    neighbour_map.exact_neighbours(tables[0], max(SETTINGS.neighbours, neighbour_map.RECALL_K), threads=2)
    one_stage = time.perf_counter() - began
    began = time.perf_counter()
    lists = [compare.neighbour_lists(table, compare.MAX_K, threads=2) for table in tables]
    compare.compare(tables[0], tables[1], lists[0], lists[1], compare.WHOLE_K)
    return time.perf_counter() - began, one_stage


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["BERT_EXPLORER_CACHE"] = str(Path(scratch) / "cache")
        model = bundled_or_quick(scratch)
        stages_cold, spent = cold_stages(model)
        forward = bare_forward(model)
        print(
            f"every stage space cold: {stages_cold:.1f} s, of which the tables {spent[pair.TABLE]:.1f} s "
            f"(the layer pass's floor, a bare forward pass over the same inputs: {forward:.1f} s) and "
            f"the neighbour lists {spent[knn.STAGE]:.1f} s"
        )
        last = str(stages.layer_count(model))
        a, b = pair.space_of(model, "token"), pair.space_of(model, last)
        warm, extra_mb, result = warm_comparison(a, b)
        print(
            f"token rows vs layer {last}: mean overlap@10 {result.mean_overlap_10:.3f}, CKA {result.cka:.3f}"
        )
        lists = (pair.lists_now(a, SHAPE, None), pair.lists_now(b, SHAPE, None))
        began = time.perf_counter()
        maps = aligned.aligned_maps((a.vectors, b.vectors), lists, SETTINGS, threads=2)
        print(
            f"aligned maps in {time.perf_counter() - began:.1f} s: recall@10 A {maps.recall_a:.3f}, "
            f"B aligned {maps.recall_b:.3f}, B alone {maps.recall_b_alone:.3f}"
        )
    cold, one_stage = stand_ins()
    print(
        f"stand-ins {STAND_IN_ROWS:,} x {STAND_IN_WIDTH}: cold comparison {cold:.1f} s, "
        f"one map neighbour stage {one_stage:.1f} s, ratio {cold / one_stage:.2f} (target <= 2.2)"
    )
    print(
        f"compare rows={len(a.pieces)} stages_cold_s={stages_cold:.1f} warm_s={warm:.2f} "
        f"aligned_recall_gap={maps.gap:.4f} extra_mb={extra_mb:.0f}"
    )


if __name__ == "__main__":
    main()
