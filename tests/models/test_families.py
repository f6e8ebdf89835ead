"""Every supported family against its own transformers embedding module (<= 1e-5)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import AutoModel

from bert_embeddings.analysis import decompose
from bert_embeddings.models import checkpoints
from testkit.random_models import family_configs, write_random_model

CONFIGS = family_configs()

SENTENCES = [
    ("The river bank flooded.", "Tokenizers split embeddings."),
    ("Hello", ""),
    ("long " * 60, "tail"),
]


@pytest.fixture(scope="module", params=list(CONFIGS))
def family_model(request, tmp_path_factory):
    folder = write_random_model(tmp_path_factory.mktemp(request.param), CONFIGS[request.param])
    return (
        request.param,
        folder,
        checkpoints.load_model(str(folder)),
        AutoModel.from_pretrained(str(folder)).eval(),
    )


def own_module_output(family, reference, encoding):
    inputs = {"input_ids": torch.tensor(encoding.ids)[None]}
    if family != "distilbert":
        inputs["token_type_ids"] = torch.tensor(encoding.segment_ids)[None]
    with torch.inference_mode():
        return reference.embeddings(**inputs)[0]


def test_output_equals_the_familys_own_module(family_model):
    """The decomposition's output equals the family's embeddings module, loaded by transformers."""
    family, _, model, reference = family_model
    assert model.family.model_type == family
    for a, b in SENTENCES:
        enc = model.encode(a, b)
        parts = decompose.decompose(model, enc)
        expected = own_module_output(family, reference, enc).numpy()
        assert np.max(np.abs(parts.output - expected)) <= 1e-5


def test_the_geometry_labs_layer_output_is_the_modules_for_a_piece_after_the_start_token(family_model):
    """The Geometry page's 'layer output' of a piece (decompose.vocabulary_outputs, by default)
    is the family's own module's output for it as the first piece of a sentence: position row
    1, RoBERTa's 3; segment A where there are segments."""
    family, _, model, reference = family_model
    enc = model.encode("the")
    expected = own_module_output(family, reference, enc).numpy()[1]
    found = decompose.vocabulary_outputs(model, enc.ids[1], enc.ids[1] + 1)[0]
    assert np.max(np.abs(found - expected)) <= 1e-5


def test_verification_builds_the_familys_module(family_model):
    """The verification panel's module is the family's own class, and the check passes."""
    family, _, model, _ = family_model
    module = decompose.build_reference_module(model)
    assert type(module).__name__ == model.family.embeddings_class
    enc = model.encode(*SENTENCES[0])
    assert decompose.verify(module, enc, decompose.decompose(model, enc)).passed


def test_family_specifics(family_model):
    """No segment table for DistilBERT, RoBERTa's (and XLM-R's) positions after padding,
    projections for ALBERT/ELECTRA."""
    family, _, model, reference = family_model
    enc = model.encode(*SENTENCES[0])
    parts = decompose.decompose(model, enc)
    if family == "distilbert":
        assert model.tables.token_type_embeddings is None and parts.segment is None
        assert "+ segment" not in decompose.stage_vectors(parts)
    if family in ("roberta", "xlm-roberta"):
        assert enc.positions[0] == 2  # padding_idx + 1
        long = model.encode("long " * 100)
        assert len(long) == 40 and long.positions[-1] == 41  # the last row of a 42-row table
    if family in ("albert", "electra"):
        assert model.hidden_size == 16 and parts.projected.shape == (len(enc), 24)
        projection = (
            reference.encoder.embedding_hidden_mapping_in
            if family == "albert"
            else reference.embeddings_project
        )
        with torch.inference_mode():
            expected = projection(own_module_output(family, reference, enc)).numpy()
        assert np.max(np.abs(parts.projected - expected)) <= 1e-5
    else:
        assert parts.projected is None
