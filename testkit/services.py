"""Real Redis and HAProxy servers on free ports of 127.0.0.1, for the tests and benchmarks.

Redis holds the shared workshop rooms; HAProxy runs deploy/haproxy.cfg (the file compose.yaml
ships) in front of two app replicas. Both binaries come from Debian's packages
(scripts/ensure-services.sh installs them).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from testkit.browser import ROOT, free_port

HAPROXY_CONFIG = ROOT / "deploy" / "haproxy.cfg"
# The cookie HAProxy inserts to keep a browser on one replica, and its value for each
# replica (APP1, APP2): set it in a browser context to put a page on a given replica.
STICKY_COOKIE = "replica"
REPLICA_NAMES = ("app1", "app2")


def _find(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for folder in ("/usr/sbin", "/usr/bin"):
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def redis_path() -> str | None:
    return _find("redis-server")


def haproxy_path() -> str | None:
    return _find("haproxy")


def _stop(process: subprocess.Popen | None, timeout: float = 10) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _pong(port: int) -> bool:
    """True once Redis answers PING (it answers -LOADING while it reads its data back)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _wait(ready, process: subprocess.Popen, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with code {process.returncode}")
        if ready():
            return
        time.sleep(0.05)
    raise TimeoutError(f"{what} was not ready within {timeout} s")


class RedisServer:
    """One ``redis-server`` that can be stopped and started again on the same port and data
    folder, so a test can take Redis away mid-test and bring it back with its data."""

    def __init__(self, appendonly: bool = True, port: int | None = None, folder: Path | None = None):
        self.appendonly = appendonly
        self.port = port or free_port()
        self._own_folder = folder is None
        self.folder = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="redis-test-"))
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def log(self) -> Path:
        return self.folder / "redis.log"

    def start(self, timeout: float = 15) -> subprocess.Popen:
        """Start the server (if it is not running) and wait until it answers PING."""
        if self.process is not None and self.process.poll() is None:
            return self.process
        binary = redis_path()
        if binary is None:
            raise FileNotFoundError("redis-server not found: run scripts/ensure-services.sh")
        command = [
            binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--dir", str(self.folder),
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--logfile", str(self.log),
        ]  # fmt: skip
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            _wait(lambda: _pong(self.port), self.process, f"redis-server (log: {self.log})", timeout)
        except BaseException:
            self.stop()
            raise
        return self.process

    def stop(self) -> None:
        """Stop the server and wait for it to exit; the data folder stays for a new start."""
        _stop(self.process)

    def close(self) -> None:
        """Stop the server and remove the data folder if this object made it."""
        self.stop()
        if self._own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def redis_server(appendonly: bool = True):
    """A fresh Redis on a free port; yields (url, process). Removed with its data afterwards."""
    server = RedisServer(appendonly=appendonly)
    try:
        process = server.start()
        yield server.url, process
    finally:
        server.close()


@contextmanager
def load_balancer(backends: list[str], log: Path | None = None, timeout: float = 15):
    """HAProxy with deploy/haproxy.cfg on a free port, in front of exactly two backends
    ("host:port", for APP1 and APP2); yields its base URL, ``http://127.0.0.1:PORT``."""
    if len(backends) != 2:
        raise ValueError(f"deploy/haproxy.cfg has two replicas, got {len(backends)} backends")
    binary = haproxy_path()
    if binary is None:
        raise FileNotFoundError("haproxy not found: run scripts/ensure-services.sh")
    port = free_port()
    environment = {**os.environ, "LB_BIND": f"127.0.0.1:{port}", "APP1": backends[0], "APP2": backends[1]}
    out = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 - closed below
    command = [binary, "-db", "-f", str(HAPROXY_CONFIG)]
    process = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait(lambda: _accepts(port), process, "haproxy", timeout)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(process)
        if log:
            out.close()


def lowest_group_weight() -> None:
    """In a new session (a preexec_fn after ``start_new_session``): that session's CPU group at
    the kernel's lowest weight, where the kernel groups processes by session (autogroup). A
    process at idle priority yields only to its own group, so this is what keeps it below the
    processes of another session, as compose.yaml's ``cpu_shares`` does for the worker's
    container."""
    try:
        Path("/proc/self/autogroup").write_text("19")
    except OSError:  # no autogroup in this kernel: its nice values rank every process alike
        pass


@contextmanager
def job_worker(
    url: str,
    env: dict | None = None,
    log: Path | None = None,
    name: str | None = None,
    own_group: bool = False,
):
    """``python -m bert_embeddings worker`` taking jobs from the queue at ``url`` (BERT_EXPLORER_JOBS),
    with ``env`` added to this process's environment; yields the process once the worker has
    registered with the queue. Stopped, and waited for, afterwards. With ``own_group``, in a
    session of its own at the lowest CPU group weight (``lowest_group_weight``), as compose.yaml
    runs it."""
    from redis import Redis
    from rq import Worker

    environment = {**os.environ, **(env or {}), "BERT_EXPLORER_JOBS": url}
    command = [os.environ.get("PYTHON", sys.executable), "-m", "bert_embeddings", "worker"]
    command += ["--name", name] if name else []
    out = open(log, "a") if log else subprocess.DEVNULL  # noqa: SIM115 - closed below
    redis = Redis.from_url(url)
    before = {worker.name for worker in Worker.all(connection=redis)}
    grouped = {"start_new_session": True, "preexec_fn": lowest_group_weight} if own_group else {}
    output = {"stdout": out, "stderr": subprocess.STDOUT}
    process = subprocess.Popen(command, cwd=ROOT, env=environment, **output, **grouped)
    try:
        _wait(lambda: {w.name for w in Worker.all(connection=redis)} - before, process, "the job worker", 60)
        yield process
    finally:
        _stop(process)
        if log:
            out.close()
