"""Everything a host can set, read and checked in one place: environment variables, and secrets.

Streamlit copies every top-level secret (``.streamlit/secrets.toml`` locally, the secrets box
on Community Cloud) into the environment as well, so a secret and an environment variable
of the same name are one setting; the custom-model switch and the presenter key also take the
secrets mapping directly, as the page sees it.

``VARIABLES`` is the one table: each variable's name, what it changes (docs/configuration.md's
"Configuration" section shows the same table; a test keeps the two the same), and the reader
that checks its text. A value its reader refuses is never used: the variable's default stands
in, and ``problems`` names it, what it accepts and what was given, for the app to show on every
page and for ``python -m bert_embeddings`` to stop on (exit 2). Nothing here raises on a
host's typing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from bert_embeddings import config_values as readers
from bert_embeddings.config_values import REDIS_SCHEMES  # noqa: F401 - where the app asks for it

MODEL = "BERT_EXPLORER_MODEL"
REVISION = "BERT_EXPLORER_REVISION"
BUNDLED_DIR = "BERT_EXPLORER_BUNDLED_DIR"
ALLOW_CUSTOM = "BERT_EXPLORER_ALLOW_CUSTOM_MODELS"
MAX_DOWNLOAD_MB = "BERT_EXPLORER_MAX_DOWNLOAD_MB"
THREADS = "BERT_EXPLORER_THREADS"
CACHE = "BERT_EXPLORER_CACHE"
MAP_ITERATIONS = "BERT_EXPLORER_MAP_ITERATIONS"
JOB_PRIORITY = "BERT_EXPLORER_JOB_PRIORITY"
PRECOMPUTE_MAPS = "BERT_EXPLORER_PRECOMPUTE_MAPS"
PRESENTER = "BERT_EXPLORER_PRESENTER_KEY"
ROOM_TRACE = "BERT_EXPLORER_ROOM_TRACE"
ROOMS = "BERT_EXPLORER_ROOMS"
JOBS = "BERT_EXPLORER_JOBS"
TRUSTED_PROXIES = "BERT_EXPLORER_TRUSTED_PROXIES"
ROOMS_FILE = "rooms.sqlite3"  # the default store's file, in the cache folder
DEFAULT_MAP_ITERATIONS = 500
MAP_ITERATIONS_RANGE = (10, 10_000)
MOST_THREADS = 256

DEFAULT_MODEL = "bert-base-uncased"
DEFAULT_REVISION = "main"
DEFAULT_MAX_DOWNLOAD_MB = 1500


@dataclass(frozen=True)
class Variable:
    name: str
    effect: str  # for docs/configuration.md: what it changes, and its default
    read: Callable[[str], object] = readers.text
    default: object = None  # the value when it is not set, or set to something ``read`` refuses
    command: bool = False  # ``python -m bert_embeddings`` reads it too (so it stops on a bad one)
    instead: str = "its default stands in"  # what the app does while the value cannot be used


VARIABLES = (
    Variable(
        MODEL,
        "the model the picker starts with: a Hub id, an absolute folder path, or `bundled` "
        f"(default `{DEFAULT_MODEL}`)",
        readers.model,
        DEFAULT_MODEL,
    ),
    Variable(
        REVISION,
        f"the Hub revision (branch, tag or commit) for Hub models (default `{DEFAULT_REVISION}`)",
        readers.revision,
        DEFAULT_REVISION,
    ),
    Variable(
        BUNDLED_DIR,
        "another copy of the bundled model's files, an absolute folder path (its sha256 is still checked)",
        readers.existing_folder,
        command=True,
    ),
    Variable(
        ALLOW_CUSTOM,
        '`0` hides the free "Other Hub id or local folder" field, for a hosted instance '
        "(on Community Cloud, set it as a top-level secret)",
        readers.switch,
        True,
    ),
    Variable(
        MAX_DOWNLOAD_MB,
        f"the largest checkpoint the app downloads, in MB (default {DEFAULT_MAX_DOWNLOAD_MB})",
        readers.megabytes,
        DEFAULT_MAX_DOWNLOAD_MB * 1_000_000,
        command=True,
    ),
    Variable(
        THREADS,
        f"threads per torch call and per numpy (BLAS) call, 1 to {MOST_THREADS} (default 1, so that "
        "sessions sharing a server do not compete for the same cores)",
        readers.whole(1, MOST_THREADS),
        1,
    ),
    Variable(
        CACHE,
        "where the embedding-only downloads and the t-SNE maps are kept, an absolute folder path "
        "(default: `bert-explorer/` beside the Hugging Face hub cache)",
        readers.folder,
        command=True,
    ),
    Variable(
        MAP_ITERATIONS,
        "t-SNE iterations for the vocabulary map and What moved's aligned maps, "
        f"{MAP_ITERATIONS_RANGE[0]} to {MAP_ITERATIONS_RANGE[1]:,} "
        f"(default {DEFAULT_MAP_ITERATIONS}; the first third, at most 250, with early exaggeration); "
        "fewer give a quicker, rougher map",
        readers.whole(*MAP_ITERATIONS_RANGE),
        DEFAULT_MAP_ITERATIONS,
        command=True,
    ),
    Variable(
        JOB_PRIORITY,
        "the CPU priority of background work (t-SNE map and stage-space workers, "
        "`python -m bert_embeddings map`): `idle` (default) takes only CPU time nobody else "
        "wants, so no page slows down; `normal` shares the CPU evenly, for a machine that is never "
        "idle, where idle work would never finish",
        readers.one_of("idle", "normal"),
        "idle",
        command=True,
    ),
    Variable(
        JOBS,
        "where heavy background work (t-SNE maps, stage spaces, aligned maps) runs: `local` "
        "(default), a process this server starts, one job at a time; or a Redis URL "
        "(`redis://host:6379/1`, `rediss://` with TLS): a queue that workers take jobs from "
        "(`python -m bert_embeddings worker`), one job per name across every replica, and no "
        "replica computes itself",
        readers.jobs,
        "local",
        command=True,
        instead="background work runs in this server's own processes (`local`)",
    ),
    Variable(
        PRECOMPUTE_MAPS,
        "`1` starts computing the default model's t-SNE map when the server first runs the app, "
        "so that the first visitor finds it ready (maps are kept on disk under the cache folder)",
        readers.switch,
        False,
    ),
    Variable(
        PRESENTER,
        "if set, only people who type this key can lead a workshop room (anyone can follow one); "
        "set it as a secret on Community Cloud",
        readers.text,
        "",
    ),
    Variable(
        ROOMS,
        "where workshop rooms are kept: a Redis URL (`redis://host:6379/0`, `rediss://` with TLS) "
        "for replicas on several hosts, or an absolute path to a SQLite file (default: "
        f"`{ROOMS_FILE}` in the cache folder, shared by every process on the host); on Community "
        "Cloud, set it as a secret",
        readers.rooms,
        instead="workshop rooms stay off",
    ),
    Variable(
        TRUSTED_PROXIES,
        "the addresses (or networks, comma-separated) of the proxies in front of the app whose "
        "`X-Forwarded-For` header it believes, e.g. the load balancer's; every other connection "
        "counts as its own address for the limit on opening rooms (default: none)",
        readers.networks,
        (),
    ),
    Variable(
        ROOM_TRACE,
        "a file to which the server appends a line when a room's leader publishes a view, when each "
        "server process hears of it and when it has asked for all its followers' runs, when the "
        "server starts a follower's run for it, and when a follower's run applies it (for "
        "`bench.follow` and `bench.jobs`; leave unset)",
        readers.file,
    ),
)
BY_NAME = {v.name: v for v in VARIABLES}
# Those a host may also give as secrets, read from the secrets mapping itself.
SECRETS = (ALLOW_CUSTOM, PRESENTER)


def raw(name: str) -> str:
    """A variable as set, stripped; "" when it is not set."""
    return os.environ.get(name, "").strip()


def setting(name: str, text: str | None = None) -> object:
    """A variable's value: its text read by its reader, or the default when it is not set or
    its reader refuses it (``problems`` says so)."""
    variable = BY_NAME[name]
    text = raw(name) if text is None else text.strip()
    if not text:
        return variable.default
    try:
        return variable.read(text)
    except ValueError:
        return variable.default


def problem(name: str, text: str, source: str = "") -> str | None:
    """What is wrong with ``text`` as the value of ``name``, in one sentence; None if nothing."""
    text = text.strip()
    if not text:
        return None
    try:
        BY_NAME[name].read(text)
        return None
    except ValueError as accepts:
        shown = text if len(text) <= 300 else text[:297] + "..."  # (a host's own text, a path)
        return f"{name}{source} is {shown!r}, but it takes {accepts}: {BY_NAME[name].instead}"


def problems(secrets: Mapping | None = None, command: bool = False) -> list[str]:
    """Every variable (and secret) set to a value that is not used, each in one sentence naming
    it, what it accepts and what was given. ``command``: only those the command line reads."""
    found = [
        p for v in VARIABLES if (v.command or not command) and (p := problem(v.name, raw(v.name))) is not None
    ]
    for name in SECRETS:
        if command:
            break
        given = _secret(secrets, name)
        if given is not None and given != raw(name) and (p := problem(name, given, " (secret)")) is not None:
            found.append(p)
    return found


def _secret(secrets: Mapping | None, name: str) -> str | None:
    try:
        value = (secrets or {}).get(name)
    except Exception:  # a secrets object with no file behind it raises on reading
        return None
    return None if value is None else str(value).strip()


def default_model() -> str:
    return str(setting(MODEL))


def revision() -> str:
    return str(setting(REVISION))


def bundled_dir() -> Path | None:
    return setting(BUNDLED_DIR)


def custom_models_allowed(secrets: Mapping | None = None) -> bool:
    """False when the host switched off the field for any Hub id or folder (variable or secret)."""
    if raw(ALLOW_CUSTOM):
        return bool(setting(ALLOW_CUSTOM))
    given = _secret(secrets, ALLOW_CUSTOM)
    return bool(setting(ALLOW_CUSTOM, given)) if given else True


def max_download_bytes() -> int:
    return int(setting(MAX_DOWNLOAD_MB))


def threads() -> int:
    return int(setting(THREADS))


def map_iterations() -> int:
    return int(setting(MAP_ITERATIONS))


def job_priority() -> str:
    return str(setting(JOB_PRIORITY))


def jobs_queue() -> str | None:
    """The Redis URL of the job queue, or None: background work runs locally."""
    value = setting(JOBS)
    return None if value == "local" else str(value)


def precompute_maps() -> bool:
    return bool(setting(PRECOMPUTE_MAPS))


def room_trace() -> str:
    path = setting(ROOM_TRACE)
    return str(path) if path is not None else ""


def rooms_store() -> str:
    """Where rooms are kept: a Redis URL, or a SQLite file's absolute path (by default in the
    cache folder). A value that cannot be used is never replaced by a guess (replicas would
    each keep rooms of their own): ``rooms_problem`` says why, and rooms stay off."""
    return raw(ROOMS) or str(explorer_cache_dir() / ROOMS_FILE)


def rooms_problem() -> str | None:
    """Why the host's BERT_EXPLORER_ROOMS cannot be used, if it cannot (rooms then stay off)."""
    return problem(ROOMS, raw(ROOMS))


def trusted_proxies() -> tuple:
    return setting(TRUSTED_PROXIES)


def presenter_key(secrets: Mapping | None = None) -> str:
    """The key a person must type to lead a room; "" when anyone may lead."""
    return raw(PRESENTER) or _secret(secrets, PRESENTER) or ""


def explorer_cache_dir() -> Path:
    """Where the explorer keeps the embedding-only files it fetched: BERT_EXPLORER_CACHE, else
    beside the Hugging Face hub cache (huggingface_hub's own setting: HF_HUB_CACHE, or HF_HOME/hub)."""
    if (folder := setting(CACHE)) is not None:
        return folder
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE).parent / "bert-explorer"


def markdown_table() -> str:
    """docs/configuration.md's table of variables."""
    rows = [f"| `{v.name}` | {v.effect} |" for v in VARIABLES]
    return "\n".join(["| variable | effect |", "|---|---|", *rows])
