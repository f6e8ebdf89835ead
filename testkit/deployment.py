"""The deployment of compose.yaml, on this machine: Redis, two Streamlit replicas and HAProxy (with
deploy/haproxy.cfg, the very file compose.yaml mounts), each on a free port of 127.0.0.1. A
replica can be stopped and started again on its port, as a host restarts one. Used by
tests/rooms/test_replicas_browser.py and by ``BENCH_REPLICAS=2 python -m bench.follow``."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from bert_embeddings.config import JOBS, ROOMS, TRUSTED_PROXIES
from testkit import services
from testkit.browser import ROOT, free_port, streamlit_command, wait_healthy


@dataclass
class Replica:
    """One ``streamlit run app.py`` of the deployment."""

    name: str  # its value of the load balancer's sticky cookie (services.REPLICA_NAMES)
    env: dict[str, str]
    log: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.log, "a") as out:
            self.process = subprocess.Popen(
                streamlit_command("app.py", self.port),
                cwd=ROOT,
                env={**os.environ, **self.env},
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        wait_healthy(f"http://{self.address}", self.process)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@dataclass
class Deployment:
    base: str  # the load balancer's address: what every browser opens
    replicas: list[Replica]
    redis: services.RedisServer | None  # None: the replicas share a SQLite file instead
    jobs: str | None = None  # the job queue's URL, if their heavy work goes on one

    def cookie(self, replica: int, base: str | None = None) -> dict:
        """The sticky cookie that puts a browser context's pages on ``replica``."""
        return {
            "name": services.STICKY_COOKIE,
            "value": self.replicas[replica].name,
            "url": base or self.base,
        }


def jobs_url(redis: services.RedisServer) -> str:
    return redis.url.rsplit("/", 1)[0] + "/1"


def available() -> str | None:
    """Why the deployment cannot start here (None if it can)."""
    missing = [
        name
        for name, path in (("redis-server", services.redis_path()), ("haproxy", services.haproxy_path()))
        if path is None
    ]
    return (
        f"{' and '.join(missing)} not installed (scripts/ensure-services.sh installs them)"
        if missing
        else None
    )


@contextmanager
def deployment(
    folder: Path, env: dict[str, str] | None = None, store: str = "redis", jobs: bool = False
) -> Iterator[Deployment]:
    """Redis, two replicas sharing it, and HAProxy in front; logs in ``folder``. With
    ``store="sqlite"``, the replicas share a SQLite file instead, as processes on one host do.
    With ``jobs``, their heavy work goes on a queue in the same Redis (its database 1,
    ``Deployment.jobs``), as compose.yaml's does, for workers to take."""
    redis = None
    if store == "redis":
        redis = services.RedisServer(appendonly=True, folder=folder / "redis")
        (folder / "redis").mkdir(parents=True, exist_ok=True)
        redis.start()
    # The balancer reaches the replicas from 127.0.0.1: they believe its X-Forwarded-For, as
    # compose.yaml has them believe the balancer's own address.
    shared = {
        TRUSTED_PROXIES: "127.0.0.1",
        **(env or {}),
        ROOMS: redis.url if redis else str(folder / "rooms.sqlite3"),
    }
    if jobs and redis is not None:
        shared[JOBS] = jobs_url(redis)
    replicas = [Replica(name, shared, folder / f"{name}.log") for name in services.REPLICA_NAMES]
    try:
        for replica in replicas:
            replica.start()
        with services.load_balancer([r.address for r in replicas], log=folder / "haproxy.log") as base:
            yield Deployment(base, replicas, redis, shared.get(JOBS))
    finally:
        for replica in replicas:
            with suppress(Exception):
                replica.stop()
        if redis is not None:
            redis.stop()
