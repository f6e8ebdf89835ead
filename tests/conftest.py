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
import re
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


class Requests(list):
    """The requests a stand-in Hub received ("GET /path"), and the body bytes it sent."""

    bytes_sent = 0


@contextmanager
def stand_in_hub(
    repos: dict[str, Path] | None = None,
    status: int = 404,
    ranges: bool = True,
    drop_after: int | None = None,
):
    """A stand-in Hugging Face Hub on 127.0.0.1; yields (URL, Requests).

    It answers the model-info API (with file sizes) and the ``resolve`` URLs files are
    fetched from, honouring byte ranges unless ``ranges`` is False. With ``drop_after`` it
    closes the connection after sending that many bytes of a file larger than that.
    ``repos`` maps a repo id to a folder whose files it serves; any other repo gets
    ``status`` (404 unknown, 401 private or gated).
    """
    repos = repos or {}
    commit = "0123456789abcdef0123456789abcdef01234567"
    requested = Requests()

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
                    files = [
                        {"rfilename": f.name, "size": f.stat().st_size} for f in sorted(folder.iterdir())
                    ]
                    return self.send(200, json.dumps({"sha": commit, "siblings": files}).encode(), body)
                if path.startswith(f"/{repo}/resolve/"):
                    file = folder / path.rsplit("/", 1)[1]
                    if not file.is_file():
                        return self.send(404, b"", body)
                    data = file.read_bytes()
                    headers = {"X-Repo-Commit": commit, "ETag": f'"{hashlib.sha256(data).hexdigest()}"'}
                    wanted = self.headers.get("Range")
                    if wanted and ranges:
                        first, last = (int(n) for n in wanted.removeprefix("bytes=").split("-"))
                        headers["Content-Range"] = f"bytes {first}-{last}/{len(data)}"
                        return self.send(206, data[first : last + 1], body, headers)
                    return self.send(200, data, body, headers)
            self.send(status, b'{"error": "Repository not found"}', body)

        def send(self, code: int, data: bytes, body: bool, headers: dict | None = None) -> None:
            self.send_response(code)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if not body:
                return
            if drop_after is not None and len(data) > drop_after:
                self.wfile.write(data[:drop_after])
                requested.bytes_sent += drop_after
                self.close_connection = True
                self.connection.shutdown(2)  # cut off mid-transfer
                return
            self.wfile.write(data)
            requested.bytes_sent += len(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requested
    finally:
        server.shutdown()
