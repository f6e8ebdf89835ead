"""The Positions page in the core: its settings, declared once (bert_embeddings/views/fields.py),
and what it shows of them, composed once for the page and a lesson's handout: BERT's learned
position rows beside the original Transformer's sinusoid, and two positions compared.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from bert_embeddings.analysis import cosine, positions
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import charts, page_figures
from bert_embeddings.figures.handout_parts import ERROR, Chart, Composed, Download, Metric, Note
from bert_embeddings.views import fields, link_text
from bert_embeddings.views.fields import linked
from bert_embeddings.views.sources import Sources

# How many positions the cosine maps show, from position 0 (None: every one).
SPANS = {"all": None, "first 128": 128, "first 32": 32}
_POSITION = link_text.whole_number(0, None, "A position")


@dataclass(frozen=True)
class Settings(fields.PageSettings):
    PAGE = "positions"
    PREFIX = "pos_"

    first: float = linked("p1", 5.0, "the first position", _POSITION, link_text.whole_text)
    second: float = linked("p2", 6.0, "the second position", _POSITION, link_text.whole_text)
    span: str = linked(
        "upto",
        "all",
        "the positions in the cosine maps",
        *fields.coded(dict(zip(("all", "128", "32"), SPANS, strict=True))),
    )


@dataclass(frozen=True)
class Cosines(Composed):
    """One table's cosine map and its numbers."""

    chart: Chart
    download: Download


@dataclass(frozen=True)
class Page(Composed):
    cosines: tuple[Cosines, Cosines]  # the learned rows', then the sinusoid's
    cosine_caption: Note
    norms: Chart
    norms_caption: Note
    norms_download: Download
    problem: Note | None = None  # a position beyond the table, in place of the pair
    learned: Metric | None = None
    sinusoid: Metric | None = None
    pair: Chart | None = None
    pair_download: Download | None = None


def compose(s: Settings, sources: Sources) -> Page:
    model = sources.model
    learned, formula = page_figures.position_tables(model)  # each (positions, hidden)
    n, hidden = learned.shape
    matrices = (cosine.matrix(learned), cosine.matrix(formula))
    names = (f"{model.name} position cosine", f"sinusoid {n}x{hidden} position cosine")
    shown_n = min(n, SPANS.get(s.span) or n)
    maps = page_figures.position_cosine_charts(model, *(matrix[:shown_n, :shown_n] for matrix in matrices))
    cosines = tuple(
        Cosines(Chart(key, figure), Download(name, matrix, corner="position"))
        for (key, figure), matrix, name in zip(maps, matrices, names, strict=True)
    )
    step = charts.drawn_every(shown_n, page_figures.POSITION_CELLS)
    drawn = (
        f"Every {page_figures.every_nth(step)} position is drawn, about as many as the map has pixels. "
        if step > 1
        else ""
    )
    read = (
        "The maps are colours only: type two positions under Compare two positions for their exact "
        "cosine; the downloads hold every value."
        if len(range(0, shown_n, step)) > charts.EXACT_SIDE
        else "Hover a cell for its exact value."
    )
    norms = np.stack([positions.row_norms(learned), positions.row_norms(formula)], axis=1)
    tables = Page(
        cosines,
        cosine_caption=Note(
            (
                f"Cosine similarity of every position with every other ({n} x {n}); "
                if shown_n == n
                else f"Cosine similarity of each of the first {shown_n} positions (of {n}) with the others; "
            )
            + "position 0 is top left. "
            + drawn
            + read
        ),
        norms=Chart("pos_norms", page_figures.position_norms(learned, formula)),
        norms_caption=Note(page_figures.position_norms_caption(learned, formula)),
        norms_download=Download(
            f"{model.name} position norms", norms, columns=["learned", "sinusoid"], corner="position"
        ),
    )
    try:
        p, q = (positions.check_position(value, n) for value in (s.first, s.second))
    except ExplorerError as problem:
        return replace(tables, problem=Note(str(problem), ERROR))
    pair = cosine.matrix(np.stack([learned[p], learned[q], formula[p], formula[q]]))
    return replace(
        tables,
        learned=Metric(f"cosine, learned rows {p} and {q}", f"{pair[0, 1]:.3f}"),
        sinusoid=Metric(f"cosine, sinusoid rows {p} and {q}", f"{pair[2, 3]:.3f}"),
        pair=Chart("pos_pair", page_figures.position_pair(learned, p, q)),
        pair_download=Download(
            f"{model.name} position rows {p} and {q}",
            np.stack([learned[p], learned[q]], axis=1),
            columns=[f"position {p}", f"position {q}"],
            corner="dim",
        ),
    )
