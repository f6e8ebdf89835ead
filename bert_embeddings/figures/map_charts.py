"""Pure figure builders for the maps: PCA of the vocabulary, of a sentence's stages, and of
the positions, and words placed on the reader's own axes. Numpy arrays in, Plotly figures
out; no Streamlit here (see charts.py).

More than a few thousand points are drawn with WebGL (Scattergl, Scatter3d).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from bert_embeddings.figures.charts import BLUE, OKABE_ITO, SYMBOLS, gl_texts, text, texts, title_style
from bert_embeddings.figures.map_marks import Colouring, Highlight, cloud_rows
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


def _labels(coords: np.ndarray, axes: tuple[int, ...], labels: Sequence[str], colour: str) -> list[dict]:
    """Text labels for a few points. In 2-D they are layout annotations: WebGL draws above
    SVG traces but below annotations, so only annotations stay readable over the cloud. The
    caller sets them all at once: Plotly checks a list in one go, but one by one costs 3 ms each."""
    if len(axes) == 3:
        return []  # Scatter3d draws its own text (mode "markers+text")
    font = {"size": 12, "color": colour}
    return [
        {"x": x, "y": y, "text": label, "showarrow": False, "yshift": 11, "font": font}
        for (x, y), label in zip(coords[:, list(axes)].tolist(), labels, strict=True)
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
        legend={"itemsizing": "constant"},
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
    annotations = []
    for mark in request.highlights:
        ids = np.asarray(mark.ids, dtype=np.int64)
        show_text = len(ids) <= 60  # beyond that, labels would only cover each other
        shown = [legible(pieces[i]) for i in ids] if show_text else None
        fig.add_trace(
            _highlight(coords[ids], axes, mark.name, (mark.colour, mark.symbol), shown, labels[ids])
        )
        if show_text:
            annotations += _labels(coords[ids], axes, labels[ids].tolist(), mark.colour)
    fig.update_layout(annotations=annotations)
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


# Points on the reader's own axes, by group: a colour and a marker shape each, so that the
# groups differ in shape as well as colour.
AXES_GROUPS = {
    "words placed": (OKABE_ITO["blue"], "circle"),
    "words at the axes' ends": (OKABE_ITO["orange"], "diamond"),
    "your sentence's pieces": (OKABE_ITO["green"], "square"),
}


def on_axes(
    groups: Sequence[tuple[str, Sequence[str], np.ndarray]], axis_titles: Sequence[str], title: str
) -> go.Figure:
    """Labelled points at their coordinates on one, two or three axes.

    ``groups`` are (name from AXES_GROUPS, labels, coordinates (n, axes)). One axis is a dot
    plot, one row per point in the order of its coordinate; two a scatter; three a 3-D scatter.
    """
    fig = go.Figure()
    dims = len(axis_titles)
    order = []  # a dot plot's rows: (coordinate, label)
    for name, labels, coords in groups:
        if not len(labels):
            continue
        xyz = {n: np.ascontiguousarray(coords[:, i], dtype=np.float32) for i, n in enumerate("xyz"[:dims])}
        fig.add_trace(_on_axes_trace(name, labels, xyz))
        if dims == 1:
            order += zip(xyz["x"].tolist(), texts(labels), strict=True)
    _on_axes_layout(fig, [text(t) for t in axis_titles], order)
    height = 640 if dims > 1 else min(1400, max(320, 90 + 20 * len({label for _, label in order})))
    fig.update_layout(
        title=title_style(title),
        height=height,
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
        legend={"orientation": "h", "x": 0, "y": 1, "yanchor": "bottom"},  # between the title and the plot
    )
    return fig


def _on_axes_trace(name: str, labels: Sequence[str], xyz: dict[str, np.ndarray]) -> go.Scatter | go.Scatter3d:
    """One group of on_axes: a dot plot's points (labels on rows), a 2-D or a 3-D scatter."""
    colour, symbol = AXES_GROUPS[name]
    common = {"name": text(name), "marker": {"color": colour, "symbol": symbol, "size": 9}}
    hover = "<br>".join(f"{n} %{{{n}:.4f}}" for n in xyz)
    if len(xyz) == 1:
        return go.Scatter(
            x=xyz["x"],
            y=texts(labels),
            mode="markers",
            hovertemplate="%{y}<br>x %{x:.4f}<extra></extra>",
            **common,
        )
    if len(xyz) == 2:
        return go.Scatter(
            **xyz,
            mode="markers+text",
            text=texts(labels),
            textposition="top center",
            hovertemplate=f"%{{text}}<br>{hover}<extra></extra>",
            **common,
        )
    return go.Scatter3d(
        **xyz,
        mode="markers+text",
        text=gl_texts(labels),
        hovertemplate=f"%{{text}}<br>{hover}<extra></extra>",
        **{**common, "marker": {**common["marker"], "size": 5}},
    )


def _on_axes_layout(fig: go.Figure, titles: list[str], order: list[tuple[float, str]]) -> None:
    """on_axes' axes: titled, through zero; a dot plot's rows from the lowest coordinate up."""
    if len(titles) == 3:
        fig.update_layout(
            scene={f"{n}axis": {"title": {"text": t}} for n, t in zip("xyz", titles, strict=True)}
        )
    elif len(titles) == 2:
        fig.update_layout(
            xaxis={"title": titles[0], "zeroline": True}, yaxis={"title": titles[1], "zeroline": True}
        )
    else:
        rows = list(dict.fromkeys(label for _, label in sorted(order)))
        fig.update_layout(
            xaxis={"title": titles[0], "zeroline": True},
            yaxis={"type": "category", "categoryorder": "array", "categoryarray": rows, "automargin": True},
        )
