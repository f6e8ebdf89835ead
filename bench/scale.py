"""Big vocabularies: the whole t-SNE map of a 119,547 x 768 table, mBERT's shape.

The table is built the same way in every run: the bundled model's 30,522 rows taken to 768
dimensions by one fixed random linear map, then tiled four times (cut at 119,547 rows), each
copy with its own fixed noise (a quarter of the values' spread), so that it has the bundled
vocabulary's structure at mBERT's size. Then, 2 threads, nothing else running:

- C: the whole map as the app computes it: the table saved, then the map worker's process
  (bert_embeddings.maps.map_worker) from its start until the map is saved;
- N: its exact-neighbour stage over the bare float32 products of the same table in the same
  run (every row against every row, 256 rows per BLAS call, 2 at once, nothing else); the
  same ratio on the table's first 30,522 rows is printed above the last line;
- S: the regions stage as a share of C;
- M: the map worker's peak resident memory, all of it (the process exists only for the map;
  the server only saves its table to disk for it), sampled every 50 ms as bench.maps does.
Also printed: the estimate the Maps page shows before a big map starts, beside the truth, and
how many of 100 rows drawn at random have the map's lists equal to a brute-force search.

    .venv/bin/python -m bench.scale [ROWS]

ROWS (default 119,547) gives another size, e.g. 250002 for XLM-R's vocabulary. With
BENCH_QUICK=1: 1,000 random rows of 64 (300 for the ratio above the last line) and 10 t-SNE
iterations.

Last line: scale rows=R width=768 cold_s=C neighbours_ratio=N regions_share=S peak_mb=M
(targets: C <= 180, N <= 1.3, S <= 0.05, M <= 1200)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench import full_or_quick
from bert_embeddings.jobs import files
from bert_embeddings.maps import forecast, map_jobs, neighbour_map
from testkit.browser import rss_mb

ROWS = full_or_quick(119_547, 1000)
WIDTH = full_or_quick(768, 64)
SMALL_ROWS = full_or_quick(30_522, 300)
SETTINGS = full_or_quick(neighbour_map.Settings(), neighbour_map.Settings(iterations=10))
BLOCK = 256


def scale_table(rows: int, width: int) -> np.ndarray:
    """(rows, width) float32, the same in every run (see the module's docstring)."""
    rng = np.random.default_rng(39)
    if width != 768:
        return rng.standard_normal((rows, width), dtype=np.float32)
    from bert_embeddings.models import checkpoints

    base = np.asarray(checkpoints.load_bundled().tables.word_embeddings, dtype=np.float32)
    wide = base @ (rng.standard_normal((base.shape[1], width), dtype=np.float32) / np.float32(np.sqrt(width)))
    copies = -(-rows // len(wide))
    table = np.concatenate([wide] * copies)[:rows]
    spread = float(wide.std())
    for start in range(0, rows, 8192):  # the noise a slice at a time, to hold one copy at most
        stop = min(rows, start + 8192)
        table[start:stop] += rng.standard_normal((stop - start, width), dtype=np.float32) * (spread / 4)
    return table.astype(np.float32, copy=False)


def bare_products(table: np.ndarray, threads: int = 2) -> float:
    """Seconds for every row's float32 product with every row: one BLAS call per block of rows,
    ``threads`` at once, each on one BLAS thread, the result dropped."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    unit = table / np.linalg.norm(table, axis=1, keepdims=True)

    def one(start: int) -> None:
        unit[start : start + BLOCK] @ unit.T

    began = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, range(0, len(unit), BLOCK)))
    return time.perf_counter() - began


def worker_run(table: np.ndarray, folder: Path) -> tuple[float, float, dict]:
    """The map as the app computes it: the table saved for the map worker, which runs as its own
    process. (Seconds until it is done, its peak resident MB, the map's record's metadata.)"""
    folder.mkdir(parents=True, exist_ok=True)
    np.save(folder / files.TABLE, table)
    began, peak = time.perf_counter(), 0.0
    process = subprocess.Popen(
        [sys.executable, "-m", "bert_embeddings.maps.map_worker", str(folder), json.dumps(SETTINGS.as_dict())]
    )
    while process.poll() is None:
        try:
            peak = max(peak, rss_mb(process.pid))
        except (OSError, RuntimeError):  # it has just ended
            pass
        time.sleep(0.05)
    seconds = time.perf_counter() - began
    if process.returncode:
        raise SystemExit(f"the map worker stopped with exit code {process.returncode}")
    done = map_jobs.load(folder)
    if done is None:
        raise SystemExit("the map worker left no map that matches its record")
    return seconds, peak, done.meta


def sampled_rows_equal_brute_force(table: np.ndarray, found: np.ndarray, count: int = 100) -> int:
    """How many of ``count`` rows drawn with a fixed seed have the lists the map found (its 10
    nearest) equal to a brute-force search of that row against every row: float32 products
    within the rounding slack of the k-th best, float64 sums deciding, ties by the lower id."""
    from bert_embeddings.analysis import cosine

    unit = cosine.unit_rows(np.array(table, dtype=np.float32), in_place=True)
    k, slack = found.shape[1], 2 * table.shape[1] * 2.0**-24
    equal = 0
    for row in np.random.default_rng(7).choice(len(unit), size=min(count, len(unit)), replace=False):
        scores = unit @ unit[row]
        scores[row] = -np.inf
        kth = np.partition(scores, len(scores) - k)[len(scores) - k]
        candidates = np.flatnonzero(scores >= kth - slack)
        exact = (unit[candidates].astype(np.float64) * unit[row].astype(np.float64)).sum(axis=1)
        equal += np.array_equal(candidates[np.lexsort((candidates, -exact))[:k]], found[row])
    return equal


def neighbours_ratio(table: np.ndarray) -> tuple[float, float]:
    """(seconds of the neighbour stage alone, its ratio to the bare products) on ``table``."""
    k = max(SETTINGS.neighbours, neighbour_map.RECALL_K)
    began = time.perf_counter()
    neighbour_map.exact_neighbours(table, k, threads=2)
    seconds = time.perf_counter() - began
    return seconds, seconds / bare_products(table)


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else ROWS
    table = scale_table(rows, WIDTH)
    small_s, small_ratio = neighbours_ratio(np.ascontiguousarray(table[:SMALL_ROWS]))
    print(f"{SMALL_ROWS:,} rows: neighbour stage {small_s:.1f} s, {small_ratio:.2f} x the bare products")
    shape = forecast.Shape.of(rows, WIDTH, SETTINGS)
    expected = forecast.before_start(shape)
    with tempfile.TemporaryDirectory() as scratch:
        cold, peak_mb, meta = worker_run(table, Path(scratch) / "map")
        found = np.load(Path(scratch) / "map" / map_jobs.NEIGHBOURS)
    equal = sampled_rows_equal_brute_force(table, found)
    print(f"brute force: {equal} of {min(100, rows)} sampled rows' 10 nearest are the map's lists")
    if equal != min(100, rows):
        raise SystemExit("the map's neighbour lists differ from brute force")
    bare = bare_products(table)
    seconds = meta["seconds"]
    print(f"{rows:,} x {WIDTH}: stages (s) {seconds}; bare products {bare:.1f} s")
    print(f"recall@10 {meta['recall_at_10']:.3f}, {len(meta['regions']['sizes'])} regions")
    print(
        f"the Maps page's estimate before it starts: {expected.low:.0f} to {expected.high:.0f} s, "
        f"{forecast.peak_mb(shape):.0f} MB (measured: {cold:.0f} s, {peak_mb:.0f} MB)"
    )
    print(
        f"scale rows={rows} width={WIDTH} cold_s={cold:.1f} "
        f"neighbours_ratio={seconds['exact neighbours'] / bare:.2f} "
        f"regions_share={seconds['regions'] / cold:.3f} peak_mb={peak_mb:.0f}"
    )


if __name__ == "__main__":
    main()
