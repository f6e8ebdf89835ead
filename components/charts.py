"""Pure figure builders: numpy arrays in, Plotly figures out. No Streamlit here.

Values go to Plotly as float32 numpy arrays, which it sends as compact typed arrays
rather than lists of Python floats. Token rows are labelled "position · piece", which is
unique even when a piece repeats (a categorical axis would merge repeated labels).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

DIVERGING = "RdBu_r"  # blue below zero, white at zero, red above
SEGMENT_COLOURS = ("#4c78a8", "#f58518")


def _rows_height(n_rows: int, per_row: int = 22, floor: int = 180, ceiling: int = 900) -> int:
    return int(min(ceiling, max(floor, 90 + per_row * n_rows)))


def stage_heatmap(values: np.ndarray, labels: Sequence[str], dims: range, title: str) -> go.Figure:
    """One stage of the embedding layer: tokens on rows, hidden dimensions on columns."""
    z = np.ascontiguousarray(values[:, dims.start : dims.stop], dtype=np.float32)  # (tokens, dims)
    # A handful of outlier dimensions would otherwise wash every other cell out to white:
    # colours saturate at the 99th percentile of |value|; hover still shows exact values.
    limit = float(np.percentile(np.abs(z), 99)) if z.size else 1.0
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=np.arange(dims.start, dims.stop, dtype=np.int32),
            y=list(labels),
            colorscale=DIVERGING,
            zmin=-(limit or 1.0),
            zmax=limit or 1.0,
            colorbar={"thickness": 12, "len": 0.9},
            hovertemplate="piece %{y}<br>dimension %{x}<br>value %{z:.5f}<extra></extra>",
        )
    )
    fig.update_layout(
        title={"text": title, "font": {"size": 16}},
        height=_rows_height(len(labels)),
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
        xaxis={"title": "hidden dimension"},
        yaxis={"type": "category", "autorange": "reversed", "automargin": True},
    )
    return fig


def token_statistics(labels: Sequence[str], mean: np.ndarray, std: np.ndarray) -> go.Figure:
    """Per-token mean and standard deviation of the summed vector, before LayerNorm."""
    fig = go.Figure(
        [
            go.Bar(name="mean", x=list(labels), y=mean.astype(np.float32), marker_color="#4c78a8"),
            go.Bar(
                name="standard deviation", x=list(labels), y=std.astype(np.float32), marker_color="#e45756"
            ),
        ]
    )
    fig.update_layout(
        barmode="group",
        height=320,
        title={
            "text": "What LayerNorm subtracts (mean) and divides by (std), per token",
            "font": {"size": 16},
        },
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"type": "category", "tickangle": -45},
        legend={"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right", "yanchor": "bottom"},
    )
    return fig


def layer_norm_parameters(gamma: np.ndarray, beta: np.ndarray, dims: range) -> go.Figure:
    """LayerNorm's learned scale (gamma) and shift (beta) per hidden dimension."""
    x = np.arange(dims.start, dims.stop, dtype=np.int32)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08)
    fig.add_trace(go.Scatter(x=x, y=gamma[dims.start : dims.stop], name="gamma (scale)", mode="lines"), 1, 1)
    fig.add_trace(go.Scatter(x=x, y=beta[dims.start : dims.stop], name="beta (shift)", mode="lines"), 2, 1)
    fig.update_yaxes(title_text="gamma", row=1, col=1)
    fig.update_yaxes(title_text="beta", row=2, col=1)
    fig.update_xaxes(title_text="hidden dimension", row=2, col=1)
    fig.update_layout(
        height=380,
        showlegend=False,
        title={"text": "LayerNorm's learned gamma and beta", "font": {"size": 16}},
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig


def layer_overview(stages: Sequence[tuple[str, np.ndarray]], labels: Sequence[str]) -> go.Figure:
    """Small heatmaps side by side: the lookups, their sum and the LayerNorm output."""
    fig = make_subplots(
        rows=1,
        cols=len(stages),
        subplot_titles=[name for name, _ in stages],
        shared_yaxes=True,
        horizontal_spacing=0.025,
    )
    for col, (_, values) in enumerate(stages, start=1):
        # Each stage on its own symmetric scale: the raw rows are far smaller than the output.
        limit = float(np.max(np.abs(values))) or 1.0
        fig.add_trace(
            go.Heatmap(
                z=values.astype(np.float32),
                y=list(labels),
                colorscale=DIVERGING,
                zmin=-limit,
                zmax=limit,
                showscale=False,
                hovertemplate="%{y}<br>dimension %{x}<br>%{z:.4f}<extra></extra>",
            ),
            1,
            col,
        )
    fig.update_yaxes(type="category", autorange="reversed", automargin=True)
    fig.update_xaxes(showticklabels=False)
    fig.update_layout(
        height=_rows_height(len(labels), per_row=30, floor=220), margin={"l": 10, "r": 10, "t": 40, "b": 10}
    )
    return fig


def neighbour_bars(pieces: Sequence[str], scores: np.ndarray, title: str) -> go.Figure:
    """Ranked neighbours as horizontal bars, the best at the top."""
    labels = [f"{rank}. {piece}" for rank, piece in enumerate(pieces, start=1)]
    fig = go.Figure(
        go.Bar(
            x=scores.astype(np.float32),
            y=labels,
            orientation="h",
            marker_color="#4c78a8",
            hovertemplate="%{y}<br>cosine %{x:.4f}<extra></extra>",
        )
    )
    fig.update_layout(
        title={"text": title, "font": {"size": 16}},
        height=_rows_height(len(labels), per_row=24, floor=220, ceiling=2400),
        margin={"l": 10, "r": 10, "t": 40, "b": 30},
        xaxis={"title": "cosine similarity"},
        yaxis={"type": "category", "autorange": "reversed", "automargin": True},
    )
    return fig
