"""How much each geometry changes every piece's neighbours: over the whole vocabulary, the
mean share of each row's 10 nearest by raw cosine that stay among its 10 nearest in the
geometry (geometry.all_neighbours, geometry.overlap), exactly.

That is a full n x n product per geometry (about half a minute for 30,522 rows on two
cores), so it runs once per table and geometry, in one background thread per process at the
lowest CPU priority, one geometry at a time; every session asking for the same figure waits
for that one computation. The figures stay in memory for the process (a few floats each);
each table's raw neighbour lists (n x 10 int32, 1.2 MB) are kept while its geometries are
computed.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from dataclasses import dataclass

import numpy as np

from bert_embeddings import geometry
from bert_embeddings.errors import ExplorerError

log = logging.getLogger("bert_explorer")


@dataclass(frozen=True)
class Pending:
    """Not computed yet: how many geometries are ahead of it, this one included."""

    ahead: int


@dataclass(frozen=True)
class Failed:
    reason: str


_lock = threading.Lock()
_figures: dict[tuple[str, str, int], float | Pending | Failed] = {}
_raw: dict[str, np.ndarray] = {}
_tasks: queue.Queue = queue.Queue()
_worker: list[threading.Thread] = []


def overlap_with_raw(key: str, table: np.ndarray, name: str, removed: int = 0) -> float | Pending | Failed:
    """The mean overlap@10 of ``name`` (with D ``removed``) with raw cosine for ``table``
    (``key`` names its exact contents): the figure once computed, else Pending (and the
    computation is queued, once) or Failed."""
    task = (key, *geometry.shape(name, removed))
    with _lock:
        found = _figures.get(task)
        if isinstance(found, Pending):
            return Pending(sum(isinstance(f, Pending) for f in _figures.values()))
        if found is not None:
            return found
        _figures[task] = Pending(1)
        _tasks.put((task, table))
        if not _worker or not _worker[0].is_alive():
            _worker[:] = [threading.Thread(target=_work, name="geometry-overlap", daemon=True)]
            _worker[0].start()
        return Pending(sum(isinstance(f, Pending) for f in _figures.values()))


def _lowest_priority() -> None:
    """This thread only (Linux gives each thread its own scheduling): idle, then nice 19."""
    tid = threading.get_native_id()
    try:
        os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        try:
            os.setpriority(os.PRIO_PROCESS, tid, 19)
        except (AttributeError, OSError):
            pass


def _work() -> None:
    _lowest_priority()
    while True:
        task, table = _tasks.get()
        key, name, removed = task
        try:
            figure = compute(table, name, removed, _raw_lists(key, table))
        except ExplorerError as problem:  # e.g. D beyond the table's rank: said as it is
            figure = Failed(str(problem))
        except Exception as problem:  # a worker must not die silently: the page says why
            log.exception("overlap of %s with raw failed", name)
            figure = Failed(f"{type(problem).__name__}: {problem}")
        with _lock:
            _figures[task] = figure
            if not any(isinstance(f, Pending) and t[0] == key for t, f in _figures.items()):
                _raw.pop(key, None)  # nothing else of this table to compare


def _raw_lists(key: str, table: np.ndarray) -> np.ndarray:
    if key not in _raw:
        _raw[key] = geometry.all_neighbours(table, geometry.fit(table, "raw"))
    return _raw[key]


def compute(table: np.ndarray, name: str, removed: int, raw: np.ndarray | None = None) -> float:
    """The figure itself, in the calling thread."""
    raw = geometry.all_neighbours(table, geometry.fit(table, "raw")) if raw is None else raw
    if name == "raw":
        return 1.0
    return geometry.overlap(raw, geometry.all_neighbours(table, geometry.fit(table, name, removed)))
