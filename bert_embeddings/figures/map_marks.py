"""What a vocabulary map can show beyond its points: a colour per piece (neighbours kept,
hubness), the labels of its regions, and a clicked piece's true and apparent neighbours.

Pure figure pieces (numpy in, Plotly out, no Streamlit); figures/map_charts.py draws them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from bert_embeddings.figures.charts import OKABE_ITO, gl_texts, texts
from bert_embeddings.maps import map_reading

# Viridis runs from dark blue to yellow without relying on red against green, and stays
# ordered in lightness for readers who see no hue at all.
SCALE = "Viridis"
# A clicked piece on a map: itself, its nearest pieces by cosine (joined to it by lines) and
# its nearest points on the map, each in its own colour and marker shape.
CLICKED_MARK = (OKABE_ITO["vermillion"], "star")
COSINE_MARK = (OKABE_ITO["purple"], "circle")
ON_MAP_MARK = (OKABE_ITO["sky"], "triangle-up")


@dataclass(frozen=True)
class Highlight:
    """Pieces marked on a map over its cloud: the legend's name, their vocabulary ids, and their
    colour and marker shape (big enough to see, unlike the cloud's dots)."""

    name: str
    ids: np.ndarray
    colour: str
    symbol: str


@dataclass(frozen=True)
class Colouring:
    """Points coloured by a number per vocabulary row instead of by kind."""

    name: str  # the colour bar's title
    values: np.ndarray  # (vocab,) what each point's colour shows
    colorscale: list | str  # Plotly colour scale over [0, cmax]
    cmax: float
    tickvals: tuple[float, ...]
    hover: str  # the value's line under the piece in the hover label (a Plotly template)
    top_last: bool  # draw the largest values last (on top)
    ticktext: tuple[str, ...] | None = None  # the colour bar's tick labels, if not the values


def cloud_rows(
    kinds: np.ndarray, shown_kinds: Sequence[int], colouring: Colouring | None
) -> list[np.ndarray]:
    """The vocabulary rows of each cloud trace of a vocabulary map, in drawing order: one trace
    per kind, or one for every shown kind when the points are coloured by a number."""
    if colouring is None:
        return [np.flatnonzero(kinds == kind) for kind in shown_kinds]
    rows = np.flatnonzero(np.isin(kinds, list(shown_kinds)))
    if colouring.top_last:
        rows = rows[np.argsort(colouring.values[rows], kind="stable")]
    return [rows]


def trace_rows(
    kinds: np.ndarray,
    shown_kinds: Sequence[int],
    colouring: Colouring | None,
    underlays: int,
    highlights: Sequence[Highlight],
) -> list[np.ndarray | None]:
    """The vocabulary ids of each trace's points of a vocabulary map, in trace order (None for
    an underlay: a line or the regions' labels), to read a click with."""
    marked = [np.asarray(mark.ids, dtype=np.int64) for mark in highlights]
    return [*cloud_rows(kinds, shown_kinds, colouring), *[None] * underlays, *marked]


def kept_colouring(kept: np.ndarray) -> Colouring:
    """Each piece by how many of its 10 nearest pieces by cosine are among its 10 nearest
    points on the map."""
    k = map_reading.RECALL_K
    return Colouring(
        f"neighbours kept (of {k})",
        np.asarray(kept, dtype=np.int8),
        SCALE,
        k,
        tuple(range(0, k + 1, 2)),
        f"%{{marker.color}} of its {k} nearest pieces by cosine are among its {k} nearest points here",
        False,
    )


def hub_colouring(occurrence: np.ndarray) -> Colouring:
    """Each piece by its k-occurrence, the colour running up to the 99th percentile (the few
    larger counts share its colour and are drawn on top); the hover gives the exact count."""
    occurrence = np.asarray(occurrence, dtype=np.int32)
    top = max(map_reading.RECALL_K, int(np.percentile(occurrence, 99)))
    step = max(1, top // 5)
    ticks = tuple(range(0, top, step))
    return Colouring(
        "in how many pieces' 10 nearest",
        occurrence,
        SCALE,
        top,
        ticks + (top,),
        f"among the {map_reading.RECALL_K} nearest pieces by cosine of %{{marker.color}} other pieces",
        True,
        tuple(str(t) for t in ticks) + (f"{top} or more",),
    )


# The size of a label on a map as drawn on a wide screen: its plot area in pixels, and a
# character's width and a line's height in 12-pixel text.
PLOT_PX, CHAR_PX, LINE_PX = (820, 560), 6.6, 16


def _overlap(a: tuple, b: tuple) -> bool:
    """Whether two boxes (left, right, bottom, top) overlap."""
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


# A 2-D map's plot on a narrow phone: Chromium lays it out at 274 x 436 px on a 390 px screen (its
# width less the page's padding, margins and y axis, its height less its title, x axis and a
# legend of three rows; map_charts: 640 px high on every screen), about 30 px narrower on a 360 px
# one. Plotly pads a WebGL scatter's range by about 15% of its points' extent.
PHONE_PLOT_PX, PADDED = (240, 420), 1.16
GAP_PX = 13  # from a point's centre to its label's centre, above or below it
MARK_PX = 5  # half a highlighted point's marker (10 px): no label lies over one


def _around(beside: float, far: float) -> tuple[tuple[float, float], ...]:
    """The places a label of a point may take, nearest first: above, below, right, left, then the
    four corners, then above and below again a line further out."""
    corners = ((beside, GAP_PX), (-beside, GAP_PX), (beside, -GAP_PX), (-beside, -GAP_PX))
    return ((0, GAP_PX), (0, -GAP_PX), (beside, 0), (-beside, 0), *corners, (0, far), (0, -far))


def label_shifts(
    points: np.ndarray, texts: Sequence[str], cloud: np.ndarray, plot: tuple[int, int] = PHONE_PLOT_PX
) -> list[tuple[float, float] | None]:
    """Where each label of a point goes (Plotly's xshift and yshift in pixels, y upwards), so that
    none lies over another on a phone's plot (a wider screen has more room across): the first
    place around its point (_around) clear of the labels placed before it and of every labelled
    point's marker; None where none is (the point is still drawn, and hover names it), where the
    same label is already shown at the same point, or where the point is not a number (it is not
    drawn). ``points`` (n, 2) and ``cloud`` (the map's rows, whose extent sets its axes' ranges)
    are in the map's units."""
    low, high = np.nanmin(cloud, axis=0).astype(np.float64), np.nanmax(cloud, axis=0).astype(np.float64)
    span = np.maximum(high - low, 1e-12) * PADDED
    pixels = (np.asarray(points, dtype=np.float64) - low) / span * np.asarray(plot)
    drawn = np.isfinite(pixels).all(axis=1)
    boxes = [(x - MARK_PX, x + MARK_PX, y - MARK_PX, y + MARK_PX) for x, y in pixels[drawn].tolist()]
    shown, found = set(), []
    for (x, y), label, finite in zip(pixels.tolist(), texts, drawn, strict=True):
        if not finite:
            found.append(None)
            continue
        half_width, half_height = len(label) * CHAR_PX / 2 + 2, LINE_PX / 2
        beside, far = half_width + 8, 2.4 * GAP_PX
        key = (label, round(x), round(y))
        places = () if key in shown else _around(beside, far)
        for dx, dy in places:
            box = (x + dx - half_width, x + dx + half_width, y + dy - half_height, y + dy + half_height)
            if not any(_overlap(box, other) for other in boxes):
                boxes.append(box)
                shown.add(key)
                found.append((dx, dy))
                break
        else:
            found.append(None)
    return found


def placed_labels(anchors: np.ndarray, texts: Sequence[str], coords: np.ndarray) -> list[tuple[int, str]]:
    """Which labels to draw, largest region first, and where (Plotly text positions): a label
    whose box would overlap one already placed is left out; one near the map's left or right
    edge is drawn beside its point, inward, rather than cut off."""
    low, high = coords.min(axis=0).astype(np.float64), coords.max(axis=0).astype(np.float64)
    span = np.maximum(high - low, 1e-9) * 1.1  # Plotly pads the range a little
    per_px = span / np.asarray(PLOT_PX)
    boxes, placed = [], []
    for number, ((x, y), label) in enumerate(zip(anchors.astype(np.float64), texts, strict=True)):
        width, height = len(label) * CHAR_PX * per_px[0], LINE_PX * per_px[1]
        left, position = x - width / 2, "middle center"
        if left < low[0]:
            left, position = x, "middle right"
        elif x + width / 2 > high[0]:
            left, position = x - width, "middle left"
        box = (left, left + width, y - height / 2, y + height / 2)
        if any(_overlap(box, other) for other in boxes):
            continue
        boxes.append(box)
        placed.append((number, position))
    return placed


def region_labels(
    anchors: np.ndarray, labels: Sequence[map_reading.Label], coords: np.ndarray, ink: str
) -> go.Scattergl:
    """The regions' short labels that fit without overlapping, drawn by WebGL over the cloud
    and under the highlights (which come later), each listing more of its pieces on hover."""
    placed = placed_labels(anchors, [label.short for label in labels], coords)
    shown = [number for number, _ in placed]
    return go.Scattergl(
        x=np.ascontiguousarray(anchors[shown, 0]),
        y=np.ascontiguousarray(anchors[shown, 1]),
        mode="text",
        text=gl_texts([labels[n].short for n in shown]),
        textposition=[position for _, position in placed],
        textfont={"size": 12, "color": ink},
        hovertext=texts([labels[n].details for n in shown]),
        hoverinfo="text",
        name="regions",
        showlegend=False,
    )


def neighbour_lines(
    coords: np.ndarray, axes: tuple[int, ...], row: int, ids: np.ndarray
) -> go.Scattergl | go.Scatter3d:
    """Lines from the point of ``row`` to each of ``ids``' points."""
    ends = np.asarray(coords[np.asarray(ids, dtype=np.int64)][:, list(axes)], dtype=np.float32)
    start = np.asarray(coords[row, list(axes)], dtype=np.float32)
    gap = np.full_like(start, np.nan)
    path = (
        np.concatenate([np.stack([start, end, gap]) for end in ends])
        if len(ends)
        else np.empty((0, len(axes)))
    )
    xyz = {name: np.ascontiguousarray(path[:, i]) for i, name in enumerate("xyz"[: len(axes)])}
    trace = go.Scatter3d if len(axes) == 3 else go.Scattergl
    return trace(
        **xyz,
        mode="lines",
        line={"color": COSINE_MARK[0], "width": 2},
        hoverinfo="skip",
        name="lines to its nearest by cosine",
        showlegend=False,
    )


def overlap_sentence(piece: str, cosine_ids: np.ndarray, map_ids: np.ndarray) -> str:
    """The overlap of a piece's true and apparent neighbours, in words."""
    both = np.intersect1d(cosine_ids, map_ids).size
    k = len(cosine_ids)
    return (
        f"{both} of the {k} nearest pieces to “{piece}” by cosine are among its {len(map_ids)} nearest "
        "points on this map."
    )
