"""Background jobs on a real queue: a real redis-server on a free port and real worker processes
(``python -m bert_embeddings worker``). One job per name whoever asks, a worker killed mid-job
seen as failed and tried again, the same files as the local backend's to the last byte, and a
Redis that does not answer said so in bounded time (bert_embeddings/jobs/queue.py)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from bert_embeddings.errors import JobQueueError
from bert_embeddings.jobs import backend, files, local, queue, records
from bert_embeddings.maps import map_jobs, neighbour_map
from bert_embeddings.models import checkpoints
from bert_embeddings.spaces import aligned, aligned_jobs, space_jobs
from testkit.brute import random_table
from testkit.random_models import keep_first_pieces, write_random_bert
from testkit.services import ROOT, job_worker, redis_server

pytestmark = [
    pytest.mark.xdist_group("job-queue"),
    pytest.mark.server("a Redis server and job worker processes"),
]

# A map of a few hundred rows: its t-SNE's cost is about its iterations' (the FFT grid's, not the
# rows'), and what is checked here is who computes it and what is written, not the picture.
SMALL = neighbour_map.Settings(perplexity=10, iterations=100, seed=3)


@pytest.fixture(scope="module")
def redis_url():
    with redis_server(appendonly=False) as (url, _):
        yield url


@pytest.fixture
def on_queue(redis_url, tmp_path, monkeypatch):
    """The queue in use (an empty Redis), and the cache folder of this test."""
    from redis import Redis

    Redis.from_url(redis_url).flushall()
    monkeypatch.setenv("BERT_EXPLORER_JOBS", redis_url)
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "queued"))
    local._jobs.clear()
    yield tmp_path
    local._jobs.clear()


def enqueued() -> int:
    return int(queue.connection().get(queue.ENQUEUED) or 0)


def until_done(ask, timeout: float = 300.0):
    """Ask until the answer is no job; a failure on the way fails the test with the job's log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = ask()
        if not backend.is_job(found):
            return found
        assert found.failure() is None, (found.folder / files.LOG).read_text()
        time.sleep(0.2)
    raise AssertionError("the job did not finish")


def locally(monkeypatch, tmp_path: Path, ask):
    """What the local backend makes of the same request, in a cache folder of its own."""
    monkeypatch.delenv("BERT_EXPLORER_JOBS")
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "local"))
    return until_done(ask)


def same_files(one: Path, other: Path) -> list[str]:
    """Every array and record of two job results, compared byte for byte (a map's record is
    compared but for the seconds it took); the names compared."""
    names = sorted(p.name for p in one.iterdir() if p.suffix in (".npy", ".json"))
    assert names == sorted(p.name for p in other.iterdir() if p.suffix in (".npy", ".json"))
    for name in names:
        mine, theirs = (one / name).read_bytes(), (other / name).read_bytes()
        if name == records.path(one, map_jobs.RECORD).name:
            mine, theirs = (json.loads(b) for b in (mine, theirs))
            for record in (mine, theirs):
                del record["meta"]["seconds"]
        assert mine == theirs, name
    return names


ASK_AT_ONCE = """
import json, sys, time
import numpy as np
from bert_embeddings.maps import map_jobs, neighbour_map
table = np.load(sys.argv[1])
settings = neighbour_map.Settings(**json.loads(sys.argv[3]))
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
job = map_jobs.start(table, settings)
print(job.id)
"""


def test_two_processes_asking_at_once_make_one_job_whose_map_is_the_local_backends(
    on_queue, redis_url, monkeypatch
):
    table = random_table(rows=600, seed=4)
    np.save(on_queue / "table.npy", table)
    at = str(time.time() + 3.0)  # both ask at the same moment
    askers = [
        subprocess.Popen(
            [sys.executable, "-c", ASK_AT_ONCE, str(on_queue / "table.npy"), at, json.dumps(SMALL.as_dict())],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    ids = {asker.communicate(timeout=60)[0].strip() for asker in askers}
    assert len(ids) == 1 and enqueued() == 1  # one job, joined by the second asker
    job = map_jobs.start(table, SMALL)  # a third asker, in this process, joins it too
    assert isinstance(job, queue.QueuedJob) and {job.id} == ids and enqueued() == 1
    assert job.waiting() and "none is running" in job.waits_for()
    log = on_queue / "worker.log"
    with job_worker(redis_url, log=log):
        done = until_done(lambda: map_jobs.start(table, SMALL))
    assert isinstance(done, map_jobs.Done) and enqueued() == 1
    assert log.read_text().count("Job OK") == 1  # the worker computed it once
    assert not (job.folder / files.TABLE).exists()
    here = locally(monkeypatch, on_queue, lambda: map_jobs.start(table, SMALL))
    names = same_files(job.folder, map_jobs.folder_for(files.fingerprint(table), SMALL))
    record = records.path(job.folder, map_jobs.RECORD).name
    assert {map_jobs.COORDS, map_jobs.NEIGHBOURS, record} <= set(names)
    np.testing.assert_array_equal(here.coords, done.coords)


def test_a_stage_space_and_an_aligned_pair_on_the_queue_are_the_local_backends_files(
    on_queue, redis_url, monkeypatch
):
    folder = keep_first_pieces(write_random_bert(on_queue / "two-layers", layers=2, seed=3), 4000)
    model = checkpoints.load_model(str(folder))  # (each stage's table has 4,000 rows, not 30,522)
    key = space_jobs.model_key(model)
    rows = np.arange(2000, 2800, dtype=np.int64)
    name = space_jobs.rows_name(rows)
    sides = [space_jobs.Spec(str(model.folder), stage, ("centred", 0), name) for stage in ("token", "output")]
    pair = aligned_jobs.PairSpec(key, sides[0], key, sides[1], SMALL)

    def everything():
        lists = [until_done(lambda side=side: space_jobs.start(key, side, rows)) for side in sides]
        maps = until_done(lambda: aligned_jobs.start(pair, (rows, rows)))
        assert isinstance(maps, aligned.AlignedMaps)
        return lists, space_jobs.folder_for(key), aligned_jobs.folder_for(pair)

    with job_worker(redis_url, log=on_queue / "worker.log"):
        lists, spaces_there, pair_there = everything()
    assert enqueued() == 3
    here, spaces_here, pair_here = locally(monkeypatch, on_queue, everything)
    for mine, theirs in zip(lists, here, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    assert any(n.startswith("lists-") for n in same_files(spaces_there, spaces_here))
    assert same_files(pair_there, pair_here)


def children_of(pid: int) -> set[int]:
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return found


def test_a_worker_killed_mid_job_is_a_failure_with_a_retry_that_a_fresh_worker_finishes(
    on_queue, redis_url, monkeypatch
):
    table = random_table(rows=1500, seed=9)
    # long enough to be killed mid-way (its layout takes seconds after its first report, which
    # the test acts on within about one beat), short enough to be computed twice more
    settings = neighbour_map.Settings(perplexity=10, iterations=300, seed=5)
    job = map_jobs.start(table, settings)
    with job_worker(redis_url, log=on_queue / "worker.log") as worker:
        deadline = time.monotonic() + 120
        while not (job.report() or {}).get("stage") and time.monotonic() < deadline:
            time.sleep(0.1)  # the map is under way, its progress read from Redis
        assert job.running() and not job.waiting()
        (child,) = children_of(worker.pid)
        worker.send_signal(signal.SIGKILL)  # the worker's machine is gone: no goodbye
        worker.wait()
    deadline = time.monotonic() + 20
    while os.path.exists(f"/proc/{child}") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(f"/proc/{child}")  # its computation died with it
    deadline = time.monotonic() + queue.BEAT_SECONDS + 20
    while job.failure() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "stopped answering" in (job.failure() or "")
    assert not job.running() and not (job.folder / files.TABLE).exists()
    assert not records.path(job.folder, map_jobs.RECORD).exists()  # nothing half-written is a map
    # everyone who looks sees the failure, and asking again before a retry is not a new job
    assert backend.job_in(job.folder).failure() and map_jobs.start(table, settings).failure()
    assert enqueued() == 1
    backend.retry(job.folder)
    assert backend.job_in(job.folder) is None
    again = map_jobs.start(table, settings)
    assert isinstance(again, queue.QueuedJob) and again.failure() is None and enqueued() == 2
    with job_worker(redis_url, log=on_queue / "worker.log"):
        done = until_done(lambda: map_jobs.start(table, settings))
    here = locally(monkeypatch, on_queue, lambda: map_jobs.start(table, settings))
    np.testing.assert_array_equal(done.coords, here.coords)
    same_files(again.folder, map_jobs.folder_for(files.fingerprint(table), settings))


@pytest.fixture
def silent_port():
    """A port that accepts connections and never answers (a Redis that hangs)."""
    listener = socket.create_server(("127.0.0.1", 0))
    held = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    listener.close()


@pytest.mark.parametrize("kind", ["closed", "silent"])
def test_a_queue_that_does_not_answer_is_said_so_in_bounded_time_and_what_is_on_disk_is_shown(
    kind, silent_port, tmp_path, monkeypatch
):
    from testkit.browser import free_port

    port = silent_port if kind == "silent" else free_port()
    monkeypatch.setenv("BERT_EXPLORER_JOBS", f"redis://127.0.0.1:{port}/0")
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    queue._connections.clear()
    table = random_table(rows=300, seed=2)
    began = time.monotonic()
    with pytest.raises(JobQueueError, match="Background work cannot start now"):
        map_jobs.start(table, SMALL)
    with pytest.raises(JobQueueError):
        backend.job_in(map_jobs.folder_for(files.fingerprint(table), SMALL))
    assert time.monotonic() - began < 4 * queue.ANSWER_SECONDS + 2
    # a map already on disk needs no queue: it is shown
    folder = map_jobs.folder_for(files.fingerprint(table), SMALL)
    folder.mkdir(parents=True)
    map_jobs.save(folder, neighbour_map.compute(table, SMALL, 1), SMALL)
    assert isinstance(map_jobs.start(table, SMALL), map_jobs.Done)


def test_the_command_puts_maps_and_stage_spaces_on_the_queue_and_returns(on_queue, capsys, monkeypatch):
    """``map MODEL --queue`` (and with ``--stages``) puts the jobs on the queue, for its workers,
    and returns at once; asked again, each is already there, not a second job. Without a queue
    the flag, and the worker command, say what to set (exit 2)."""
    from bert_embeddings import __main__ as command
    from bert_embeddings.spaces import stages

    folder = write_random_bert(on_queue / "two-layers", layers=2, seed=4)
    assert command.main(["map", str(folder), "--queue"]) == 0
    assert "raw: on the queue" in capsys.readouterr().out and enqueued() == 1
    assert command.main(["map", str(folder), "--queue", "--stages"]) == 0
    names = stages.stage_names(checkpoints.load_model(str(folder)))
    said = capsys.readouterr().out.splitlines()
    assert said == [f"raw, {stages.stage_label(stage)}: on the queue" for stage in names]
    assert enqueued() == 1 + len(names)
    assert command.main(["map", str(folder), "--queue"]) == 0  # joined, not put there twice
    assert enqueued() == 1 + len(names)
    monkeypatch.delenv("BERT_EXPLORER_JOBS")
    assert command.main(["map", str(folder), "--queue"]) == 2
    assert "--queue needs a job queue" in capsys.readouterr().err
    assert command.main(["worker"]) == 2
    assert "set BERT_EXPLORER_JOBS" in capsys.readouterr().err
