"""What moved in a lesson's handout: written by the page's own composer
(bert_embeddings.figures.moved_page), which says in a note that the figures wait while a space's
neighbour lists are not on disk, and gives the page's figures once they are."""

from __future__ import annotations

import pytest

from bert_embeddings import api
from bert_embeddings.figures import handout_pages, handout_parts, moved_page
from bert_embeddings.models import checkpoints
from bert_embeddings.views import check
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


def said(part: handout_parts.Part) -> object:
    """A part as a handout could tell it from another: a figure by its key and its spec."""
    if isinstance(part, handout_parts.Chart):
        return ("chart", part.key, part.figure.to_json())
    if isinstance(part, handout_parts.Download):
        return ("download", str(part.name), part.values.tolist())
    return part


def test_the_handout_is_the_moved_composers_and_says_the_lists_wait(small):
    values, sources = check.values(VIEW), Sources(small)
    written = handout_pages.shown("moved", values, sources)
    composed = moved_page.moved_page(values, sources)
    assert handout_pages.COMPOSERS["moved"] is moved_page.moved_page
    assert written == list(composed.values())
    waiting = composed["lists_pending"].text
    assert "5 nearest" in waiting and "the token rows" in waiting and "the embedding output" in waiting


def test_once_the_lists_are_on_disk_the_handout_holds_the_pages_figures(small):
    expected = api.compare(api.space(small, "token"), api.space(small, "output"), k=5)  # keeps the lists
    values, sources = check.values(VIEW), Sources(small)
    written = handout_pages.shown("moved", values, sources)
    composed = moved_page.moved_page(values, sources)
    assert [said(part) for part in written] == [said(part) for part in composed.values()]
    metrics = {part.label: part.value for part in written if isinstance(part, handout_parts.Metric)}
    assert metrics["Mean overlap@5"] == f"{expected.overlap.mean():.3f}"
    assert metrics["Linear CKA"] == f"{expected.cka:.3f}"
    charts = {part.key for part in written if isinstance(part, handout_parts.Chart)}
    assert charts == {"mv_hist", "mv_kinds"} and "lists_pending" not in composed
