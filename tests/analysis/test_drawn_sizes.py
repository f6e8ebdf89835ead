"""Figures sent at about the size they are drawn: a stage in full wider than a screen shows every
n-th dimension, each value still the one computed, and says so; a narrower range draws each one."""

from __future__ import annotations

import numpy as np
import pytest

from bert_embeddings.figures import embedding_layer_page, page_figures
from bert_embeddings.models import checkpoints
from bert_embeddings.models.folders import load_folder
from bert_embeddings.views.sources import Sources
from testkit.random_models import write_random_bert, write_random_model


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    """A random BERT of bert-base's width (768) and one layer."""
    folder = write_random_bert(tmp_path_factory.mktemp("wide-bert"), hidden=768, heads=12)
    return Sources(load_folder(folder, spec=str(folder), name="wide", source="local"))


def test_a_stage_wider_than_a_screen_draws_every_second_dimension_exactly(wide):
    settings = embedding_layer_page.Settings(
        sentence_a="The bank of the river.", sentence_b="", layer_stage="output"
    )
    page = embedding_layer_page.compose(settings, wide, proof=False)
    heatmap = page.detail.figure.data[0]
    output = wide.breakdown(wide.encoding(settings.values())).output
    assert (heatmap.x0, heatmap.dx) == (0, 2)
    np.testing.assert_array_equal(np.asarray(heatmap.z), output[:, ::2].astype(np.float32))
    assert "Every second of these 768 dimensions is drawn" in page.detail_caption.text
    # The downloads still hold every dimension.
    assert all(download.values.shape[1] == 768 for download in page.downloads)


def test_a_narrower_range_draws_each_dimension_and_says_nothing_of_steps(wide):
    settings = embedding_layer_page.Settings(
        sentence_a="The bank.", sentence_b="", dims=(100, 483), layer_stage="token"
    )
    page = embedding_layer_page.compose(settings, wide, proof=False)
    heatmap = page.detail.figure.data[0]
    assert (heatmap.x0, heatmap.dx) == (100, 1) and np.asarray(heatmap.z).shape[1] == 384
    assert page_figures.detail_step(range(100, 484)) == 1 and "Every" not in page.detail_caption.text


def test_a_projection_wider_than_a_screen_says_only_what_holds_for_it(tmp_path):
    """ALBERT's projection (400 wide here) is drawn at every second dimension whatever the range
    chosen, so its caption does not offer a narrower range; its 16-wide token rows draw each one."""
    from transformers import AlbertConfig

    config = AlbertConfig(
        embedding_size=16,
        hidden_size=400,
        max_position_embeddings=40,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=48,
        vocab_size=30522,
    )
    sources = Sources(checkpoints.load_model(str(write_random_model(tmp_path / "albert", config))))
    chosen = dict(sentence_a="The bank.", sentence_b="")
    projected = embedding_layer_page.compose(
        embedding_layer_page.Settings(**chosen, layer_stage="projected"), sources, proof=False
    )
    assert projected.detail.figure.data[0].dx == 2
    said = projected.detail_caption.text
    assert "Every second of these 400 dimensions is drawn" in said and "narrower range" not in said
    token = embedding_layer_page.compose(
        embedding_layer_page.Settings(**chosen, layer_stage="token"), sources, proof=False
    )
    assert token.detail.figure.data[0].dx == 1 and "Every" not in token.detail_caption.text


def test_wider_tables_are_drawn_at_every_nth_dimension_named_in_words():
    """bert-large's 1024 dimensions: every third, said so in words."""
    assert page_figures.detail_step(range(1024)) == 3 and page_figures.every_nth(3) == "third"
    assert [page_figures.every_nth(n) for n in (2, 8, 11)] == ["second", "eighth", "11th"]
