"""What moved, in the page: each side's space and its neighbour lists (the background job's, read
from disk once per process), the comparison (computed once per process for each pair, geometry
and k), and what the page draws around the figures while a job runs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from bert_embeddings.analysis import geometry, vocab_search
from bert_embeddings.jobs import backend
from bert_embeddings.models import glyphs
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import compare, pair, space_jobs, stages
from bert_embeddings.views import link_text, settings
from components.caches import model_caches, spaces
from components.parts import echo, exports, filters, widgets


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
    stage's picker is drawn, that is this model's last layer."""
    if st.session_state.get(key) == link_text.LAST_LAYER:
        st.session_state[key] = names[-1]


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


class _InGeometry:
    """A space's shared rows in the geometry, made only for the rows asked for (``rows[ids]``)."""

    def __init__(self, space: pair.Space, rows: np.ndarray | None, shape: tuple[str, int]):
        self.space, self.rows = space, rows
        key = (space.key, space.stage, space_jobs.rows_name(rows))
        self.fitted = spaces.fitted(key, shape, space, rows)

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        picked = self.space.vectors[ids if self.rows is None else self.rows[ids]]
        return picked if self.fitted is None else geometry.transformed_table(picked, self.fitted)


def _next_piece() -> None:
    """on_change of the neighbour pills: the clicked piece goes side by side."""
    piece = st.session_state.get(settings.MV_NEXT)
    if piece:
        st.session_state[settings.MV_PIECE] = piece
        st.session_state[settings.MV_NEXT] = None


NEXT = 10  # the neighbours of each side offered as buttons (k may be 100: 200 buttons)


def side_by_side(
    sides: tuple, spaces: tuple, shape, lists: tuple, k: int, first: int, labels: tuple, pieces: tuple, name
) -> int | None:
    """A piece's k nearest in A and in B, each marked kept, lost or gained; a click on one shows
    it next. ``pieces``: the shared pieces, as the movers show them; ``first``: the piece shown
    when none is chosen (the top mover); ``name``: the page's files' (moved_page.file_name).
    Returns the piece's row (None: not a shared piece)."""
    typed = st.text_input(
        "Piece", **widgets.seeded(settings.MV_PIECE), placeholder=f"e.g. {glyphs.legible(pieces[first])}"
    )
    where = {piece: row for row, piece in enumerate(pieces)}
    row = first if not typed.strip() else where.get(typed.strip(), where.get(typed.strip().lower()))
    if row is None:
        st.warning(
            echo.plain(f"'{typed[:60]}' is not one of the shared pieces."), icon=":material/search_off:"
        )
        return None
    shown = compare.side_by_side(
        _InGeometry(spaces[0], sides[0].rows, shape),
        _InGeometry(spaces[1], sides[1].rows, shape),
        *lists,
        row,
        k,
    )
    st.markdown(echo.plain(f"{glyphs.legible(pieces[row])}: keeps {int(shown.kept_a.sum())} of {k}."))
    columns = st.columns(2)
    for column, label, ids, cosines, marks in (
        (columns[0], labels[0], shown.rows_a, shown.cosines_a, np.where(shown.kept_a, "kept", "lost")),
        (columns[1], labels[1], shown.rows_b, shown.cosines_b, np.where(shown.gained_b, "gained", "kept")),
    ):
        frame = pd.DataFrame({"piece": [pieces[i] for i in ids], "cosine": cosines, "neighbour": marks})
        with column:
            st.caption(echo.plain(label))
            exports.dataframe(
                # (the marks depend on both sides: the file names the pair, the geometry and k)
                (
                    "neighbours of",
                    exports.Verbatim(pieces[row]),
                    f"in {label[0]}, {name}",
                ),
                frame,
                frame.assign(piece=frame["piece"].map(glyphs.legible)),
                hide_index=True,
                column_config={"cosine": st.column_config.NumberColumn(format="%.4f")},
            )
    offered = (*shown.rows_a[:NEXT], *shown.rows_b[:NEXT])
    st.pills(
        "Show a neighbour side by side next"
        + (f" (the {NEXT} nearest in each; type any other above)" if k > NEXT else ""),
        list(dict.fromkeys(pieces[i] for i in offered)),
        format_func=lambda piece: echo.plain(glyphs.legible(piece)),
        key=settings.MV_NEXT,
        on_change=_next_piece,
    )
    return row


SHOWN = 200  # movers sent to the browser; the download holds them all
MOVERS = "mv_movers"  # the movers table's key: its selection


def movers(name: str, shared: compare.Shared, result: compare.Comparison, index) -> np.ndarray:
    """The filters, then every shared piece they let through ranked least kept first (the first
    ``SHOWN`` on the page, all in the download); returns the ranking (rows among the shared)."""
    choices = filters.filter_boxes(settings.MV_FILTERS, "Leave out pieces that keep every neighbour")
    allowed = np.ones(len(shared.pieces), dtype=bool)
    if choices.valid:
        with model_caches.friendly_errors(stop=False):
            allowed = vocab_search.allowed_rows(index, choices.filters(), model_caches.pattern_rows)[
                shared.rows_a
            ]
    if choices.leave_out:
        allowed &= result.overlap < 1
    ranked = result.movers(allowed)
    kinds = compare.piece_kinds(shared.pieces)
    frame = pd.DataFrame(
        {
            "piece": [shared.pieces[i] for i in ranked],
            "kind": [vocab_search.KINDS[kinds[i]] for i in ranked],
            f"overlap@{result.k}": result.overlap[ranked],
            "second-order": result.second_order[ranked],
        }
    )
    st.caption(
        f"{len(ranked):,} pieces, least kept first (then by lower second-order similarity); the first "
        f"{min(SHOWN, len(ranked))} are shown, the download has them all. Click a row to see that piece "
        "side by side."
    )
    shown = frame.head(SHOWN)
    exports.dataframe(
        f"movers, {name}",
        frame,
        shown.assign(piece=shown["piece"].map(glyphs.legible)),
        hide_index=True,
        column_config={"second-order": st.column_config.NumberColumn(format="%.4f")},
        key=MOVERS,
        on_select=lambda: _mover_clicked(tuple(shown["piece"])),
        selection_mode=["single-row", "single-cell"],  # a click on any cell of a row, or its box
    )
    return ranked


def _mover_clicked(pieces: tuple[str, ...]) -> None:
    """on_select of the movers: the piece of the row clicked (a cell of it, or its box) goes side
    by side, as its own string, not the legible form the table shows. (Rows are numbered as the
    page sent them, however the reader sorted the table.)"""
    selection = (st.session_state.get(MOVERS) or {}).get("selection") or {}
    rows = [*(selection.get("rows") or []), *(cell[0] for cell in selection.get("cells") or [])]
    if rows and isinstance(rows[0], int) and 0 <= rows[0] < len(pieces):
        st.session_state[settings.MV_PIECE] = pieces[rows[0]]
