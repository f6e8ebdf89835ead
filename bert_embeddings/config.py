"""Everything a host can set, read in one place: environment variables, and secrets.

Streamlit copies every top-level secret (``.streamlit/secrets.toml`` locally, the secrets box
on Community Cloud) into the environment as well, so a secret and an environment variable
of the same name are one setting; the custom-model switch also takes the secrets mapping
directly, as the page sees it. ``VARIABLES`` is the table README.md's "Configuration"
section shows (a test keeps the two the same).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Variable:
    name: str
    effect: str  # for README.md: what it changes, and its default


MODEL = "BERT_EXPLORER_MODEL"
REVISION = "BERT_EXPLORER_REVISION"
BUNDLED_DIR = "BERT_EXPLORER_BUNDLED_DIR"
ALLOW_CUSTOM = "BERT_EXPLORER_ALLOW_CUSTOM_MODELS"
MAX_DOWNLOAD_MB = "BERT_EXPLORER_MAX_DOWNLOAD_MB"
THREADS = "BERT_EXPLORER_THREADS"
CACHE = "BERT_EXPLORER_CACHE"
MAP_ITERATIONS = "BERT_EXPLORER_MAP_ITERATIONS"
PRECOMPUTE_MAPS = "BERT_EXPLORER_PRECOMPUTE_MAPS"
PRESENTER = "BERT_EXPLORER_PRESENTER_KEY"
ROOM_TRACE = "BERT_EXPLORER_ROOM_TRACE"
ROOMS = "BERT_EXPLORER_ROOMS"
ROOMS_FILE = "rooms.sqlite3"  # the default store's file, in the cache folder
DEFAULT_MAP_ITERATIONS = 500

DEFAULT_MODEL = "bert-base-uncased"
DEFAULT_REVISION = "main"
DEFAULT_MAX_DOWNLOAD_MB = 1500
DEFAULT_ENDPOINT = "https://huggingface.co"

VARIABLES = (
    Variable(
        MODEL,
        "the model the picker starts with: a Hub id, an absolute folder path, or `bundled` "
        f"(default `{DEFAULT_MODEL}`)",
    ),
    Variable(
        REVISION, f"the Hub revision (branch, tag or commit) for Hub models (default `{DEFAULT_REVISION}`)"
    ),
    Variable(BUNDLED_DIR, "use another copy of the bundled model's files (its sha256 is still checked)"),
    Variable(
        ALLOW_CUSTOM,
        '`0` hides the free "Other Hub id or local folder" field, for a hosted instance '
        "(on Community Cloud, set it as a top-level secret)",
    ),
    Variable(
        MAX_DOWNLOAD_MB,
        f"the largest checkpoint the app downloads, in MB (default {DEFAULT_MAX_DOWNLOAD_MB})",
    ),
    Variable(
        THREADS,
        "threads per torch call and per numpy (BLAS) call (default 1, so that sessions sharing "
        "a server do not compete for the same cores)",
    ),
    Variable(
        CACHE,
        "where the embedding-only downloads and the t-SNE maps are kept (default: `bert-explorer/` "
        "beside the Hugging Face hub cache)",
    ),
    Variable(
        MAP_ITERATIONS,
        f"t-SNE iterations for the vocabulary map (default {DEFAULT_MAP_ITERATIONS}; the first third, "
        "at most 250, with early exaggeration); fewer give a quicker, rougher map",
    ),
    Variable(
        PRECOMPUTE_MAPS,
        "`1` starts computing the default model's t-SNE map when the server first runs the app, "
        "so that the first visitor finds it ready (maps are kept on disk under the cache folder)",
    ),
    Variable(
        PRESENTER,
        "if set, only people who type this key can lead a workshop room (anyone can follow one); "
        "set it as a secret on Community Cloud",
    ),
    Variable(
        ROOMS,
        "where workshop rooms are kept: a Redis URL (`redis://host:6379/0`, `rediss://` with TLS) "
        "for replicas on several hosts, or an absolute path to a SQLite file (default: "
        f"`{ROOMS_FILE}` in the cache folder, shared by every process on the host); on Community "
        "Cloud, set it as a secret",
    ),
    Variable(
        ROOM_TRACE,
        "a file to which the server appends a line when a room's leader publishes a view, when the "
        "server starts a follower's run for it, and when a follower's run applies it (for "
        "`bench.follow`; leave unset)",
    ),
    Variable("HF_HUB_OFFLINE", "`1` never contacts the Hub: the Hugging Face cache, else the bundled model"),
    Variable("HF_ENDPOINT", f"another Hub address (default `{DEFAULT_ENDPOINT}`)"),
    Variable("HF_TOKEN", "a Hugging Face token, for private or gated models"),
    Variable("HF_HOME", "the Hugging Face folder (default `~/.cache/huggingface`)"),
    Variable("HF_HUB_CACHE", "the Hugging Face hub cache (default `$HF_HOME/hub`)"),
)

_TRUE = {"1", "on", "yes", "true"}
_FALSE = {"0", "off", "no", "false"}


def value(name: str) -> str:
    """A variable as set, stripped; "" when it is not set."""
    return os.environ.get(name, "").strip()


def switched_off(setting: object) -> bool:
    """True for the ways people write "off" in an environment variable or a secret."""
    return setting is not None and str(setting).strip().lower() in _FALSE


def default_model() -> str:
    return value(MODEL) or DEFAULT_MODEL


def revision() -> str:
    return value(REVISION) or DEFAULT_REVISION


def bundled_dir() -> Path | None:
    return Path(value(BUNDLED_DIR)) if value(BUNDLED_DIR) else None


def custom_models_allowed(secrets: Mapping | None = None) -> bool:
    """False when the host switched off the field for any Hub id or folder (variable or secret)."""
    if switched_off(value(ALLOW_CUSTOM) or None):
        return False
    try:
        return not switched_off((secrets or {}).get(ALLOW_CUSTOM))
    except Exception:  # a secrets object with no file behind it raises on reading
        return True


def max_download_bytes() -> int:
    raw = value(MAX_DOWNLOAD_MB)
    return int(float(raw) * 1e6) if raw else DEFAULT_MAX_DOWNLOAD_MB * 1_000_000


def threads() -> int:
    return max(1, int(value(THREADS) or 1))


def map_iterations() -> int:
    return max(10, int(value(MAP_ITERATIONS) or DEFAULT_MAP_ITERATIONS))


def precompute_maps() -> bool:
    return value(PRECOMPUTE_MAPS).lower() in _TRUE


def room_trace() -> str:
    return value(ROOM_TRACE)


def rooms_store() -> str:
    """Where rooms are kept: a ``redis://`` or ``rediss://`` URL, or a SQLite file's path."""
    return value(ROOMS) or str(explorer_cache_dir() / ROOMS_FILE)


def presenter_key(secrets: Mapping | None = None) -> str:
    """The key a person must type to lead a room; "" when anyone may lead."""
    if value(PRESENTER):
        return value(PRESENTER)
    try:
        return str((secrets or {}).get(PRESENTER, "") or "").strip()
    except Exception:  # a secrets object with no file behind it raises on reading
        return ""


def hub_offline() -> bool:
    return value("HF_HUB_OFFLINE").lower() in _TRUE


def hub_endpoint() -> str:
    return (value("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def hub_token() -> str:
    return value("HF_TOKEN")


def hub_cache_dir() -> Path:
    if value("HF_HUB_CACHE"):
        return Path(value("HF_HUB_CACHE"))
    home = value("HF_HOME")
    return Path(home) / "hub" if home else Path.home() / ".cache" / "huggingface" / "hub"


def explorer_cache_dir() -> Path:
    """Where the explorer keeps the embedding-only files it fetched (beside the HF cache)."""
    return Path(value(CACHE)) if value(CACHE) else hub_cache_dir().parent / "bert-explorer"


def markdown_table() -> str:
    """README.md's configuration table."""
    rows = [f"| `{v.name}` | {v.effect} |" for v in VARIABLES]
    return "\n".join(["| variable | effect |", "|---|---|", *rows])
