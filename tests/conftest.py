"""Shared fixtures: the bundled model, and tiny random BERT checkpoints written to disk.

Tiny checkpoints are built from a config inside the tests (as bertviz and whatlies do) so
that the decomposition is checked on more than one set of weights, quickly and offline.
They reuse the bundled model's tokenizer files, so ids are real bert-base-uncased ids.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import shutil
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.random_models import write_random_bert

# No test reaches the real Hub: the tests that exercise Hub code point HF_ENDPOINT at
# servers on 127.0.0.1, or set HF_HUB_OFFLINE. Telemetry would be one more request.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

ROOT = Path(__file__).resolve().parent.parent


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


@contextmanager
def stand_in_hub(repos: dict[str, Path] | None = None, status: int = 404):
    """A stand-in Hugging Face Hub on 127.0.0.1; yields (URL, list of requested paths).

    It answers the two kinds of URL the app uses: the model-info API and the ``resolve``
    URLs that huggingface_hub downloads from (HEAD with commit, ETag and size; then GET).
    ``repos`` maps a repo id to a folder whose files it serves; any other repo gets
    ``status`` (404 unknown, 401 private or gated).
    """
    repos = repos or {}
    commit = "0123456789abcdef0123456789abcdef01234567"
    requested: list[str] = []

    class Hub(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self):  # noqa: N802 - the names http.server calls
            self.answer(body=False)

        def do_GET(self):  # noqa: N802
            self.answer(body=True)

        def answer(self, body: bool) -> None:
            requested.append(f"{self.command} {self.path}")
            path = self.path.split("?")[0]
            for repo, folder in repos.items():
                if path.startswith(f"/api/models/{repo}/revision/"):
                    files = [{"rfilename": f.name} for f in sorted(folder.iterdir())]
                    return self.send(200, json.dumps({"sha": commit, "siblings": files}).encode(), body)
                if path.startswith(f"/{repo}/resolve/"):
                    file = folder / path.rsplit("/", 1)[1]
                    if not file.is_file():
                        return self.send(404, b"", body)
                    data = file.read_bytes()
                    headers = {"X-Repo-Commit": commit, "ETag": f'"{hashlib.sha256(data).hexdigest()}"'}
                    return self.send(200, data, body, headers)
            self.send(status, b'{"error": "Repository not found"}', body)

        def send(self, code: int, data: bytes, body: bool, headers: dict | None = None) -> None:
            self.send_response(code)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if body:
                self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requested
    finally:
        server.shutdown()
