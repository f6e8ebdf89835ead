"""The pages whole in a module each (Concepts to Compare models: typed settings, typed parts): a
handout writes the very parts the page's own composer gives for a step's view, in the page's
order, and at least the figures it wrote before they were composed."""

from __future__ import annotations

import pytest

from bert_embeddings.figures import (
    axes_page,
    check,
    compare_page,
    concepts_page,
    context_page,
    embedding_layer_page,
    geometry_page,
    handout_pages,
    handout_parts,
    maps_page,
    moved_page,
    neighbours_page,
    overview_page,
    positions_page,
    segments_page,
    settings,
    tokens_page,
)
from bert_embeddings.views import pages
from bert_embeddings.views.sources import Sources

pytestmark = pytest.mark.usefixtures("offline")

# What each page's handout held before its page was composed once: its figures' keys, and for
# Compare models (no figure) its note.
BEFORE = {
    "embedding_layer": {"stage_overview", "stage_detail", "token_stats", "layer_norm_params"},
    "context": {"ctx_similarity", "ctx_heatmap"},
    "neighbours": {"nb_bars"},
    "compare": set(),
    "concepts": {"toy_space", "toy_similarity"},
    "positions": {"pos_norms", "pos_pair"},
    "overview": {"overview"},
    "tokens": set(),
    "segments": {"seg_rows", "seg_swap"},
    "geometry": {"geo_shares", "geo_lengths"},
    "axes": {"ax_chart", "ax_words_cosine"},
    "maps": {"pca_vocabulary", "pca_variance"},
}

VIEWS = {  # a view of each page, as a lesson's step names it
    "embedding_layer": {"page": "embedding_layer", "a": "The bank of the river.", "detail": "output"},
    "context": {"page": "context", "layer": "2"},
    "neighbours": {"page": "neighbours", "q": "river", "k": "7", "geometry": "centred"},
    "compare": {"page": "compare", "cmp_word": "river"},
    "concepts": {"page": "concepts", "items": "item, a, b, c\nant, 1, 0, 0\nwhale, 9, 1, 2"},
    "positions": {"page": "positions", "p1": "3", "upto": "32"},
    "overview": {"page": "overview", "a": "Dogs bark."},
    "tokens": {"page": "tokens", "b": ""},
    "segments": {"page": "segments", "b": ""},
    "geometry": {"page": "geometry", "geometry": "abtt", "d": "3"},
    "axes": {"page": "axes", "x_from": "cold", "x_to": "hot", "geometry": "centred"},
    "maps": {"page": "maps", "highlight": "^qu", "x": "3"},
}


def said(part: handout_parts.Part) -> object:
    """A part as a handout could tell it from another: a figure by its key and its spec."""
    if isinstance(part, handout_parts.Pieces):
        return ("pieces", tuple(part.encoding.pieces))
    if isinstance(part, handout_parts.Chart):
        return ("chart", part.key, part.figure.to_json())
    if isinstance(part, handout_parts.Download):
        return ("download", str(part.name), part.values.tolist())
    if isinstance(part, handout_parts.Table):
        return (
            "table",
            str(part.name),
            {name: [str(cell) for cell in cells] for name, cells in part.columns.items()},
        )
    return part


@pytest.fixture(scope="module")
def sources(bundled) -> Sources:
    return Sources(bundled)


TYPED = {
    "geometry": geometry_page,
    "overview": overview_page,
    "tokens": tokens_page,
    "segments": segments_page,
    "concepts": concepts_page,
    "positions": positions_page,
    "embedding_layer": embedding_layer_page,
    "context": context_page,
    "neighbours": neighbours_page,
    "compare": compare_page,
    "moved": moved_page,  # (its own figures are tested in test_handout_moved.py)
    "axes": axes_page,
    "maps": maps_page,
}


def composed(page: str, values: dict, sources: Sources) -> list[handout_parts.Part]:
    """The page's parts from its own composer."""
    return TYPED[page].compose(TYPED[page].Settings.of(values), sources).in_order()


def test_every_page_is_composed_for_the_handout_by_its_own_module():
    assert settings.PAGE_MODULES == TYPED
    assert set(TYPED) == set(pages.BY_URL)  # every page of the navigation


@pytest.mark.parametrize("page", sorted(BEFORE))
def test_the_handout_writes_the_composers_parts(bundled, sources, page):
    values = check.values(VIEWS[page])
    written = handout_pages.shown(page, values, sources)
    assert [said(part) for part in written] == [said(part) for part in composed(page, values, sources)]
    charts = {part.key for part in written if isinstance(part, handout_parts.Chart)}
    assert charts >= BEFORE[page] and not any(
        isinstance(part, handout_parts.Note) and part.kind == handout_parts.ERROR for part in written
    )
    if page == "compare":
        assert any(
            "loads a second model" in part.text for part in written if isinstance(part, handout_parts.Note)
        )
        assert any(isinstance(part, handout_parts.Table) for part in written)  # the word's neighbours
