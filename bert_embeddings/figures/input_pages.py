"""What each page about one input shows of a view: its figures, tables, numbers and texts, composed
once, for the page and for a lesson's handout.

Each composer is a function of the view's values (as the page's widgets read them, or as
bert_embeddings.figures.check.values reads a step's view: every setting it does not name at its
default) and the ``Sources`` of the model (the app's caches on a page, computed alike for a
handout). It returns the page's parts by name, in the page's order (handout_parts): the page
draws them where its layout puts them (components/parts/draw.parts), the handout writes them one
after the other. What only the page holds stays there: its widgets, its headings and prose, and
its columns; a handout leaves out the parts it cannot hold (downloads, the pieces' chips).

A message the page shows instead of a figure (a position beyond the table) is a Note of kind
ERROR; a problem that leaves the page nothing to show (a sentence that cannot be read) is raised
as an ExplorerError, which the page shows as a message and the handout as a note.
"""

from __future__ import annotations

import numpy as np

from bert_embeddings.analysis import decompose
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import page_figures, settings, views
from bert_embeddings.figures.handout_parts import (
    ERROR,
    INFO,
    Chart,
    Download,
    Metric,
    Note,
    Parts,
    Pieces,
    Table,
    named_notices,
)
from bert_embeddings.models import glyphs
from bert_embeddings.views.sources import Sources


def overview_page(values: dict, sources: Sources) -> Parts:
    model, encoding = sources.model, sources.encoding(values)
    stages = views.overview_panels(sources.breakdown(encoding), encoding.labels)
    n, d = stages[0][1].shape
    return {
        **named_notices(encoding),
        "overview": Chart("overview", views.overview(stages, encoding.labels)),
        "overview_download": Download(
            f"{model.name} overview panels",
            np.concatenate([panel for _, panel in stages]),
            [f"{stage} | {label}" for stage, _ in stages for label in encoding.labels[:n]],
            range(d),
            "panel | token",
        ),
        "overview_caption": Note(
            f"The first {n} pieces of your input and the first {d} of {model.hidden_size} dimensions of "
            f"{model.name}. Each panel has its own colour scale (blue below zero, red above): the "
            "raw rows are small numbers, LayerNorm's output is much larger.",
            bold=model.name,
        ),
    }


def tokens_page(values: dict, sources: Sources) -> Parts:
    encoding = sources.encoding(values)
    columns = page_figures.pieces_table(encoding)
    legible = {**columns, "piece": [glyphs.legible(piece) for piece in columns["piece"]]}
    return {
        **named_notices(encoding),
        "pieces": Pieces(encoding),
        "pieces_table": Table(columns, f"{sources.model.name} pieces", legible, key="pieces_table"),
    }


def segments_page(values: dict, sources: Sources) -> Parts:
    model = sources.model
    rows = model.tables.token_type_embeddings  # (segments, hidden)
    if rows is None or rows.shape[0] < 2:
        what = "no segment table" if rows is None else "a single segment row"
        return {"no_segments": Note(f"{model.name} has {what}, so there is nothing to compare here.", INFO)}
    difference = rows[1] - rows[0]
    found: Parts = {
        "seg_rows": Chart("seg_rows", page_figures.segment_rows(rows)),
        "seg_rows_download": Download(
            f"{model.name} segment rows",
            np.stack([rows[0], rows[1], difference], axis=1),
            columns=["segment A (row 0)", "segment B (row 1)", "B - A"],
            corner="dim",
        ),
        "norm_a": Metric("norm of row 0", f"{np.linalg.norm(rows[0]):.3f}"),
        "norm_b": Metric("norm of row 1", f"{np.linalg.norm(rows[1]):.3f}"),
        "norm_difference": Metric("norm of B - A", f"{np.linalg.norm(difference):.3f}"),
    }
    try:
        encoding = sources.encoding(values)
    except ExplorerError as problem:  # the rows are drawn all the same
        return {**found, "problem": Note(str(problem), ERROR)}
    found |= named_notices(encoding)
    if not values[settings.SENTENCE_B_KEY].strip():
        found["no_b"] = Note(
            "There is no sentence B, so every piece is in segment A. Add sentence B in the sidebar to see a "
            "pair; below, each piece of sentence A is compared as if it were in segment A and in segment B.",
            INFO,
        )
    swap = decompose.segment_swap(model, encoding)
    return found | {
        "seg_swap": Chart("seg_swap", page_figures.segment_swap(encoding, swap)),
        "seg_swap_download": Download(
            f"{model.name} segment swap cosine", swap, encoding.labels, ["cosine A vs B"], "token"
        ),
        "seg_swap_caption": Note(
            "For each piece: the cosine between its LayerNorm output computed with segment row 0 and with "
            "row 1, same piece and same position. 1.0 would mean the segment changes nothing; lower values "
            "mean the segment term moves that token's vector more."
        ),
    }


COMPOSERS = {
    "overview": overview_page,
    "tokens": tokens_page,
    "segments": segments_page,
}
