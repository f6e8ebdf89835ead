"""A model's spaces: one row per vocabulary piece at each stage of the model.

- ``token``: the piece's token row (word_embeddings);
- ``output``: the embedding layer's output for the piece alone at position 1, segment A, as
  the Geometry page computes it (decompose.vocabulary_outputs);
- layer ℓ (1 … the model's layer count): encoder layer ℓ's hidden state at the piece's
  position for the input ``[CLS] piece [SEP]`` (the family's own start and end pieces).

The layers need the whole model, run once over every piece (a batch of pieces at a time),
which gives every layer at once. Pure computation on the model's own classes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from bert_embeddings.analysis import contextual, decompose, geometry_lab
from bert_embeddings.errors import OutOfRangeError
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.models.threads import torch_module

TOKEN, OUTPUT = "token", "output"
BATCH = 1024  # pieces per forward pass through the whole model
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


def layer_count(model: LoadedModel) -> int:
    """How many encoder layers the model has, from its config."""
    config = model.config
    return int(config.get("num_hidden_layers", config.get("n_layers", 0)))


def layer_width(model: LoadedModel) -> int:
    """The width of the encoder's hidden states (ALBERT's and ELECTRA's differ from the embeddings')."""
    return int(model.config.get("hidden_size", model.config.get("dim", model.hidden_size)))


def stage_names(model: LoadedModel) -> tuple[str, ...]:
    """Every stage of the model, in order: token, output, then "1" … the last layer."""
    return (TOKEN, OUTPUT, *(str(layer) for layer in range(1, layer_count(model) + 1)))


def check_stage(model: LoadedModel, stage: object) -> str:
    """A stage as given (a name, or a layer number as text or a whole number): its name."""
    given = isinstance(stage, str | int) and not isinstance(stage, bool)
    text = str(stage).strip().lower() if given else None
    names = stage_names(model)
    if text in names:
        return text
    layers = layer_count(model)
    raise OutOfRangeError(
        f"{str(stage)[:40]!r} is not a stage of {model.name}: token, output, or a layer from 1 to {layers}."
    )


def stage_label(stage: str) -> str:
    """A stage for people: "token rows", "embedding output", "layer 3"."""
    return {TOKEN: "token rows", OUTPUT: "embedding output"}.get(stage, f"layer {stage}")


def full_model_bytes(model: LoadedModel) -> int:
    """What the whole model's weights take on disk, about what loading it costs in memory."""
    folder = Path(model.folder)
    return sum((folder / name).stat().st_size for name in WEIGHT_FILES if (folder / name).is_file())


def has_whole_model(model: LoadedModel) -> bool:
    """Whether the model's folder holds its encoder's weights, not only the embedding layer (the
    explorer fetches only that from the Hub, unless the model is in the Hugging Face cache)."""
    folder = Path(model.folder)
    if (folder / "model.safetensors").is_file():
        from safetensors import safe_open

        with safe_open(str(folder / "model.safetensors"), framework="numpy") as weights:
            return any("layer" in name for name in weights.keys())  # noqa: SIM118 (not a dict)
    return (folder / "pytorch_model.bin").is_file()


def only_embeddings(model: LoadedModel) -> str:
    return (
        f"Only the embedding layer of {model.name} is on this server (the explorer fetched no more), so its "
        "encoder layers cannot be shown: their weights would be random. The token rows and the embedding "
        "output work. A host can put the whole model in the Hugging Face cache (huggingface-cli download) "
        "to offer its layers."
    )


def token_table(model: LoadedModel) -> np.ndarray:
    return np.asarray(model.tables.word_embeddings, dtype=np.float32)


def output_table(model: LoadedModel) -> np.ndarray:
    return geometry_lab.output_table(lambda i, j: decompose.vocabulary_outputs(model, i, j), model.vocab_size)


def template(model: LoadedModel) -> tuple[int, int]:
    """The ids of the family's start and end pieces, which ``[start] piece [end]`` puts around
    a piece (the model places them itself: positions 0, 1, 2, or RoBERTa's from 2)."""
    encoding = model.encode("a")
    if len(encoding) != 3:  # a tokenizer without a start and an end piece
        raise OutOfRangeError(f"{model.name} does not read one piece as [start] piece [end].")
    return int(encoding.ids[0]), int(encoding.ids[2])


def layer_tables(
    model: LoadedModel,
    full_model=None,
    progress: Callable[[float], None] = lambda fraction: None,
    batch: int = BATCH,
    out: list[np.ndarray] | None = None,
) -> list[np.ndarray]:
    """Every layer's table, (vocab, hidden) float32 each, layer 1 first: one pass of every
    piece through the whole model (the first hidden state, the embedding layer's, is left out:
    it is the output stage, projected where the family projects). ``out``: the arrays to fill
    (e.g. files mapped into memory, so that a deep model's layers need not fit in it)."""
    torch = torch_module()
    full_model = contextual.load_full_model(model) if full_model is None else full_model
    start_id, end_id = template(model)
    n, layers = model.vocab_size, layer_count(model)
    hidden = layer_width(model)
    tables = out if out is not None else [np.empty((n, hidden), dtype=np.float32) for _ in range(layers)]
    has_segments = model.tables.token_type_embeddings is not None
    with torch.inference_mode():
        for first in range(0, n, batch):
            pieces = np.arange(first, min(n, first + batch), dtype=np.int64)
            ids = np.stack([np.full_like(pieces, start_id), pieces, np.full_like(pieces, end_id)], axis=1)
            inputs = {
                "input_ids": torch.from_numpy(ids),
                "attention_mask": torch.ones(ids.shape, dtype=torch.long),
            }
            if has_segments:
                inputs["token_type_ids"] = torch.zeros(ids.shape, dtype=torch.long)
            states = full_model(**inputs, output_hidden_states=True).hidden_states
            for layer in range(layers):
                tables[layer][pieces] = states[layer + 1][:, 1].numpy()
            progress(min(n, first + batch) / n)
    return tables
