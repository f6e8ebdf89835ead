"""Background jobs on a queue in Redis (BERT_EXPLORER_JOBS=redis://...), run by workers: RQ.

The same jobs as jobs.local (a folder, its input, ``python -m <worker module> ...``), with three
differences that make them fit replicas:

- **One job per name, across every replica.** A job's RQ id is named by its folder, and the
  folder by what the job computes (the model's fingerprint, the stage, the geometry, the
  settings). Asking for it looks the job up and, only if there is none to join, puts it on the
  queue: both under one Redis lock, so two replicas asking at once make one job.
- **Workers compute, web servers never do.** ``python -m bert_embeddings worker`` (an RQ
  ``SimpleWorker`` on the ``explorer`` queue) takes one job at a time and runs its worker module
  as a child process at background work's priority, which dies with it.
- **Everyone sees it through Redis.** While the child runs, the worker renews a key every
  second with the child's latest progress report; every replica's job panel reads it. A job
  that RQ says is running but whose key has lapsed (``BEAT_SECONDS``) lost its worker (killed,
  out of memory, its machine gone): it is shown as failed, with a retry, and its leftovers are
  removed. A job that failed keeps its reason in RQ until someone tries again.

The results go where the pages read them: the cache folder, which every replica and worker
mounts at the same path. Redis that does not answer within ``ANSWER_SECONDS`` raises
JobQueueError: the page says background work cannot start now and shows what is on disk.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bert_embeddings import config
from bert_embeddings.errors import JobQueueError
from bert_embeddings.jobs import files, local, priority, progress

QUEUE = "explorer"
BEAT_SECONDS = 10  # a running job's word lapses after this long without a renewal
ANSWER_SECONDS = 3  # how long a page waits for Redis before it says background work cannot start
JOB_TIMEOUT = 6 * 3600  # the longest job (a big vocabulary's map on a small worker) and then some
FAILURE_TTL = 7 * 24 * 3600
ENQUEUED = "explorer:jobs:enqueued"  # how many jobs were ever put on the queue (the benchmark counts)
_WAITING = {"queued", "deferred", "scheduled", "created"}
_FAILED = {"failed", "stopped", "canceled"}

_connections: dict[str, object] = {}


def connection(url: str | None = None):
    """The app's Redis client for the queue: quick to give up (ANSWER_SECONDS), so that no page
    hangs on a Redis that does not answer."""
    from redis import Redis

    url = url or config.jobs_queue()
    if url not in _connections:
        _connections[url] = Redis.from_url(
            url, socket_connect_timeout=ANSWER_SECONDS, socket_timeout=ANSWER_SECONDS
        )
    return _connections[url]


def job_id(folder: Path) -> str:
    """The job's RQ id: its folder's path, which names what it computes, made short."""
    return "explorer-" + hashlib.blake2b(str(Path(folder)).encode(), digest_size=12).hexdigest()


def _beat_key(name: str) -> str:
    return f"explorer:jobs:beat:{name}"


def unreachable(error: Exception) -> JobQueueError:
    return JobQueueError(
        "Background work cannot start now: the job queue (BERT_EXPLORER_JOBS) does not answer "
        f"({type(error).__name__}). Everything already computed is still shown; try again in a "
        "minute, or tell whoever runs this server."
    )


@dataclass(frozen=True)
class Look:
    """What Redis says of a job at one moment."""

    status: str | None  # RQ's status; None: RQ has no such job
    reason: str | None  # why it failed, if it did
    beat: dict | None  # the worker's latest word: its child's progress report
    since: float  # when it was put on the queue, or when it started


@dataclass
class QueuedJob:
    """A job on the queue, as every replica sees it: each question asks Redis afresh."""

    folder: Path
    id: str
    started: float

    def look(self) -> Look:
        return _guarded(lambda: _look(connection(), self.id))

    def running(self) -> bool:
        seen = self.look()
        return seen.status in _WAITING or (seen.status == "started" and not _lost(seen))

    def waiting(self) -> bool:
        return self.look().status in _WAITING

    def failure(self) -> str | None:
        seen = self.look()
        if seen.status in _FAILED:
            files.clear_inputs(self.folder)
            return seen.reason or "the worker stopped without saying why"
        if seen.status == "started" and _lost(seen):
            files.clear_inputs(self.folder)
            return (
                f"the worker computing it stopped answering for {BEAT_SECONDS} s (it was stopped, ran out "
                "of memory, or its machine went away)"
            )
        return None

    def report(self) -> dict | None:
        return self.look().beat

    def waits_for(self) -> str:
        try:
            from rq import Worker

            workers = Worker.count(connection=connection(), queue=_queue(connection()))
        except Exception:
            workers = 0
        if workers == 0:
            return (
                "waiting for a worker: none is running now. Whoever runs this server can start one "
                "(python -m bert_embeddings worker)"
            )
        return "waiting for a worker (each takes one job at a time)"


def _lost(seen: Look) -> bool:
    return seen.beat is None and time.time() - seen.since > BEAT_SECONDS


def _look(redis, name: str) -> Look:
    from rq.exceptions import NoSuchJobError
    from rq.job import Job

    try:
        job = Job.fetch(name, connection=redis)
    except NoSuchJobError:
        return Look(None, None, None, time.time())
    status = job.get_status(refresh=False)
    status = getattr(status, "value", status)
    reason = job.meta.get("reason")
    if status in _FAILED and not reason:
        lines = (job.exc_info or "").strip().splitlines()
        reason = lines[-1] if lines else None
    raw = redis.get(_beat_key(name))
    try:
        beat = json.loads(raw) if raw else None
    except ValueError:
        beat = {}
    when = job.started_at if status == "started" and job.started_at else job.enqueued_at
    return Look(status, reason, beat if isinstance(beat, dict) or beat is None else {}, _seconds(when))


def _seconds(when) -> float:
    return when.timestamp() if when is not None else time.time()


def _queue(redis):
    from rq import Queue

    return Queue(QUEUE, connection=redis)


def _known(redis, folder: Path) -> QueuedJob | None:
    """The job of ``folder`` that is running, waiting or failed (kept until ``retry``)."""
    name = job_id(folder)
    seen = _look(redis, name)
    if seen.status is None or seen.status == "finished":
        return None
    return QueuedJob(folder, name, seen.since)


def _guarded(call):
    """``call()``, with Redis' own errors said as JobQueueError."""
    from redis.exceptions import RedisError

    try:
        return call()
    except RedisError as error:
        raise unreachable(error) from None


def _lock(redis, name: str):
    """The lock held while a job is looked up and put on the queue, or forgotten."""
    return redis.lock(f"explorer:jobs:lock:{name}", timeout=120, blocking_timeout=ANSWER_SECONDS * 2)


def start(
    folder: Path, finished: Callable[[], object], inputs: Callable[[], None], worker: list[str], what: str
):
    """As jobs.local.start, on the queue: the finished result from disk; else the job of
    ``folder`` anywhere (running, waiting, or failed until ``retry``); else a new job, its input
    written first. Looking and enqueueing hold one lock, so replicas asking at once make one job."""
    done = finished()
    if done is not None:
        return done
    redis = connection()

    def under_lock():
        with _lock(redis, job_id(folder)):
            job = _known(redis, folder)
            if job is not None:
                return job
            again = finished()  # another replica's job may have just finished
            if again is not None:
                return again
            local.prepare(folder, inputs, what)
            name = job_id(folder)
            _queue(redis).enqueue_call(
                "bert_embeddings.jobs.queue.run",
                args=(str(folder), list(worker), what),
                job_id=name,
                timeout=JOB_TIMEOUT,
                failure_ttl=FAILURE_TTL,
                description=f"{what}: {folder}",
                meta={"folder": str(folder)},
            )
            redis.incr(ENQUEUED)
            return QueuedJob(folder, name, time.time())

    return _guarded(under_lock)


def job_in(folder: Path) -> QueuedJob | None:
    return _guarded(lambda: _known(connection(), folder))


def retry(folder: Path) -> None:
    """Forget a failed job (or one whose worker was lost), so that the next ``start`` puts it on
    the queue again."""
    redis = connection()

    def forget():
        from rq.exceptions import NoSuchJobError
        from rq.job import Job

        name = job_id(folder)
        with _lock(redis, name):
            job = _known(redis, folder)
            if job is None or job.running():
                return
            try:
                Job.fetch(name, connection=redis).delete()
            except NoSuchJobError:
                pass
            redis.delete(_beat_key(name))

    _guarded(forget)


def run(folder: str, worker: list[str], what: str) -> None:
    """The job as a worker runs it: the job's module in a child process at background work's
    priority (killed if this worker dies), its progress put in Redis every second for every
    replica to read. A child that fails raises, its reason kept in the job's meta."""
    from rq import get_current_job

    job = get_current_job()
    redis, key, place = job.connection, _beat_key(job.id), Path(folder)
    redis.set(key, "{}", ex=BEAT_SECONDS)
    child = local.launch(place, worker, what, preexec=priority.background_child)
    try:
        while child.poll() is None:
            redis.set(key, json.dumps(progress.read(place) or {}), ex=BEAT_SECONDS)
            try:
                child.wait(timeout=1.0)
            except subprocess.TimeoutExpired:  # still computing
                pass
    finally:
        if child.poll() is None:  # this job was stopped (RQ's timeout): so is its child
            child.terminate()
            child.wait()
        redis.delete(key)
    if child.returncode != 0:
        files.clear_inputs(place)
        job.meta["reason"] = local.stopped(place, child.returncode)
        job.save_meta()
        raise RuntimeError(job.meta["reason"])


def work(url: str, burst: bool = False, name: str | None = None) -> int:
    """A worker: takes the queue's jobs one at a time until stopped (``burst``: until the queue
    is empty). The command ``python -m bert_embeddings worker`` runs it."""
    from redis import Redis
    from rq import SimpleWorker

    redis = Redis.from_url(url, socket_connect_timeout=10, health_check_interval=30)
    worker = SimpleWorker([_queue(redis)], connection=redis, name=name)
    worker.work(burst=burst, with_scheduler=False, logging_level="INFO")
    return 0
