"""A stand-in Hugging Face Hub on 127.0.0.1, for download code tested without network.

It answers what huggingface_hub asks of the real Hub when the explorer fetches a model: the
model-info API (with file sizes), the tree listing HfFileSystem reads, and the ``resolve`` URLs
files come from (HEAD, GET and byte ranges). Like the Hub, it can keep a repo private or gated
(only a request that carries its token gets an answer: a 401 otherwise), answer a renamed repo's
old id with a redirect to its new one, ignore byte ranges, and cut transfers off, so that all of
these can be exercised on loopback.

huggingface_hub reads its settings (HF_ENDPOINT, HF_HUB_OFFLINE, HF_HOME and the paths under it)
once, when it is first imported. The helpers at the end point a test at a stand-in Hub, or change
one of those settings mid-run, by setting both the variable (for the processes a test starts)
and huggingface_hub's own copy of it (for this process).
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote


class Requests(list):
    """The requests a stand-in Hub received ("GET /path"); each one with the Authorization and
    Range headers it carried ("" if none) in ``seen``; the body bytes it sent, and how many
    transfers it cut off."""

    bytes_sent = 0
    cut = 0

    def __init__(self):
        super().__init__()
        self.seen: list[Seen] = []


@dataclass(frozen=True)
class Seen:
    """One request, with the headers that matter to the tests."""

    line: str  # "GET /someone/model/resolve/main/model.safetensors"
    authorization: str
    range: str


COMMIT = "0123456789abcdef0123456789abcdef01234567"  # every repo's one revision


@dataclass(frozen=True)
class Behaviour:
    """What one stand-in Hub serves and how (see stand_in_hub)."""

    repos: dict[str, Path]
    status: int
    ranges: bool
    drop_after: int | None
    drops: int | None
    token: str | None
    gated: bool
    renamed: dict[str, str] = field(default_factory=dict)
    requested: Requests = field(default_factory=Requests)


def digest(file: Path, algorithm: str) -> str:
    stat = file.stat()
    return _digest(str(file), stat.st_size, stat.st_mtime_ns, algorithm)


@functools.lru_cache(maxsize=256)
def _digest(path: str, size: int, mtime_ns: int, algorithm: str) -> str:
    """A file's hash, computed once per version of the file (its size and time)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, algorithm).hexdigest()


class _Hub(http.server.BaseHTTPRequestHandler):
    """Answers as the Hub does, as its ``behaviour`` says (set on a subclass per server)."""

    behaviour: Behaviour

    def do_HEAD(self):  # noqa: N802 - the names http.server calls
        self.answer(body=False)

    def do_GET(self):  # noqa: N802
        self.answer(body=True)

    def answer(self, body: bool) -> None:
        hub = self.behaviour
        line = f"{self.command} {self.path}"
        hub.requested.append(line)
        hub.requested.seen.append(
            Seen(line, self.headers.get("Authorization", ""), self.headers.get("Range", ""))
        )
        path = unquote(self.path.split("?")[0])
        for old, new in hub.renamed.items():
            for before, after in ((f"/api/models/{old}/", f"/api/models/{new}/"), (f"/{old}/", f"/{new}/")):
                if path.startswith(before):  # a renamed repo: the Hub redirects its old id
                    return self.send(307, b"", body, {"Location": after + self.path[len(before) :]})
        for repo, folder in hub.repos.items():
            api = f"/api/models/{repo}/"
            if not (path.startswith(api) or path.startswith(f"/{repo}/resolve/")):
                continue
            if not self.allowed(repo, is_api=path.startswith(api)):
                return None
            if path.startswith(f"{api}revision/"):
                return self.send_json(self.model_info(repo, folder), body)
            if path.startswith(f"{api}tree/"):
                return self.send_json(self.tree(folder), body)
            return self.send_file(folder / path.rsplit("/", 1)[1], body)
        self.send(hub.status, b'{"error": "Repository not found"}', body)

    def allowed(self, repo: str, is_api: bool) -> bool:
        """A private repo answers only a request with its token, a gated one serves its files only
        with it (its model card and file list are public), as the Hub does; otherwise a 401."""
        hub = self.behaviour
        if hub.token is None or self.headers.get("Authorization") == f"Bearer {hub.token}":
            return True
        if hub.gated and is_api:
            return True
        code, message = (
            ("GatedRepo", f"Access to model {repo} is restricted.") if hub.gated else ("RepoNotFound", "")
        )
        headers = {"X-Error-Code": code, "X-Error-Message": message}
        self.send(401, json.dumps({"error": message or "Repository not found"}).encode(), True, headers)
        return False

    @staticmethod
    def model_info(repo: str, folder: Path) -> dict:
        files = [{"rfilename": f.name, "size": f.stat().st_size} for f in sorted(folder.iterdir())]
        return {"id": repo, "sha": COMMIT, "siblings": files}

    @staticmethod
    def tree(folder: Path) -> list[dict]:
        return [
            {
                "type": "file",
                "oid": hashlib.sha1(f.read_bytes()).hexdigest(),
                "size": f.stat().st_size,
                "path": f.name,
            }
            for f in sorted(folder.iterdir())
        ]

    def send_json(self, value, body: bool) -> None:
        self.send(200, json.dumps(value).encode(), body, {"Content-Type": "application/json"})

    def send_file(self, file: Path, body: bool) -> None:
        """A repo's file, or the byte range asked for (if the Hub honours ranges). Only the bytes
        sent are read, and each file is hashed once: a big checkpoint is asked for many times."""
        if not file.is_file():
            return self.send(404, b"", body, {"X-Error-Code": "EntryNotFound"})
        size = file.stat().st_size
        headers = {
            "X-Repo-Commit": COMMIT,
            "ETag": f'"{digest(file, "sha256")}"',
            "Accept-Ranges": "bytes" if self.behaviour.ranges else "none",
        }
        code, first, last = 200, 0, size - 1
        wanted = self.headers.get("Range")
        if wanted and self.behaviour.ranges:
            first_text, last_text = wanted.removeprefix("bytes=").split("-")
            code, first = 206, int(first_text)
            last = min(int(last_text) if last_text else size - 1, size - 1)
            if first >= size:
                return self.send(416, b"", body, {"Content-Range": f"bytes */{size}"})
            headers["Content-Range"] = f"bytes {first}-{last}/{size}"
        data = b""
        if body:
            with open(file, "rb") as handle:
                handle.seek(first)
                data = handle.read(last - first + 1)
        return self.send(code, data, body, headers, length=last - first + 1)

    def send(
        self, code: int, data: bytes, body: bool, headers: dict | None = None, length: int | None = None
    ):
        self.send_response(code)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data) if length is None else length))
        self.end_headers()
        if not body:
            return
        hub = self.behaviour
        requested = hub.requested
        if (
            hub.drop_after is not None
            and len(data) > hub.drop_after
            and (hub.drops is None or requested.cut < hub.drops)
        ):
            requested.cut += 1
            self.wfile.write(data[: hub.drop_after])
            requested.bytes_sent += hub.drop_after
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
    drops: int | None = None,
    token: str | None = None,
    gated: bool = False,
    renamed: dict[str, str] | None = None,
):
    """A stand-in Hugging Face Hub on 127.0.0.1; yields (URL, Requests).

    ``repos`` maps a repo id to a folder whose files it serves; any other repo gets ``status``
    (404 unknown, 401 private or gated). It honours byte ranges unless ``ranges`` is False. With
    ``drop_after`` it closes the connection after sending that many bytes of an answer larger than
    that: every time, or the first ``drops`` times. With ``token`` its repos are private (every
    request needs ``Authorization: Bearer <token>``), or gated with ``gated`` (only their files
    need it). ``renamed`` maps old repo ids to new ones, answered with a redirect.
    """
    requested = Requests()
    behaviour = Behaviour(
        repos or {}, status, ranges, drop_after, drops, token, gated, renamed or {}, requested
    )
    handler = type("Hub", (_Hub,), {"behaviour": behaviour})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requested
    finally:
        server.shutdown()
        server.server_close()


# --- huggingface_hub's settings, changed mid-run -------------------------------------------


def use_hub(monkeypatch, url: str) -> None:
    """Send huggingface_hub's requests to ``url`` (a stand-in Hub), as HF_ENDPOINT would, and let
    it ask (HF_HUB_OFFLINE unset)."""
    from huggingface_hub import constants

    go_online(monkeypatch)
    monkeypatch.setenv("HF_ENDPOINT", url)
    monkeypatch.setattr(constants, "ENDPOINT", url)
    monkeypatch.setattr(
        constants, "HUGGINGFACE_CO_URL_TEMPLATE", url + "/{repo_id}/resolve/{revision}/{filename}"
    )


def go_online(monkeypatch) -> None:
    """Let the code under test ask the Hub (played by a stand-in on 127.0.0.1)."""
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


def go_offline(monkeypatch) -> None:
    """HF_HUB_OFFLINE=1, for this process and the ones it starts."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)


def use_hub_cache(monkeypatch, folder: Path) -> Path:
    """HF_HUB_CACHE=folder (the explorer's own cache folder is beside it, unless set)."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_CACHE", str(folder))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(folder))
    return folder


def use_hf_home(monkeypatch, folder: Path) -> Path:
    """HF_HOME=folder: the hub cache in folder/hub, and the login `hf auth login` saves in
    folder/token (huggingface_hub's HF_TOKEN_PATH); HF_TOKEN unset, so only that login counts."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HOME", str(folder))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HF_TOKEN_PATH", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HUGGING_FACE_HUB_TOKEN", raising=False)
    monkeypatch.setattr(constants, "HF_HOME", str(folder))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(folder / "hub"))
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(folder / "token"))
    monkeypatch.setattr(constants, "HF_STORED_TOKENS_PATH", str(folder / "stored_tokens"))
    return folder


def save_login(hf_home: Path, token: str) -> Path:
    """The file `hf auth login` writes for the active token (HF_HOME/token), as it writes it."""
    hf_home.mkdir(parents=True, exist_ok=True)
    (hf_home / "token").write_text(token)
    return hf_home / "token"


def without_retry_waits(monkeypatch) -> list[float]:
    """huggingface_hub retries a failed transfer after waiting 1, 2, 4, 8 and 8 s; a test that
    cuts every transfer off needs the retries, not the waits. Returns the waits it skipped."""
    from huggingface_hub import file_download
    from huggingface_hub.utils import _http

    skipped: list[float] = []

    class Clock:  # the time module, with a sleep that only counts
        def __getattr__(self, name):
            return getattr(time, name)

        @staticmethod
        def sleep(seconds: float) -> None:
            skipped.append(seconds)

    monkeypatch.setattr(_http, "time", Clock())
    monkeypatch.setattr(file_download, "time", Clock())
    return skipped
