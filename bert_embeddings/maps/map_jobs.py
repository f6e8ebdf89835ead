"""Neighbour maps computed once, in the background, and kept on disk.

A map is a folder named by the model's table (a fingerprint of its bytes) and the settings:
its arrays (``coords.npy``; ``neighbours.npy``, each row's exact 10 nearest cosine neighbours;
``kept.npy``, how many of them the map keeps; ``regions.npy``, each row's region) and
``meta.json``, which holds the sha256 of each array, the faithfulness and the regions. A map whose
files are missing, cut short, or do not match their checksum is not a map: it is removed and
computed again, never shown.

The computation runs in its own process (``python -m bert_embeddings.maps.map_worker FOLDER``) at
the lowest CPU priority (SCHED_IDLE, and nice 19), so that a server's sessions keep the cores
they need; it reads the
table from ``table.npy`` in the folder, writes ``progress.json`` as it goes, and the finished
map last. Within one server process, every request for the same map joins the one job, and
one map is computed at a time: a worker holds some hundred MB, and a host's memory is small. A
map asked for meanwhile waits, queued, and starts at the first request after the other is done.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bert_embeddings import config
from bert_embeddings.errors import MapStorageError
from bert_embeddings.maps import forecast, map_reading, neighbour_map
from bert_embeddings.models import threads

COORDS, META, TABLE, PROGRESS, LOG = "coords.npy", "meta.json", "table.npy", "progress.json", "worker.log"
NEIGHBOURS, KEPT, REGIONS = "neighbours.npy", "kept.npy", "regions.npy"


def fingerprint(table: np.ndarray) -> str:
    """A short name for a table's exact contents (shape, dtype and bytes)."""
    digest = hashlib.blake2b(digest_size=12)
    digest.update(f"{table.shape}{table.dtype}".encode())
    digest.update(np.ascontiguousarray(table).data)
    return digest.hexdigest()


def default_settings() -> neighbour_map.Settings:
    """The settings the app's maps use (their iterations a host may set)."""
    return neighbour_map.Settings(iterations=config.map_iterations())


def map_name(table_fingerprint: str, shape: tuple[str, int]) -> str:
    """What a map is of: the table (its fingerprint) and, for any geometry but raw, the geometry
    (name and D) fitted to that table, which together name the rows mapped."""
    name, removed = shape
    return table_fingerprint if name == "raw" else f"{table_fingerprint}-{name}{removed or ''}"


def folder_for(table_fingerprint: str, settings: neighbour_map.Settings) -> Path:
    return config.explorer_cache_dir() / "maps" / table_fingerprint / settings.name()


@dataclass(frozen=True)
class Done:
    coords: np.ndarray  # (n, 2) float32
    meta: dict
    neighbours: np.ndarray  # (n, 10) int32: each row's exact nearest cosine neighbours
    kept: np.ndarray  # (n,) int8: how many of them the map keeps among its 10 nearest points
    regions: map_reading.Regions

    @property
    def occurrence(self) -> np.ndarray:
        """Each row's k-occurrence: in how many rows' 10 nearest neighbours it is."""
        return map_reading.k_occurrence(self.neighbours, len(self.coords))


# The map's arrays on disk: each file's dtype and its shape for a table of n rows.
ARRAYS = {
    COORDS: (np.float32, lambda n: (n, 2)),
    NEIGHBOURS: (np.int32, lambda n: (n, neighbour_map.RECALL_K)),
    KEPT: (np.int8, lambda n: (n,)),
    REGIONS: (np.int16, lambda n: (n,)),
}


def load(folder: Path, rows: int | None = None) -> Done | None:
    """The finished map in ``folder``, each file checked against its checksum; None if there is
    none. A damaged or partial map is removed, so that it is computed again."""
    meta_file = folder / META
    if not meta_file.exists():
        return None
    try:
        meta = json.loads(meta_file.read_text())
        arrays = {
            name: checked_array(folder / name, meta["sha256"][name], kind[0]) for name, kind in ARRAYS.items()
        }
        n = len(arrays[COORDS])
        if rows is not None and n != rows:
            raise ValueError("rows")
        for name, (_, shape) in ARRAYS.items():
            if arrays[name].shape != shape(n):
                raise ValueError("shape")
        if not np.isfinite(arrays[COORDS]).all():
            raise ValueError("values")
        regions = _regions(meta["regions"], arrays[REGIONS], n)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        for name in (META, *ARRAYS):
            (folder / name).unlink(missing_ok=True)
        return None
    for array in arrays.values():
        array.flags.writeable = False
    return Done(arrays[COORDS], meta, arrays[NEIGHBOURS], arrays[KEPT], regions)


def checked_array(path: Path, sha256: str, dtype) -> np.ndarray:
    """The array in ``path`` if its bytes match ``sha256`` and it holds ``dtype``; else ValueError."""
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError("checksum")
    array = np.load(io.BytesIO(data), allow_pickle=False)
    if array.dtype != dtype:
        raise ValueError("dtype")
    return array


def _regions(kept: dict, of_row: np.ndarray, n: int) -> map_reading.Regions:
    """The regions from meta.json's record of them, checked against the rows."""
    central = tuple(tuple(int(i) for i in ids) for ids in kept["central"])
    sizes = tuple(int(s) for s in kept["sizes"])
    anchors = np.asarray(kept["anchors"], dtype=np.float32).reshape(-1, 2)
    if not (len(central) == len(sizes) == len(anchors)) or of_row.max(initial=-1) >= len(sizes):
        raise ValueError("regions")
    if any(not 0 <= i < n for ids in central for i in ids):
        raise ValueError("regions")
    return map_reading.Regions(of_row, central, sizes, anchors)


def _temporary(path: Path) -> Path:
    """A name to write ``path`` under first, this process's own (replicas may share the folder)."""
    return path.with_name(f"{path.name}.{os.getpid()}.part")


def write_atomically(path: Path, data: bytes) -> None:
    temporary = _temporary(path)
    temporary.write_bytes(data)
    os.replace(temporary, path)


def npy_bytes(array: np.ndarray, dtype) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array, dtype=dtype), allow_pickle=False)
    return buffer.getvalue()


def save(folder: Path, result: neighbour_map.NeighbourMap, settings: neighbour_map.Settings) -> None:
    """The arrays first, then the meta file that vouches for them with their checksums (so a
    crash before it leaves no map rather than a wrong one)."""
    regions = result.regions
    values = {
        COORDS: result.coords,
        NEIGHBOURS: result.neighbours,
        KEPT: result.kept,
        REGIONS: regions.of_row,
    }
    sums = {}
    for name, (dtype, _) in ARRAYS.items():
        data = npy_bytes(values[name], dtype)
        write_atomically(folder / name, data)
        sums[name] = hashlib.sha256(data).hexdigest()
    meta = {
        "method": "t-SNE",
        "settings": settings.as_dict(),
        "rows": int(len(result.coords)),
        "recall_at_10": result.recall,
        "pca_recall_at_10": result.pca_recall,
        "seconds": result.seconds,
        "regions": {
            "central": [list(ids) for ids in regions.central],
            "sizes": list(regions.sizes),
            "anchors": regions.anchors.tolist(),
        },
        "sha256": sums,
    }
    write_atomically(folder / META, json.dumps(meta, indent=1).encode())


def read_progress(folder: Path) -> dict | None:
    try:
        return json.loads((folder / PROGRESS).read_text())
    except (OSError, ValueError):
        return None


def estimate(progress: dict | None) -> tuple[float, forecast.TimeLeft | None]:
    """(fraction of the whole done, time left or None) from a progress report."""
    try:
        steps = [forecast.Step(*step) for step in progress["history"]]
        left = forecast.seconds_left(steps, forecast.Shape(**progress["shape"]))
    except (TypeError, KeyError, ValueError, IndexError):
        return 0.0, None
    if left is None:
        return 0.0, None
    elapsed, middle = steps[-1].elapsed, (left.low + left.high) / 2
    return (min(elapsed / (elapsed + middle), 1.0) if elapsed + middle > 0 else 0.0), left


# --- the job, within one server process --------------------------------------------------------


@dataclass
class Job:
    folder: Path
    process: subprocess.Popen | None  # None while it waits for another map to be done
    started: float

    def running(self) -> bool:
        """Under way: computing, or waiting while another map is computed."""
        if self.process is None:
            return _computing(besides=self.folder)
        return self.process.poll() is None

    def waiting(self) -> bool:
        return self.process is None

    def failure(self) -> str | None:
        """Why the worker stopped without a map, if it did (its input, a copy of the table, is
        removed then: a worker killed outright could not remove it itself)."""
        code = None if self.process is None else self.process.poll()
        if code is None or code == 0:
            return None
        clear_inputs(self.folder)
        try:
            tail = (self.folder / LOG).read_text()[-400:].strip().splitlines()[-1]
        except (OSError, IndexError):
            tail = ""
        return f"the background process stopped (exit code {code}){': ' + tail if tail else ''}"


_jobs: dict[Path, Job] = {}
_lock = threading.Lock()


def _computing(besides: Path) -> bool:
    return any(
        j.process is not None and j.process.poll() is None for f, j in list(_jobs.items()) if f != besides
    )


def lowest_priority() -> None:
    """The calling process at background work's priority (models/threads.py)."""
    threads.background_priority()


def start(
    table: np.ndarray,
    settings: neighbour_map.Settings,
    table_fingerprint: str | None = None,
    prepare: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Job | Done:
    """The finished map if it is on disk; else the job computing it (started now unless this
    process already runs it: every caller then shares that one job; or waiting, if another map
    is being computed). ``prepare``: what to map instead of ``table`` itself (e.g. its rows in
    another geometry, named by ``table_fingerprint``), made only when the worker starts."""
    folder = folder_for(table_fingerprint or fingerprint(table), settings)

    def inputs() -> None:
        sweep(folder.parent.parent)  # (under maps/: every table's folders)
        _save_table(folder / TABLE, table if prepare is None else prepare(table))

    worker = ["bert_embeddings.maps.map_worker", str(folder), json.dumps(settings.as_dict())]
    return start_job(folder, lambda: load(folder, len(table)), inputs, worker)


def start_job(
    folder: Path,
    finished: Callable[[], object],
    inputs: Callable[[], None],
    worker: list[str],
    what: str = "The t-SNE map",
):
    """What ``finished()`` returns if it is not None; else the job in ``folder`` (its progress
    and log), joined if it runs, or started now: ``inputs()`` writes the worker's input, then
    ``python -m *worker`` runs at the lowest priority. One job computes at a time in a process,
    maps and stage spaces alike (each holds some hundred MB); the others wait their turn."""
    with _lock:
        job = _jobs.get(folder)
        if job is not None and job.running():
            return job
        done = finished()
        if done is not None:
            return done
        if job is not None and job.failure():
            return job  # the page says why; ``retry`` starts again
        if _computing(besides=folder):
            job = _jobs[folder] = Job(folder, None, time.time())
            return job
        try:
            folder.mkdir(parents=True, exist_ok=True)
            inputs()
            (folder / PROGRESS).unlink(missing_ok=True)
            log = open(folder / LOG, "w")
        except OSError as error:
            raise MapStorageError(storage_problem(error, what=what)) from None
        env = {**os.environ, "OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"}
        with log:
            process = subprocess.Popen(
                [sys.executable, "-m", *worker],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=lowest_priority,
            )
        job = _jobs[folder] = Job(folder, process, time.time())
        return job


def storage_problem(error: OSError, on_server: bool = True, what: str = "The t-SNE map") -> str:
    """What can be done when the cache folder cannot take a map (the folder is the server's own
    setting, never a link's, so naming it helps the person who can fix it): on the page, said to
    a reader of the app (``on_server``); else to the host running the command or a notebook."""
    import errno

    where = config.explorer_cache_dir()
    why = {
        errno.ENOTDIR: "part of that path is a file, not a folder",
        errno.EEXIST: "part of that path is a file, not a folder",
        errno.EACCES: "this server may not write there",
        errno.EPERM: "this server may not write there",
        errno.EROFS: "that disk is read-only",
        errno.ENOSPC: "that disk is full",
        errno.EDQUOT: "that disk is full (quota)",
    }.get(error.errno, error.strerror or type(error).__name__)
    if not on_server:
        return (
            f"{what} cannot be kept in the cache folder {where}: {why}. Point BERT_EXPLORER_CACHE "
            "at a folder you may write to, with some hundred MB free, and run it again."
        )
    return (
        f"{what} cannot be kept in the cache folder {where}: {why}. Whoever runs this server "
        "can point BERT_EXPLORER_CACHE at a folder it may write to, with some hundred MB free; "
        "then try again. Every other map and page works as before."
    )


def job_in(folder: Path) -> Job | None:
    """The job this process knows of in ``folder``: running, queued, or failed (kept until
    ``retry``, so that everyone who looks sees why it stopped; ``start`` joins any of them)."""
    with _lock:
        job = _jobs.get(folder)
    return job if job is not None and (job.running() or job.waiting() or job.failure()) else None


def retry(folder: Path) -> None:
    """Forget a failed job, so that the next ``start`` begins again (the caller asks for it in the
    same step: "Try again" means start again)."""
    with _lock:
        job = _jobs.get(folder)
        if job is not None and not job.running():
            del _jobs[folder]


LEFTOVER_SECONDS = 24 * 3600  # a worker's input this old is no running job's (replicas share folders)


def clear_inputs(folder: Path, pid: int | None = None) -> None:
    """A worker's input and progress in ``folder``, and its half-written files (``pid``'s, or
    every process's): never part of a finished map."""
    for name in (TABLE, PROGRESS):
        (folder / name).unlink(missing_ok=True)
    for part in folder.glob(f"*.{pid if pid is not None else '*'}.part"):
        part.unlink(missing_ok=True)


def sweep(root: Path, now: float | None = None) -> list[Path]:
    """Every map folder under ``root`` whose worker's input is over a day old: a worker killed
    outright, in any process, left it behind. Its files are removed; the folders are returned."""
    now = time.time() if now is None else now
    swept = []
    for table in root.glob(f"*/*/{TABLE}"):
        try:
            old = now - table.stat().st_mtime > LEFTOVER_SECONDS
        except OSError:
            continue
        if old:
            clear_inputs(table.parent)
            swept.append(table.parent)
    return swept


def _save_table(path: Path, table: np.ndarray) -> None:
    """The table for the worker, written straight from the model's array (no copy in memory)."""
    temporary = _temporary(path)
    with open(temporary, "wb") as handle:
        np.save(handle, np.ascontiguousarray(table), allow_pickle=False)
    os.replace(temporary, path)
