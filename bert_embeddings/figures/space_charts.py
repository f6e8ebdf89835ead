"""Figures of two spaces compared (bert_embeddings.spaces): how many neighbours the pieces keep,
by kind of piece, and stage by stage. Pure Plotly, no Streamlit."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from bert_embeddings.figures.charts import BLUE, DASHES, PALETTE, SYMBOLS, text, texts, title_style


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
                line={"color": PALETTE[i % len(PALETTE)], "dash": DASHES[i % len(DASHES)]},
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
        legend={"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right", "yanchor": "bottom"},
    )
    return fig
