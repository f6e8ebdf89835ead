"""Shared fixtures: the bundled model, and tiny random BERT checkpoints written to disk.

Tiny checkpoints are built from a config inside the tests (as bertviz and whatlies do) so
that the decomposition is checked on more than one set of weights, quickly and offline.
They reuse the bundled model's tokenizer files, so ids are real bert-base-uncased ids.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from testkit.random_models import write_random_bert

# No test reaches the real Hub: the tests that exercise Hub code point HF_ENDPOINT at
# servers on 127.0.0.1, or set HF_HUB_OFFLINE. Telemetry would be one more request.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

ROOT = Path(__file__).resolve().parent.parent


def shown(markdown: str) -> str:
    """A message as a person reads it: the app writes echoed input as escaped Markdown (a
    backslash before punctuation, an invisible word joiner after ':', '.' and '@')."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")


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
