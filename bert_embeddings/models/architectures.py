"""The BERT-family models the explorer handles, and how their embedding layers differ.

Facts followed: transformers 5.23's embedding modules and the checkpoints on the Hub. Each
family names the transformers embeddings module it is verified against; the app builds that
module from the config with only the embedding tensors, never the encoder.
"""

from __future__ import annotations

from dataclasses import dataclass

from bert_embeddings.errors import NotBertLikeError


@dataclass(frozen=True)
class Family:
    model_type: str
    label: str
    module: str  # transformers module holding the embeddings class
    embeddings_class: str
    config_class: str
    has_segments: bool  # False: no token-type table at all (DistilBERT)
    projection: str | None = None  # key prefix of the Linear that maps embedding_size to hidden
    projection_place: str = ""  # where the model applies it, for people
    positions_after_padding: bool = False  # RoBERTa: real tokens' positions start at padding_idx + 1
    fixed_layer_norm_eps: float | None = None  # DistilBERT hard-codes 1e-12

    def position_offset(self, config: dict) -> int:
        """The position id of the first token: 0, or padding_idx + 1 for RoBERTa."""
        return int(config.get("pad_token_id", 1)) + 1 if self.positions_after_padding else 0

    def layer_norm_eps(self, config: dict) -> float:
        return self.fixed_layer_norm_eps or float(config.get("layer_norm_eps", 1e-12))


FAMILIES = {
    "bert": Family(
        "bert", "BERT", "transformers.models.bert.modeling_bert", "BertEmbeddings", "BertConfig", True
    ),
    "distilbert": Family(
        "distilbert",
        "DistilBERT",
        "transformers.models.distilbert.modeling_distilbert",
        "Embeddings",
        "DistilBertConfig",
        has_segments=False,
        fixed_layer_norm_eps=1e-12,
    ),
    "roberta": Family(
        "roberta",
        "RoBERTa",
        "transformers.models.roberta.modeling_roberta",
        "RobertaEmbeddings",
        "RobertaConfig",
        True,
        positions_after_padding=True,
    ),
    "xlm-roberta": Family(
        "xlm-roberta",
        "XLM-RoBERTa",
        "transformers.models.xlm_roberta.modeling_xlm_roberta",
        "XLMRobertaEmbeddings",
        "XLMRobertaConfig",
        True,
        positions_after_padding=True,
    ),
    "albert": Family(
        "albert",
        "ALBERT",
        "transformers.models.albert.modeling_albert",
        "AlbertEmbeddings",
        "AlbertConfig",
        True,
        projection="encoder.embedding_hidden_mapping_in",
        projection_place="at the start of ALBERT's encoder (embedding_hidden_mapping_in)",
    ),
    "electra": Family(
        "electra",
        "ELECTRA",
        "transformers.models.electra.modeling_electra",
        "ElectraEmbeddings",
        "ElectraConfig",
        True,
        projection="embeddings_project",
        projection_place="right after the embedding module, in ElectraModel (embeddings_project)",
    ),
}


def family_of(config: dict, name: str) -> Family:
    """The family of a checkpoint's config.json, or a message naming what it is instead."""
    model_type = config.get("model_type")
    if model_type in FAMILIES:
        return FAMILIES[model_type]
    supported = ", ".join(f.label for f in FAMILIES.values())
    raise NotBertLikeError(
        f"{name} is a '{model_type or 'unknown'}' model. This explorer shows the embedding layer of "
        f"BERT-family models: {supported}."
    )


@dataclass(frozen=True)
class CuratedModel:
    spec: str
    size: str  # parameters and table shapes, from the model's config
    description: str


# The picker's list. Parameter counts are the models' published sizes; shapes are their
# configs' (as transformers 5.23 reads them).
CURATED = (
    CuratedModel(
        "bert-base-uncased", "110M parameters, 30,522 x 768", "the original English BERT, lower-cased"
    ),
    CuratedModel(
        "bert-base-cased", "110M parameters, 28,996 x 768", "English BERT that keeps capital letters"
    ),
    CuratedModel(
        "bert-large-uncased", "340M parameters, 30,522 x 1024", "24 layers, 1,024 hidden dimensions"
    ),
    CuratedModel(
        "bert-base-multilingual-cased", "178M parameters, 119,547 x 768", "one vocabulary for 104 languages"
    ),
    CuratedModel(
        "xlm-roberta-base",
        "278M parameters, 250,002 x 768",
        "one SentencePiece vocabulary for 100 languages; positions after padding",
    ),
    CuratedModel("distilbert-base-uncased", "66M parameters, 30,522 x 768", "6 layers, no segment table"),
    CuratedModel(
        "roberta-base", "125M parameters, 50,265 x 768", "byte-level BPE; positions start after padding"
    ),
    CuratedModel(
        "albert-base-v2", "12M parameters, 30,000 x 128", "narrow tables projected to 768 in the encoder"
    ),
    CuratedModel(
        "google/electra-small-discriminator", "14M parameters, 30,522 x 128", "narrow tables projected to 256"
    ),
    CuratedModel("prajjwal1/bert-tiny", "4.4M parameters, 30,522 x 128", "2 layers, 128 hidden dimensions"),
)
