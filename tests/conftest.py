"""Shared fixtures: the bundled model, and tiny random BERT checkpoints written to disk.

Tiny checkpoints are built from a config inside the tests (as bertviz and whatlies do) so
that the decomposition is checked on more than one set of weights, quickly and offline.
They reuse the bundled model's tokenizer files, so ids are real bert-base-uncased ids.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from testkit.random_models import write_random_bert
from testkit.stand_in_hub import go_offline

# The browser tests' Chromium (the `browser` fixture), with its skip where there is none.
pytest_plugins = ["testkit.pytest_chromium"]

# No test reaches the real Hub: the tests that exercise Hub code point huggingface_hub at
# servers on 127.0.0.1, or set HF_HUB_OFFLINE (testkit/stand_in_hub.py: use_hub, go_offline).
# Telemetry would be one more request.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
# Folders this process made for the run (the first to read this file: the test processes xdist
# starts inherit them), removed when the run ends.
_MADE: list[Path] = []


def _run_folder(variable: str, prefix: str, file: str = "") -> None:
    if variable not in os.environ:
        _MADE.append(Path(tempfile.mkdtemp(prefix=prefix)))
        os.environ[variable] = str(_MADE[-1] / file) if file else str(_MADE[-1])


# Rooms opened by this run's tests are kept in a file of its own (never the user's cache folder);
# each server a test starts gets its own file too (testkit/browser.py), unless it names one.
_run_folder("BERT_EXPLORER_ROOMS", "rooms-", "rooms.sqlite3")
# So are the maps and stage spaces that the pages' background jobs write (the Geometry page's
# overlaps start them on opening): shared by this run's test processes, never the user's cache.
_run_folder("BERT_EXPLORER_CACHE", "explorer-cache-")


def pytest_unconfigure(config):
    for folder in _MADE:
        shutil.rmtree(folder, ignore_errors=True)


# A test run keeps both cores busy (two test processes, their servers and browsers): background
# work at SCHED_IDLE, the app's default, would wait for an idle moment that never comes. The
# tests of that priority itself (tests/maps/test_neighbour_map.py, test_prepare_command.py) run
# their work with the setting unset.
os.environ.setdefault("BERT_EXPLORER_JOB_PRIORITY", "normal")


@pytest.fixture(scope="session")
def redis_url():
    """A real Redis server (Debian's redis-server) on a free port, for this test run. A test that
    uses it is marked `server` in its file, as are those that start any other server or process."""
    from testkit import services

    if services.redis_path() is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but no redis-server: scripts/ensure-services.sh installs it", pytrace=False)
        pytest.skip("no redis-server here: `make test` installs it (needs root and apt-get)")
    with services.redis_server() as (url, _process):
        yield url


@pytest.fixture(scope="session")
def bundled():
    from bert_embeddings.models.checkpoints import load_bundled

    return load_bundled()


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory) -> Path:
    return write_random_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture
def downloads(monkeypatch):
    """Every download a page offers, by file name: Streamlit gets the data function, and so
    does the test, which can call it as a click would."""
    offered = {}
    from streamlit.runtime.media_file_manager import MediaFileManager

    real = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        offered[file_name] = data_callable
        return real(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    go_offline(monkeypatch)
    return offered


@pytest.fixture
def offline(monkeypatch):
    """Tests never wait on a network: the default model resolves offline at once."""
    go_offline(monkeypatch)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A browser test that fails reports what every page its file's Chromium (the `browser`
    fixture, testkit/pytest_chromium.py) had open showed at that moment (its address and text), so
    that a failure on a busy CI machine explains itself."""
    outcome = yield
    report = outcome.get_result()
    chromium = item.funcargs.get("browser") if report.when == "call" and report.failed else None
    if chromium is None:
        return
    shown = []
    for context in chromium.contexts:
        for page in context.pages:
            try:
                text = page.inner_text("body", timeout=5_000)
            except Exception as problem:  # (a closed or hung page says so instead)
                text = f"(could not be read: {problem})"
            shown.append(f"--- {page.url}\n{text[-2_000:]}")
    report.sections.append(("pages open when the test failed", "\n".join(shown) or "(none)"))


def pytest_terminal_summary(terminalreporter, config):
    """The suite's floor on this machine, measured in this run: the time every test took (setup,
    call and teardown, summed over the test processes), and that time shared evenly by the
    processes, which no order or grouping of these tests can beat."""
    reports = [r for kept in terminalreporter.stats.values() for r in kept if hasattr(r, "when")]
    spent = sum(getattr(report, "duration", 0.0) for report in reports)
    workers = getattr(config.option, "numprocesses", None)
    workers = workers if isinstance(workers, int) and workers > 0 else 1
    if spent:
        terminalreporter.write_line(
            f"tests' own time {spent:,.0f} s; shared evenly by {workers} process(es), "
            f"at best {spent / workers:,.0f} s"
        )
