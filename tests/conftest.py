"""Shared fixtures: the bundled model, and tiny random BERT checkpoints written to disk.

Tiny checkpoints are built from a config inside the tests (as bertviz and whatlies do) so
that the decomposition is checked on more than one set of weights, quickly and offline.
They reuse the bundled model's tokenizer files, so ids are real bert-base-uncased ids.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from testkit.random_models import write_random_bert

# No test reaches the real Hub: the tests that exercise Hub code point HF_ENDPOINT at
# servers on 127.0.0.1, or set HF_HUB_OFFLINE. Telemetry would be one more request.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
# Rooms opened by this run's tests are kept in a file of its own (never the user's cache folder);
# each server a test starts gets its own file too (testkit/browser.py), unless it names one.
os.environ.setdefault("BERT_EXPLORER_ROOMS", str(Path(tempfile.mkdtemp(prefix="rooms-")) / "rooms.sqlite3"))

ROOT = Path(__file__).resolve().parent.parent


def shown(markdown: str) -> str:
    """A message as a person reads it: the app writes echoed input as escaped Markdown (a
    backslash before punctuation, an invisible word joiner after ':', '.' and '@')."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")


@pytest.fixture(scope="session")
def redis_url():
    """A real Redis server (Debian's redis-server) on a free port, for this test run."""
    from testkit import services

    if services.redis_path() is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but no redis-server: scripts/ensure-services.sh installs it", pytrace=False)
        pytest.skip("no redis-server here: `make test` installs it (needs root and apt-get)")
    with services.redis_server() as (url, _process):
        yield url


@pytest.fixture(scope="session")
def bundled():
    from bert_embeddings.checkpoints import load_bundled

    return load_bundled()


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory) -> Path:
    return write_random_bert(tmp_path_factory.mktemp("tiny-bert"))


def damaged_bundled_copy(folder: Path) -> Path:
    """A copy of the bundled model's files whose weights differ in their last byte."""
    from bert_embeddings.checkpoints import bundled_folder

    shutil.copytree(bundled_folder(), folder)
    with open(folder / "model.safetensors", "r+b") as handle:
        handle.seek(-1, 2)
        last = handle.read(1)
        handle.seek(-1, 2)
        handle.write(bytes([last[0] ^ 0xFF]))
    return folder


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
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return offered


def go_online(monkeypatch) -> None:
    """Let the code under test ask the Hub (played by a stand-in on 127.0.0.1). huggingface_hub
    reads HF_HUB_OFFLINE once, when first imported, so unsetting the variable is not enough
    when an earlier test imported it offline."""
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
