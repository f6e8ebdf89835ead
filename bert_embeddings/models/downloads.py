"""Fetching a Hub model's embedding layer: only the bytes it needs, with progress.

A safetensors file starts with an 8-byte little-endian header length and a JSON header
giving each tensor's byte range (as transformers 5.23 reads checkpoints). When the server
honours byte ranges, only the header and the span holding the embedding tensors are
fetched (about 95 MB of bert-base-uncased's 440 MB) and written as a smaller safetensors
file with just those tensors. A server that ignores ranges gets the whole file streamed.
A transfer that stops early is reported, and nothing half-written is kept.
``fetch_checkpoint`` puts the pieces together for one model: its size checked against the
host's limit first, then config and tokenizer, then the embedding tensors.
"""

from __future__ import annotations

import json
import os
import struct
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

from bert_embeddings import config
from bert_embeddings.errors import DownloadTooLargeError, HubDownloadError, NotACheckpointError
from bert_embeddings.models import hub
from bert_embeddings.models.architectures import family_of
from bert_embeddings.models.folders import WEIGHT_FILES, wanted_keys

Progress = Callable[[int, int], None]  # (bytes so far, bytes expected)
_CHUNK = 1 << 20
_TIMEOUT_S = 30


def _open(url: str, headers: dict[str, str], byte_range: tuple[int, int] | None = None):
    request_headers = dict(headers)
    if byte_range is not None:
        request_headers["Range"] = f"bytes={byte_range[0]}-{byte_range[1] - 1}"
    try:
        return urllib.request.urlopen(
            urllib.request.Request(url, headers=request_headers), timeout=_TIMEOUT_S
        )
    except Exception as exc:
        raise HubDownloadError(f"Fetching {url.rsplit('/', 1)[-1]} failed: {exc}") from None


def _read_all(response, expected: int, progress: Progress | None, done: int = 0, total: int = 0) -> bytes:
    """Read a response body of ``expected`` bytes, reporting progress; fail if it stops short."""
    parts, received = [], 0
    try:
        while received < expected:
            chunk = response.read(min(_CHUNK, expected - received))
            if not chunk:
                break
            parts.append(chunk)
            received += len(chunk)
            if progress:
                progress(done + received, total or expected)
    except Exception as exc:
        raise HubDownloadError(f"The download was cut off after {received / 1e6:.1f} MB ({exc}).") from None
    if received < expected:
        raise HubDownloadError(
            f"The download was cut off after {received / 1e6:.1f} of {expected / 1e6:.1f} MB. Try again."
        )
    return b"".join(parts)


def fetch_file(url: str, destination: Path, headers: dict[str, str], progress: Progress | None = None) -> int:
    """Download a whole file; returns the number of bytes fetched."""
    with _open(url, headers) as response:
        size = int(response.headers.get("Content-Length") or 0)
        body = _read_all(response, size, progress) if size else response.read()
    _write_atomically(destination, body)
    return len(body)


def fetch_tensors(
    url: str,
    destination: Path,
    headers: dict[str, str],
    choose: Callable[[list[str]], dict[str, str]],
    progress: Progress | None = None,
) -> int:
    """Fetch the tensors that ``choose`` picks from a safetensors file; returns bytes fetched.

    ``choose`` maps the file's tensor names to the ones wanted (name -> key in the file).
    """
    with _open(url, headers, (0, 8)) as response:
        if response.status != 206:  # the server ignores ranges: take the whole file
            size = int(response.headers.get("Content-Length") or 0)
            body = _read_all(response, size, progress)
            _write_atomically(destination, body)
            return len(body)
        header_length = struct.unpack("<Q", _read_all(response, 8, None))[0]
    with _open(url, headers, (8, 8 + header_length)) as response:
        header = json.loads(_read_all(response, header_length, None))
    wanted = choose([k for k in header if k != "__metadata__"])
    spans = [header[key]["data_offsets"] for key in wanted.values()]
    start, end = min(s for s, _ in spans), max(e for _, e in spans)
    base = 8 + header_length
    with _open(url, headers, (base + start, base + end)) as response:
        if response.status != 206:
            raise HubDownloadError("The server stopped honouring byte ranges mid-download. Try again.")
        data = _read_all(response, end - start, progress)
    _write_atomically(
        destination, _safetensors_bytes({key: header[key] for key in wanted.values()}, data, start)
    )
    return 8 + header_length + (end - start)


def _safetensors_bytes(entries: dict[str, dict], data: bytes, data_start: int) -> bytes:
    """A safetensors file holding ``entries``, whose bytes are in ``data`` (which begins at
    ``data_start`` of the original file's data section)."""
    header, body, offset = {}, [], 0
    for key, entry in entries.items():
        begin, end = (o - data_start for o in entry["data_offsets"])
        body.append(data[begin:end])
        header[key] = {
            "dtype": entry["dtype"],
            "shape": entry["shape"],
            "data_offsets": [offset, offset + end - begin],
        }
        offset += end - begin
    encoded = json.dumps(header, separators=(",", ":")).encode()
    encoded += b" " * (-len(encoded) % 8)  # the format pads the header to 8 bytes
    return struct.pack("<Q", len(encoded)) + encoded + b"".join(body)


def _write_atomically(destination: Path, body: bytes) -> None:
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(f"{destination.name}.{os.getpid()}.part")  # (replicas share it)
    partial.write_bytes(body)
    partial.replace(destination)


def fetch_checkpoint(
    repo_id: str, revision: str, sizes: dict[str, int], progress: Progress | None = None
) -> Path:
    """Fetch config, tokenizer and the embedding tensors into the explorer's cache folder.

    The checkpoint's size is checked against the limit before anything is fetched.
    """
    weights = next((f for f in WEIGHT_FILES if f in sizes), None)
    if weights is None or "config.json" not in sizes:
        raise NotACheckpointError(f"{repo_id} on the Hub has no config.json and model weights.")
    limit = config.max_download_bytes()
    if sizes[weights] > limit:
        raise DownloadTooLargeError(
            f"{repo_id}'s {weights} is {sizes[weights] / 1e9:.2f} GB, more than this server downloads "
            f"({limit / 1e9:.2f} GB, set by {config.MAX_DOWNLOAD_MB})."
        )
    folder = hub.explorer_folder(repo_id, revision)
    base = f"{config.hub_endpoint()}/{repo_id}/resolve/{urllib.parse.quote(revision, safe='')}"
    headers = hub.auth_headers()
    small = ["config.json", *(f for f in ("tokenizer.json", "tokenizer_config.json") if f in sizes)]
    if "tokenizer.json" not in sizes:
        small.append("vocab.txt")
    for name in small:
        fetch_file(f"{base}/{name}", folder / name, headers)
    model_config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    family = family_of(model_config, repo_id)  # refuse an unsupported family before the big download
    if weights.endswith(".safetensors"):
        fetch_tensors(
            f"{base}/{weights}",
            folder / weights,
            headers,
            lambda keys: wanted_keys(keys, Path(weights), family),
            progress,
        )
    else:
        fetch_file(f"{base}/{weights}", folder / weights, headers, progress)
    return folder
