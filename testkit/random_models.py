"""Randomly initialised BERT checkpoints, written to disk like a real Hugging Face export.

Used by the tests (tiny models, built from a config inside the test) and by the benchmarks
(a stand-in of bert-base-uncased's shapes, since the Hub cannot be reached here). They
reuse the bundled model's tokenizer files, so ids are real bert-base-uncased ids.
"""

from __future__ import annotations

import shutil
from pathlib import Path

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")


def write_random_bert(
    folder: Path,
    *,
    seed: int = 0,
    hidden: int = 24,
    positions: int = 40,
    layers: int = 1,
    heads: int = 2,
    prefix: bool = False,
    legacy_names: bool = False,
    pickled: bool = False,
    tokenizer_files: tuple[str, ...] = TOKENIZER_FILES,
) -> Path:
    """Save a randomly initialised BERT with the bundled vocabulary to ``folder``.

    Small by default (a tiny test model); ``hidden=768, positions=512, layers=12,
    heads=12`` gives a checkpoint of bert-base-uncased's shapes for the benchmarks.

    prefix: keys carry "bert." (as BertForMaskedLM exports do); legacy_names: LayerNorm
    as gamma/beta (TF-era checkpoints); pickled: pytorch_model.bin instead of safetensors.
    """
    import torch
    from safetensors.torch import save_file
    from transformers import BertConfig, BertModel

    from bert_embeddings.models.checkpoints import bundled_folder

    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=30522,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=4 * hidden,
        max_position_embeddings=positions,
        type_vocab_size=2,
        initializer_range=0.5,  # large rows so that LayerNorm has real work to do
    )
    model = BertModel(config).eval()
    with torch.no_grad():  # gamma and beta away from their 1 / 0 start values
        model.embeddings.LayerNorm.weight.uniform_(0.5, 1.5)
        model.embeddings.LayerNorm.bias.uniform_(-0.3, 0.3)
    folder.mkdir(parents=True, exist_ok=True)
    config.save_pretrained(folder)
    state = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
    if legacy_names:
        state = {
            k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): v
            for k, v in state.items()
        }
    if prefix:
        state = {f"bert.{k}": v for k, v in state.items()}
    if pickled:
        torch.save(state, folder / "pytorch_model.bin")
    else:
        save_file(state, str(folder / "model.safetensors"), metadata={"format": "pt"})
    for name in tokenizer_files:
        shutil.copy(bundled_folder() / name, folder / name)
    return folder


def keep_first_pieces(folder: Path, pieces: int) -> Path:
    """Cut a checkpoint that ``write_random_bert`` wrote (safetensors) to the first ``pieces``
    pieces of its vocabulary: the token table's rows, config.json's vocab_size, tokenizer.json and
    vocab.txt. Every special piece ([PAD] 0, [UNK] 100 ... [MASK] 103) stays; a word whose pieces
    are gone reads as [UNK]. A whole-vocabulary computation (a map, a stage space and its
    neighbour lists) then costs a fraction of 30,522 rows'."""
    import json

    from safetensors.numpy import load_file, save_file

    if not 104 <= pieces <= 30522:
        raise ValueError(f"keep from 104 pieces (every special one) to 30,522, not {pieces}")
    weights = load_file(folder / "model.safetensors")
    for name in [k for k in weights if k.endswith("word_embeddings.weight")]:
        weights[name] = weights[name][:pieces].copy()
    save_file(weights, str(folder / "model.safetensors"), metadata={"format": "pt"})
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "vocab_size": pieces}, indent=2))
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    vocab = tokenizer["model"]["vocab"]
    tokenizer["model"]["vocab"] = {piece: i for piece, i in vocab.items() if i < pieces}
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer))
    lines = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
    (folder / "vocab.txt").write_text("".join(f"{line}\n" for line in lines[:pieces]), encoding="utf-8")
    return folder


def write_random_model(folder: Path, config, seed: int = 0) -> Path:
    """Save a randomly initialised model of any family (AutoModel.from_config) as transformers
    exports it, with LayerNorm's gamma and beta moved away from 1 and 0, and BERT's tokenizer."""
    import torch
    from transformers import AutoModel

    from bert_embeddings.models.checkpoints import bundled_folder

    torch.manual_seed(seed)
    model = AutoModel.from_config(config).eval()
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "embeddings" in name or "mapping_in" in name or "embeddings_project" in name:
                if "LayerNorm.weight" in name:
                    parameter.uniform_(0.5, 1.5)
                else:
                    parameter.normal_(0.0, 0.5)
    model.save_pretrained(folder)
    for name in TOKENIZER_FILES:
        shutil.copy(bundled_folder() / name, folder / name)
    return folder


def damaged_bundled_copy(folder: Path) -> Path:
    """A copy of the bundled model's files whose weights differ in their last byte."""
    from bert_embeddings.models.checkpoints import bundled_folder

    shutil.copytree(bundled_folder(), folder)
    with open(folder / "model.safetensors", "r+b") as handle:
        handle.seek(-1, 2)
        last = handle.read(1)
        handle.seek(-1, 2)
        handle.write(bytes([last[0] ^ 0xFF]))
    return folder


def family_configs() -> dict:
    """A tiny config of each supported family (bert, distilbert, roberta, xlm-roberta, albert,
    electra), with bert-base-uncased's vocabulary, for write_random_model."""
    from transformers import (
        AlbertConfig,
        BertConfig,
        DistilBertConfig,
        ElectraConfig,
        RobertaConfig,
        XLMRobertaConfig,
    )

    small = {"num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 48, "vocab_size": 30522}
    return {
        "bert": BertConfig(hidden_size=24, max_position_embeddings=40, **small),
        "distilbert": DistilBertConfig(
            vocab_size=30522, dim=24, n_layers=1, n_heads=2, hidden_dim=48, max_position_embeddings=40
        ),
        "roberta": RobertaConfig(
            hidden_size=24, max_position_embeddings=42, type_vocab_size=1, pad_token_id=1, **small
        ),
        "xlm-roberta": XLMRobertaConfig(
            hidden_size=24, max_position_embeddings=42, type_vocab_size=1, pad_token_id=1, **small
        ),
        "albert": AlbertConfig(embedding_size=16, hidden_size=24, max_position_embeddings=40, **small),
        "electra": ElectraConfig(embedding_size=16, hidden_size=24, max_position_embeddings=40, **small),
    }
