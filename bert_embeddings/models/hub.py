"""The Hugging Face Hub: what the local caches hold, and a probe (a Hub id's form is limits.is_hub_id).

Everything goes through huggingface_hub, with its own settings: the address (HF_ENDPOINT), the
token (HF_TOKEN, or the login `hf auth login` saved under HF_HOME), offline mode (HF_HUB_OFFLINE)
and the cache folder (HF_HOME, HF_HUB_CACHE), all read once, when it is first imported.
``try_to_load_from_cache`` looks in the cache, and ``HfApi.model_info`` with a timeout asks the
Hub (measured here: it gives up on a server that never answers at its timeout, and at once on a
refused port or an unknown name). The probe still runs in a daemon thread with a hard deadline
(``HUB_TIMEOUT_S``), for a DNS lookup that hangs, which no client timeout covers. Downloads are
in downloads.py.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from bert_embeddings import config, limits
from bert_embeddings.models.folders import TOKENIZER_FILES, WEIGHT_FILES, is_complete

HUB_TIMEOUT_S = 2.5

is_hub_id = limits.is_hub_id  # what a Hub id looks like is an input check, with the others


def label(repo_id: str, revision: str) -> str:
    return repo_id if revision == config.DEFAULT_REVISION else f"{repo_id}@{revision}"


def explorer_folder(repo_id: str, revision: str) -> Path:
    return config.explorer_cache_dir() / repo_id.replace("/", "--") / revision.replace("/", "--")


def offline() -> bool:
    """HF_HUB_OFFLINE, as huggingface_hub read it: the Hub is never asked."""
    from huggingface_hub import constants

    return constants.is_offline_mode()


def cached_snapshot(repo_id: str, revision: str) -> Path | None:
    """The Hugging Face cache folder holding this revision's config, tokenizer and weights, if complete."""
    from huggingface_hub import try_to_load_from_cache

    def cached(filename: str) -> Path | None:
        found = try_to_load_from_cache(repo_id, filename, revision=revision)
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
    repo_id: str = ""  # the id the Hub answered with: a renamed repo's new one


def probe_hub(repo_id: str, revision: str, timeout: float = HUB_TIMEOUT_S) -> HubAnswer:
    """Ask the Hub about a model, giving up after ``timeout`` seconds whatever hangs.

    huggingface_hub's ``model_info`` asks (with file sizes); it runs in a daemon thread so
    that a stalled DNS lookup, which no client timeout covers, cannot hold the page longer
    than the deadline either.
    """
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = HfApi()  # the endpoint and the token are huggingface_hub's own settings
    result: list[HubAnswer] = []

    def ask() -> None:
        try:
            info = api.model_info(repo_id, revision=revision, files_metadata=True, timeout=timeout)
            files = tuple((s.rfilename, int(s.size or 0)) for s in info.siblings or ())
            result.append(HubAnswer("ok", files=files, repo_id=info.id or repo_id))
        except HfHubHTTPError as exc:
            code = exc.response.status_code if exc.response is not None else None
            result.append(HubAnswer("missing" if code in (401, 403, 404) else "unreachable", f"HTTP {code}"))
        except Exception as exc:  # DNS, refused, reset, timeout: all mean "not usable now"
            result.append(HubAnswer("unreachable", str(exc)[:120] or type(exc).__name__))

    worker = threading.Thread(target=ask, daemon=True, name=f"hub-probe-{repo_id}")
    worker.start()
    worker.join(timeout)
    if not result:
        return HubAnswer("unreachable", f"no answer within {timeout:g} s")
    return result[0]
