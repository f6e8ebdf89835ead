"""Heavy work on the job queue while a workshop room runs: the deployment of compose.yaml with
its worker.

Redis, two replicas behind the shipped HAProxy (testkit/deployment.py) with BERT_EXPLORER_JOBS
on that Redis, and one worker (``python -m bert_embeddings worker``), all on this machine, on the
bundled model. A leader opens a room and thirty followers join it, half on each replica
(bench.follow's people, its ten changes and its definition of an error: a follower not showing
a change within 30 s). Then a reader on each replica opens the Maps page's t-SNE map, cold,
at the same moment, and while it computes the leader makes the ten changes. Both readers then
wait for the map.

- duplicate_jobs D: jobs put on the queue beyond one (target 0: the second replica joins the
  first's job);
- follower_errors E: follower updates that missed their window while the map computed (target 0);
- wake_p95_s P: the server's wake-ups of the followers, from the room trace (target <= 0.5 s);
  first, as a control in the same run, the same room makes the same changes on a fresh
  deployment with no map asked for (its errors and wake p95 are printed above the last line);
- map_s M and local_map_s L: afterwards, in the same run and with nobody else on the machine,
  the same map in a fresh cache folder, once through the queue and its worker and once by the
  local backend (a process this benchmark starts), each timed from the request to the finished
  map read back; target M / L <= 1.1 (the queue adds nothing measurable).

    .venv/bin/python -m bench.jobs

With BENCH_QUICK=1: a small random checkpoint, two followers, two changes (bench/__init__.py),
no control (the same room on a second deployment: the same code, without the readers), the
worker at normal priority instead of SCHED_IDLE, and map_s and local_map_s on the table's first
1,000 rows.

Last line: jobs replicas=2 workers=W duplicate_jobs=D follower_errors=E wake_p95_s=P map_s=M
local_map_s=L
"""

from __future__ import annotations

import asyncio
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

from playwright.async_api import async_playwright

from bench import QUICK, bundled_or_quick, full_or_quick
from bench.follow import (
    CHANGES,
    FOLLOWERS,
    STARTS,
    crowd_browser,
    idle,
    join,
    nan,
    open_room,
    percentile_95,
    replay,
    summary,
    wake_times,
)
from bench.follow_replicas import Served
from bert_embeddings.config import ROOM_TRACE
from testkit import deployment
from testkit.services import job_worker

WORKERS = 1
QUIET_MAP_ROWS = full_or_quick(None, 1000)
FINISHED_MAP = re.compile("Faithfulness.{0,2} neighbour recall@10")
MAP_TIMEOUT_MS = 1_800_000


async def crowd_and_map(model_spec: str, folder: Path, with_map: bool = True) -> dict:
    """The room, the two readers asking for the map, and the leader's changes meanwhile (without
    ``with_map``: the same room and changes on a fresh deployment, and no map: the control)."""
    trace = folder / "rooms.trace"
    env = {
        "BERT_EXPLORER_MODEL": model_spec,
        ROOM_TRACE: str(trace),
        "BERT_EXPLORER_CACHE": str(folder / "cache"),
    }
    with deployment.deployment(folder, env, jobs=True) as running:
        served = Served(
            running.base,
            [r.log for r in running.replicas],
            lambda: [r.process for r in running.replicas],
            running,
        )
        # (the worker as compose.yaml runs it, below the servers, in a CPU group of its own: in
        # the servers' group, its idle priority would rank it below them but above the crowd's
        # browsers, and the leader's own page could wait minutes to draw beside the map)
        with job_worker(running.jobs, env=env, log=folder / "worker.log", own_group=not QUICK):
            async with async_playwright() as playwright:
                browser = await crowd_browser(playwright, folder)

                async def new_page(cookie: dict):
                    context = await browser.new_context(viewport={"width": 1280, "height": 900})
                    await context.add_cookies([cookie])
                    return await context.new_page()

                leader = await new_page(served.cookies(0)[0])
                code = await open_room(leader, served.base)
                followers = [await new_page(served.cookies(person)[0]) for person in range(1, FOLLOWERS + 1)]
                await join(followers, f"{served.base}/?follow={code}")
                readers = [await new_page(running.cookie(replica)) for replica in (0, 1)] if with_map else []
                asked = time.perf_counter()
                await asyncio.gather(*(r.goto(f"{served.base}/maps?method=tsne") for r in readers))
                since = time.time()
                following = await replay(leader, [leader], followers, served)
                wakes = wake_times(trace.read_text(), code, since)
                print_wakes_by_view(trace.read_text(), code, since)
                for reader in readers:
                    await reader.get_by_text(FINISHED_MAP).first.wait_for(timeout=MAP_TIMEOUT_MS)
                    await idle(reader)
                if readers:
                    print(f"both readers show the map {time.perf_counter() - asked:.1f} s after asking")
                await browser.close()
        from redis import Redis

        from bert_embeddings.jobs import queue

        enqueued = int(Redis.from_url(running.jobs).get(queue.ENQUEUED) or 0)
    return {"following": following, "wakes": wakes, "enqueued": enqueued}


def print_wakes_by_view(trace: str, code: str, since: float) -> None:
    """Each view the leader published: its followers' wake-ups' median and slowest (bench.follow's
    wake_times, a view at a time), so that a slow view stands out from a slow room; and where a
    slow one's time went: until each server process heard of the view, until it had asked for all
    its followers' runs (Streamlit starts each run's thread in turn, on the server's event loop),
    and from there until the last run began (the trace's "heard", "asked" and "begun")."""
    shown, started, heard, asked = {}, {}, {}, {}
    for line in trace.splitlines():
        event, room, version, when, session = line.split()
        if room != code:
            continue
        key, at = (int(version), session), float(when)
        if event == "shown" and at > since:
            shown.setdefault(int(version), at)
        elif event in STARTS:
            started.setdefault(key, at)
        elif event in ("heard", "asked"):
            (heard if event == "heard" else asked).setdefault(key, at)
    for version, at in sorted(shown.items()):
        waits = [when - at for (v, _), when in started.items() if v == version]
        if not waits:
            continue
        steps = ""
        if (heard_at := [w for (v, _), w in heard.items() if v == version]) and (
            asked_at := [w for (v, _), w in asked.items() if v == version]
        ):
            steps = (
                f"; every process heard it after {max(heard_at) - at:.2f} s and had asked for every run "
                f"after {max(asked_at) - at:.2f} s"
            )
        print(
            f"  view {version}: {len(waits)} wake-ups, median {statistics.median(waits):.2f} s, "
            f"slowest {max(waits):.2f} s{steps}"
        )


def timed_map(table, folder: Path, url: str | None) -> float:
    """Seconds from asking for the map of ``table`` in a fresh cache folder to reading it back:
    on the queue at ``url`` (its worker computing it), or by the local backend (None)."""
    from bert_embeddings.jobs import backend
    from bert_embeddings.maps import map_jobs

    os.environ["BERT_EXPLORER_CACHE"] = str(folder)
    os.environ.pop("BERT_EXPLORER_JOBS", None)
    if url:
        os.environ["BERT_EXPLORER_JOBS"] = url
    settings = map_jobs.default_settings()
    began = time.perf_counter()
    found = map_jobs.start(table, settings)
    while backend.is_job(found):
        if why := found.failure():
            raise SystemExit(f"the map failed: {why}")
        time.sleep(0.1)
        found = map_jobs.start(table, settings)
    return time.perf_counter() - began


def queue_against_local(table, folder: Path) -> tuple[float, float]:
    """The same map through the queue (one worker) and by the local backend, one after the other."""
    from testkit.services import RedisServer

    redis = RedisServer(appendonly=False, folder=folder / "redis-quiet")
    (folder / "redis-quiet").mkdir()
    redis.start()
    try:
        with job_worker(
            redis.url, env={"BERT_EXPLORER_CACHE": str(folder / "q")}, log=folder / "quiet-worker.log"
        ):
            on_queue = timed_map(table, folder / "q", redis.url)
    finally:
        redis.close()
    return on_queue, timed_map(table, folder / "l", None)


def main() -> None:
    # (a quick run's worker at normal priority: the test suite keeps the machine busy, and at
    # SCHED_IDLE the map would wait for idle cores)
    os.environ.setdefault("BERT_EXPLORER_JOB_PRIORITY", full_or_quick("idle", "normal"))
    if QUICK:  # a rough map: the quick run checks the way, not the figures
        os.environ["BERT_EXPLORER_MAP_ITERATIONS"] = "10"
    with tempfile.TemporaryDirectory() as where:
        folder = Path(where)
        model = bundled_or_quick(folder)
        spec = str(model.folder) if QUICK else "bundled"
        control = None
        if not QUICK:
            print("control: the room on the deployment, no map asked for")
            (folder / "control").mkdir()
            control = asyncio.run(crowd_and_map(spec, folder / "control", with_map=False))
        print("the room while both replicas ask for the map:")
        result = asyncio.run(crowd_and_map(spec, folder))
        map_s, local_map_s = queue_against_local(model.tables.word_embeddings[:QUIET_MAP_ROWS], folder)
    latencies, errors = summary(result["following"])
    wakes = result["wakes"]
    if control is not None:
        _, control_errors = summary(control["following"])
        print(
            f"control, the same room and changes with no map, in this run: errors={control_errors} "
            f"wake_p95_s={percentile_95(control['wakes']):.2f}"
        )
    print(
        f"the same map with nobody else on the machine: queue {map_s:.1f} s, local {local_map_s:.1f} s; "
        f"queue / local = {map_s / local_map_s:.2f}"
    )
    print(
        f"followers: {len(CHANGES)} changes, p50 {statistics.median(latencies or [nan]):.2f} s, "
        f"p95 {percentile_95(latencies):.2f} s; wake-ups {len(wakes)}"
    )
    print(
        f"jobs replicas=2 workers={WORKERS} duplicate_jobs={result['enqueued'] - 1} "
        f"follower_errors={errors} wake_p95_s={percentile_95(wakes):.2f} map_s={map_s:.1f} "
        f"local_map_s={local_map_s:.1f}"
    )


if __name__ == "__main__":
    main()
