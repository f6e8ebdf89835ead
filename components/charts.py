"""Pure figure builders: numpy arrays in, Plotly figures out. No Streamlit here.

Values go to Plotly as float32 numpy arrays, which it sends as compact typed arrays
rather than lists of Python floats. Token rows are labelled "position · piece", which is
unique even when a piece repeats (a categorical axis would merge repeated labels).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots


def text(value: object) -> str:
    """A label, name or title as Plotly shows it literally.

    Plotly reads a subset of HTML in every label (``<a href>``, ``<b>``, ``<br>``) and hands
    text between dollar signs to MathJax; entities it decodes back to the characters. Every
    string that comes from a person, a link or a vocabulary goes through here."""
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("$", "&#36;")


def texts(values: Sequence[object]) -> list[str]:
    return [text(v) for v in values]


def gl_texts(values: Sequence[object]) -> list[str]:
    """Labels drawn by WebGL (3-D text, Scattergl text), shown literally.

    WebGL text knows a few tags (``<b>``, ``<i>``, ``<sub>``, ``<sup>``, ``<br>``) but decodes
    no entities, so instead of an entity, an invisible WORD JOINER after every '<' keeps a tag
    from being recognised."""
    return [str(v).replace("<", "<\u2060") for v in values]


@functools.lru_cache(maxsize=4)
def _vocabulary_texts(pieces: tuple[str, ...]) -> np.ndarray:
    """A vocabulary's pieces made literal once per model (the tuple is the cached index's own)."""
    return np.asarray(texts(pieces), dtype=object)


BLUE = "#4c78a8"  # one bar or line, and the first of a set
DIVERGING = "RdBu_r"


def _title(words: str, size: int = 16) -> dict:
    """Every figure's title, shown literally, at one size."""
    return {"text": text(words), "font": {"size": size}}  # blue below zero, white at zero, red above


SEGMENT_COLOURS = (BLUE, "#f58518")


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
            y=texts(labels),
            colorscale=DIVERGING,
            zmin=-(limit or 1.0),
            zmax=limit or 1.0,
            colorbar={"thickness": 12, "len": 0.9},
            hovertemplate="piece %{y}<br>dimension %{x}<br>value %{z:.5f}<extra></extra>",
        )
    )
    fig.update_layout(
        title=_title(title),
        height=_rows_height(len(labels)),
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
        xaxis={"title": "dimension"},
        yaxis={"type": "category", "autorange": "reversed", "automargin": True},
    )
    return fig


def token_bars(
    labels: Sequence[str], series: dict[str, np.ndarray], title: str, height: int = 320
) -> go.Figure:
    """One group of bars per token, one bar per named series."""
    colours = (BLUE, "#e45756", "#54a24b", "#f58518")
    fig = go.Figure(
        [
            go.Bar(
                name=text(name),
                x=texts(labels),
                y=np.asarray(values, dtype=np.float32),
                marker_color=colours[i % 4],
            )
            for i, (name, values) in enumerate(series.items())
        ]
    )
    fig.update_layout(
        barmode="group",
        height=height,
        title=_title(title),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"type": "category", "tickangle": -45},
        legend={"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right", "yanchor": "bottom"},
    )
    return fig


def token_statistics(labels: Sequence[str], mean: np.ndarray, std: np.ndarray) -> go.Figure:
    """Per-token mean and standard deviation of the summed vector, before LayerNorm."""
    return token_bars(
        labels,
        {"mean": mean, "standard deviation": std},
        "What LayerNorm subtracts (mean) and divides by (std), per token",
    )


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
            )
            for name, values in series.items()
        ]
    )
    fig.update_layout(
        title=_title(title),
        height=height,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"title": x_title},
        yaxis={"title": y_title},
        legend={"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right", "yanchor": "bottom"},
    )
    return fig


def similarity_heatmap(matrix: np.ndarray, title: str, labels: Sequence[str] | None = None) -> go.Figure:
    """A cosine-similarity matrix, -1 (blue) to 1 (red); labelled rows if given, else indices."""
    fig = go.Figure(
        go.Heatmap(
            z=matrix.astype(np.float32),
            x=texts(labels) if labels is not None else None,
            y=texts(labels) if labels is not None else None,
            colorscale=DIVERGING,
            zmin=-1,
            zmax=1,
            colorbar={"thickness": 12, "title": {"text": "cosine"}},
            hovertemplate="%{y} · %{x}<br>cosine %{z:.3f}<extra></extra>",
        )
    )
    fig.update_layout(
        title=_title(title),
        height=460,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        yaxis={"autorange": "reversed", "scaleanchor": "x"},
    )
    return fig


def toy_space(names: Sequence[str], vectors: np.ndarray, dimensions: Sequence[str]) -> go.Figure:
    """Toy items as arrows from the origin in a 3-D space with named axes."""
    fig = go.Figure()
    for name, (x, y, z) in zip(names, vectors.tolist(), strict=True):
        fig.add_trace(
            go.Scatter3d(
                x=[0, x],
                y=[0, y],
                z=[0, z],
                mode="lines+markers+text",
                name=text(name),
                text=["", *gl_texts([name])],
                marker={"size": [0, 5]},
                line={"width": 5},
                hovertext=["origin", f"{text(name)}<br>({x:g}, {y:g}, {z:g})"],
                hoverinfo="text",
            )
        )
    fig.update_layout(
        height=520,
        margin={"l": 0, "r": 0, "t": 30, "b": 0},
        showlegend=False,
        scene={
            f"{axis}axis": {"title": {"text": text(d)}} for axis, d in zip("xyz", dimensions, strict=True)
        },
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
    fig.update_xaxes(title_text="dimension", row=2, col=1)
    fig.update_layout(
        height=380,
        showlegend=False,
        title=_title("LayerNorm's learned gamma and beta"),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig


def layer_overview(stages: Sequence[tuple[str, np.ndarray]], labels: Sequence[str]) -> go.Figure:
    """Small heatmaps side by side: the lookups, their sum and the LayerNorm output."""
    fig = make_subplots(
        rows=1,
        cols=len(stages),
        subplot_titles=[text(name) for name, _ in stages],
        shared_yaxes=True,
        horizontal_spacing=0.025,
    )
    for col, (_, values) in enumerate(stages, start=1):
        # Each stage on its own symmetric scale: the raw rows are far smaller than the output.
        limit = float(np.max(np.abs(values))) or 1.0
        fig.add_trace(
            go.Heatmap(
                z=values.astype(np.float32),
                y=texts(labels),
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
    labels = [f"{rank}. {text(piece)}" for rank, piece in enumerate(pieces, start=1)]
    fig = go.Figure(
        go.Bar(
            x=scores.astype(np.float32),
            y=labels,
            orientation="h",
            marker_color=BLUE,
            hovertemplate="%{y}<br>cosine %{x:.4f}<extra></extra>",
        )
    )
    fig.update_layout(
        title=_title(title),
        height=_rows_height(len(labels), per_row=24, floor=220, ceiling=2400),
        margin={"l": 10, "r": 10, "t": 40, "b": 30},
        xaxis={"title": "cosine similarity"},
        yaxis={"type": "category", "autorange": "reversed", "automargin": True},
    )
    return fig


# --- PCA maps ------------------------------------------------------------------------------

KIND_COLOURS = (BLUE, "#f58518", "#9d9d9d", "#54a24b", "#b279a2")
STAGE_COLOURS = (BLUE, "#72b7b2", "#f58518", "#e45756")


def _axis_title(component: int, ratio: float) -> str:
    return f"PC{component + 1} ({ratio:.1%} of variance)"


def _scatter(coords: np.ndarray, axes: tuple[int, ...], **trace) -> go.Scattergl | go.Scatter3d:
    """A WebGL scatter of the chosen components: 2-D Scattergl or 3-D Scatter3d."""
    xyz = {
        name: np.ascontiguousarray(coords[:, a], dtype=np.float32)
        for name, a in zip("xyz", axes, strict=False)
    }
    return go.Scatter3d(**xyz, **trace) if len(axes) == 3 else go.Scattergl(**xyz, **trace)


def _label(
    fig: go.Figure, coords: np.ndarray, axes: tuple[int, ...], labels: Sequence[str], colour: str
) -> None:
    """Text labels for a few points. In 2-D they are layout annotations: WebGL draws above
    SVG traces but below annotations, so only annotations stay readable over the cloud."""
    if len(axes) == 3:
        return  # Scatter3d draws its own text (mode "markers+text")
    for (x, y), label in zip(coords[:, list(axes)].tolist(), labels, strict=True):
        fig.add_annotation(
            x=x, y=y, text=label, showarrow=False, yshift=11, font={"size": 12, "color": colour}
        )


def _map_layout(
    fig: go.Figure, axes: tuple[int, ...], ratios: np.ndarray, title: str, height: int = 640
) -> None:
    titles = [_axis_title(a, float(ratios[a])) for a in axes]
    if len(axes) == 3:
        fig.update_layout(
            scene={f"{n}axis": {"title": {"text": t}} for n, t in zip("xyz", titles, strict=True)}
        )
    else:
        fig.update_layout(xaxis={"title": titles[0]}, yaxis={"title": titles[1]})
    fig.update_layout(
        title=_title(title),
        height=height,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        legend={"itemsizing": "constant"},
    )


def vocabulary_map(
    coords: np.ndarray,
    pieces: Sequence[str],
    kinds: np.ndarray,
    axes: tuple[int, ...],
    ratios: np.ndarray,
    shown_kinds: Sequence[int],
    highlights: Sequence[tuple[str, np.ndarray, str]] = (),
) -> go.Figure:
    """Every vocabulary row projected on two or three components, coloured by kind of piece.

    ``highlights`` are (name, ids, colour) drawn on top with their pieces as labels.
    Each point's piece is sent once, in the trace of its kind.
    """
    from bert_embeddings.vocab_search import KINDS

    fig = go.Figure()
    labels = _vocabulary_texts(tuple(pieces))  # for hover and 2-D annotations (SVG)
    size = 2 if len(axes) == 3 else 3
    for kind in shown_kinds:
        rows = np.flatnonzero(kinds == kind)
        fig.add_trace(
            _scatter(
                coords[rows],
                axes,
                mode="markers",
                name=KINDS[kind],
                marker={"size": size, "color": KIND_COLOURS[kind], "opacity": 0.5},
                hovertext=labels[rows].tolist(),
                hoverinfo="text",
            )
        )
    for name, ids, colour in highlights:
        ids = np.asarray(ids, dtype=np.int64)
        show_text = len(ids) <= 60  # beyond that, labels would only cover each other
        fig.add_trace(
            _scatter(
                coords[ids],
                axes,
                mode="markers+text" if show_text and len(axes) == 3 else "markers",
                name=text(name),
                text=gl_texts([pieces[i] for i in ids]) if show_text else None,
                marker={
                    "size": 9 if len(axes) == 2 else 5,
                    "color": colour,
                    "line": {"width": 1, "color": "white"},
                },
                hovertext=labels[ids].tolist(),
                hoverinfo="text",
            )
        )
        if show_text:
            _label(fig, coords[ids], axes, labels[ids].tolist(), colour)
    _map_layout(fig, axes, ratios, f"The whole vocabulary ({len(pieces):,} pieces)")
    return fig


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
            x=[f"PC{i}" for i in range(1, len(ratios) + 1)],
            y=ratios.astype(np.float32),
            marker_color=BLUE,
            hovertemplate="%{x}: %{y:.2%}<extra></extra>",
        )
    )
    fig.update_layout(
        title=_title(title, 14),
        height=220,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        yaxis={"tickformat": ".1%"},
    )
    return fig


def enlarge(fig: go.Figure, scale: float) -> go.Figure:
    """A copy of ``fig`` for a projector: every text size and the height times ``scale``."""
    fig = go.Figure(fig)
    size = (fig.layout.font.size or 12) * scale  # Plotly's default text size is 12
    fig.update_layout(font={"size": size}, hoverlabel={"font": {"size": size}})
    if fig.layout.title.text:
        fig.layout.title.font.size = (fig.layout.title.font.size or 17) * scale
    for note in fig.layout.annotations:  # subplot titles and map labels
        note.font.size = (note.font.size or 12) * scale
    if fig.layout.height:
        fig.layout.height = round(fig.layout.height * scale)
    return fig
