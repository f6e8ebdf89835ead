"""Every benchmark still runs to its result line, in its quick mode.

Each benchmark runs as ``python -m bench.NAME`` with BENCH_QUICK=1 (a small model, one or two
sessions, few repetitions: see bench/__init__.py), and its last line must be the one the table
"Last lines" of docs/benchmarks.md shows for it: the same name, the same fields in the same
order, a number for each figure. Nothing is timed here; the figures of a quick run mean
nothing. The small model is written once here and handed to every run (BENCH_QUICK_CHECKPOINT),
which saves each run the seconds it takes to write one.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bert_embeddings.views import pages as registry
from testkit.apptest import ROOT
from testkit.pytest_chromium import need_chromium

# The benchmarks that need neither a browser nor the stand-in checkpoint; every other one starts
# the app on that checkpoint and drives Chromium.
WITHOUT_SERVER = {"axes_card", "compare", "pca", "scale", "vocab_search"}
# The benchmarks that count what went wrong, and the field they count it in: pages that did not
# show what the core computes, or followers that missed a change beside a map job.
CHECKED_FOR_ERRORS = {"load": "errors", "hostile": "errors", "follow": "errors", "jobs": "follower_errors"}
# bench/ modules that are not benchmarks.
HELPERS = {"__init__", "timed_server", "follow_replicas", "lesson_floor_app", "relay"}
TIMEOUT_S = 300
# A figure as the benchmarks print them: no nan, no inf.
NUMBER = re.compile(r"-?\d+(\.\d+)?")


def documented_rows() -> list[tuple[str, str]]:
    """docs/benchmarks.md's table "Last lines": each row's benchmark and the last line it shows."""
    docs = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = docs.split("\n## Last lines\n", 1)[1].split("\n## ", 1)[0]
    row = re.compile(r"^\| `\.venv/bin/python -m bench\.(\w+)` \|.*\| `([^`]+)` \|$", re.MULTILINE)
    return row.findall(section)


def documented_lines() -> dict[str, str]:
    """Each documented benchmark's name and the last line the docs show for it."""
    return dict(documented_rows())


def fields(line: str) -> tuple[str, list[tuple[str, str]]]:
    """A result line's name, and its key=value fields in order."""
    name, *rest = line.split()
    return name, [tuple(field.split("=", 1)) if "=" in field else (field, "") for field in rest]


BENCHMARKS = sorted(path.stem for path in (ROOT / "bench").glob("*.py") if path.stem not in HELPERS)


def test_docs_document_every_benchmark():
    """docs/benchmarks.md's table "Last lines" has a row for exactly the benchmarks in bench/,
    each named once."""
    assert sorted(name for name, _ in documented_rows()) == BENCHMARKS


@pytest.fixture(scope="module")
def quick_checkpoint(tmp_path_factory):
    """The small checkpoint a quick run would write for itself, written once for all of them."""
    from bench.memory import quick_stand_in

    return quick_stand_in(tmp_path_factory.mktemp("bench") / "quick-model")


def run_quick(name: str, checkpoint=None, env: dict | None = None) -> subprocess.CompletedProcess:
    """``python -m bench.NAME`` in its quick mode, handed ``checkpoint`` if given; on a timeout
    its whole process group (its server and its browser too) is killed, and the test fails."""
    env = {**os.environ, **(env or {}), "BENCH_QUICK": "1"}
    if checkpoint is not None:
        env["BENCH_QUICK_CHECKPOINT"] = str(checkpoint)
    process = subprocess.Popen(
        [sys.executable, "-m", f"bench.{name}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(
            f"bench.{name} took over {TIMEOUT_S} s; its output ended:\n{stdout[-2000:]}\n{stderr[-2000:]}"
        )
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


# A field that names one of the app's pages, as its title with _ for spaces.
NAMES_A_PAGE = {"max_page": {page.title.replace(" ", "_") for page in registry.PAGES}}


@pytest.mark.server("each benchmark's process")
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[] if name in WITHOUT_SERVER else [pytest.mark.browser])
        for name in BENCHMARKS
    ],
)
def test_quick_benchmark_ends_with_its_documented_line(name, request):
    """The benchmark's quick mode exits 0 and its last line has the documented name, keys and
    numbers."""
    checkpoint = None
    if name not in WITHOUT_SERVER:
        need_chromium(f"bench.{name} drives Chromium: install it with `apt-get install -y chromium`")
        checkpoint = request.getfixturevalue("quick_checkpoint")
    documented = documented_lines()[name]
    out = run_quick(name, checkpoint)
    assert out.returncode == 0, (
        f"bench.{name} exited {out.returncode}:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    )
    lines = out.stdout.rstrip("\n").splitlines()
    assert lines, f"bench.{name} printed nothing:\n{out.stderr[-3000:]}"
    last = lines[-1]
    got_name, got = fields(last)
    expected_name, expected = fields(documented)
    assert got_name == expected_name == name, last
    assert [key for key, _ in got] == [key for key, _ in expected], last
    for (key, value), (_, shown) in zip(got, expected, strict=True):
        # A figure must be a number; a word the docs show (maps' method=t-SNE) must be that word.
        if NUMBER.fullmatch(shown):
            assert NUMBER.fullmatch(value), f"{key}={value} is not a number in: {last}"
        elif key in NAMES_A_PAGE:  # which page it is depends on the model (bytes' largest page)
            assert value in NAMES_A_PAGE[key], f"{key}={value} names no page: {last}"
        else:
            assert value == shown, f"{key}={value}, docs/benchmarks.md shows {key}={shown}: {last}"
    # A benchmark that checks what the pages show counts what it found wrong: a quick run of a
    # working app finds nothing.
    if name in CHECKED_FOR_ERRORS:
        counted = CHECKED_FOR_ERRORS[name]
        assert dict(got)[counted] == "0", f"bench.{name} found {counted}:\n{out.stdout[-3000:]}"


@pytest.mark.browser
def test_the_follow_benchmark_runs_on_two_replicas_behind_the_load_balancer(quick_checkpoint):
    """``BENCH_REPLICAS=2 python -m bench.follow``: Redis, two replicas and HAProxy, a follower on
    the other replica than the leader's, one replica restarted; the same last line, replicas=2."""
    from testkit import deployment

    if why := deployment.available():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {why}", pytrace=False)
        pytest.skip(why)
    need_chromium("bench.follow drives Chromium: install it with `apt-get install -y chromium`")
    out = run_quick("follow", quick_checkpoint, {"BENCH_REPLICAS": "2"})
    assert out.returncode == 0, f"exited {out.returncode}:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    last = dict(fields(out.stdout.rstrip("\n").splitlines()[-1])[1])
    assert last["replicas"] == "2" and last["errors"] == "0", out.stdout[-3000:]
    assert "1 of 1 of its followers showed the leader's next change within 15 s" in out.stdout, out.stdout


# What the crowd's launcher leaves its program with: its scheduling class and its session's
# group weight (the kernel's autogroup, where it has one).
PRIORITY = (
    "import os, pathlib; group = pathlib.Path('/proc/self/autogroup');"
    "print(os.sched_getscheduler(0) == os.SCHED_IDLE);"
    "print(group.read_text().strip() if group.exists() else 'no autogroup')"
)


def test_the_crowds_browsers_run_below_the_server(tmp_path):
    """The benchmarks' stand-ins for thirty phones take only what the server leaves over: idle
    class, and their own session's group at the lowest weight (Playwright starts the browser in
    a session of its own); a session the launcher shares is not touched."""
    from bench.hostile import niced_chromium

    launcher = niced_chromium(tmp_path, sys.executable)

    def run(**session) -> list[str]:
        done = subprocess.run([launcher, "-c", PRIORITY], capture_output=True, text=True, **session)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    idle, group = run(start_new_session=True)
    assert idle == "True"
    assert group == "no autogroup" or group.endswith("nice 19")
    ours = Path("/proc/self/autogroup")
    before = ours.read_text().strip() if ours.exists() else "no autogroup"
    idle, group = run()
    assert idle == "True"
    assert group == before
