"""A stand-in Hugging Face Hub on 127.0.0.1, for download code tested without network.

It answers the model-info API (with file sizes) and the ``resolve`` URLs files are fetched
from, as the real Hub does, so that downloads, byte ranges, refusals and cut-off transfers
can all be exercised on loopback.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


class Requests(list):
    """The requests a stand-in Hub received ("GET /path"), and the body bytes it sent."""

    bytes_sent = 0


COMMIT = "0123456789abcdef0123456789abcdef01234567"  # every repo's one revision


@dataclass(frozen=True)
class Behaviour:
    """What one stand-in Hub serves and how (see stand_in_hub)."""

    repos: dict[str, Path]
    status: int
    ranges: bool
    drop_after: int | None
    requested: Requests


class _Hub(http.server.BaseHTTPRequestHandler):
    """Answers as the Hub does, as its ``behaviour`` says (set on a subclass per server)."""

    behaviour: Behaviour

    def do_HEAD(self):  # noqa: N802 - the names http.server calls
        self.answer(body=False)

    def do_GET(self):  # noqa: N802
        self.answer(body=True)

    def answer(self, body: bool) -> None:
        hub = self.behaviour
        hub.requested.append(f"{self.command} {self.path}")
        path = self.path.split("?")[0]
        for repo, folder in hub.repos.items():
            if path.startswith(f"/api/models/{repo}/revision/"):
                files = [{"rfilename": f.name, "size": f.stat().st_size} for f in sorted(folder.iterdir())]
                info = {"id": repo, "sha": COMMIT, "siblings": files}
                return self.send(200, json.dumps(info).encode(), body)
            if path.startswith(f"/{repo}/resolve/"):
                return self.send_file(folder / path.rsplit("/", 1)[1], body)
        self.send(hub.status, b'{"error": "Repository not found"}', body)

    def send_file(self, file: Path, body: bool) -> None:
        """A repo's file, or the byte range asked for (if the Hub honours ranges)."""
        if not file.is_file():
            return self.send(404, b"", body)
        data = file.read_bytes()
        headers = {"X-Repo-Commit": COMMIT, "ETag": f'"{hashlib.sha256(data).hexdigest()}"'}
        wanted = self.headers.get("Range")
        if wanted and self.behaviour.ranges:
            first, last = (int(n) for n in wanted.removeprefix("bytes=").split("-"))
            headers["Content-Range"] = f"bytes {first}-{last}/{len(data)}"
            return self.send(206, data[first : last + 1], body, headers)
        return self.send(200, data, body, headers)

    def send(self, code: int, data: bytes, body: bool, headers: dict | None = None) -> None:
        self.send_response(code)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if not body:
            return
        drop_after, requested = self.behaviour.drop_after, self.behaviour.requested
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
    requested = Requests()
    behaviour = Behaviour(repos or {}, status, ranges, drop_after, requested)
    handler = type("Hub", (_Hub,), {"behaviour": behaviour})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requested
    finally:
        server.shutdown()


def go_online(monkeypatch) -> None:
    """Let the code under test ask the Hub (played by a stand-in on 127.0.0.1). huggingface_hub
    reads HF_HUB_OFFLINE once, when first imported, so unsetting the variable is not enough
    when an earlier test imported it offline."""
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
