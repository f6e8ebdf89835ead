"""A model's stage spaces against the model itself: each layer's table holds, for every piece, the
hidden state transformers returns for ``[CLS] piece [SEP]``; the output stage is the embedding
layer's output there."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from bert_embeddings.analysis import contextual
from bert_embeddings.errors import OutOfRangeError
from bert_embeddings.models import checkpoints
from bert_embeddings.spaces import stages


@pytest.fixture(scope="module")
def tiny(tiny_bert_dir):
    return checkpoints.load_model(str(tiny_bert_dir))


def test_every_layer_table_is_the_models_hidden_state_for_the_piece_alone(tiny):
    full = contextual.load_full_model(tiny)
    seen = []
    tables = stages.layer_tables(tiny, full, progress=seen.append, batch=4096)
    assert len(tables) == stages.layer_count(tiny) and seen[-1] == 1.0
    output = stages.output_table(tiny)
    for piece in (0, 101, 1996, 2088, tiny.vocab_size - 1):
        encoding = tiny.encode("a")
        encoding_ids = encoding.ids.copy()
        encoding_ids[1] = piece
        states = contextual.hidden_states(full, replace(encoding, ids=encoding_ids))
        np.testing.assert_allclose(output[piece], states[0][1], atol=1e-5)
        for layer, table in enumerate(tables, start=1):
            np.testing.assert_allclose(table[piece], states[layer][1], atol=1e-5)


def test_stages_are_named_and_checked(bundled):
    assert stages.stage_names(bundled) == ("token", "output", "1", "2", "3", "4", "5", "6")
    assert stages.check_stage(bundled, 6) == "6" and stages.check_stage(bundled, " Output ") == "output"
    for wrong in (0, 7, "layer", True, None, 2.0):
        with pytest.raises(OutOfRangeError, match="token, output, or a layer from 1 to 6"):
            stages.check_stage(bundled, wrong)
    assert stages.full_model_bytes(bundled) > 20_000_000  # all-MiniLM-L6-v2's 22.7M parameters
    np.testing.assert_array_equal(stages.token_table(bundled), bundled.tables.word_embeddings)


def test_a_folder_with_only_the_embedding_layer_shows_no_made_up_layers(tmp_path):
    """The explorer fetches only a Hub model's embedding tensors: transformers would fill the
    encoder with random weights, so the layers are refused with the reason, never computed."""
    from safetensors.numpy import load_file, save_file

    from bert_embeddings.errors import NotACheckpointError
    from testkit.random_models import write_random_bert

    folder = write_random_bert(tmp_path / "partial", layers=1)
    weights = load_file(folder / "model.safetensors")
    save_file({k: v for k, v in weights.items() if "embeddings" in k}, folder / "model.safetensors")
    partial = checkpoints.load_model(str(folder))
    assert not stages.has_whole_model(partial)
    assert "cannot be shown" in stages.only_embeddings(partial)
    with pytest.raises(NotACheckpointError, match="encoder layers .* are not on this server"):
        contextual.load_full_model(partial)
    whole = checkpoints.load_model(str(write_random_bert(tmp_path / "whole", layers=1)))
    assert stages.has_whole_model(whole)
    contextual.load_full_model(whole)  # a whole model loads as before
