"""The Hugging Face Hub: what a Hub id looks like, what the local caches hold, and a probe.

The probe asks the model-info API for a revision's files and sizes, in a daemon thread with
a hard deadline (``HUB_TIMEOUT_S``): huggingface_hub's own client retries for about 20 s on
an unreachable Hub, and no client timeout covers a DNS lookup that hangs, so a page would
wait that long. Cache look-ups use huggingface_hub's own ``try_to_load_from_cache``.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from bert_embeddings import config, limits
from bert_embeddings.folders import TOKENIZER_FILES, WEIGHT_FILES, is_complete

HUB_TIMEOUT_S = 2.5

_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$")


def is_hub_id(spec: str) -> bool:
    """Whether ``spec`` is written like a Hub repository id (``name`` or ``owner/name``)."""
    return len(spec) <= limits.MODEL_ID.most and bool(_HUB_ID.match(spec)) and ".." not in spec


def label(repo_id: str, revision: str) -> str:
    return repo_id if revision == config.DEFAULT_REVISION else f"{repo_id}@{revision}"


def explorer_folder(repo_id: str, revision: str) -> Path:
    return config.explorer_cache_dir() / repo_id.replace("/", "--") / revision.replace("/", "--")


def cached_snapshot(repo_id: str, revision: str) -> Path | None:
    """The cache folder holding this revision's config, tokenizer and weights, if complete."""
    from huggingface_hub import try_to_load_from_cache

    def cached(filename: str) -> Path | None:
        found = try_to_load_from_cache(repo_id, filename, cache_dir=config.hub_cache_dir(), revision=revision)
        return Path(found) if isinstance(found, str) else None

    config_file = cached("config.json")
    if config_file is None:
        return None
    if not any(cached(f) for f in WEIGHT_FILES) or not any(cached(f) for f in TOKENIZER_FILES):
        return None
    return config_file.parent


def local_copy(repo_id: str, revision: str) -> Path | None:
    """A complete copy of the model on this machine: the Hugging Face cache, or our own."""
    snapshot = cached_snapshot(repo_id, revision)
    if snapshot is None and is_complete(explorer_folder(repo_id, revision)):
        snapshot = explorer_folder(repo_id, revision)
    return snapshot


@dataclass(frozen=True)
class HubAnswer:
    status: str  # "ok", "missing", "unreachable"
    detail: str = ""
    files: tuple[tuple[str, int], ...] = ()  # (file name, size in bytes; 0 if not given)


def probe_hub(repo_id: str, revision: str, timeout: float = HUB_TIMEOUT_S) -> HubAnswer:
    """Ask the Hub about a model, giving up after ``timeout`` seconds whatever hangs.

    The request runs in a daemon thread so that a stalled DNS lookup or a server that
    accepts but never answers cannot hold the page longer than the deadline.
    """
    quoted = urllib.parse.quote(revision, safe="")
    url = f"{config.hub_endpoint()}/api/models/{repo_id}/revision/{quoted}?blobs=true"  # with file sizes
    request = urllib.request.Request(url, headers=auth_headers())
    result: list[HubAnswer] = []

    def ask() -> None:
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                info = json.loads(response.read(4_000_000))
            siblings = info.get("siblings", [])
            files = tuple((s.get("rfilename", ""), int(s.get("size") or 0)) for s in siblings)
            result.append(HubAnswer("ok", files=files))
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403, 404):
                result.append(HubAnswer("missing", f"HTTP {exc.code}"))
            else:
                result.append(HubAnswer("unreachable", f"HTTP {exc.code}"))
        except Exception as exc:  # DNS, refused, reset, bad JSON: all mean "not usable now"
            reason = getattr(exc, "reason", exc)
            result.append(HubAnswer("unreachable", str(reason)[:120] or type(exc).__name__))

    worker = threading.Thread(target=ask, daemon=True, name=f"hub-probe-{repo_id}")
    worker.start()
    worker.join(timeout)
    if not result:
        return HubAnswer("unreachable", f"no answer within {timeout:g} s")
    return result[0]


def auth_headers() -> dict[str, str]:
    token = config.hub_token()
    return {"Authorization": f"Bearer {token}"} if token else {}
