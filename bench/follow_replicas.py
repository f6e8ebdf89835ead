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

from bench.hostile import cpu_seconds, idle
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


async def still_leading(leader, code: str, trace: Path, timeout_ms: int) -> str:
    """After the restart, once the leader's page has finished its run: it still leads the room,
    "Close the room" and all, without a click (a tab whose session was replaced takes the room
    back from its session storage, components/rooms/lead.py). Otherwise the benchmark stops,
    saying what the leader's room section shows. The wait is as long as for the leader's own
    box (four times ``timeout_ms``, bench/follow.py's): once a replica went away, the other one
    runs all 31 pages, and on a machine this busy the leader's page can take over 30 s to draw."""
    await idle(leader)
    close = leader.get_by_role("button", name="Close the room")
    again = leader.get_by_role("button", name=f"Lead room {code} again")  # (never to be needed)
    deadline = time.perf_counter() + 4 * timeout_ms / 1000
    while not (await close.count() and not await again.count()):
        if time.perf_counter() > deadline:
            raise RuntimeError(
                f"after the restart the leader no longer leads room {code}: its room section shows "
                f"{await room_section(leader)!r}"
            )
        await asyncio.sleep(0.5)
    sessions = leader_sessions(trace.read_text(), code)
    return (
        f"after the restart the leader still leads room {code}, by itself ({sessions} session"
        f"{'s' if sessions != 1 else ''} of its tab published to the room)"
    )


async def room_section(page) -> str:
    """The text of ``page``'s sidebar from its room section on, on one line (for a failure)."""
    try:
        text = await page.locator("[data-testid='stSidebar']").inner_text(timeout=30_000)
    except Exception as problem:
        return f"(no sidebar: {problem})"[:300]
    return " | ".join(line for line in text[text.find("Workshop room") :].splitlines() if line.strip())[:500]


def leader_sessions(trace: str, code: str) -> int:
    """How many sessions published views to room ``code`` (the leader's: a session that took the
    room back after its tab reconnected elsewhere is a second one)."""
    return len({line.split()[4] for line in trace.splitlines() if line.split()[:2] == ["shown", code]})
