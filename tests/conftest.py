"""Shared fixtures: the bundled model, and tiny random BERT checkpoints written to disk.

Tiny checkpoints are built from a config inside the tests (as bertviz and whatlies do) so
that the decomposition is checked on more than one set of weights, quickly and offline.
They reuse the bundled model's tokenizer files, so ids are real bert-base-uncased ids.
"""

from __future__ import annotations

import http.server
import os
import shutil
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

# Tests never touch the network: a Hub model resolves through the offline path.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

ROOT = Path(__file__).resolve().parent.parent
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")


@pytest.fixture(scope="session")
def bundled():
    from bert_embeddings.checkpoints import load_bundled

    return load_bundled()


def write_tiny_bert(
    folder: Path,
    *,
    seed: int = 0,
    hidden: int = 24,
    positions: int = 40,
    prefix: bool = False,
    legacy_names: bool = False,
    pickled: bool = False,
    tokenizer_files: tuple[str, ...] = TOKENIZER_FILES,
) -> Path:
    """Save a randomly initialised BERT with the bundled vocabulary to ``folder``.

    prefix: keys carry "bert." (as BertForMaskedLM exports do); legacy_names: LayerNorm
    as gamma/beta (TF-era checkpoints); pickled: pytorch_model.bin instead of safetensors.
    """
    import torch
    from safetensors.torch import save_file
    from transformers import BertConfig, BertModel

    from bert_embeddings.checkpoints import bundled_folder

    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=30522,
        hidden_size=hidden,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=2 * hidden,
        max_position_embeddings=positions,
        type_vocab_size=2,
        initializer_range=0.5,  # large rows so that LayerNorm has real work to do
    )
    model = BertModel(config).eval()
    with torch.no_grad():  # gamma and beta away from their 1 / 0 start values
        model.embeddings.LayerNorm.weight.uniform_(0.5, 1.5)
        model.embeddings.LayerNorm.bias.uniform_(-0.3, 0.3)
    folder.mkdir(parents=True, exist_ok=True)
    config.save_pretrained(folder)
    state = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
    if legacy_names:
        state = {
            k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): v
            for k, v in state.items()
        }
    if prefix:
        state = {f"bert.{k}": v for k, v in state.items()}
    if pickled:
        torch.save(state, folder / "pytorch_model.bin")
    else:
        save_file(state, str(folder / "model.safetensors"), metadata={"format": "pt"})
    for name in tokenizer_files:
        shutil.copy(bundled_folder() / name, folder / name)
    return folder


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


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


@contextmanager
def hub_answering(status: int):
    """A stand-in Hub on 127.0.0.1 answering every request with ``status``; yields its URL."""

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the name http.server calls
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": "Repository not found"}')

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
