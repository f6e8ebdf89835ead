"""Pure figure builders: numpy arrays in, Plotly figures out. No Streamlit here.

Values go to Plotly as float32 numpy arrays, which it sends as compact typed arrays
rather than lists of Python floats. Token rows are labelled "position · piece", which is
unique even when a piece repeats (a categorical axis would merge repeated labels).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bert_embeddings.models.glyphs import legible


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


# Okabe and Ito's palette, told apart by readers with any common colour-vision deficiency.
# Series also differ by something other than colour: dashes for lines, hatching for bars,
# marker shapes for points.
OKABE_ITO = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "sky": "#56B4E9",
    "yellow": "#F0E442",
}
BLUE = OKABE_ITO["blue"]  # one bar or line, and the first of a set
# The order series take their colours in; yellow, faint on white, last.
PALETTE = tuple(OKABE_ITO[c] for c in ("blue", "vermillion", "green", "orange", "purple", "sky", "yellow"))
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
HATCHES = ("", "/", ".", "x", "-", "+")
SYMBOLS = ("circle", "square", "diamond", "x", "cross", "circle-open")  # all also drawn in 3-D
DIVERGING = "RdBu_r"
INK = {"light": "#111111", "dark": "#f0f0f0"}  # each theme's text colour, for marks drawn as text


def title_style(words: str, size: int = 16) -> dict:
    """Every figure's title, shown literally, at one size."""
    return {"text": text(words), "font": {"size": size}}  # blue below zero, white at zero, red above


SEGMENT_COLOURS = (OKABE_ITO["blue"], OKABE_ITO["orange"])
# A legend of series in a row at the foot of the figure (the margin grows to hold it), growing
# downwards as a narrow screen wraps it: above the plot, a wrapped legend ran into the title.
LEGEND_BELOW = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left")


def drawn_every(count: int, most: int) -> int:
    """Every how many of ``count`` rows or columns a figure draws one, so that at most ``most`` are
    drawn (0: no limit): 1 draws each. The figures and the captions that name the step share it."""
    return -(-count // most) if most else 1


def _rows_height(n_rows: int, per_row: int = 22, floor: int = 180, ceiling: int = 900) -> int:
    return int(min(ceiling, max(floor, 90 + per_row * n_rows)))


def stage_heatmap(
    values: np.ndarray, labels: Sequence[str], dims: range, title: str, max_columns: int = 0
) -> go.Figure:
    """One stage of the embedding layer: tokens on rows, hidden dimensions on columns (with
    ``max_columns``, every n-th dimension of a wider range, each value exact)."""
    step = drawn_every(len(dims), max_columns)
    z = np.ascontiguousarray(values[:, dims.start : dims.stop : step], dtype=np.float32)  # (tokens, dims)
    # A handful of outlier dimensions would otherwise wash every other cell out to white:
    # colours saturate at the 99th percentile of |value|; hover still shows exact values.
    limit = float(np.percentile(np.abs(z), 99)) if z.size else 1.0
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x0=dims.start,
            dx=step,
            y=texts(labels),
            colorscale=DIVERGING,
            zmin=-(limit or 1.0),
            zmax=limit or 1.0,
            colorbar={"thickness": 12, "len": 0.9},
            hovertemplate="piece %{y}<br>dimension %{x}<br>value %{z:.5f}<extra></extra>",
        )
    )
    fig.update_layout(
        title=title_style(title),
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
    fig = go.Figure(
        [
            go.Bar(
                name=text(name),
                x=texts(labels),
                y=np.asarray(values, dtype=np.float32),
                marker={"color": PALETTE[i % len(PALETTE)], "pattern": {"shape": HATCHES[i % len(HATCHES)]}},
            )
            for i, (name, values) in enumerate(series.items())
        ]
    )
    fig.update_layout(
        barmode="group",
        height=height,
        title=title_style(title),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"type": "category", "tickangle": -45},
        legend=LEGEND_BELOW,
    )
    return fig


def line_style(i: int) -> dict:
    """The i-th line's colour and dash: told apart by shape as well as by colour."""
    return {"color": PALETTE[i % len(PALETTE)], "dash": DASHES[i % len(DASHES)]}


# An unlabelled cosine map of more than this many rows is sent as colour levels, one byte a cell
# (LEVELS): at float32 a map of the 512 positions at every second one was 370 kB, and a screen
# shows its colours, not 65,536 numbers.
EXACT_SIDE = 64


def similarity_heatmap(
    matrix: np.ndarray, title: str, labels: Sequence[str] | None = None, max_cells: int = 0
) -> go.Figure:
    """A cosine-similarity matrix, -1 (blue) to 1 (red); labelled rows if given, else indices.

    With ``max_cells``, an unlabelled matrix larger than that on a side is drawn with every
    n-th row and column, at its own row and column number. Up to EXACT_SIDE rows drawn, hover
    gives each value exactly; beyond, the map is its colours (hover names the row and column)."""
    step = drawn_every(len(matrix), max_cells) if labels is None else 1
    shown = (
        {"x0": 0, "dx": step, "y0": 0, "dy": step}
        if labels is None
        else {"x": texts(labels), "y": texts(labels)}
    )
    values = matrix[::step, ::step]
    colorbar = {"thickness": 12, "title": {"text": "cosine"}}
    if labels is None and len(values) > EXACT_SIDE:
        ticks = np.linspace(-1, 1, 5)
        colorbar |= {
            "tickvals": colour_levels(ticks, 1.0).tolist(),
            "ticktext": [f"{t:g}".replace("-", "\u2212") for t in ticks],
        }
        z, low, high = colour_levels(values, 1.0), 0, LEVELS - 1
        hover = "%{y} · %{x}<extra></extra>"
    else:
        z, low, high = values.astype(np.float32), -1, 1
        hover = "%{y} · %{x}<br>cosine %{z:.3f}<extra></extra>"
    fig = go.Figure(
        go.Heatmap(
            z=z, **shown, colorscale=DIVERGING, zmin=low, zmax=high, colorbar=colorbar, hovertemplate=hover
        )
    )
    # Square cells: on a screen narrower than tall (a phone) the plot shrinks to a square rather
    # than the axes running past the matrix ("domain"); each labelled row and column named, on
    # both axes alike, however narrow (Plotly would otherwise name every other one).
    every = {"type": "category", "dtick": 1, "automargin": True} if labels is not None else {}
    fig.update_layout(
        title=title_style(title),
        height=460,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"constrain": "domain", **every},
        yaxis={"autorange": "reversed", "scaleanchor": "x", "constrain": "domain", **every},
    )
    return fig


# Colour fields sent as one byte a cell: the level of each value on its figure's colour scale.
LEVELS = 255


def colour_levels(values: np.ndarray, limit: float) -> np.ndarray:
    """Values as uint8 levels 0..LEVELS-1 over [-limit, limit] (clipped there): a quarter of the
    bytes of float32, and as many shades as the colour scale can show."""
    scaled = (np.clip(values, -limit, limit) + limit) / (2 * limit) * (LEVELS - 1)
    return np.rint(scaled).astype(np.uint8)


def layer_overview(
    stages: Sequence[tuple[str, np.ndarray]], labels: Sequence[str], exact: bool = True, max_columns: int = 0
) -> go.Figure:
    """Small heatmaps side by side: the lookups, their sum and the LayerNorm output.

    With ``exact=False`` each panel is a colour field only (one byte a cell, hover names the
    piece and dimension, not the value), and with ``max_columns`` every n-th dimension is drawn
    so that a panel has at most that many columns: light enough for long inputs."""
    fig = make_subplots(
        rows=1,
        cols=len(stages),
        # (five panels side by side on a phone are 60 px each: a name wraps, about a word a line)
        subplot_titles=["<br>".join(lines(text(name), 10)) for name, _ in stages],
        shared_yaxes=True,
        horizontal_spacing=0.025,
    )
    for col, (_, values) in enumerate(stages, start=1):
        step = drawn_every(values.shape[1], max_columns)
        values = values[:, ::step]
        # Each stage on its own symmetric scale: the raw rows are far smaller than the output.
        limit = float(np.max(np.abs(values))) or 1.0
        if exact:
            z, low, high = values.astype(np.float32), -limit, limit
            hover = "%{y}<br>dimension %{x}<br>%{z:.4f}<extra></extra>"
        else:
            z, low, high = colour_levels(values, limit), 0, LEVELS - 1
            hover = "%{y}<br>dimension %{x}<extra></extra>"
        fig.add_trace(
            go.Heatmap(
                z=z,
                x0=0,
                dx=step,
                y=texts(labels),
                colorscale=DIVERGING,
                zmin=low,
                zmax=high,
                showscale=False,
                hovertemplate=hover,
            ),
            1,
            col,
        )
    fig.update_annotations(font_size=11)  # (the panels' names, side by side on a phone)
    fig.update_yaxes(type="category", autorange="reversed", automargin=True)
    fig.update_xaxes(showticklabels=False)
    fig.update_layout(
        height=_rows_height(len(labels), per_row=30, floor=220), margin={"l": 10, "r": 10, "t": 60, "b": 10}
    )
    return fig


def neighbour_bars(pieces: Sequence[str], scores: np.ndarray, title: str) -> go.Figure:
    """Ranked neighbours as horizontal bars, the best at the top."""
    labels = [f"{rank}. {text(legible(piece))}" for rank, piece in enumerate(pieces, start=1)]
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
        title=title_style(title),
        height=_rows_height(len(labels), per_row=24, floor=220, ceiling=2400),
        margin={"l": 10, "r": 10, "t": 40, "b": 30},
        xaxis={"title": "cosine similarity"},
        yaxis={"type": "category", "autorange": "reversed", "automargin": True},
    )
    return fig


# Each chart's toolbar keeps what a reader needs: download, zoom, pan, reset (four Tab stops
# instead of eight or more). The pages and a lesson's handout draw with it.
#
# The camera downloads the chart as an SVG: vector, so it stays sharp at any size on a slide or a
# projector. A button beside it downloads a PNG, for tools that take no SVG: plotly.js has a
# single download button (toImage, its format from toImageButtonOptions), so figures/toolbar.py
# adds the PNG.
# No width, height or scale: plotly.js then draws the file at the chart's size on screen, and with
# the layout the browser shows (the Streamlit theme's colours, light or dark; presenter mode's
# larger text). The camera's tooltip, in plotly.js's own words "Download plot" for any format but
# PNG, names the format (its locale dictionary).
DOWNLOAD_FORMAT = "svg"
DOWNLOAD_TITLE = "Download plot as an SVG (vector image)"
CHART_CONFIG = {
    "displaylogo": False,
    "showSendToCloud": False,  # (plotly.js's "Share chart" to its cloud: Streamlit's pages hide it too)
    "toImageButtonOptions": {"format": DOWNLOAD_FORMAT},
    "locales": {"en": {"dictionary": {"Download plot": DOWNLOAD_TITLE}}},
    "modeBarButtonsToRemove": [
        "select2d",
        "lasso2d",
        "zoomIn2d",
        "zoomOut2d",
        "autoScale2d",
        "resetCameraLastSave3d",
    ],
}


# A chart's title does not wrap by itself, and on a phone a chart is about 350 px wide: a longer
# title is cut at the edge. One longer than this many characters is drawn on two lines or more.
TITLE_WIDTH = 44
LINE_PX = 22  # the top margin grows by one line of a title's text for each line it gains


def lines(words: str, width: int) -> list[str]:
    """``words`` on lines of at most ``width`` characters, broken between words only."""
    return textwrap.wrap(words, width, break_long_words=False, break_on_hyphens=False) or [words]


def finish(fig: go.Figure) -> go.Figure:
    """The last touch every figure gets before it is drawn: series without a colour of their
    own take the palette's colours in turn, and a long title wraps (its top margin grows to
    hold it, the title pinned to the top)."""
    title = fig.layout.title.text
    if title and "<br>" not in title and len(title) > TITLE_WIDTH:
        wrapped = lines(title, TITLE_WIDTH)
        fig.layout.title.update(text="<br>".join(wrapped), y=1, yanchor="top", pad={"t": 10})
        if fig.layout.margin.t is not None:
            fig.layout.margin.t += LINE_PX * (len(wrapped) - 1)
    return fig.update_layout(colorway=PALETTE)


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
