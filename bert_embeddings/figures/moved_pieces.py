"""What the What moved page shows piece by piece, composed once for the page and a lesson's
handout (through moved_page): the movers (every shared piece the view's filters let through,
least kept first), one piece's neighbours side by side in the two spaces, and the aligned maps
where their background job left them, each from the two spaces compared (``Compared``)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import geometry, vocab_search
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import charts, export, space_charts
from bert_embeddings.figures.handout_parts import ERROR, TEXT, WARNING, Chart, Composed, Download, Note, Table
from bert_embeddings.models import glyphs
from bert_embeddings.spaces import aligned, compare, pair, space_jobs
from bert_embeddings.views.sources import Sources

SHOWN = 200  # movers sent to the browser (and a handout); the download holds them all
MOVERS = "mv_movers"  # the movers table's key: the page reads a click on a row from it
ALIGNED = "mv_aligned"  # the aligned map's key: the page reads a click on a piece from it
SEARCH_OFF = ":material/search_off:"


@dataclass(frozen=True)
class Compared:
    """The two spaces and their comparison: what every figure of the page is drawn from."""

    stages: tuple[str, str]
    shared: compare.Shared
    labels: tuple[str, str]  # "A: model, stage", "B: ..."
    name: str  # the page's files' (file_name)
    lists: tuple[np.ndarray, np.ndarray]
    result: compare.Comparison
    shape: tuple[str, int]  # the geometry they are compared in, and its D
    spaces: tuple[pair.Space, pair.Space]


@dataclass(frozen=True)
class Movers(Composed):
    problem: Note | None  # what the filters could not do (every piece is ranked then)
    caption: Note
    table: Table


def ranked(
    found: Compared, filters: vocab_search.Filters, leave_out: bool, sources: Sources
) -> tuple[np.ndarray, Note | None]:
    """Every shared piece ``filters`` let through (``leave_out``: but those that keep every
    neighbour), least kept first (rows among the shared pieces), and what the filters could not
    do (a pattern that does not read, nothing left), in which case every piece is ranked."""
    shared, result = found.shared, found.result
    allowed, said = np.ones(len(shared.pieces), dtype=bool), None
    try:
        matched = lambda index, pattern, label: sources.pattern_rows(pattern, label)  # noqa: E731
        allowed = vocab_search.allowed_rows(sources.index(), filters, matched)[shared.rows_a]
    except ExplorerError as problem:
        said = Note(str(problem), ERROR)
    if leave_out:
        allowed &= result.overlap < 1
    return result.movers(allowed), said


def movers(found: Compared, order: np.ndarray, problem: Note | None = None) -> Movers:
    """The ranked pieces as a table: the first ``SHOWN`` drawn, all of them in its file."""
    pieces, result = found.shared.pieces, found.result
    kinds = compare.piece_kinds(pieces)
    columns = {
        "piece": [pieces[i] for i in order],
        "kind": [vocab_search.KINDS[kinds[i]] for i in order],
        f"overlap@{result.k}": result.overlap[order].tolist(),
        "second-order": result.second_order[order].tolist(),
    }
    shown = {name: column[:SHOWN] for name, column in columns.items()}
    shown["piece"] = [glyphs.legible(piece) for piece in shown["piece"]]
    said = (
        f"{len(order):,} pieces, least kept first (then by lower second-order similarity); the first "
        f"{min(SHOWN, len(order))} are shown, the download has them all. Click a row to see that piece "
        "side by side."
    )
    return Movers(
        problem, Note(said), Table(columns, f"movers, {found.name}", shown, MOVERS, {"second-order": "%.4f"})
    )


@functools.lru_cache(maxsize=4)
def _rows_of(pieces: tuple[str, ...]) -> dict[str, int]:
    return {piece: row for row, piece in enumerate(pieces)}


def piece_row(pieces: tuple[str, ...], typed: str, first: int) -> int | None:
    """The shared piece a view names (as typed, else in lower case); ``first`` when it names none;
    None for a piece the two vocabularies do not share."""
    typed = typed.strip()
    if not typed:
        return first
    where = _rows_of(pieces)
    return where.get(typed, where.get(typed.lower()))


@dataclass(frozen=True)
class OneSide(Composed):
    label: Note
    table: Table


@dataclass(frozen=True)
class SideBySide(Composed):
    """One piece's neighbours in A and in B; or why not (a piece the two do not share)."""

    problem: Note | None = None
    caption: Note | None = None
    sides: tuple[OneSide, ...] = ()


def not_shared(typed: str) -> SideBySide:
    return SideBySide(
        problem=Note(f"'{typed.strip()[:60]}' is not one of the shared pieces.", WARNING, icon=SEARCH_OFF)
    )


def side_by_side(found: Compared, sources: tuple[Sources, Sources], row: int) -> SideBySide:
    """Piece ``row``'s k nearest in A and in B, by cosine in the view's geometry (fitted to each
    side's shared rows), each marked kept, lost or gained."""
    pieces, k, shape = found.shared.pieces, found.result.k, found.shape
    tables = [
        _in_geometry(source, space, pair.subset(found.shared, side, len(space.pieces)), shape)
        for side, (source, space) in enumerate(zip(sources, found.spaces, strict=True))
    ]
    shown = compare.side_by_side(*tables, *found.lists, row, k)
    sides = []
    for side, label, ids, cosines, marks in (
        ("A", found.labels[0], shown.rows_a, shown.cosines_a, np.where(shown.kept_a, "kept", "lost")),
        ("B", found.labels[1], shown.rows_b, shown.cosines_b, np.where(shown.gained_b, "gained", "kept")),
    ):
        columns = {"piece": [pieces[i] for i in ids], "cosine": cosines.tolist(), "neighbour": marks.tolist()}
        legible = {**columns, "piece": [glyphs.legible(pieces[i]) for i in ids]}
        # (the marks depend on both sides: the file names the pair, the geometry and k)
        name = ("neighbours of", export.Verbatim(pieces[row]), f"in {side}, {found.name}")
        sides.append(
            OneSide(Note(label), Table(columns, name, legible, f"mv_sbs_{side}", {"cosine": "%.4f"}))
        )
    caption = Note(f"{glyphs.legible(pieces[row])}: keeps {int(shown.kept_a.sum())} of {k}.", TEXT)
    return SideBySide(caption=caption, sides=tuple(sides))


class _InGeometry:
    """A side's shared rows in the view's geometry, made only for the rows asked for."""

    def __init__(self, table: np.ndarray, rows: np.ndarray | None, fitted: geometry.Geometry | None):
        self.table, self.rows, self.fitted = table, rows, fitted

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        picked = self.table[ids if self.rows is None else self.rows[ids]]
        return picked if self.fitted is None else geometry.transformed_table(picked, self.fitted)


def _in_geometry(source: Sources, space: pair.Space, rows: np.ndarray | None, shape) -> _InGeometry:
    fit = lambda space, rows: pair.fitted(space, rows, shape)  # noqa: E731
    key = ((space.key, space.stage, space_jobs.rows_name(rows)), shape)  # (fitted once for each)
    return _InGeometry(space.vectors, rows, source.held("fitted", key, fit, space, rows))


@functools.lru_cache(maxsize=2)
def _hover(pieces: tuple[str, ...]) -> list[str]:
    return charts.texts([glyphs.legible(piece) for piece in pieces])


@dataclass(frozen=True)
class Aligned(Composed):
    """The aligned maps at a step; or a note while their job has not drawn them."""

    pending: Note | None = None
    chart: Chart | None = None
    download: Download | None = None
    caption: Note | None = None
    labels: Note | None = None


def aligned_maps(found: Compared, maps: aligned.AlignedMaps, step: int, row: int | None, ink: str) -> Aligned:
    """The aligned maps at ``step`` percent of the way from A's map to B's, coloured by how many
    neighbours each piece keeps, with the path of piece ``row`` (None: no path), its numbers and
    each map's recall."""
    pieces, result = found.shared.pieces, found.result
    k, points = result.k, maps.between(step / 100)
    path = None
    if row is not None:
        path = (glyphs.legible(pieces[row]), np.stack([maps.a[row], points[row], maps.b[row]]))
    where = {0: "A's map", 100: "B's map, aligned"}.get(step, f"{step}% of the way from A's map to B's")
    figure = space_charts.aligned_map(points, result.overlap, k, _hover(pieces), path, where, ink)
    said = (
        "Recall@10 (the share of each piece's 10 nearest by cosine that are among its 10 nearest points "
        f"on the map): A's map {maps.recall_a:.3f}; B's map started from A's and aligned by Procrustes "
        f"{maps.recall_b:.3f}, against {maps.recall_b_alone:.3f} for B's own map ({_gap_words(maps.gap)}). "
        f"Colour: how many of its {k} neighbours a piece keeps from A to B (vermillion: none, sky blue: "
        "all). Click a piece to show it side by side and draw its path (circle: in A, square: in B)."
    )
    return Aligned(
        chart=Chart(ALIGNED, figure),
        download=Download(
            f"aligned maps at {step}% from A to B, {found.name}",
            np.column_stack([points, maps.a, maps.b, result.overlap]),  # (pieces, 7), float64
            pieces,
            [f"x at {step}%", f"y at {step}%", "x in A", "y in A", "x in B", "y in B", f"overlap@{k}"],
            "piece",
        ),
        caption=Note(said),
        labels=Note(f"{found.labels[0]}. {found.labels[1]}."),
    )


def _gap_words(gap: float) -> str:
    if gap <= 0:
        return "aligning cost no faithfulness"
    verdict = "within" if gap <= aligned.GAP else "more than"
    return f"{gap:.3f} lower, {verdict} the {aligned.GAP} this page allows"
