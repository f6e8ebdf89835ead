"""The Segments page in the core: the model's two segment rows, and how far the segment term moves
each piece of the sidebar's sentence, composed once for the page and a lesson's handout (it has
no settings of its own).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import decompose
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import page_figures
from bert_embeddings.figures.handout_parts import (
    ERROR,
    INFO,
    Chart,
    Composed,
    Download,
    Metric,
    Note,
    notices,
)
from bert_embeddings.views import fields
from bert_embeddings.views.sources import Sources


@dataclass(frozen=True)
class Settings(fields.WithSentences):
    PAGE = "segments"
    PREFIX = "segments_"


@dataclass(frozen=True)
class Rows(Composed):
    """The two segment rows, their norms and their difference's."""

    chart: Chart
    download: Download
    norms: tuple[Metric, Metric, Metric]  # row 0, row 1, B - A


@dataclass(frozen=True)
class Page(Composed):
    missing: Note | None = None  # a model without two segment rows: nothing more to compare
    rows: Rows | None = None
    problem: Note | None = None  # the sentence cannot be read: the rows are drawn all the same
    notices: tuple[Note, ...] = ()
    no_b: Note | None = None
    swap: Chart | None = None
    swap_download: Download | None = None
    swap_caption: Note | None = None


def compose(s: Settings, sources: Sources) -> Page:
    model = sources.model
    table = model.tables.token_type_embeddings  # (segments, hidden)
    if table is None or table.shape[0] < 2:
        what = "no segment table" if table is None else "a single segment row"
        return Page(missing=Note(f"{model.name} has {what}, so there is nothing to compare here.", INFO))
    difference = table[1] - table[0]
    rows = Rows(
        Chart("seg_rows", page_figures.segment_rows(table)),
        Download(
            f"{model.name} segment rows",
            np.stack([table[0], table[1], difference], axis=1),
            columns=["segment A (row 0)", "segment B (row 1)", "B - A"],
            corner="dim",
        ),
        (
            Metric("norm of row 0", f"{np.linalg.norm(table[0]):.3f}"),
            Metric("norm of row 1", f"{np.linalg.norm(table[1]):.3f}"),
            Metric("norm of B - A", f"{np.linalg.norm(difference):.3f}"),
        ),
    )
    try:
        encoding = sources.encoding(s.values())
    except ExplorerError as problem:
        return Page(rows=rows, problem=Note(str(problem), ERROR))
    no_b = None
    if not s.sentence_b.strip():
        no_b = Note(
            "There is no sentence B, so every piece is in segment A. Add sentence B in the sidebar to see a "
            "pair; below, each piece of sentence A is compared as if it were in segment A and in segment B.",
            INFO,
        )
    swap = decompose.segment_swap(model, encoding)
    return Page(
        rows=rows,
        notices=notices(encoding),
        no_b=no_b,
        swap=Chart("seg_swap", page_figures.segment_swap(encoding, swap)),
        swap_download=Download(
            f"{model.name} segment swap cosine", swap, encoding.labels, ["cosine A vs B"], "token"
        ),
        swap_caption=Note(
            "For each piece: the cosine between its LayerNorm output computed with segment row 0 and with "
            "row 1, same piece and same position. 1.0 would mean the segment changes nothing; lower values "
            "mean the segment term moves that token's vector more."
        ),
    )
