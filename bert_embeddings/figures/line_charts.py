"""Lines over a shared x axis: series in one panel or each in a panel of its own. Numpy arrays in,
Plotly figures out; no Streamlit here (charts.py has the shared styles)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bert_embeddings.figures.charts import LEGEND_BELOW, SYMBOLS, line_style, text, texts, title_style


def line_series(
    x: Sequence | np.ndarray,
    series: dict[str, np.ndarray],
    title: str,
    x_title: str,
    y_title: str,
    height: int = 320,
    markers: bool = False,
) -> go.Figure:
    """Named lines over a shared x axis."""
    fig = go.Figure(
        [
            go.Scatter(
                x=np.asarray(x) if not isinstance(x, list) else texts(x),
                y=np.asarray(values, dtype=np.float32),
                name=text(name),
                mode="lines+markers" if markers else "lines",
                line=line_style(i),
                marker={"symbol": SYMBOLS[i % len(SYMBOLS)]},
            )
            for i, (name, values) in enumerate(series.items())
        ]
    )
    fig.update_layout(
        title=title_style(title),
        height=height,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"title": x_title},
        yaxis={"title": y_title},
        legend=LEGEND_BELOW,
    )
    return fig


def _along(x: Sequence | np.ndarray) -> dict:
    """A trace's x: whole numbers one apart as their first and step (the browser counts them out
    itself), any other values as they are."""
    x = np.asarray(x)
    if x.dtype.kind in "iu" and len(x) > 1 and (np.diff(x) == 1).all():
        return {"x0": int(x[0]), "dx": 1}
    return {"x": x}


def line_panels(
    x: Sequence | np.ndarray,
    series: dict[str, np.ndarray],
    title: str,
    x_title: str,
    y_title: str,
    panel_height: int = 190,
) -> go.Figure:
    """Named lines over a shared x axis, each in a panel of its own (its title naming it) whose y
    axis spans its values, a tenth of their span either side (a constant's, from 0): series of very
    different sizes each fill their panel, where on one axis the smaller would lie flat."""
    fig = make_subplots(
        rows=len(series), cols=1, shared_xaxes=True, vertical_spacing=0.14, subplot_titles=texts(series)
    )
    for row, (name, values) in enumerate(series.items(), start=1):
        values = np.asarray(values, dtype=np.float32)
        low, high = float(values.min()), float(values.max())
        pad = (high - low) / 10
        span = (
            [low - pad, high + pad]
            if pad > 1e-7 * max(abs(low), abs(high))
            else [1.25 * min(0, low), 1.25 * max(0, high)]
        )
        trace = go.Scatter(**_along(x), y=values, name=text(name), mode="lines", line=line_style(row - 1))
        fig.add_trace(trace, row, 1)
        fig.update_yaxes(title_text=text(y_title), range=span if span[0] < span[1] else None, row=row, col=1)
    fig.update_xaxes(title_text=text(x_title), row=len(series), col=1)
    fig.update_layout(
        title=title_style(title),
        height=80 + panel_height * len(series),
        showlegend=False,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
    )
    return fig
