"""The Geometry page's figures: numpy arrays in, Plotly figures out. No Streamlit here."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bert_embeddings.figures.charts import HATCHES, LEGEND_BELOW, PALETTE, SYMBOLS, lines, text, title_style

SHOWN = 30  # the dimensions drawn as bars, largest part first


def dimension_shares(contributions: dict[str, np.ndarray], title: str) -> go.Figure:
    """The SHOWN dimensions with the largest parts of the mean cosine, largest first, one panel
    per table (its name the key), each bar named by its dimension."""
    titles = ["<br>".join(lines(text(n), 16)) for n in contributions]  # (narrow panels on a phone)
    fig = make_subplots(rows=1, cols=len(contributions), subplot_titles=titles)
    for column, (name, parts) in enumerate(contributions.items(), start=1):
        order = np.lexsort((np.arange(len(parts)), -parts))[:SHOWN]
        fig.add_trace(
            go.Bar(
                x=[f"dim {d}" for d in order],
                y=parts[order].astype(np.float32),
                marker={"color": PALETTE[column - 1], "pattern": {"shape": HATCHES[column - 1]}},
                name=text(name),
                showlegend=False,
                hovertemplate="%{x}<br>%{y:.5f} of the mean cosine<extra></extra>",
            ),
            row=1,
            col=column,
        )
        fig.update_xaxes(type="category", tickangle=-60, row=1, col=column)
    fig.update_yaxes(title_text="part of the mean cosine", row=1, col=1)
    fig.update_layout(title=title_style(title), height=400, margin={"l": 10, "r": 10, "t": 70, "b": 10})
    return fig


# The id axis in this many stretches: about the points a chart's width shows apart, where each of
# 30,522 rows as a marker of its own sent 340 kB and drew them over one another.
STRETCHES = 256


def stretch_lengths(
    lengths: np.ndarray, kinds: np.ndarray, kind: int, stretches: int = STRETCHES
) -> np.ndarray:
    """The rows of one kind, stretch by stretch of the id axis (``stretches`` equal stretches of
    it): for each stretch holding any, its first id, last id, number of rows, and their lengths'
    10th percentile, median and 90th percentile (a row each, float64)."""
    ids = np.flatnonzero(kinds == kind)
    if not ids.size:
        return np.empty((0, 6))
    stretch = ids * min(stretches, len(kinds)) // len(kinds)
    starts = np.flatnonzero(np.r_[True, np.diff(stretch) > 0])
    rows = []
    for members in np.split(ids, starts[1:]):
        low, middle, high = np.percentile(lengths[members], (10, 50, 90))
        rows.append((members[0], members[-1], members.size, low, middle, high))
    return np.array(rows, dtype=np.float64)


def lengths_by_id(lengths: np.ndarray, kinds: np.ndarray, names: Sequence[str], title: str) -> go.Figure:
    """The token rows' lengths along their ids, one colour and marker shape per part of the
    vocabulary's layout (``kinds`` indexes ``names``): in each of STRETCHES stretches of ids, the
    median length of that part's rows (a line), and a band from their 10th to 90th percentile."""
    fig = go.Figure()
    for kind, name in enumerate(names):
        shown = stretch_lengths(lengths, kinds, kind).astype(np.float32)  # (ids exact below 2**24)
        if not len(shown):
            continue
        colour, middle = PALETTE[kind % len(PALETTE)], (shown[:, 0] + shown[:, 1]) / 2
        band = {"x": middle, "mode": "lines", "line": {"width": 0}, "legendgroup": name, "hoverinfo": "skip"}
        fig.add_trace(go.Scatter(y=shown[:, 3], showlegend=False, **band))
        fig.add_trace(
            go.Scatter(y=shown[:, 5], fill="tonexty", fillcolor=_faint(colour), showlegend=False, **band)
        )
        fig.add_trace(
            go.Scatter(
                x=middle,
                y=shown[:, 4],
                customdata=shown[:, [0, 1, 2, 3, 5]],
                mode="lines+markers",
                name=text(f"{name} ({int(shown[:, 2].sum()):,})"),
                legendgroup=name,
                line={"color": colour, "width": 1.5},
                marker={"color": colour, "symbol": SYMBOLS[kind % len(SYMBOLS)], "size": 5},
                hovertemplate="ids %{customdata[0]:d} to %{customdata[1]:d}: %{customdata[2]:d} rows"
                "<br>median length %{y:.3f}<br>10% to 90%: %{customdata[3]:.3f} to %{customdata[4]:.3f}"
                "<extra>" + text(name) + "</extra>",
            )
        )
    fig.update_layout(
        title=title_style(title),
        height=420,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"title": "token id"},
        yaxis={"title": "length of the token row"},
        legend=LEGEND_BELOW,
    )
    return fig


def _faint(colour: str) -> str:
    """A '#rrggbb' colour at a fifth of its strength, for a band under its line."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red}, {green}, {blue}, 0.2)"
