"""Figures of two spaces compared (bert_embeddings.spaces): how many neighbours the pieces keep,
by kind of piece, and stage by stage. Pure Plotly, no Streamlit."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from bert_embeddings.figures.charts import (
    BLUE,
    LEGEND_BELOW,
    OKABE_ITO,
    SYMBOLS,
    line_style,
    text,
    texts,
    title_style,
)


def kept_counts(overlap: np.ndarray, k: int) -> np.ndarray:
    """How many pieces keep 0, 1, ..., k of their k neighbours: (k + 1,) int64."""
    return np.bincount(np.rint(np.asarray(overlap) * k).astype(np.int64), minlength=k + 1)[: k + 1]


def overlap_histogram(overlap: np.ndarray, k: int, title: str) -> go.Figure:
    """One bar per count of neighbours kept, 0 to k: overlap@k's whole distribution."""
    counts = kept_counts(overlap, k)
    fig = go.Figure(
        go.Bar(
            x=np.arange(k + 1),
            y=counts,
            marker_color=BLUE,
            hovertemplate="%{y:,} pieces keep %{x} of " + str(k) + "<extra></extra>",
        )
    )
    fig.update_layout(
        title=title_style(title),
        height=300,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"title": f"neighbours kept, of {k}", "dtick": 1 if k <= 20 else None},
        yaxis={"title": "pieces"},
        bargap=0.1,
    )
    return fig


def kind_bars(by_kind: Sequence[tuple[str, int, float]], k: int, title: str) -> go.Figure:
    """Mean overlap@k of each kind of piece, with how many pieces each bar is."""
    names = [f"{name} ({count:,})" for name, count, _ in by_kind]
    fig = go.Figure(
        go.Bar(
            x=np.array([mean for _, _, mean in by_kind], dtype=np.float32),
            y=texts(names),
            orientation="h",
            marker_color=BLUE,
            hovertemplate="%{y}: mean overlap@" + str(k) + " %{x:.3f}<extra></extra>",
        )
    )
    fig.update_layout(
        title=title_style(title),
        height=80 + 34 * len(names),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"title": f"mean overlap@{k}", "range": [0, 1]},
        yaxis={"type": "category", "autorange": "reversed", "automargin": True},
    )
    return fig


def through_the_stages(stages: Sequence[str], series: dict[str, Sequence[float]], title: str) -> go.Figure:
    """One point per stage for each named figure, drawn with its own colour, dash and marker."""
    fig = go.Figure(
        [
            go.Scatter(
                x=texts(stages),
                y=np.asarray(values, dtype=np.float32),
                name=text(name),
                mode="lines+markers",
                line=line_style(i),
                marker={"symbol": SYMBOLS[i % len(SYMBOLS)], "size": 9},
            )
            for i, (name, values) in enumerate(series.items())
        ]
    )
    fig.update_layout(
        title=title_style(title),
        height=340,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        xaxis={"title": "stage", "type": "category"},
        yaxis={"title": "value"},  # (a mean cosine may be below 0 in a centred geometry)
        legend=LEGEND_BELOW,
    )
    return fig


# From Okabe-Ito's vermillion (kept none: moved) to its sky blue (kept all): told apart by
# colour-blind readers, and both ends clear on a light and on a dark background.
KEPT_SCALE = [[0.0, OKABE_ITO["vermillion"]], [1.0, OKABE_ITO["sky"]]]
BARE_AXIS = {"showticklabels": False, "title": "", "zeroline": False, "showgrid": False}


def aligned_map(
    points: np.ndarray,
    overlap: np.ndarray,
    k: int,
    hover: Sequence[str],
    path: tuple[str, np.ndarray] | None,
    title: str,
    ink: str,
) -> go.Figure:
    """Every shared piece on the aligned maps, at ``points`` (a step between A's map and B's),
    coloured by how many of its k neighbours it keeps (``KEPT_SCALE``). ``path``: a piece and its
    (3, 2) places on A's map, here and on B's, drawn as a dotted line with a circle at A, a
    square at B and a star where it is now."""
    kept = np.rint(np.asarray(overlap) * k)
    traces = [
        go.Scattergl(
            x=np.ascontiguousarray(points[:, 0]),
            y=np.ascontiguousarray(points[:, 1]),
            mode="markers",
            marker={
                "size": 3,
                "color": kept.astype(np.float32),
                "colorscale": KEPT_SCALE,
                "cmin": 0,
                "cmax": k,
                "colorbar": {"title": {"text": f"kept, of {k}"}, "thickness": 12},
            },
            hovertext=hover,
            hovertemplate="%{hovertext}<extra></extra>",
            name="pieces",
            showlegend=False,
        )
    ]
    if path is not None:
        traces.append(_path_trace(*path, ink))
    fig = go.Figure(traces)
    fig.update_layout(
        title=title_style(title),
        height=620,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        xaxis={"showticklabels": False, "title": "", "zeroline": False, "showgrid": False},
        yaxis={
            "showticklabels": False,
            "title": "",
            "zeroline": False,
            "showgrid": False,
            "scaleanchor": "x",
        },
        hovermode="closest",
    )
    return fig


def _path_trace(piece: str, places: np.ndarray, ink: str) -> go.Scatter:
    """A piece's way from A's map (circle) through where it is now (star) to B's (square)."""
    return go.Scatter(
        x=places[:, 0],
        y=places[:, 1],
        mode="lines+markers+text",
        line={"color": ink, "dash": "dot", "width": 2},
        marker={"symbol": ["circle", "star", "square"], "size": [11, 15, 11], "color": ink},
        text=[text(f"{piece} in A"), "", text(f"{piece} in B")],
        textposition="top center",
        textfont={"color": ink},
        hoverinfo="skip",
        name=text(f"path of {piece}"),
        showlegend=False,
    )


def intervals(words: Sequence[str], places: np.ndarray, bounds: np.ndarray, title: str) -> go.Figure:
    """Each word's place on an axis (a dot) with its 95 % interval (a bar), one row per word."""
    order = np.argsort(places)
    fig = go.Figure(
        go.Scatter(
            x=places[order],
            y=texts([words[i] for i in order]),
            mode="markers",
            marker={"color": BLUE, "size": 9, "symbol": SYMBOLS[0]},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": bounds[order, 1] - places[order],
                "arrayminus": places[order] - bounds[order, 0],
                "color": BLUE,
                "thickness": 1.5,
            },
            hovertemplate="%{y}: %{x:.4f}<extra></extra>",
            showlegend=False,
        )
    )
    fig.update_layout(
        title=title_style(title),
        height=max(220, 28 * len(words) + 90),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"title": "coordinate on the axis"},
    )
    return fig
