"""What moved in a lesson's handout: written by the page's own composer
(bert_embeddings.figures.moved_page), which says in a note that the figures wait while a space's
neighbour lists are not on disk, and gives the page's figures once they are."""

from __future__ import annotations

import numpy as np
import pytest

from bert_embeddings import api
from bert_embeddings.figures import check, handout_pages, handout_parts, moved_page, moved_pieces, settings
from bert_embeddings.models import checkpoints
from bert_embeddings.views.sources import Sources
from testkit.random_models import keep_first_pieces, write_random_bert

pytestmark = pytest.mark.usefixtures("offline")

VIEW = {"page": "moved", "from": "token", "to": "output", "mv_k": "5"}


@pytest.fixture
def small(tmp_path, monkeypatch):
    """A random one-layer BERT of 2,000 pieces, and a cache folder of this test's own."""
    folder = keep_first_pieces(write_random_bert(tmp_path / "one-layer", layers=1, seed=5), 2000)
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    return checkpoints.load_model(str(folder))


def unit_rows(table: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1; a row of zeros (a padding piece's) stays zeros."""
    norms = np.linalg.norm(table, axis=1, keepdims=True)
    return np.divide(table, norms, out=np.zeros_like(table), where=norms > 0)


def said(part: handout_parts.Part) -> object:
    """A part as a handout could tell it from another: a figure by its key and its spec."""
    if isinstance(part, handout_parts.Chart):
        return ("chart", part.key, part.figure.to_json())
    if isinstance(part, handout_parts.Download):
        return ("download", str(part.name), part.values.tolist())
    return part


def composed_of(view: dict, small) -> moved_page.Page:
    return moved_page.compose(moved_page.Settings.of(check.values(view)), Sources(small))


def test_the_handout_is_the_moved_composers_and_says_the_lists_wait(small):
    values, sources = check.values(VIEW), Sources(small)
    written = handout_pages.shown("moved", values, sources)
    composed = composed_of(VIEW, small)
    assert settings.PAGE_MODULES["moved"] is moved_page
    assert written == composed.in_order() == [composed.shared, composed.lists_pending]
    waiting = composed.lists_pending.text
    assert "5 nearest" in waiting and "the token rows" in waiting and "the embedding output" in waiting


def test_once_the_lists_are_on_disk_the_handout_holds_the_pages_figures(small):
    expected = api.compare(api.space(small, "token"), api.space(small, "output"), k=5)  # keeps the lists
    values, sources = check.values(VIEW), Sources(small)
    written = handout_pages.shown("moved", values, sources)
    composed = composed_of(VIEW, small)
    assert [said(part) for part in written] == [said(part) for part in composed.in_order()]
    metrics = {part.label: part.value for part in written if isinstance(part, handout_parts.Metric)}
    assert metrics["Mean overlap@5"] == f"{expected.overlap.mean():.3f}"
    assert metrics["Linear CKA"] == f"{expected.cka:.3f}"
    charts = {part.key for part in written if isinstance(part, handout_parts.Chart)}
    assert charts == {"mv_hist", "mv_kinds"} and composed.lists_pending is None


def test_the_handout_holds_the_movers_and_the_top_mover_side_by_side(small):
    expected = api.compare(api.space(small, "token"), api.space(small, "output"), k=5)
    composed = composed_of({**VIEW, "mv_hide_special": "0"}, small)  # every shared piece a mover
    movers = composed.movers.table
    # least kept first, then by lower second-order similarity, then in A's order (numpy's own sort)
    order = np.lexsort((np.arange(len(expected.pieces)), expected.second_order, expected.overlap))
    assert movers.columns["piece"] == [expected.pieces[i] for i in order]
    assert np.array_equal(movers.columns["overlap@5"], expected.overlap[order])
    assert len(movers.shown["piece"]) == moved_pieces.SHOWN
    top = order[0]
    kept = round(expected.overlap[top] * 5)
    assert composed.side.caption.text.endswith(f": keeps {kept} of 5.")
    in_a = composed.side.sides[0].table.columns
    assert in_a["piece"] == [expected.pieces[i] for i in expected.lists_a[top]]
    assert in_a["neighbour"].count("kept") == kept
    # the cosines are the token rows' own, in float64 (the raw geometry of the view)
    unit = unit_rows(small.tables.word_embeddings.astype(np.float64))
    assert np.allclose(in_a["cosine"], unit[expected.lists_a[top]] @ unit[top], atol=1e-12)
    # what waits on the explorer's server says so, in words
    assert composed.aligned.pending is not None and composed.layers.pending is not None
    assert composed.aligned.chart is None and composed.layers.chart is None


def test_the_handout_names_a_piece_the_vocabularies_do_not_share(small):
    api.compare(api.space(small, "token"), api.space(small, "output"), k=5)  # keeps the lists
    composed = composed_of({**VIEW, "mv_piece": "zzzqqq"}, small)
    assert composed.side.problem.text == "'zzzqqq' is not one of the shared pieces."
    assert composed.side.sides == ()


def test_once_every_stage_is_computed_the_handout_holds_the_model_through_its_layers(small):
    token = api.space(small, "token")
    found = {stage: api.compare(token, api.space(small, stage), k=10) for stage in ("token", "output", 1)}
    layers = composed_of(VIEW, small).layers
    assert layers.pending is None
    numbers = layers.download
    assert list(numbers.rows) == ["token rows", "embedding output", "layer 1"]
    assert np.allclose(numbers.values[:, 0], [found[s].overlap.mean() for s in ("token", "output", 1)])
    for row, stage in enumerate(("token", "output", 1)):
        unit = unit_rows(api.space(small, stage).vectors.astype(np.float64))
        cosines, n = unit @ unit.T, len(unit)
        brute = (cosines.sum() - np.trace(cosines)) / (n * (n - 1))
        assert numbers.values[row, 1] == pytest.approx(brute, abs=1e-9)
    assert layers.chart.key == "mv_layers_chart"
