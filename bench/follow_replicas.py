"""bench.follow's servers: one Streamlit process, or (BENCH_REPLICAS=2) the deployment of
compose.yaml on this machine (testkit/deployment.py: Redis, two replicas, HAProxy with
deploy/haproxy.cfg), with the leader on the first replica and every other follower on the second.
Not a benchmark of its own."""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.hostile import cpu_seconds
from testkit import deployment
from testkit.browser import streamlit_server

REPLICAS = int(os.environ.get("BENCH_REPLICAS", "1"))
BACK_WITHIN_S = 15  # the target: a restarted replica's followers follow again this soon after its return


@dataclass
class Served:
    base: str
    logs: list[Path]
    processes: Callable[[], list]  # the server processes now (a restart makes new ones)
    running: deployment.Deployment | None = None

    def cpu_seconds(self) -> float:
        """CPU time of every server process (not Redis or the load balancer)."""
        return sum(cpu_seconds(process.pid) for process in self.processes())

    def cookies(self, person: int) -> list[dict]:
        """The sticky cookie for person ``person`` (0: the leader; followers 1, 2, ...): the leader
        and the odd followers on the first replica, the even ones on the second."""
        if self.running is None:
            return []
        return [self.running.cookie(1 if person and person % 2 == 0 else 0)]


@contextmanager
def servers(folder: Path, env: dict[str, str]) -> Iterator[Served]:
    if REPLICAS == 1:
        log = folder / "server.log"
        with streamlit_server(env=env, log=log) as (base, process):
            yield Served(base, [log], lambda: [process])
        return
    if REPLICAS != 2 or (why := deployment.available()):
        raise SystemExit(f"BENCH_REPLICAS={REPLICAS}: {why if REPLICAS == 2 else 'only 1 or 2 replicas'}")
    with deployment.deployment(folder, env) as running:
        logs = [replica.log for replica in running.replicas]
        yield Served(running.base, logs, lambda: [r.process for r in running.replicas], running)


async def restart_second(served: Served, followers: list, change: Callable[[], Awaitable], shown) -> str:
    """The second replica restarts; as soon as it is back the leader makes ``change``: how long
    after its return each of its followers shows it (``shown(page)`` waits for that)."""
    replica = served.running.replicas[1]
    own = [
        f for number, f in enumerate(followers, start=1) if served.cookies(number)[0]["value"] == replica.name
    ]
    await asyncio.to_thread(replica.stop)
    await asyncio.sleep(2)  # down for a moment: its followers' pages lose their server
    await asyncio.to_thread(replica.start)
    back = time.perf_counter()
    await change()

    async def timed(page) -> float | None:
        try:
            await shown(page)
        except Exception:
            return None
        return time.perf_counter() - back

    times = await asyncio.gather(*(timed(page) for page in own))
    done = [t for t in times if t is not None] or [float("nan")]
    within = sum(t <= BACK_WITHIN_S for t in done)
    return (
        f"restart of replica {replica.name}: {within} of {len(own)} of its followers showed the leader's "
        f"next change within {BACK_WITHIN_S} s of its return (median {statistics.median(done):.1f} s, "
        f"slowest {max(done):.1f} s)"
    )
