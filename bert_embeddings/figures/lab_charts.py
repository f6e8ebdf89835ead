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


def lengths_by_id(lengths: np.ndarray, kinds: np.ndarray, names: Sequence[str], title: str) -> go.Figure:
    """Each token row's length against its id, one marker shape and colour per part of the
    vocabulary's layout (``kinds`` indexes ``names``)."""
    fig = go.Figure()
    for kind, name in enumerate(names):
        ids = np.flatnonzero(kinds == kind).astype(np.int32)
        if not ids.size:
            continue
        fig.add_trace(
            go.Scattergl(
                x=ids,
                y=lengths[ids].astype(np.float32),
                mode="markers",
                name=text(f"{name} ({ids.size:,})"),
                marker={
                    "color": PALETTE[kind % len(PALETTE)],
                    "symbol": SYMBOLS[kind % len(SYMBOLS)],
                    "size": 4,
                },
                hovertemplate="id %{x}<br>length %{y:.3f}<extra>" + text(name) + "</extra>",
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
