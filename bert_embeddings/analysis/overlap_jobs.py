"""How much each geometry changes every piece's neighbours: over the whole vocabulary, the
mean share of each row's 10 nearest by raw cosine that stay among its 10 nearest in the
geometry (geometry.all_neighbours, geometry.overlap), exactly.

That is a full n x n product per geometry (some 15 s for 30,522 rows on two idle cores),
so it runs once per table and geometry, in one background thread per process at the
lowest CPU priority, one geometry at a time; every session asking for the same figure waits
for that one computation. A session has one request in the queue at a time (``request``):
what it asked for before, if nobody else wants it and it has not started, leaves the queue,
so that someone trying D after D cannot put a newcomer behind all of them. The figures stay
in memory for the process (a few floats each); each table's raw neighbour lists (n x 10 int32,
1.2 MB) are kept while its geometries are computed.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import geometry
from bert_embeddings.errors import ExplorerError
from bert_embeddings.jobs import priority

log = logging.getLogger("bert_explorer")


@dataclass(frozen=True)
class Pending:
    """Not computed yet: how many geometries are ahead of it, this one included."""

    ahead: int


@dataclass(frozen=True)
class Failed:
    reason: str
    again_after: float = math.inf  # time.monotonic() after which it is computed again if asked


RETRY_AFTER = 60.0  # seconds an unexpected failure is shown before it is tried again


_lock = threading.Lock()
_figures: dict[tuple[str, str, int], float | Pending | Failed] = {}
_places: dict[tuple[str, str, int], tuple[int, np.ndarray]] = {}  # each pending task's place in line
_finished: list[int] = [0]  # the place of the task finished last
_current: list = [None]  # the task the worker computes now
_asked: dict[str, set[tuple[str, str, int]]] = {}  # each session's latest request
_askers: dict[tuple[str, str, int], set[str]] = {}  # the sessions whose latest request holds a task
_raw: dict[str, np.ndarray] = {}
_tasks: queue.Queue = queue.Queue()
_worker: list[threading.Thread] = []


def request(
    asker: str, key: str, table: np.ndarray, shapes: list[tuple[str, int]]
) -> list[float | Pending | Failed]:
    """``overlap_with_raw`` for each of ``shapes`` (name, D), as one session's (``asker``'s)
    request, which replaces its last one: a task only that request wanted, not yet started, is
    withdrawn (asked for again, it queues again)."""
    tasks = [(key, *geometry.shape(name, removed)) for name, removed in shapes]
    with _lock:
        for old in _asked.pop(asker, set()) - set(tasks):
            wanting = _askers.get(old, set())
            wanting.discard(asker)
            if not wanting and old != _current[0] and isinstance(_figures.get(old), Pending):
                del _figures[old]  # the worker skips it when it comes up
                _places.pop(old, None)
                _askers.pop(old, None)
        found = [_ask(task, table) for task in tasks]
        if any(isinstance(f, Pending) for f in found):  # (a request answered in full is forgotten)
            _asked[asker] = set(tasks)
            for task in tasks:
                _askers.setdefault(task, set()).add(asker)
        return found


def overlap_with_raw(key: str, table: np.ndarray, name: str, removed: int = 0) -> float | Pending | Failed:
    """The mean overlap@10 of ``name`` (with D ``removed``) with raw cosine for ``table``
    (``key`` names its exact contents): the figure once computed, else Pending (and the
    computation is queued, once) or Failed. A figure that failed unexpectedly is computed
    again when asked for a minute later; a worker that died is replaced, and takes up its
    last task."""
    with _lock:
        return _ask((key, *geometry.shape(name, removed)), table)


def _ask(task: tuple[str, str, int], table: np.ndarray) -> float | Pending | Failed:
    """(With the lock held.)"""
    if _worker and not _worker[0].is_alive():
        if _current[0] is not None:
            _tasks.put((_current[0], _places[_current[0]][1]))
        _start_worker()
    found = _figures.get(task)
    if found is None or isinstance(found, Failed) and time.monotonic() > found.again_after:
        _figures[task] = Pending(1)
        _places[task] = (max((p for p, _ in _places.values()), default=_finished[0]) + 1, table)
        _tasks.put((task, table))
        if not _worker:
            _start_worker()
    elif not isinstance(found, Pending):
        return found
    place = _places[task][0]
    return Pending(sum(1 for other, _ in _places.values() if other <= place))


def _start_worker() -> None:
    _current[0] = None
    _worker[:] = [threading.Thread(target=_work, name="geometry-overlap", daemon=True)]
    _worker[0].start()


def _lowest_priority() -> None:
    """This thread only, at background work's priority (jobs/priority.py)."""
    priority.background_priority(threading.get_native_id())


def _work() -> None:
    _lowest_priority()
    while True:
        task, table = _tasks.get()
        with _lock:
            if task not in _places:  # withdrawn while it waited
                continue
            _current[0] = task
        key, name, removed = task
        try:
            figure = compute(table, name, removed, _raw_lists(key, table))
        except ExplorerError as problem:  # e.g. D beyond the table's rank: said as it is
            figure = Failed(str(problem))
        except Exception as problem:  # a worker must not die silently: the page says why
            log.exception("overlap of %s with raw failed", name)
            figure = Failed(f"{type(problem).__name__}: {problem}", time.monotonic() + RETRY_AFTER)
        with _lock:
            _figures[task] = figure
            _finished[0] = _places.pop(task)[0]
            _askers.pop(task, None)
            _current[0] = None
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
