"""The map worker: the process that computes one t-SNE map (bert_embeddings/maps/map_jobs.py),
``python -m bert_embeddings.maps.map_worker FOLDER SETTINGS``, started at background work's
priority wherever the host runs background jobs (jobs.backend).

It reads the table from ``table.npy`` in the folder, writes ``progress.json`` as it goes (each
stage's history, for the forecast of the time left) and the finished map last, its arrays and
then their record (map_jobs.save, through jobs.records); its life and its way out, whatever
happens, are jobs.worker.run's (its input, a 47 MB copy of the table for bert-base, is removed on
every way out).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from bert_embeddings.jobs import files, worker
from bert_embeddings.maps import forecast, map_jobs, neighbour_map, pace


def work(folder: Path, settings: neighbour_map.Settings, threads: int = 2) -> None:
    """Compute the map of ``folder/table.npy`` and save it there, reporting progress."""
    table = np.load(folder / files.TABLE, mmap_mode="r")
    began = time.time()
    rows, width = table.shape
    shape = forecast.Shape.of(rows, width, settings)
    history: list[list] = []

    def progress(stage: str, fraction: float) -> None:
        step = [neighbour_map.STAGES.index(stage), round(fraction, 4), round(time.time() - began, 2)]
        # Every stage's start, and then a report per 5 % of it: enough for the forecast, a
        # small file.
        if history and history[-1][0] == step[0] and step[1] - history[-1][1] < 0.05 and step[1] < 1:
            return
        if step[0] == TABLE_READ and (not history or history[-1][0] < TABLE_READ):
            let_go(table)
        history.append(step)
        done, left = forecast.whole([forecast.Step(*s) for s in history], shape)
        report = {
            "stage": stage,
            "fraction": round(done, 4),
            "elapsed": step[2],
            "left": None if left is None else [round(left.low, 1), round(left.high, 1)],
        }
        files.write_atomically(folder / files.PROGRESS, json.dumps(report).encode())

    result = neighbour_map.compute(np.asarray(table), settings, threads, progress)
    map_jobs.save(folder, result, settings)
    pace.record(folder.parent.parent, shape, time.time() - began)  # (the maps' folder)


TABLE_READ = neighbour_map.STAGES.index("affinities")  # the whole table is read before it


def let_go(table: np.ndarray) -> None:
    """Hand the table's pages back to the system once the neighbours and the start are found:
    the layout does not read it (the regions read their members' rows again, from disk or the
    system's cache), and a big vocabulary's table would otherwise stay in the worker's memory
    through the layout (367 MB for mBERT)."""
    import mmap

    held = getattr(table, "_mmap", None)
    if held is not None and hasattr(mmap, "MADV_DONTNEED"):
        held.madvise(mmap.MADV_DONTNEED)


def main(folder: Path, settings_json: str) -> int:
    return worker.run(folder, lambda: work(folder, neighbour_map.Settings(**json.loads(settings_json))))


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
