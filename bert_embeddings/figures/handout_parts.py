"""The parts of a lesson's handout, and where their numbers come from.

A page in a handout is a list of parts: a Chart (a figure, under the key the page draws it with),
a Table, or a Note (plain text). ``Sources`` (bert_embeddings.views.sources) computes, for one
model, the core results the app's caches hold, in the same way and each once, so that a
handout's figures are the page's to the last bit. A few readers of a view's values, as the page's widgets
read them, close the module (bert_embeddings.figures.handout_pages uses them all).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from bert_embeddings.analysis import (
    geometry,
)
from bert_embeddings.figures import charts
from bert_embeddings.models.tokenize import Encoding
from bert_embeddings.views import settings

INK = charts.INK["light"]  # a handout is light: marks drawn as text take the light theme's ink


@dataclass(frozen=True)
class Chart:
    key: str  # the key the page draws it under
    figure: go.Figure


@dataclass(frozen=True)
class Table:
    columns: dict[str, Sequence]  # each column's name and its cells, as text or numbers


@dataclass(frozen=True)
class Note:
    text: str  # plain text, never markup


Part = Chart | Table | Note


def notices(encoding: Encoding) -> list[Part]:
    return [Note(str(notice)) for notice in encoding.notices]


def geometry_of(values: dict, hidden: int) -> tuple[str, int]:
    """The geometry and D, as the geometry switch reads them (D outside 1 to the most: the model's)."""
    removed = values.get(settings.GEOMETRY_REMOVED)
    if removed not in range(1, geometry.MOST_REMOVED + 1):
        removed = geometry.default_removed(hidden)
    return values.get(settings.GEOMETRY) or settings.GEOMETRIES[0], int(removed)


def within(value, options, default):
    """A value the page's widget offers, else the page's default (links.keep_within)."""
    return value if value is not None and value in options else default
