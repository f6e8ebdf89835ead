"""Positions vs the sinusoid, the segment swap, contextual hidden states, and the toy space."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
from sklearn.metrics.pairwise import cosine_similarity
from transformers import BertModel

from bert_embeddings.analysis import concepts, contextual, cosine, decompose, positions
from bert_embeddings.errors import OutOfRangeError, ToySpaceError, WordNotFoundError


def encode(model, a, b=""):
    return model.encode(a, b)


@pytest.mark.parametrize("n,d", [(512, 384), (50, 8), (7, 6)])
def test_sinusoid_matches_the_formula(n, d):
    """Every entry equals sin/cos(pos / 10000^(2i/d)) evaluated one by one."""
    table = positions.sinusoid(n, d)
    for pos in range(0, n, max(1, n // 17)):
        for i in range(d // 2):
            angle = pos / math.pow(10000, 2 * i / d)
            assert table[pos, 2 * i] == pytest.approx(math.sin(angle), abs=1e-6)
            assert table[pos, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-6)
    np.testing.assert_allclose(positions.row_norms(table), math.sqrt(d / 2), rtol=1e-5)


def test_cosine_matrix_equals_sklearn(bundled):
    """The 512 x 512 position similarity matrix equals scikit-learn's cosine_similarity."""
    table = bundled.tables.position_embeddings
    np.testing.assert_allclose(cosine.matrix(table), cosine_similarity(table), atol=1e-5)
    with pytest.raises(OutOfRangeError):
        positions.check_position(512, 512)


def test_segment_swap_equals_transformers(bundled):
    """Cosine between outputs as segment A and as segment B, per token, as BertEmbeddings gives."""
    enc = encode(bundled, "The river bank", "was flooded")
    model = BertModel.from_pretrained(str(bundled.folder)).eval()
    with torch.inference_mode():
        a, b = (
            model.embeddings(
                input_ids=torch.tensor(enc.ids)[None], token_type_ids=torch.full((1, len(enc)), s)
            )[0]
            for s in (0, 1)
        )
    expected = torch.nn.functional.cosine_similarity(a, b, dim=1).numpy()
    np.testing.assert_allclose(decompose.segment_swap(bundled, enc), expected, atol=1e-5)


@pytest.fixture(scope="module")
def full_model(bundled):
    return contextual.load_full_model(bundled)


def test_hidden_states_equal_transformers(bundled, full_model):
    """Every layer's hidden states equal BertModel's output_hidden_states; layer 0 is the decomposition."""
    enc = encode(bundled, "He sat on the bank of the river.", "It was quiet.")
    states = contextual.hidden_states(full_model, enc)
    reference = BertModel.from_pretrained(str(bundled.folder)).eval()
    with torch.inference_mode():
        out = reference(
            input_ids=torch.tensor(enc.ids)[None],
            token_type_ids=torch.tensor(enc.segment_ids)[None],
            output_hidden_states=True,
        )
    assert states.shape == (7, len(enc), 384)  # embeddings + 6 layers
    for layer, expected in enumerate(out.hidden_states):
        np.testing.assert_allclose(states[layer], expected[0].numpy(), atol=1e-5)
    assert np.max(np.abs(states[0] - decompose.decompose(bundled, enc).output)) <= 1e-5


def test_same_word_drifts_apart_with_depth(bundled, full_model):
    """'bank' by a river and at a counter: similar at the embeddings, less so in the last layer."""
    first, second = (
        encode(bundled, "He sat on the bank of the river."),
        encode(bundled, "She paid cash at the bank."),
    )
    word = (bundled.tokenizer.token_to_id("bank"),)
    where_1, where_2 = contextual.find_word(first, word, "A"), contextual.find_word(second, word, "B")
    assert first.pieces[where_1[0]] == second.pieces[where_2[0]] == "bank"
    similarity = contextual.word_similarity_by_layer(
        contextual.hidden_states(full_model, first),
        where_1,
        contextual.hidden_states(full_model, second),
        where_2,
    )
    assert similarity.shape == (7,)
    assert similarity[0] > similarity[-1]


def test_find_word_matches_whole_words_only(bundled):
    """A word is found as whole pieces; 'em' at the start of 'embeddings' does not count."""
    enc = encode(bundled, "embeddings are neat")
    em = (bundled.tokenizer.token_to_id("em"),)
    with pytest.raises(WordNotFoundError):
        contextual.find_word(enc, em, "sentence 1")
    ids = tuple(bundled.tokenizer.encode("embeddings", add_special_tokens=False).ids)
    assert contextual.find_word(enc, ids, "sentence 1") == [1, 2, 3, 4]


def test_toy_space_parses_and_explains_problems():
    """The default toy space reads; bad lines are named with their line number."""
    space = concepts.parse(concepts.DEFAULT_TEXT)
    assert space.dimensions == ("animal", "size", "domestic") and space.vectors.shape == (7, 3)
    for text, expected in [
        ("item, a, b, c\ncat, 1, x, 2", "Line 2 (cat): b = 'x' is not a number"),
        ("item, a, b, c\ncat, 1, 2", "Line 2 has 3 values"),
        ("item, a, b, c\n, 1, 2, 3", "Line 2 has no name"),
        ("item, a, b, c\ncat, 0, 0, 0", "all zeros"),
        ("item, a, b, c\ncat, 1, 2, 3\ncat, 3, 2, 1", "same name"),
        ("item, a, b\ncat, 1, 2", "three dimensions"),
        ("", "header line"),
        ("item, a, b, c\ncat, nan, 1, 1", "finite"),
    ]:
        with pytest.raises(ToySpaceError, match=re.escape(expected)):
            concepts.parse(text)
