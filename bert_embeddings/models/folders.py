"""Reading a Hugging Face checkpoint folder: config, tokenizer, and only the embedding tensors.

Checkpoint keys differ between exports ("bert." prefix or not, TF-era gamma/beta names), so
each tensor is found by the suffixes it may end with, as transformers 5.23 finds them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from bert_embeddings import limits
from bert_embeddings.errors import NotACheckpointError
from bert_embeddings.models.architectures import Family, family_of
from bert_embeddings.models.model import EmbeddingTables, LoadedModel

_TENSOR_SUFFIXES = {
    "word": ("embeddings.word_embeddings.weight",),
    "position": ("embeddings.position_embeddings.weight",),
    "token_type": ("embeddings.token_type_embeddings.weight",),
    "ln_weight": ("embeddings.LayerNorm.weight", "embeddings.LayerNorm.gamma"),
    "ln_bias": ("embeddings.LayerNorm.bias", "embeddings.LayerNorm.beta"),
}
_OPTIONAL_TENSORS = ("token_type",)  # DistilBERT has no token-type table
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt")


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
    model_config = read_config(config_path, f"config.json in '{folder}'")
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


def read_config(path: Path, where: str) -> dict:
    """A checkpoint's config.json, or a message naming ``where`` it is and why it cannot be one.
    How deep it nests is counted before json reads it: json recurses once per level, and a
    stranger's repo on the Hub may hold a few kB of '[' that would exhaust the stack."""
    try:
        text = path.read_text(encoding="utf-8")
        if (depth := limits.nesting(text, "json")) > (most := limits.MODEL_CONFIG_DEPTH.most):
            raise NotACheckpointError(
                f"{where} nests {depth:,} levels deep; a model's config nests at most {most}."
            )
        model_config = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotACheckpointError(f"{where} cannot be read: {exc}") from None
    if not isinstance(model_config, dict):
        raise NotACheckpointError(f"{where} is not a JSON object.")
    return model_config


def _read_tables(folder: Path, config: dict, family: Family) -> EmbeddingTables:
    weights = next((folder / f for f in WEIGHT_FILES if (folder / f).is_file()), None)
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


def wanted_keys(keys: list[str], weights: Path, family: Family) -> dict[str, str]:
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
            wanted = wanted_keys(list(handle.keys()), weights, family)
            out = {name: handle.get_tensor(key) for name, key in wanted.items()}
    else:
        # Pickled checkpoints are opened only with torch's weights-only loader, which
        # refuses to run code; mmap keeps the encoder's tensors out of memory.
        from bert_embeddings.models.threads import torch_module

        state = torch_module().load(str(weights), map_location="cpu", weights_only=True, mmap=True)
        wanted = wanted_keys(list(state.keys()), weights, family)
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


def is_complete(folder: Path) -> bool:
    return (
        (folder / "config.json").is_file()
        and any((folder / f).is_file() for f in WEIGHT_FILES)
        and any((folder / f).is_file() for f in TOKENIZER_FILES)
    )
