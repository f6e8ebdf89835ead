"""The deployment that ships (compose.yaml, Dockerfile, deploy/haproxy.cfg) is the one the
replica tests run: same HAProxy file, same port, rooms in the compose file's Redis."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from testkit.browser import ROOT
from testkit.services import HAPROXY_CONFIG, haproxy_path

yaml = pytest.importorskip("yaml", reason="PyYAML is needed to read compose.yaml")

HAPROXY_MOUNT = "/usr/local/etc/haproxy/haproxy.cfg"


@pytest.fixture(scope="module")
def services() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]


@pytest.fixture(scope="module")
def dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text()


def environment(service: dict) -> dict[str, str]:
    """A service's environment, written either as a mapping or as a list of NAME=value."""
    found = service.get("environment") or {}
    if isinstance(found, list):
        found = dict(item.split("=", 1) for item in found)
    return {name: str(value) for name, value in found.items()}


def replicas(services: dict) -> list[tuple[str, int]]:
    """(service, port) for APP1 and APP2 of the load balancer."""
    lb = environment(services["lb"])
    pairs = [lb[name].rsplit(":", 1) for name in ("APP1", "APP2")]
    return [(host, int(port)) for host, port in pairs]


def cmd_arguments(dockerfile: str) -> list[str]:
    lines = [line for line in dockerfile.splitlines() if line.startswith("CMD ")]
    assert len(lines) == 1, "one CMD, in the JSON form"
    return json.loads(lines[0][len("CMD ") :])


def test_load_balancer_runs_the_tested_config(services):
    volumes = services["lb"]["volumes"]
    assert any(v.split(":")[:2] == ["./deploy/haproxy.cfg", HAPROXY_MOUNT] for v in volumes), volumes
    bind_port = environment(services["lb"])["LB_BIND"].rsplit(":", 1)[1]
    assert any(str(p).endswith(f":{bind_port}") for p in services["lb"]["ports"])


def test_replicas_exist_and_share_the_compose_redis(services):
    names = [host for host, _port in replicas(services)]
    assert len(set(names)) == 2
    redis_services = [name for name, s in services.items() if str(s.get("image", "")).startswith("redis")]
    assert redis_services, "a redis service"
    for name in names:
        assert name in services, f"APP1/APP2 name {name}, not a service"
        rooms = environment(services[name]).get("BERT_EXPLORER_ROOMS", "")
        match = re.fullmatch(r"redis://([\w.-]+):(\d+)/\d+", rooms)
        assert match and match.group(1) in redis_services, rooms


def test_image_installs_the_requirements_and_serves_the_replica_port(services, dockerfile):
    assert re.search(r"pip install .*-r requirements\.txt", dockerfile)
    arguments = cmd_arguments(dockerfile)
    assert arguments[:3] == ["streamlit", "run", "app.py"]
    ports = {int(a.split("=", 1)[1]) for a in arguments if a.startswith("--server.port=")}
    assert len(ports) == 1
    for _host, port in replicas(services):
        assert {port} == ports
        assert f"EXPOSE {port}" in dockerfile


def test_model_cache_is_on_a_volume(services, dockerfile):
    hf_home = re.search(r"HF_HOME=(\S+)", dockerfile).group(1)
    for name, _port in replicas(services):
        targets = [v.split(":")[1] for v in services[name].get("volumes", [])]
        assert hf_home in targets, f"{name} keeps {hf_home} only inside its container"


def test_haproxy_accepts_the_config():
    binary = haproxy_path()
    if binary is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but no haproxy found: run scripts/ensure-services.sh", pytrace=False)
        pytest.skip("no haproxy: install it with `apt-get install -y haproxy`")
    env = {**os.environ, "LB_BIND": "127.0.0.1:9", "APP1": "127.0.0.1:1", "APP2": "127.0.0.1:2"}
    result = subprocess.run(
        [binary, "-c", "-f", str(HAPROXY_CONFIG)], env=env, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_replicas_believe_forwarded_addresses_from_the_balancer_only(services):
    """The limit on opening rooms counts the person behind the balancer: the replicas trust the
    balancer's fixed address, which compose.yaml gives it, and the shipped HAProxy file says
    whom it forwards for."""
    import ipaddress

    lb_address = ipaddress.ip_address(services["lb"]["networks"]["explorer"]["ipv4_address"])
    for name, _port in replicas(services):
        trusted = environment(services[name])["BERT_EXPLORER_TRUSTED_PROXIES"]
        networks = [ipaddress.ip_network(part.strip()) for part in trusted.split(",")]
        assert any(lb_address in network for network in networks)
        assert networks == [ipaddress.ip_network(f"{lb_address}/32")]  # nobody else
    assert re.search(r"^\s*option forwardfor\b", HAPROXY_CONFIG.read_text(), re.MULTILINE)


def test_a_worker_service_takes_the_replicas_jobs_from_the_compose_redis(services):
    """compose.yaml's worker: the apps' image, settings and volume, running the worker command,
    and the apps put their heavy work on the queue it reads (BERT_EXPLORER_JOBS), in the
    compose file's Redis but not in the rooms' database; its container has the smallest CPU
    weight."""
    from bert_embeddings import config

    worker = services["worker"]
    assert worker["command"] == ["python", "-m", "bert_embeddings", "worker"]
    redis_services = [name for name, s in services.items() if str(s.get("image", "")).startswith("redis")]
    queue = environment(worker)["BERT_EXPLORER_JOBS"]
    match = re.fullmatch(r"redis://([\w.-]+):(\d+)/(\d+)", queue)
    assert match and match.group(1) in redis_services, queue
    for name, _port in replicas(services):
        app = services[name]
        assert environment(app)["BERT_EXPLORER_JOBS"] == queue
        assert environment(app)["BERT_EXPLORER_ROOMS"] != queue
        assert app["volumes"] == worker["volumes"] and app["build"] == worker["build"]
    assert config.readers.jobs(queue) == queue
    # Its container yields the CPU to the replicas' (Docker's default weight is 1024).
    for name, _port in replicas(services):
        assert worker["cpu_shares"] < services[name].get("cpu_shares", 1024)
