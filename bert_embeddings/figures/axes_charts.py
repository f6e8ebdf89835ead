"""Words placed on the reader's own axes, as points: one axis a dot plot, two a scatter, three a
3-D scatter. Numpy arrays in, Plotly figures out; no Streamlit here (see charts.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from bert_embeddings.figures.charts import OKABE_ITO, gl_texts, text, texts, title_style

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
