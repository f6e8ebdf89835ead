"""A worker process's life: its job, its progress, and its clean way out.

Every background job runs as ``python -m <its module> ...``, started by jobs.local at background
work's priority. ``run`` gives it the same ending whatever happens: on success exit 0; a full or
read-only disk exits 3 with the reason as its log's last line (which the page shows); SIGTERM
stops it as an exception would (exit 143); and on every way out its input and its half-written
files are removed. A worker killed outright (SIGKILL) cannot: the server removes them when it
sees the worker gone (jobs.local.Job.failure), and files.sweep removes any left over a day.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from bert_embeddings.jobs import files


class _Stopped(BaseException):
    """SIGTERM: the worker stops the way an exception would, so that it cleans up after itself."""


def _stop(signum, frame) -> None:
    raise _Stopped


def run(folder: Path, job: Callable[[], None], what: str = "The t-SNE map") -> int:
    """A worker process's whole life: ``job()``, or an exit code; its input in ``folder`` is
    removed on every way out."""
    signal.signal(signal.SIGTERM, _stop)
    try:
        job()
        return 0
    except OSError as error:  # a full or read-only disk: the last line of the log is the page's reason
        print(files.storage_problem(error, what=what), flush=True)
        return 3
    except _Stopped:
        print("stopped (SIGTERM)", flush=True)
        return 143
    finally:
        files.clear_inputs(folder, os.getpid())


def reporter(job_folder: Path) -> Callable[[str, float], None]:
    """``report(step, fraction)`` for a job whose steps have no forecast of their own: each call
    writes the step, how far along it is, and the seconds since the job began (the job panel
    extrapolates the time left from them, jobs.progress.time_left)."""
    began = time.time()

    def report(step: str, fraction: float) -> None:
        progress = {"stage": step, "fraction": round(fraction, 4), "elapsed": round(time.time() - began, 2)}
        files.write_atomically(job_folder / files.PROGRESS, json.dumps(progress).encode())

    return report
