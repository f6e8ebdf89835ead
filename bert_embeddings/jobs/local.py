"""Background jobs run by this server process itself: each one a worker process it starts at
background work's priority (jobs.priority), one heavy job at a time.

A job lives in a folder of its own (its input, ``progress.json`` and the worker's log) and is
named by it: within one server process every request for the same folder joins the one job.
A t-SNE map's worker or a stage space's holds some hundred MB and a host's memory is small, so
one job computes at a time, maps and spaces alike; a job asked for meanwhile waits, queued, and
starts at the first request after the other is done.

``job_in`` and ``retry`` keep the rule every job follows (bert_embeddings.jobs) for the jobs this
process knows of.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bert_embeddings.errors import MapStorageError
from bert_embeddings.jobs import files, priority, progress


@dataclass
class Job:
    folder: Path
    process: subprocess.Popen | None  # None while it waits for another job to be done
    started: float

    def running(self) -> bool:
        """Under way: computing, or waiting while another job computes."""
        if self.process is None:
            return _computing(besides=self.folder)
        return self.process.poll() is None

    def waiting(self) -> bool:
        return self.process is None

    def failure(self) -> str | None:
        """Why the worker stopped without its result, if it did (its input, maybe a copy of a
        table, is removed then: a worker killed outright could not remove it itself)."""
        code = None if self.process is None else self.process.poll()
        if code is None or code == 0:
            return None
        files.clear_inputs(self.folder)
        return stopped(self.folder, code)

    def report(self) -> dict | None:
        """The worker's latest progress report (jobs.progress), or None."""
        return progress.read(self.folder)

    def waits_for(self) -> str:
        return (
            "waiting while another map or space is computed on this server (one at a time, so that "
            "the server keeps memory for everyone's pages)"
        )


def stopped(folder: Path, code: int) -> str:
    """Why a worker that exited with ``code`` stopped: its log's last line says, if it wrote one."""
    try:
        tail = (folder / files.LOG).read_text()[-400:].strip().splitlines()[-1]
    except (OSError, IndexError):
        tail = ""
    return f"the background process stopped (exit code {code}){': ' + tail if tail else ''}"


def launch(
    folder: Path, worker: list[str], what: str, preexec=priority.background_priority
) -> subprocess.Popen:
    """``python -m *worker`` at background work's priority, two threads, its output in the job's
    log; a folder that cannot take the log raises MapStorageError saying what to fix."""
    try:
        log = open(folder / files.LOG, "w")
    except OSError as error:
        raise MapStorageError(files.storage_problem(error, what=what)) from None
    env = {**os.environ, "OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"}
    with log:
        return subprocess.Popen(
            [sys.executable, "-m", *worker], env=env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=preexec
        )


_jobs: dict[Path, Job] = {}
_lock = threading.Lock()


def _computing(besides: Path) -> bool:
    return any(
        j.process is not None and j.process.poll() is None for f, j in list(_jobs.items()) if f != besides
    )


def start(
    folder: Path,
    finished: Callable[[], object],
    inputs: Callable[[], None],
    worker: list[str],
    what: str = "The t-SNE map",
):
    """What ``finished()`` returns if it is not None; else the job in ``folder``: joined if it
    runs, its failure if it failed (until ``retry``), queued if another job computes, or started
    now: ``inputs()`` writes the worker's input, then ``python -m *worker`` runs at background
    work's priority. A folder that cannot be written raises MapStorageError saying what to fix."""
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
        prepare(folder, inputs, what)
        job = _jobs[folder] = Job(folder, launch(folder, worker, what), time.time())
        return job


def prepare(folder: Path, inputs: Callable[[], None], what: str) -> None:
    """A job's folder made and its input written (``inputs``), its last progress report gone; a
    folder that cannot be written raises MapStorageError saying what to fix."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        inputs()
        (folder / files.PROGRESS).unlink(missing_ok=True)
    except OSError as error:
        raise MapStorageError(files.storage_problem(error, what=what)) from None


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
