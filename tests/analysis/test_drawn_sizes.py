"""Figures sent at about the size they are drawn: a stage in full wider than a screen shows every
n-th dimension, each value still the one computed, and says so; a narrower range draws each one."""

from __future__ import annotations

import numpy as np
import pytest

from bert_embeddings.figures import embedding_layer_page, page_figures
from bert_embeddings.models.folders import load_folder
from bert_embeddings.views.sources import Sources
from testkit.random_models import write_random_bert


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
