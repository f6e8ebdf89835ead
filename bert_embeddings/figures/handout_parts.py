"""The parts a page shows of a view, in the page's order, and where their numbers come from.

A page's composer (bert_embeddings.figures.<page>_page) returns its parts as the typed fields of a
``Composed``, in the page's order: a Chart (a figure, under the key the page draws it with), a
Table, a Note (plain text, drawn as the page draws it: a caption, an information, a warning or an
error), a Metric, a Download (the numbers under a figure, which only the page offers) or Pieces
(the sentence as coloured chips, only on the page). The Streamlit page draws them by field
(components/parts/draw.shown) and a lesson's handout writes the same ones
(bert_embeddings.lessons.handout). ``Sources`` (bert_embeddings.views.sources) computes, for one
model, the core results the app's caches hold, in the same way and each once, so that a handout's
figures are the page's to the last bit. A few readers of a view's values, as the page's widgets
read them, close the module.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from bert_embeddings.analysis import (
    geometry,
)
from bert_embeddings.figures import charts, export
from bert_embeddings.models import glyphs
from bert_embeddings.models.tokenize import Encoding, Notice
from bert_embeddings.views import fields

INK = charts.INK["light"]  # a handout is light: marks drawn as text take the light theme's ink

# How a page draws a note: as a caption, a paragraph of the page's text, an information, a success
# (a check passed, a verdict that holds), a warning (truncated input) or an error (what the page
# says instead of a figure). A handout writes each as a note.
CAPTION, TEXT, INFO, SUCCESS, WARNING, ERROR = "caption", "text", "info", "success", "warning", "error"
BLOCKED = ":material/block:"  # a note's icon on the page for what cannot be had (a geometry not fitted)


@dataclass(frozen=True)
class Chart:
    key: str  # the key the page draws it under
    figure: go.Figure


@dataclass(frozen=True)
class Table:
    columns: dict[str, Sequence]  # each column's name and its cells, as text or numbers
    name: export.Name = ""  # its download's name on the page
    shown: dict[str, Sequence] | None = None  # the cells as shown (pieces made legible), if not columns
    key: str = ""  # the page's key for it
    formats: dict[str, str] | None = None  # a number column's printf format as shown (files: every digit)


@dataclass(frozen=True)
class Note:
    text: str  # plain text, never markup
    kind: str = CAPTION
    bold: str = ""  # a part of the text the page shows in bold (a model's name)
    icon: str = ""  # the page's icon for it, where not its kind's (a name the handout ignores)
    # The explorer's own text with Markdown code spans (a module's name), never a person's text:
    # the page shows it as Markdown, a handout its code spans as code.
    markup: bool = False


@dataclass(frozen=True)
class Metric:
    label: str
    value: str


@dataclass(frozen=True)
class Download:
    """The numbers of a figure, offered for download on the page (exports.matrix); not in a handout."""

    name: export.Name
    values: np.ndarray
    rows: Sequence[object] | None = None
    columns: Sequence[object] | None = None
    corner: str = ""


@dataclass(frozen=True)
class Pieces:
    """The sentence's pieces as chips with their ids, segments and positions: drawn on the page only."""

    encoding: Encoding


Part = Chart | Table | Note | Metric | Download | Pieces


@dataclass(frozen=True)
class Composed:
    """A page's parts as typed fields, in the page's order; a field is None where the view has
    nothing to show there (a figure with no data, a problem that did not arise)."""

    def in_order(self) -> list[Part]:
        """Every part shown, in the page's order (a handout writes them so)."""
        found = []
        for field in dataclasses.fields(self):
            for part in _each(getattr(self, field.name)):
                found.extend(part.in_order() if isinstance(part, Composed) else [part])
        return found


def _each(value) -> tuple:
    """A field's parts: none for None, each of a tuple (the notices, however many; None in it
    stands for nothing there), else itself."""
    if isinstance(value, tuple):
        return tuple(each for each in value if each is not None)
    return () if value is None else (value,)


def ranked(name: export.Name, found, score: str = "score", key: str = "") -> Table:
    """A search's ranked pieces (``found``: its ``pieces``, ``ids`` and ``scores``, best first) as a
    table of rank, piece, id and ``score``: each piece shown legible, the file keeping the pieces
    as they are, the scores to four places as shown and in full in the file."""
    columns = {
        "rank": range(1, len(found.ids) + 1),
        "piece": found.pieces,
        "id": found.ids,
        score: found.scores,
    }
    shown = {**columns, "piece": [glyphs.legible(piece) for piece in found.pieces]}
    return Table(columns, name, shown, key, {score: "%.4f"})


def notices(encoding: Encoding, about: str = "") -> tuple[Note, ...]:
    """What is worth knowing about an input (``about`` names it), as the page shows it:
    truncation as a warning."""
    return tuple(
        Note(f"{about}: {notice}" if about else str(notice), _kind(notice)) for notice in encoding.notices
    )


def _kind(notice: Notice) -> str:
    return WARNING if notice.kind == Notice.TRUNCATED else INFO


def geometry_of(values: dict, hidden: int) -> tuple[str, int]:
    """The geometry and D, as the geometry switch reads them (D outside 1 to the most: the model's)."""
    removed = values.get(fields.GEOMETRY_REMOVED)
    if removed not in range(1, geometry.MOST_REMOVED + 1):
        removed = geometry.default_removed(hidden)
    return values.get(fields.GEOMETRY) or geometry.GEOMETRIES[0], int(removed)


def within(value, options, default):
    """A value the page's widget offers, else the page's default (links.keep_within)."""
    return value if value is not None and value in options else default
