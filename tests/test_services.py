"""The real Redis and HAProxy that the replica tests start (testkit/services.py)."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from testkit.services import (
    REPLICA_NAMES,
    STICKY_COOKIE,
    RedisServer,
    haproxy_path,
    load_balancer,
    lowest_group_weight,
    redis_path,
    redis_server,
)

pytestmark = pytest.mark.server("Redis and HAProxy servers")


def need(binary: str | None, package: str) -> None:
    if binary is not None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but no {package} found: run scripts/ensure-services.sh", pytrace=False)
    pytest.skip(f"no {package}: install it with `apt-get install -y {package}`")


def test_redis_answers_and_keeps_its_data_across_a_restart():
    need(redis_path(), "redis-server")
    redis = pytest.importorskip("redis")
    server = RedisServer(appendonly=True)
    try:
        server.start()
        client = redis.Redis.from_url(server.url)
        assert client.ping()
        client.set("room", "kept")
        client.close()
        server.stop()
        with pytest.raises(redis.ConnectionError):
            redis.Redis.from_url(server.url, socket_connect_timeout=1).ping()
        port = server.port
        server.start()
        assert server.port == port
        client = redis.Redis.from_url(server.url)
        assert client.get("room") == b"kept"
        client.close()
    finally:
        server.close()
    assert not server.folder.exists()


def test_redis_server_context_manager():
    need(redis_path(), "redis-server")
    redis = pytest.importorskip("redis")
    with redis_server(appendonly=False) as (url, process):
        assert url.startswith("redis://127.0.0.1:") and url.endswith("/0")
        assert redis.Redis.from_url(url).ping()
    assert process.poll() is not None


def backend(name: str) -> ThreadingHTTPServer:
    """A stand-in replica: answers every GET with its own name (200 on the health route too)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the name http.server calls
            body = name.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


@contextmanager
def two_backends():
    servers = [backend(name) for name in REPLICA_NAMES]
    try:
        yield servers
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def get(base: str, path: str, cookie: str | None = None) -> tuple[int, str, str]:
    """(status, body, Set-Cookie) of one GET, with no proxy from the environment in the way."""
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        response = connection.getresponse()
        return response.status, response.read().decode(), response.getheader("Set-Cookie") or ""
    finally:
        connection.close()


def test_load_balancer_is_sticky_and_redispatches(tmp_path):
    need(haproxy_path(), "haproxy")
    with two_backends() as servers:
        addresses = [f"127.0.0.1:{server.server_address[1]}" for server in servers]
        with load_balancer(addresses, log=tmp_path / "haproxy.log") as base:
            status, body, cookie = get(base, "/_stcore/health")
            assert status == 200 and body in REPLICA_NAMES
            assert cookie.startswith(f"{STICKY_COOKIE}={body}")
            for _ in range(3):
                assert get(base, "/", f"{STICKY_COOKIE}=app2")[1] == "app2"
                assert get(base, "/", f"{STICKY_COOKIE}=app1")[1] == "app1"
            servers[1].shutdown()
            servers[1].server_close()
            status, body, _cookie = get(base, "/", f"{STICKY_COOKIE}=app2")
            assert (status, body) == (200, "app1")


GROUP = (
    "import os, pathlib; group = pathlib.Path('/proc/self/autogroup');"
    "print(os.getsid(0) == os.getpid());"
    "print(group.read_text().strip() if group.exists() else 'no autogroup')"
)


def test_a_worker_in_a_group_of_its_own_weighs_least():
    """``job_worker(own_group=True)``'s start: a session of its own, whose CPU group (where the
    kernel groups by session) has the lowest weight; this process's own group keeps its weight."""
    ours = Path("/proc/self/autogroup")
    before = ours.read_text().strip() if ours.exists() else "no autogroup"
    command = [sys.executable, "-c", GROUP]
    done = subprocess.run(
        command, capture_output=True, text=True, start_new_session=True, preexec_fn=lowest_group_weight
    )
    assert done.returncode == 0, done.stderr
    leads, group = done.stdout.splitlines()
    assert leads == "True"
    assert group == "no autogroup" or group.endswith("nice 19")
    assert (ours.read_text().strip() if ours.exists() else "no autogroup") == before
