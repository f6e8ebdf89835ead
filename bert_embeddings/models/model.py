"""A loaded model's embedding layer: its tables, its tokenizer, and where they came from."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from bert_embeddings.models.architectures import Family, family_of


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
    def family(self) -> Family:
        return family_of(self.config, self.name)

    @property
    def position_offset(self) -> int:
        return self.family.position_offset(self.config)

    def encode(self, text_a: str, text_b: str = "", add_special_tokens: bool = True):
        """Sentence A (and B) as this model reads them: its tokenizer, template and positions."""
        from bert_embeddings.models.tokenize import Notice, encode

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
