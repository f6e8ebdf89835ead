"""Whole figures from the core's results, arranged as the pages show them: the Overview, and the
pages over the whole vocabulary (Neighbours, Maps, Geometry, Your own axes).

A page, a notebook (bert_embeddings.figures.notebook) and a lesson's handout
(bert_embeddings.figures.handout_pages) call the same function here, so the figure a notebook or
a handout gets is the figure the page draws, panel for panel and title for title. The pages about
one input have theirs in bert_embeddings.figures.page_figures.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from bert_embeddings.analysis import (
    axes,
    axis_card,
    cosine,
    geometry,
    geometry_lab,
    projection,
    vocab_search,
    word_tests,
)
from bert_embeddings.analysis.decompose import EmbeddingBreakdown
from bert_embeddings.figures import axes_charts, charts, lab_charts, map_charts, map_marks, space_charts
from bert_embeddings.maps import map_jobs, map_reading
from bert_embeddings.models import glyphs

OVERVIEW_TOKENS = 12
OVERVIEW_DIMS = 32


def overview_panels(parts: EmbeddingBreakdown, labels: Sequence[str]) -> list[tuple[str, np.ndarray]]:
    """The overview's panels: the first pieces and dimensions of each stage, token row to output
    (no segment panel for a family without segment rows)."""
    n, d = min(len(labels), OVERVIEW_TOKENS), min(parts.token.shape[1], OVERVIEW_DIMS)
    panels = [("token row", parts.token[:n, :d]), ("+ position row", parts.position[:n, :d])]
    if parts.segment is not None:  # DistilBERT has no segment table
        panels.append(("+ segment row", parts.segment[:n, :d]))
    return panels + [("= sum", parts.summed[:n, :d]), ("LayerNorm → output", parts.output[:n, :d])]


def overview(panels: list[tuple[str, np.ndarray]], labels: Sequence[str]) -> go.Figure:
    """The Overview page's figure: the panels side by side."""
    return charts.layer_overview(panels, list(labels)[: len(panels[0][1])])


def neighbours(query: vocab_search.Query, result: vocab_search.Neighbours) -> go.Figure:
    """The Neighbours page's bars for a query's ranked neighbours."""
    return charts.neighbour_bars(result.pieces, result.scores, f"Closest to {query.description}")


def axis_groups(
    chosen: list[axes.Axis],
    placed: list[axes.Word],
    space: geometry.Geometry,
    sentence: tuple[Sequence[str], np.ndarray] | None = None,
) -> list[tuple[str, list[str], np.ndarray]]:
    """Each group of points on the axes with its labels and coordinates: the words placed, the
    words at the axes' ends (each once), and optionally a sentence's pieces (labels, vectors)."""
    end_words = {w.text: w.vector for a in chosen for w in (*a.start, *a.end)}
    groups = [
        ("words placed", [w.text for w in placed], [w.vector for w in placed]),
        ("words at the axes' ends", list(end_words), list(end_words.values())),
    ]
    if sentence is not None:
        groups.append(("your sentence's pieces", list(sentence[0]), list(sentence[1])))
    return [
        (name, labels, axes.coordinates(np.array(vectors), chosen, space))
        for name, labels, vectors in groups
        if labels
    ]


def words_on_axes(
    chosen: list[axes.Axis], groups: list[tuple[str, list[str], np.ndarray]], model_name: str
) -> go.Figure:
    """Your own axes' chart: every group placed on the axes, each axis titled by its ends."""
    titles = [f"{a.name}: {a.label}"[:80] for a in chosen]
    return axes_charts.on_axes(groups, titles, f"{model_name}: words on your axes")


def described(shape: tuple[str, int]) -> str:
    """'standardised' or 'all-but-the-top 7', for titles and captions."""
    name, removed = shape
    return f"{name} {removed}" if name == "all-but-the-top" else name


TSNE = "t-SNE"


def vocabulary(
    index: vocab_search.VocabIndex,
    shape: tuple[str, int],
    coords: np.ndarray,
    axes: tuple[int, ...],
    ratios: np.ndarray | None = None,
    **shown,
) -> map_charts.VocabularyMap:
    """The Maps page's map of every vocabulary row, as its record: PCA (with each component's
    share, ``ratios``) or, without ``ratios``, the t-SNE map, titled with the method and the
    geometry; ``shown``: the record's other fields (the kinds shown, highlights, colouring,
    underlays). map_charts.vocabulary_map draws it."""
    method = "PCA" if ratios is not None else TSNE
    return map_charts.VocabularyMap(
        coords,
        index.pieces,
        index.kinds,
        axes,
        ratios,
        axis_titles=None if ratios is not None else ("t-SNE 1", "t-SNE 2"),
        title=f"The whole vocabulary ({index.size:,} pieces), {method}, {described(shape)} geometry",
        **shown,
    )


def sentence_mark(ids: np.ndarray, ink: str) -> map_marks.Highlight:
    """A map's mark for a sentence's pieces (each piece once), in the text colour ``ink``."""
    return map_marks.Highlight("your sentence", np.unique(ids), ink, map_charts.SENTENCE_SYMBOL)


def map_labels(done: map_jobs.Done, index: vocab_search.VocabIndex) -> tuple[map_reading.Label, ...]:
    """A finished t-SNE map's region labels: what each dense island is, in words."""
    return map_reading.labels(done.regions, index.pieces, index.kinds, glyphs.legible)


def region_labels(done: map_jobs.Done, labels: Sequence[map_reading.Label], ink: str):
    """The region labels that fit, as the map draws them over its cloud."""
    return map_marks.region_labels(done.regions.anchors, labels, done.coords, ink)


def pattern_mark(pattern: str, matches: np.ndarray) -> map_marks.Highlight:
    """A map's mark for the pieces a highlight pattern matches (``matches``: their rows)."""
    return map_marks.Highlight(f"matching {pattern}", matches, *map_charts.PATTERN_MARK)


def search_mark(description: str, ids: Sequence[int]) -> map_marks.Highlight:
    """A map's mark for the latest neighbour search (its query's description, its neighbours)."""
    return map_marks.Highlight(f"neighbours of {description}", np.array(ids), *map_charts.NEIGHBOURS_MARK)


def pca_vocabulary(
    index: vocab_search.VocabIndex,
    shape: tuple[str, int],
    pca: tuple[projection.PcaBasis, np.ndarray],
    wanted: tuple[float, ...],
    **shown,
) -> map_charts.VocabularyMap:
    """The Maps page's PCA map of every vocabulary row in the geometry ``shape``, as its record:
    ``pca`` the basis and every row's coordinates, ``wanted`` the components asked for (numbered
    from 1; checked, an error naming the range); ``shown`` as for ``vocabulary``."""
    basis, coords = pca
    chosen = projection.check_components(basis, *wanted)
    return vocabulary(index, shape, coords, chosen, basis.explained_variance_ratio, **shown)


def explained_variance(basis: projection.PcaBasis) -> go.Figure:
    """The share of variance of each component a PCA map can show."""
    return map_charts.explained_variance(
        basis.explained_variance_ratio, "Variance explained by each component"
    )


def journey_coordinates(
    basis: projection.PcaBasis, stages: dict[str, np.ndarray]
) -> list[tuple[str, np.ndarray]]:
    """Each stage's vectors of a sentence projected on ``basis``: (stage, (pieces, components))."""
    return [(name, projection.project(basis, vectors)) for name, vectors in stages.items()]


def journey(
    stage_coords: list[tuple[str, np.ndarray]], labels: Sequence[str], chosen: tuple[int, ...], basis
) -> go.Figure:
    """The sentence's journey through the stages, on the components ``chosen`` of ``basis``."""
    return map_charts.sentence_journey(stage_coords, labels, chosen, basis.explained_variance_ratio)


def position_path(pca: tuple[projection.PcaBasis, np.ndarray], chosen: tuple[int, ...]) -> go.Figure:
    """The position rows joined in order, on the components ``chosen`` of the position table's PCA."""
    basis, coords = pca
    return map_charts.position_path(coords, chosen, basis.explained_variance_ratio)


def dimension_parts(lab: geometry_lab.Lab, name: str) -> dict[str, np.ndarray] | None:
    """Each whole table's parts of the mean cosine, dimension by dimension, in the geometry
    ``name``; None where a table could not be fitted in it."""
    if any(name not in lab.stats[table] for table in geometry_lab.TABLES):
        return None
    return {table: lab.stats[table][name].contributions for table in geometry_lab.TABLES}


def dimension_shares(contributions: dict[str, np.ndarray], shape: tuple[str, int]) -> go.Figure:
    """The Geometry page's largest parts of the mean cosine, by dimension, in the geometry ``shape``."""
    shown = f"The {lab_charts.SHOWN} largest parts of the mean cosine, by dimension"
    return lab_charts.dimension_shares(contributions, f"{shown} ({described(shape)} geometry)")


def row_lengths(lab: geometry_lab.Lab) -> go.Figure:
    """The Geometry page's lengths of the token rows along their ids."""
    return lab_charts.lengths_by_id(
        lab.lengths, lab.layout, geometry_lab.LAYOUT, "Length of the token rows along their ids"
    )


def placed_cosine(placed: Sequence[axes.Word], space: geometry.Geometry) -> np.ndarray:
    """The cosine between the words placed on the axes, in the geometry ``space``."""
    return cosine.matrix(space.transform(np.array([w.vector for w in placed])))


def placed_cosine_chart(
    similarity: np.ndarray, placed: Sequence[axes.Word], shape: tuple[str, int]
) -> go.Figure:
    """The cosine between the words placed (``similarity``: placed_cosine), word by word."""
    title = f"Cosine between the words placed ({described(shape)} geometry)"
    return charts.similarity_heatmap(similarity, title, [w.text for w in placed])


NOT_GIVEN = "—"  # a figure the words cannot give (the reason is said beside it)


def card_figures(card: axis_card.Card) -> dict[str, str]:
    """An axis card's figures as Your own axes shows them, by label: how many pole words held out
    land on their own side, the share of random axes it beats, its direction's interval and, for
    ends read as pairs, their first component's share."""
    low_high = card.direction_interval
    figures = {
        "Held out on their own side": (
            f"{card.held_out} of {card.held_total}" if card.held_total else NOT_GIVEN
        ),
        "Beats random axes": NOT_GIVEN if card.beats is None else f"{card.beats:.1%}",
        "Direction's cosine, 95 %": (
            NOT_GIVEN if low_high is None else f"{low_high[0]:.2f} – {low_high[1]:.2f}"
        ),
    }
    if card.coherence is not None:
        figures["Pairs' first component"] = f"{card.coherence:.1%}"
    return figures


def card_intervals(name: str, found: word_tests.CardResult) -> go.Figure | None:
    """Axis ``name``'s card: the words placed, each with its interval from resampling the pole
    words; None when it has no words or no intervals."""
    card = found.card
    if not len(found.words) or card.word_intervals is None:
        return None
    title = f"Axis {name}: the words placed, with 95 % intervals from resampling the pole words"
    return space_charts.intervals(found.words, card.coordinates, card.word_intervals, title)
