"""What moved, in the page: each side's neighbour lists (the background job's, read from disk once
per process, or the job making them), what the page says around them while a job runs, and its
controls of the piece side by side (a click on a mover, the neighbours as buttons). What the page
shows of them is composed in bert_embeddings.figures.moved_page."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from bert_embeddings.figures import moved_pieces, settings
from bert_embeddings.figures.handout_parts import Table
from bert_embeddings.jobs import backend
from bert_embeddings.models import glyphs
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import space_jobs, stages
from components.caches import spaces
from components.parts import echo
from components.view_state import links


@dataclass(frozen=True)
class Side:
    """One side of the comparison: its model and stage, and the rows it shares (None: all)."""

    model: LoadedModel
    stage: str
    rows: np.ndarray | None

    def spec(self, shape: tuple[str, int]) -> space_jobs.Spec:
        return space_jobs.Spec(str(self.model.folder), self.stage, shape, space_jobs.rows_name(self.rows))

    @property
    def key(self) -> str:
        return spaces.model_key(str(self.model.folder), self.model)


def lists(side: Side, shape: tuple[str, int], start: bool) -> np.ndarray | backend.Job | None:
    """The side's neighbour lists (read from disk once per process); else the job making them,
    joined if it runs, started if ``start``; else None (not asked for yet)."""
    spec = side.spec(shape)
    name = space_jobs.lists_name(spec.stage, spec.shape, spec.rows)
    try:
        return spaces.lists(side.key, name, spec)
    except spaces.NotOnDiskError:
        pass
    running = backend.job_in(space_jobs.folder_for(side.key) / "jobs" / name)
    if running is None and not start:
        return None
    return space_jobs.start(side.key, spec, side.rows)


def last_layer_named(key: str, names: tuple[str, ...]) -> None:
    """A view may name ``last`` for a stage (a lesson that holds for any model): before the
    stage's picker is drawn, that is this model's last layer, and the link keeps saying ``last``
    while the stage stays there (links.last_layer)."""
    links.last_layer(key, names[-1])


def layer_cost(model: LoadedModel) -> str:
    """What computing a model's layer spaces costs, said before anyone starts it."""
    weights = stages.full_model_bytes(model) / 1e6
    layers = stages.layer_count(model)
    tables = layers * model.vocab_size * stages.layer_width(model) * 4 / 1e6
    kept = "its one layer" if layers == 1 else f"all {layers:,} layers"
    return (
        f"A layer's space needs the whole of {model.name}: a background process loads its {weights:,.0f} MB "
        f"of weights and runs every piece through it once, keeping {kept} "
        f"({tables:,.0f} MB on disk, written as it goes rather than held in memory). It runs at low "
        "priority, once for everyone on this server."
    )


LISTS_NOTE = (
    "Exact neighbour lists of every shared piece, computed once in the background at low priority and "
    "kept on disk for everyone; the other pages work meanwhile."
)


def _next_piece() -> None:
    """on_change of the neighbour pills: the clicked piece goes side by side."""
    piece = st.session_state.get(settings.MV_NEXT)
    if piece:
        st.session_state[settings.MV_PIECE] = piece
        st.session_state[settings.MV_NEXT] = None


NEXT = 10  # the neighbours of each side offered as buttons (k may be 100: 200 buttons)


def next_piece_pills(side_a: Table, side_b: Table, k: int) -> None:
    """The nearest neighbours of the piece side by side, in A then in B, as buttons: a click
    shows that piece side by side next."""
    offered = (*side_a.columns["piece"][:NEXT], *side_b.columns["piece"][:NEXT])
    st.pills(
        "Show a neighbour side by side next"
        + (f" (the {NEXT} nearest in each; type any other above)" if k > NEXT else ""),
        list(dict.fromkeys(offered)),
        format_func=lambda piece: echo.plain(glyphs.legible(piece)),
        key=settings.MV_NEXT,
        on_change=_next_piece,
    )


def mover_clicked(pieces: list[str]) -> None:
    """on_select of the movers (moved_pieces.MOVERS): the piece of the row clicked (a cell of it,
    or its box) goes side by side, as its own string, not the legible form the table shows. (Rows
    are numbered as the page sent them, however the reader sorted the table.)"""
    selection = (st.session_state.get(moved_pieces.MOVERS) or {}).get("selection") or {}
    rows = [*(selection.get("rows") or []), *(cell[0] for cell in selection.get("cells") or [])]
    if rows and isinstance(rows[0], int) and 0 <= rows[0] < len(pieces):
        st.session_state[settings.MV_PIECE] = pieces[rows[0]]
