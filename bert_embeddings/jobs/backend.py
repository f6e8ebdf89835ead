"""Where background jobs run, as the host chose (BERT_EXPLORER_JOBS): ``local``, the default, a
process this server starts (jobs.local); or a Redis URL, a queue that workers take them from
(jobs.queue). Both answer the same three questions the same way, so maps/, spaces/ and the job
panel never ask which it is.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bert_embeddings import config
from bert_embeddings.jobs import local, queue

Job = local.Job | queue.QueuedJob  # either answers running, waiting, failure, report, waits_for


def start(
    folder: Path,
    finished: Callable[[], object],
    inputs: Callable[[], None],
    worker: list[str],
    what: str = "The t-SNE map",
):
    """The finished result, or the job making it: joined, waiting, failed (until ``retry``) or
    started now (jobs.local.start, jobs.queue.start)."""
    if config.jobs_queue():
        return queue.start(folder, finished, inputs, worker, what)
    return local.start(folder, finished, inputs, worker, what)


def job_in(folder: Path) -> Job | None:
    """The job of ``folder`` running, waiting or failed, wherever it runs; else None."""
    return queue.job_in(folder) if config.jobs_queue() else local.job_in(folder)


def retry(folder: Path) -> None:
    """Forget a failed job, so that the next ``start`` begins it again."""
    (queue.retry if config.jobs_queue() else local.retry)(folder)


def is_job(item: object) -> bool:
    return isinstance(item, local.Job | queue.QueuedJob)
