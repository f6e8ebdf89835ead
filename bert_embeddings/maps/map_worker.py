"""The map worker: the process a server starts to compute one t-SNE map (bert_embeddings/maps/map_jobs.py),
``python -m bert_embeddings.maps.map_worker FOLDER SETTINGS``, at the lowest CPU priority.

It reads the table from ``table.npy`` in the folder, writes ``progress.json`` as it goes and the
finished map last, and on every way out removes its input (a 47 MB copy of the table for
bert-base) and its half-written files: an error, a full disk, SIGTERM. A worker killed outright
(SIGKILL) cannot; the server removes them when it sees the worker gone, and ``map_jobs.sweep``
removes any left over a day when the next map starts.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from bert_embeddings.maps import forecast, map_jobs, neighbour_map, pace


def work(folder: Path, settings: neighbour_map.Settings, threads: int = 2) -> None:
    """Compute the map of ``folder/table.npy`` and save it there, reporting progress."""
    table = np.load(folder / map_jobs.TABLE, mmap_mode="r")
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
        report = {"stage": stage, "history": history, "shape": asdict(shape)}
        map_jobs.write_atomically(folder / map_jobs.PROGRESS, json.dumps(report).encode())

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


class _Stopped(BaseException):
    """SIGTERM: the worker stops the way an exception would, so that it cleans up after itself."""


def _stop(signum, frame) -> None:
    raise _Stopped


def main(folder: Path, settings_json: str) -> int:
    return run(folder, lambda: work(folder, neighbour_map.Settings(**json.loads(settings_json))))


def run(folder: Path, job: Callable[[], None], what: str = "The t-SNE map") -> int:
    """A worker process's whole life: ``job()``, or an exit code; its input in ``folder`` is
    removed on every way out (a SIGKILL aside: the server removes it then, and old leftovers are
    swept, see ``map_jobs.sweep``)."""
    signal.signal(signal.SIGTERM, _stop)
    try:
        job()
        return 0
    except OSError as error:  # a full or read-only disk: the last line of the log is the page's reason
        print(map_jobs.storage_problem(error, what=what), flush=True)
        return 3
    except _Stopped:
        print("stopped (SIGTERM)", flush=True)
        return 143
    finally:
        map_jobs.clear_inputs(folder, os.getpid())


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
