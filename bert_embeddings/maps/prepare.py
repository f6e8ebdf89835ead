"""What a host computes ahead of time for a model: its t-SNE maps, into the same cache folder
and under the same names as the app's background jobs (map_jobs), so that a server finds them
finished. Used by ``python -m bert_embeddings map`` (bert_embeddings/__main__.py).

Computed in the calling process, with every core the machine has (the map is the same to the
last bit however many threads compute it). A map already on disk and whole is left as it is.
If writing fails (a full or read-only disk), the files of the unfinished map are removed, so
nothing half-written stays behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bert_embeddings.analysis import geometry
from bert_embeddings.errors import MapStorageError
from bert_embeddings.jobs import files
from bert_embeddings.maps import map_jobs, neighbour_map


@dataclass(frozen=True)
class Prepared:
    shape: tuple[str, int]  # the geometry (name, D)
    folder: Path
    computed: bool  # False: it was on disk already
    recall_at_10: float


def shapes(names: list[str], removed: int | None, hidden: int) -> list[tuple[str, int]]:
    """The geometries asked for ('all' is every one), with all-but-the-top's D checked (by
    default about the width / 100, as the app's)."""
    names = list(geometry.GEOMETRIES) if "all" in names else list(dict.fromkeys(names))
    d = geometry.default_removed(hidden) if removed is None else removed
    return [geometry.key(name, d) for name in names]


def prepare_map(
    table: np.ndarray,
    shape: tuple[str, int],
    settings: neighbour_map.Settings,
    progress: Callable[[str, float], None] | None = None,
    threads: int | None = None,
) -> Prepared:
    """The t-SNE map of ``table`` in the geometry ``shape``, in the app's cache folder."""
    rows = table
    if shape[0] != "raw":
        rows = geometry.transformed_table(table, geometry.fit(table, *shape))
    folder = map_jobs.folder_for(map_jobs.map_name(files.fingerprint(table), shape), settings)
    done = map_jobs.load(folder, len(table))
    if done is not None:
        return Prepared(shape, folder, False, float(done.meta["recall_at_10"]))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        cores, report = threads or os.cpu_count() or 1, progress or (lambda stage, done: None)
        result = neighbour_map.compute(np.asarray(rows), settings, cores, report)
        map_jobs.save(folder, result, settings)
    except OSError as error:
        _remove_unfinished(folder)
        raise MapStorageError(files.storage_problem(error, on_server=False)) from None
    except BaseException:  # interrupted: no partial map either
        _remove_unfinished(folder)
        raise
    return Prepared(shape, folder, True, float(result.recall))


def queue_map(table: np.ndarray, shape: tuple[str, int], settings: neighbour_map.Settings):
    """The map of ``table`` in ``shape`` as the app names it: finished, or the background job
    making it (on the job queue, when the host set one), started now if there is none."""
    fitted = None if shape[0] == "raw" else geometry.fit(table, *shape)
    prepare = None if fitted is None else (lambda rows: geometry.transformed_table(rows, fitted))
    return map_jobs.start(table, settings, map_jobs.map_name(files.fingerprint(table), shape), prepare)


def _remove_unfinished(folder: Path) -> None:
    if not folder.is_dir():
        return
    map_jobs.remove(folder)
    for part in folder.glob(f"*.{os.getpid()}.part"):
        part.unlink(missing_ok=True)
    try:
        folder.rmdir()  # only if nothing else is in it
    except OSError:
        pass
