"""What moved, its aligned maps: A's t-SNE map and B's laid out from it, one picture with a slider
from A to B, coloured by how many neighbours each piece keeps; a click on a piece shows it side
by side and draws its path. Made in the background on request (three t-SNE layouts), kept on
disk for everyone (bert_embeddings.spaces.aligned_jobs)."""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

from bert_embeddings.figures import charts, space_charts
from bert_embeddings.jobs import backend
from bert_embeddings.models import glyphs
from bert_embeddings.spaces import aligned, aligned_jobs, compare
from bert_embeddings.views import settings
from components.caches import model_caches, spaces
from components.parts import draw, echo, exports, job_panel, widgets

CHART = "mv_aligned"
NOTE = (
    "Three t-SNE maps of every shared piece (A's, B's started from A's, and B's own for the recall it "
    "must match), computed once in the background at low priority and kept on disk for everyone."
)


@functools.lru_cache(maxsize=2)
def _hover(pieces: tuple[str, ...]) -> list[str]:
    return charts.texts([glyphs.legible(piece) for piece in pieces])


def _clicked(pieces: tuple[str, ...]) -> None:
    """on_select of the map: the clicked piece goes side by side (and its path is drawn)."""
    points = ((st.session_state.get(CHART) or {}).get("selection") or {}).get("points") or []
    if points and points[0].get("curve_number") == 0 and isinstance(points[0].get("point_index"), int):
        row = points[0]["point_index"]
        if 0 <= row < len(pieces):
            st.session_state[settings.MV_PIECE] = pieces[row]


def _found(spec: aligned_jobs.PairSpec, rows, start: bool) -> aligned.AlignedMaps | backend.Job | None:
    folder = aligned_jobs.folder_for(spec)
    try:
        return spaces.aligned_maps(spec.name(), folder)
    except spaces.NotOnDiskError:
        pass
    if backend.job_in(folder / "jobs" / "maps") is None and not start:
        return None
    return aligned_jobs.start(spec, rows)


def section(
    sides: tuple, shape, shared: compare.Shared, result: compare.Comparison, row: int, labels, name: str
) -> None:
    """The aligned maps of the two sides over their shared pieces; ``row``: the piece side by side;
    ``name``: the page's files' (moved_page.file_name)."""
    spec = aligned_jobs.PairSpec(sides[0].key, sides[0].spec(shape), sides[1].key, sides[1].spec(shape))
    rows = (shared.rows_a, shared.rows_b)
    offer = job_panel.Offer("Draw the aligned maps", note=NOTE + " About a minute for 30,522 pieces.")
    found = None
    with model_caches.friendly_errors(stop=False):
        found = job_panel.wait_for(
            "mv_draw_maps", lambda start: [_found(spec, rows, start)], ["The aligned maps"], offer, NOTE
        )
    if found is None:
        return
    (found,) = found
    _draw(found, shared.pieces, result, row, labels, name)


def _draw(maps: aligned.AlignedMaps, pieces: tuple[str, ...], result, row: int, labels, name: str) -> None:
    step = st.select_slider(
        "From A's map to B's",
        options=list(settings.MV_STEPS),
        format_func=lambda p: {"0": "A", "100": "B"}.get(p, f"{p}%"),
        **widgets.seeded(settings.MV_STEP),
    )
    step = int(step)
    points = maps.between(step / 100)
    path = (glyphs.legible(pieces[row]), np.stack([maps.a[row], points[row], maps.b[row]]))
    where = {0: "A's map", 100: "B's map, aligned"}.get(step, f"{step}% of the way from A's map to B's")
    figure = space_charts.aligned_map(
        points, result.overlap, result.k, _hover(pieces), path, where, draw.ink()
    )
    draw.chart(figure, key=CHART, on_select=lambda: _clicked(pieces))
    _files(maps, points, step, pieces, result, name)
    st.caption(
        echo.plain(
            f"Recall@10 (the share of each piece's 10 nearest by cosine that are among its 10 nearest points "
            f"on the map): A's map {maps.recall_a:.3f}; B's map started from A's and aligned by Procrustes "
            f"{maps.recall_b:.3f}, against {maps.recall_b_alone:.3f} for B's own map "
            f"({_gap_words(maps.gap)}). Colour: how many of its {result.k} neighbours a piece keeps from A "
            "to B (vermillion: none, sky blue: all). Click a piece to show it side by side and draw its "
            "path (circle: in A, square: in B)."
        )
    )
    st.caption(echo.plain(f"{labels[0]}. {labels[1]}."))


def _files(maps: aligned.AlignedMaps, points: np.ndarray, step: int, pieces, result, name: str) -> None:
    """The map's numbers: each shared piece's point at the step shown, in A's map and in B's
    aligned map, and how many of its neighbours it keeps (the colour)."""
    k = result.k
    exports.matrix(
        f"aligned maps at {step}% from A to B, {name}",
        np.column_stack([points, maps.a, maps.b, result.overlap]),  # (pieces, 7), float64
        pieces,
        [f"x at {step}%", f"y at {step}%", "x in A", "y in A", "x in B", "y in B", f"overlap@{k}"],
        "piece",
    )


def _gap_words(gap: float) -> str:
    if gap <= 0:
        return "aligning cost no faithfulness"
    verdict = "within" if gap <= aligned.GAP else "more than"
    return f"{gap:.3f} lower, {verdict} the {aligned.GAP} this page allows"
