"""What moved, its aligned maps in the page: the job panel that asks for them (three t-SNE
layouts, made in the background on request and kept on disk for everyone, by
bert_embeddings.spaces.aligned_jobs), the slider from A's map to B's, and a click on a piece,
which shows it side by side. The map, its file and captions are composed in
bert_embeddings.figures.moved_pieces."""

from __future__ import annotations

import streamlit as st

from bert_embeddings.figures import moved_page, moved_pieces, settings
from bert_embeddings.jobs import backend
from bert_embeddings.spaces import aligned, aligned_jobs
from bert_embeddings.views.sources import Sources
from components.caches import model_caches, spaces
from components.parts import draw, job_panel, widgets

NOTE = (
    "Three t-SNE maps of every shared piece (A's, B's started from A's, and B's own for the recall it "
    "must match), computed once in the background at low priority and kept on disk for everyone."
)


def _clicked(pieces: tuple[str, ...]) -> None:
    """on_select of the map: the clicked piece goes side by side (and its path is drawn)."""
    points = ((st.session_state.get(moved_pieces.ALIGNED) or {}).get("selection") or {}).get("points") or []
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


def section(found: moved_pieces.Compared, sources: Sources, other: Sources, row: int) -> None:
    """The aligned maps of the two sides over their shared pieces, once made; ``row``: the piece
    side by side, whose path is drawn."""
    spec = moved_page.aligned_spec(found, sources, other)
    rows = (found.shared.rows_a, found.shared.rows_b)
    size = f" About a minute for bert-base's 30,522 pieces ({len(found.shared.pieces):,} shared here)."
    offer = job_panel.Offer("Draw the aligned maps", note=NOTE + size)
    made = None
    with model_caches.friendly_errors(stop=False):
        made = job_panel.wait_for(
            "mv_draw_maps", lambda start: [_found(spec, rows, start)], ["The aligned maps"], offer, NOTE
        )
    if made is None:
        return
    step = st.select_slider(
        "From A's map to B's",
        options=list(settings.MV_STEPS),
        format_func=lambda p: {"0": "A", "100": "B"}.get(p, f"{p}%"),
        **widgets.seeded(settings.MV_STEP),
    )
    shown = moved_page.aligned_of(found, step, sources, other, row, draw.ink())
    if shown.chart is None:  # the maps went from the cache folder since the panel found them
        st.info("The aligned maps are no longer on disk: reload the page to draw them again.")
        return
    pieces = found.shared.pieces
    draw.chart(shown.chart.figure, key=moved_pieces.ALIGNED, on_select=lambda: _clicked(pieces))
    draw.shown(shown.download, shown.caption, shown.labels)
