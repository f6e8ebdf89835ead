"""The sentence through the whole model: hidden states after every encoder layer.

The embedding layer gives each piece the same vector whatever surrounds it (apart from
position and segment); the encoder layers mix in context. Comparing one word in two
sentences layer by layer shows the two vectors start identical and drift apart.
The full model is loaded with transformers' own class for the checkpoint (never remote
code), from the folder the embedding layer was read from.
"""

from __future__ import annotations

import numpy as np

from bert_embeddings.analysis import cosine
from bert_embeddings.errors import NotACheckpointError, WordNotFoundError
from bert_embeddings.models.checkpoints import LoadedModel
from bert_embeddings.models.threads import torch_module
from bert_embeddings.models.tokenize import Encoding


def load_full_model(model: LoadedModel):
    """The whole transformers model (embeddings and every encoder layer), in eval mode."""
    from transformers import AutoModel

    try:
        full, loading = AutoModel.from_pretrained(
            str(model.folder), local_files_only=True, trust_remote_code=False, output_loading_info=True
        )
    except Exception as exc:
        raise NotACheckpointError(f"The full model in '{model.folder}' cannot be loaded: {exc}") from None
    # transformers fills weights a checkpoint lacks with random ones and goes on: an encoder made
    # up that way would show made-up layers (a folder with only the embedding layer, as the
    # explorer fetches a Hub model, lacks them all). A missing pooler is harmless: it is not used.
    missing = [name for name in loading["missing_keys"] if "pooler" not in name]
    if missing:
        raise NotACheckpointError(
            f"The encoder layers of {model.name} are not on this server: its folder holds only part of "
            f"the model ({len(missing)} weights missing, e.g. {missing[0]}), so its layers cannot be shown. "
            "A host can put the whole model in the Hugging Face cache (huggingface-cli download)."
        )
    return full.eval()


def hidden_states(full_model, encoding: Encoding) -> np.ndarray:
    """(layers + 1, tokens, hidden): the embedding output, then each encoder layer's output."""
    torch = torch_module()

    with torch.inference_mode():
        out = full_model(
            input_ids=torch.from_numpy(encoding.ids)[None],
            token_type_ids=torch.from_numpy(encoding.segment_ids)[None],
            attention_mask=torch.ones((1, len(encoding)), dtype=torch.long),
            output_hidden_states=True,
        )
    return np.stack([layer[0].numpy() for layer in out.hidden_states])


def find_word(encoding: Encoding, piece_ids: tuple[int, ...], sentence: str) -> list[int]:
    """The positions of the first run of ``piece_ids`` in the encoding that forms whole words."""
    ids, n = encoding.ids.tolist(), len(piece_ids)
    for start in range(len(ids) - n + 1):
        if tuple(ids[start : start + n]) == piece_ids:
            after = start + n
            # Not the start of a longer word ('bank' inside 'banking').
            if after == len(ids) or encoding.word_groups[after] != encoding.word_groups[start]:
                return list(range(start, after))
    if encoding.dropped:
        raise WordNotFoundError(
            f"The word does not occur in the {len(encoding):,} pieces of {sentence} that the model reads: "
            f"{sentence} is longer than the model's positions, so its last {encoding.dropped:,} pieces "
            "were cut off. Put the word earlier, or shorten the sentence."
        )
    raise WordNotFoundError(f"The word does not occur in {sentence}: pick a word both sentences contain.")


def word_similarity_by_layer(
    states_1: np.ndarray, positions_1: list[int], states_2: np.ndarray, positions_2: list[int]
) -> np.ndarray:
    """Cosine between the word's vectors (mean over its pieces) in two sentences, per layer."""
    a = states_1[:, positions_1].mean(axis=1)  # (layers + 1, hidden)
    b = states_2[:, positions_2].mean(axis=1)
    return cosine.paired(a, b)
