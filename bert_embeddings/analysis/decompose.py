"""BERT's embedding layer, one stage at a time, and proof that it matches transformers.

For token i with id x_i, segment s_i and position p_i (as transformers 5.23's BertEmbeddings):

    output_i = LayerNorm(word_embeddings[x_i] + token_type_embeddings[s_i]
                         + position_embeddings[p_i])        # dropout is off in eval

``decompose`` recomputes this in numpy so that every intermediate stage can be shown.
``verify`` runs the same input through the architecture's own transformers module
(``BertEmbeddings``), built from the config with only the embedding tensors, and reports
the largest absolute difference. torch and transformers are imported only there: they
take seconds to import, and the stages can be drawn before that.
"""

from __future__ import annotations

import dataclasses
import importlib
import warnings
from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import cosine
from bert_embeddings.models.checkpoints import LoadedModel
from bert_embeddings.models.threads import torch_module
from bert_embeddings.models.tokenize import Encoding

TOLERANCE = 1e-5


@dataclass(frozen=True)
class EmbeddingBreakdown:
    """Every stage of the embedding layer for one input; all arrays are (tokens, hidden)."""

    token: np.ndarray  # word_embeddings rows
    position: np.ndarray  # position_embeddings rows
    segment: np.ndarray | None  # token_type_embeddings rows; None for a family without them
    summed: np.ndarray  # token + segment + position, before LayerNorm
    mean: np.ndarray  # (tokens,) mean of summed over hidden dims
    std: np.ndarray  # (tokens,) standard deviation LayerNorm divides by (eps included)
    normalized: np.ndarray  # (summed - mean) / std, before gamma and beta
    output: np.ndarray  # normalized * gamma + beta: what the layer returns
    projected: np.ndarray | None = None  # (tokens, hidden): ALBERT's/ELECTRA's projection of output


@dataclass(frozen=True)
class Verification:
    """How far the shown output is from the transformers module's output."""

    max_abs_error: float
    tolerance: float
    module_name: str  # e.g. "BertEmbeddings"

    @property
    def passed(self) -> bool:
        return self.max_abs_error <= self.tolerance


# The stages a token's vector passes through, cumulatively, in the order people are told
# about them: the token row, then + position, then + segment, then LayerNorm.
STAGES = ("token row", "+ position", "+ segment", "LayerNorm output")


def stage_vectors(parts: EmbeddingBreakdown) -> dict[str, np.ndarray]:
    """Each token's vector after each stage, every array (tokens, width); a family without
    segment rows has no "+ segment" stage."""
    vectors = (parts.token, parts.token + parts.position, parts.summed, parts.output)
    return {
        name: v
        for name, v in zip(STAGES, vectors, strict=True)
        if name != STAGES[2] or parts.segment is not None
    }


def _layer_norm(summed: np.ndarray, t) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """LayerNorm as transformers computes it: (mean, std, normalized, output), per row."""
    mean = summed.mean(axis=-1, keepdims=True)  # (rows, 1)
    variance = ((summed - mean) ** 2).mean(axis=-1, keepdims=True)  # biased, like LayerNorm
    std = np.sqrt(variance + np.float32(t.layer_norm_eps))
    normalized = (summed - mean) / std
    return mean, std, normalized, normalized * t.layer_norm_weight + t.layer_norm_bias


def vocabulary_outputs(
    model: LoadedModel, start: int, stop: int, position: int | None = None, segment: int = 0
):
    """The embedding layer's LayerNorm output for vocabulary ids ``start:stop``, each alone at
    ``position`` (by default as the first piece after the start token: row 1, or RoBERTa's
    3) with ``segment`` (where the family has segments): (stop - start, width)."""
    t = model.tables
    position = model.position_offset + 1 if position is None else position
    token = t.word_embeddings[start:stop]
    summed = token if t.token_type_embeddings is None else token + t.token_type_embeddings[segment]
    return _layer_norm(summed + t.position_embeddings[position], t)[3]


def decompose(model: LoadedModel, encoding: Encoding) -> EmbeddingBreakdown:
    """Look up the three rows for each token, add them, and apply LayerNorm."""
    t = model.tables
    token = t.word_embeddings[encoding.ids]  # (tokens, width)
    position = t.position_embeddings[encoding.positions]  # (tokens, width)
    segment = None if t.token_type_embeddings is None else t.token_type_embeddings[encoding.segment_ids]
    # The same order of additions as transformers (word + type, then + position): float
    # addition is not associative, and this keeps the last bits equal more often.
    summed = token + position if segment is None else (token + segment) + position
    mean, std, normalized, output = _layer_norm(summed, t)
    projected = None
    if t.projection_weight is not None:  # ALBERT, ELECTRA: embedding_size -> hidden_size
        projected = (output @ t.projection_weight.T + t.projection_bias).astype(np.float32)
    return EmbeddingBreakdown(
        token=token,
        position=position,
        segment=segment,
        summed=summed,
        mean=mean[:, 0],
        std=std[:, 0],
        normalized=normalized,
        output=output.astype(np.float32, copy=False),
        projected=projected,
    )


def segment_swap(model: LoadedModel, encoding: Encoding) -> np.ndarray:
    """Per token, the cosine between its output computed as segment A and as segment B.

    Same pieces, same positions; only the segment row differs. 1.0 would mean the segment
    term does not move the token's final vector at all. Shape (tokens,). The model must have
    two segment rows.
    """
    outputs = [
        decompose(model, dataclasses.replace(encoding, segment_ids=np.full(len(encoding), s))).output
        for s in (0, 1)
    ]
    return cosine.paired(outputs[0], outputs[1])


def build_reference_module(model: LoadedModel):
    """The architecture's own transformers embedding module holding this model's tensors.

    It is built on the meta device and given the loaded arrays with ``assign=True``, so it
    shares their memory instead of allocating (and randomly initialising) its own tables.
    """
    torch = torch_module()

    family = model.family
    config_class = getattr(importlib.import_module("transformers"), family.config_class)
    config = config_class.from_dict(model.config)
    t = model.tables
    with torch.device("meta"):
        module = getattr(importlib.import_module(family.module), family.embeddings_class)(config)
    tensors = {
        "word_embeddings.weight": t.word_embeddings,
        "position_embeddings.weight": t.position_embeddings,
        "token_type_embeddings.weight": t.token_type_embeddings,
        "LayerNorm.weight": t.layer_norm_weight,
        "LayerNorm.bias": t.layer_norm_bias,
    }
    with warnings.catch_warnings():
        # The arrays are read-only on purpose; the module only reads them.
        warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
        state = {key: torch.from_numpy(array) for key, array in tensors.items() if array is not None}
    module.load_state_dict(state, strict=True, assign=True)
    # The non-persistent buffers were created on the meta device: give them real values.
    n_positions = t.position_embeddings.shape[0]
    module.position_ids = torch.arange(n_positions).expand((1, -1))
    if hasattr(module, "token_type_ids"):
        module.token_type_ids = torch.zeros((1, n_positions), dtype=torch.long)
    module.eval()  # dropout off
    return module


def reference_output(module, encoding: Encoding) -> np.ndarray:
    """The module's own output for this input, (tokens, hidden).

    Position ids are left to the module's own default so that the check also covers how
    the explorer numbers positions.
    """
    torch = torch_module()

    inputs = {"input_ids": torch.from_numpy(encoding.ids)[None, :]}
    if hasattr(module, "token_type_embeddings"):  # DistilBERT's module takes no segments
        inputs["token_type_ids"] = torch.from_numpy(encoding.segment_ids)[None, :]
    with torch.inference_mode():
        out = module(**inputs)
    return out[0].numpy()


def verify(module, encoding: Encoding, breakdown: EmbeddingBreakdown) -> Verification:
    """Compare the recomputed output with the transformers module's output."""
    expected = reference_output(module, encoding)
    error = float(np.max(np.abs(expected - breakdown.output))) if len(encoding) else 0.0
    return Verification(error, TOLERANCE, type(module).__name__)
