"""Whole figures from the core's results, arranged as the pages show them.

A page and a notebook (bert_embeddings.figures.notebook) call the same function here, so the
figure a notebook gets is the figure the page draws, panel for panel and title for title.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from bert_embeddings.analysis import axes, geometry, vocab_search
from bert_embeddings.analysis.decompose import EmbeddingBreakdown
from bert_embeddings.figures import charts, map_marks, maps
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
    return maps.on_axes(groups, titles, f"{model_name}: words on your axes")


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
) -> maps.VocabularyMap:
    """The Maps page's map of every vocabulary row, as its record: PCA (with each component's
    share, ``ratios``) or, without ``ratios``, the t-SNE map, titled with the method and the
    geometry; ``shown``: the record's other fields (the kinds shown, highlights, colouring,
    underlays). maps.vocabulary_map draws it."""
    method = "PCA" if ratios is not None else TSNE
    return maps.VocabularyMap(
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
    return map_marks.Highlight("your sentence", np.unique(ids), ink, maps.SENTENCE_SYMBOL)


def map_labels(done: map_jobs.Done, index: vocab_search.VocabIndex) -> tuple[map_reading.Label, ...]:
    """A finished t-SNE map's region labels: what each dense island is, in words."""
    return map_reading.labels(done.regions, index.pieces, index.kinds, glyphs.legible)


def region_labels(done: map_jobs.Done, labels: Sequence[map_reading.Label], ink: str):
    """The region labels that fit, as the map draws them over its cloud."""
    return map_marks.region_labels(done.regions.anchors, labels, done.coords, ink)
