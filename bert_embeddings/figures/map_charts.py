"""Pure figure builders for the maps: PCA of the vocabulary, of a sentence's stages, and of
the positions (words on the reader's own axes: axes_charts.py). Numpy arrays in, Plotly figures
out; no Streamlit here (see charts.py).

More than a few thousand points are drawn with WebGL (Scattergl, Scatter3d).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from bert_embeddings.figures.charts import (
    BLUE,
    LEGEND_BELOW,
    OKABE_ITO,
    SYMBOLS,
    gl_texts,
    text,
    texts,
    title_style,
)
from bert_embeddings.figures.map_marks import Colouring, Highlight, cloud_rows, label_shifts
from bert_embeddings.models.glyphs import legible


@functools.lru_cache(maxsize=4)
def _vocabulary_texts(pieces: tuple[str, ...]) -> np.ndarray:
    """A vocabulary's pieces made legible and literal once per model (the tuple is the cached
    index's own)."""
    return np.asarray(texts([legible(piece) for piece in pieces]), dtype=object)


# Whole word, ## continuation, special / unused, number, punctuation (vocab_search.KINDS).
KIND_COLOURS = tuple(OKABE_ITO[c] for c in ("blue", "orange", "sky", "green", "purple"))
STAGE_COLOURS = tuple(OKABE_ITO[c] for c in ("blue", "sky", "orange", "vermillion"))
# A highlight on a map: its colour and marker shape (big enough to see, unlike the cloud's dots).
PATTERN_MARK = (OKABE_ITO["vermillion"], "diamond")
NEIGHBOURS_MARK = (OKABE_ITO["green"], "x")
SENTENCE_SYMBOL = "square"  # drawn in the text colour of the theme


def component_name(component: int) -> str:
    """A principal component as every map, axis title and download names it, from its 0-based
    index in the coordinates: 'PC1' for the first."""
    return f"PC{component + 1}"


def shown_components(coords: np.ndarray, axes: tuple[int, ...]) -> tuple[list[str], np.ndarray]:
    """What a PCA map draws on its axes: the components' names and their coordinates (rows,
    axes) float32, exactly the numbers its traces hold. The map and its download both take them
    from here, so that a file never holds other components than the chart, or names them apart."""
    return [component_name(a) for a in axes], np.ascontiguousarray(coords[:, list(axes)], dtype=np.float32)


def _axis_title(component: int, ratio: float) -> str:
    return f"{component_name(component)} ({ratio:.1%} of variance)"


def _scatter(coords: np.ndarray, axes: tuple[int, ...], **trace) -> go.Scattergl | go.Scatter3d:
    """A WebGL scatter of the chosen components: 2-D Scattergl or 3-D Scatter3d."""
    _, shown = shown_components(coords, axes)
    xyz = {name: np.ascontiguousarray(column) for name, column in zip("xyz", shown.T, strict=False)}
    return go.Scatter3d(**xyz, **trace) if len(axes) == 3 else go.Scattergl(**xyz, **trace)


def _labels(coords: np.ndarray, axes: tuple[int, ...], marks: list[tuple]) -> list:
    """Each mark's (points, labels, colour) labels, none over another (map_marks.label_shifts).
    In 2-D they are layout annotations: WebGL draws above SVG traces but below annotations, so
    only annotations stay readable over the cloud (set at once: one by one costs 3 ms each)."""
    if len(axes) == 3 or not marks:
        return []  # Scatter3d draws its own text (mode "markers+text")
    points = np.concatenate([points[:, list(axes)] for points, _, _ in marks])
    every = [(label, colour) for _, labels, colour in marks for label in labels]
    found = label_shifts(points, [label for label, _ in every], coords[:, list(axes)])
    return [
        {"x": x, "y": y, "text": label, "showarrow": False, "xshift": shift[0], "yshift": shift[1]}
        | {"font": {"size": 12, "color": colour}}
        for (x, y), (label, colour), shift in zip(points.tolist(), every, found, strict=True)
        if shift is not None
    ]


def _map_layout(
    fig: go.Figure,
    axes: tuple[int, ...],
    ratios: np.ndarray | None,
    title: str,
    height: int = 640,
    titles: Sequence[str] | None = None,
) -> None:
    titles = titles or [_axis_title(a, float(ratios[a])) for a in axes]
    if len(axes) == 3:
        fig.update_layout(
            scene={f"{n}axis": {"title": {"text": t}} for n, t in zip("xyz", titles, strict=True)}
        )
    else:
        fig.update_layout(xaxis={"title": titles[0]}, yaxis={"title": titles[1]})
    fig.update_layout(
        title=title_style(title),
        height=height,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        legend={**LEGEND_BELOW, "itemsizing": "constant"},  # (beside it, 40% of a phone's width)
    )


@dataclass(frozen=True)
class VocabularyMap:
    """What a map of every vocabulary row shows: the one record that travels from a page (or a
    notebook) through the figure builders."""

    coords: np.ndarray  # (rows, components): each row's place
    pieces: Sequence[str]  # each row's piece
    kinds: np.ndarray  # (rows,) each row's kind of piece (vocab_search.KINDS)
    axes: tuple[int, ...]  # the columns of ``coords`` on x, y (and z)
    ratios: np.ndarray | None = None  # PCA: each component's share of variance; None: another method
    shown_kinds: Sequence[int] = ()  # the kinds of piece drawn
    highlights: Sequence[Highlight] = ()  # drawn last, over everything, with their pieces as labels
    axis_titles: Sequence[str] | None = None  # None: the components and their shares
    title: str | None = None
    colouring: Colouring | None = None  # colour by a number per row instead of by kind
    underlays: Sequence = ()  # traces over the cloud and under the highlights (lines, region labels)


def vocabulary_map(request: VocabularyMap) -> go.Figure:
    """Every vocabulary row on two or three of ``coords``' columns, coloured by kind of piece
    (or by ``colouring``); the underlays over the cloud, the highlights over them. Each point's
    piece is sent once. Axis titles name the principal components and their share of variance,
    unless ``axis_titles`` are given (another method)."""
    coords, pieces, axes = request.coords, request.pieces, request.axes
    fig = go.Figure()
    labels = _vocabulary_texts(tuple(pieces))  # for hover and 2-D annotations (SVG)
    for trace in _clouds(coords, axes, labels, request.kinds, request.shown_kinds, request.colouring):
        fig.add_trace(trace)
    for trace in request.underlays:
        fig.add_trace(trace)
    marks = []
    for mark in request.highlights:
        ids = np.asarray(mark.ids, dtype=np.int64)
        show_text = len(ids) <= 60  # beyond that, labels would only cover each other
        shown = [legible(pieces[i]) for i in ids] if show_text else None
        fig.add_trace(
            _highlight(coords[ids], axes, mark.name, (mark.colour, mark.symbol), shown, labels[ids])
        )
        if show_text:
            marks.append((coords[ids], labels[ids].tolist(), mark.colour))
    fig.update_layout(annotations=_labels(coords, axes, marks))
    title = request.title or f"The whole vocabulary ({len(pieces):,} pieces)"
    _map_layout(fig, axes, request.ratios, title, titles=request.axis_titles)
    if request.colouring is not None:
        _colour_axis(fig, request.colouring)
    return fig


def _clouds(
    coords: np.ndarray,
    axes: tuple[int, ...],
    labels: np.ndarray,
    kinds: np.ndarray,
    shown_kinds: Sequence[int],
    colouring: Colouring | None,
) -> list:
    """The vocabulary's points: a trace per kind in its colour, or one coloured by a number."""
    from bert_embeddings.analysis.vocab_search import KINDS

    traces = []
    size = 2 if len(axes) == 3 else 3
    for kind, rows in zip(shown_kinds, cloud_rows(kinds, shown_kinds, colouring), strict=False):
        if colouring is None:
            marker, name, hover = {"color": KIND_COLOURS[kind]}, KINDS[kind], {"hoverinfo": "text"}
        else:
            marker = {"color": colouring.values[rows], "coloraxis": "coloraxis"}
            name, hover = "pieces", {"hovertemplate": f"%{{hovertext}}<br>{colouring.hover}<extra></extra>"}
        traces.append(
            _scatter(
                coords[rows],
                axes,
                mode="markers",
                name=name,
                marker={"size": size, "opacity": 0.5 if colouring is None else 0.8, **marker},
                hovertext=labels[rows],  # an object array: Plotly checks it at once, a list item by item
                **hover,
            )
        )
    return traces


def _colour_axis(fig: go.Figure, colouring: Colouring) -> None:
    """The colour scale and bar of a map coloured by a number, with the legend above the plot."""
    bar = {"title": {"text": colouring.name, "side": "right"}, "thickness": 12}
    fig.update_layout(
        coloraxis={
            "colorscale": colouring.colorscale,
            "cmin": 0,
            "cmax": colouring.cmax,
            "colorbar": {**bar, "tickvals": colouring.tickvals, "ticktext": colouring.ticktext},
        },
        legend={"orientation": "h", "x": 0, "y": 1, "yanchor": "bottom"},  # clear of the colour bar
    )


def _highlight(
    coords: np.ndarray,
    axes: tuple[int, ...],
    name: str,
    mark: tuple[str, str],
    pieces: list[str] | None,
    hover: np.ndarray,
) -> go.Scattergl | go.Scatter3d:
    """Marked points drawn over the cloud in their ``mark`` (colour, symbol), big enough to see;
    in 3-D with ``pieces`` as text, if given (in 2-D, labels are annotations: see _labels)."""
    colour, symbol = mark
    return _scatter(
        coords,
        axes,
        mode="markers+text" if pieces is not None and len(axes) == 3 else "markers",
        name=text(name),
        text=gl_texts(pieces) if pieces is not None else None,
        marker={
            "size": 10 if len(axes) == 2 else 5,
            "color": colour,
            "symbol": symbol,
            "line": {"width": 1, "color": "white"},
        },
        hovertext=hover,
        hoverinfo="text",
    )


def sentence_journey(
    stage_coords: Sequence[tuple[str, np.ndarray]],
    labels: Sequence[str],
    axes: tuple[int, ...],
    ratios: np.ndarray,
) -> go.Figure:
    """Each token's vector after every stage, joined by a line from its first stage to its last."""
    fig = go.Figure()
    stacked = np.stack([coords for _, coords in stage_coords])  # (stages, tokens, components)
    # One trace for every token's path: each path's points, then a NaN row to break the line.
    n_stages, n_tokens, n_components = stacked.shape
    gap = np.full((1, n_tokens, n_components), np.nan, dtype=np.float32)
    paths = np.concatenate([stacked, gap]).transpose(1, 0, 2).reshape(-1, n_components)
    fig.add_trace(
        _scatter(
            paths,
            axes,
            mode="lines",
            line={"color": "#bbbbbb", "width": 2},
            hoverinfo="skip",
            showlegend=False,
        )
    )
    last = len(stage_coords) - 1
    for number, (stage, coords) in enumerate(stage_coords):
        fig.add_trace(
            _scatter(
                coords,
                axes,
                mode="markers+text" if number == last else "markers",
                name=stage,
                text=gl_texts(labels) if number == last else None,
                textposition="top center",
                marker={
                    "size": 8 if len(axes) == 2 else 4,
                    "color": STAGE_COLOURS[number % len(STAGE_COLOURS)],
                    "symbol": SYMBOLS[number % len(SYMBOLS)],
                },
                hovertext=[f"{text(label)} · {text(stage)}" for label in labels],
                hoverinfo="text",
            )
        )
    _map_layout(fig, axes, ratios, "Your sentence, stage by stage")
    return fig


def position_path(coords: np.ndarray, axes: tuple[int, ...], ratios: np.ndarray) -> go.Figure:
    """The position embeddings in order, as a path coloured by position."""
    positions = np.arange(len(coords), dtype=np.int32)
    fig = go.Figure(
        _scatter(
            coords,
            axes,
            mode="lines+markers",
            line={"color": "#cccccc", "width": 1},
            marker={
                "size": 4 if len(axes) == 2 else 3,
                "color": positions,
                "colorscale": "Viridis",
                "colorbar": {"title": {"text": "position"}, "thickness": 12},
            },
            hovertext=[f"position {p}" for p in positions],
            hoverinfo="text",
            showlegend=False,
        )
    )
    _map_layout(fig, axes, ratios, f"The {len(coords)} position embeddings, in order", height=560)
    return fig


def explained_variance(ratios: np.ndarray, title: str) -> go.Figure:
    """The share of the total variance each component explains."""
    fig = go.Figure(
        go.Bar(
            x=[component_name(i) for i in range(len(ratios))],
            y=ratios.astype(np.float32),
            marker_color=BLUE,
            hovertemplate="%{x}: %{y:.2%}<extra></extra>",
        )
    )
    fig.update_layout(
        title=title_style(title, 14),
        height=220,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        yaxis={"tickformat": ".1%"},
    )
    return fig
