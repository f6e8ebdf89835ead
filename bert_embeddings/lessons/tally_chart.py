"""A room's answers to one question as a chart (bert_embeddings.lessons.tally counts them): bars
for choices and pieces, a histogram for numbers. Until the answer is revealed, nothing on it says
which answer is right (the leader's screen is often the projector); after, the right bars are
green, hatched and named "(right)", and a number's answer is a dashed line with its value."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import numpy as np
import plotly.graph_objects as go

from bert_embeddings.figures.charts import BLUE, OKABE_ITO, text, title_style
from bert_embeddings.lessons import answers, tally
from bert_embeddings.models.glyphs import legible

RIGHT_COLOUR = OKABE_ITO["green"]


def heading(counted: tally.Counted) -> str:
    """The chart's title: how many answers it counts."""
    return f"The room's {counted.answered:,} answer{'' if counted.answered == 1 else 's'}"


def chart(counted: tally.Counted, truth: answers.Truth | None, ink: str) -> go.Figure | None:
    """The counts drawn; ``truth`` only once the answer is revealed. None when nobody answered
    (the page says so in words)."""
    if counted.answered == 0:
        return None
    if counted.kind == answers.NUMBER:
        return _numbers(counted, truth, ink)
    return _bars(counted, truth)


def _bars(counted: tally.Counted, truth: answers.Truth | None) -> go.Figure:
    right = set(truth.right) if truth is not None else set()
    names = [name for name, _ in counted.counts]
    is_right = [name in right for name in names]
    shown = [legible(str(name)) if counted.kind == answers.PIECE else str(name) for name in names]
    labels = [text(f"{s} (right)" if r else s) for s, r in zip(shown, is_right, strict=True)]
    fig = go.Figure(
        go.Bar(
            x=np.array([n for _, n in counted.counts], dtype=np.float32),
            y=labels,
            orientation="h",
            marker={
                "color": [RIGHT_COLOUR if r else BLUE for r in is_right],
                "pattern": {"shape": ["/" if r else "" for r in is_right]},
            },
            texttemplate="%{x:,}",
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{y}: %{x:,}<extra></extra>",
        )
    )
    fig.update_layout(
        title=title_style(heading(counted)),
        height=min(520, 90 + 34 * max(len(labels), 3)),
        margin={"l": 10, "r": 30, "t": 40, "b": 30},
        xaxis={"title": "answers", "rangemode": "tozero", "tickformat": ",d", "dtick": _tick(counted)},
        yaxis={"type": "category", "autorange": "reversed", "automargin": True},
        showlegend=False,
    )
    return fig


def _tick(counted: tally.Counted) -> int:
    """Whole answers on the axis, at most about six ticks."""
    most = max((n for _, n in counted.counts), default=1)
    return max(1, int(np.ceil(most / 6)))


MOST_NUMBER_BARS = 12  # distinct numbers drawn one bar each; more are binned


def _width(values: list[float]) -> float:
    """A bar's width: as wide as the closest two numbers allow, with gaps between, yet never
    thinner than a 40th of the numbers' span (two all but equal answers stay visible); one
    number alone is a fifth of its size wide (or 0.2)."""
    if len(values) == 1:
        return 0.2 * max(abs(values[0]), 1.0)
    span = values[-1] - values[0]
    return max(0.8 * min(b - a for a, b in pairwise(values)), span / 40)


def _numbers(counted: tally.Counted, truth: answers.Truth | None, ink: str) -> go.Figure:
    """One bar per number given (a histogram where more than 12 differ); once revealed, the
    numbers within the answer's margin green and hatched, and the answer a dashed line."""
    given = Counter(counted.numbers)
    axis = {"title": "the number given"}
    if len(given) <= MOST_NUMBER_BARS:
        values = sorted(given)
        right = [truth is not None and abs(v - truth.number) <= truth.within for v in values]
        trace = go.Bar(
            x=np.array(values, dtype=np.float64),
            y=np.array([given[v] for v in values], dtype=np.float32),
            marker={
                "color": [RIGHT_COLOUR if r else BLUE for r in right],
                "pattern": {"shape": ["/" if r else "" for r in right]},
                "line": {"color": ink, "width": 1},
            },
            texttemplate="%{y:,}",
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{x}: %{y:,}<extra></extra>",
        )
        trace.width = _width(values)
    else:
        trace = go.Histogram(
            x=np.array(counted.numbers, dtype=np.float64),
            marker={"color": BLUE, "line": {"color": ink, "width": 1}},
            hovertemplate="%{x}: %{y:,}<extra></extra>",
        )
    fig = go.Figure(trace)
    if truth is not None:
        fig.add_vline(x=truth.number, line={"color": RIGHT_COLOUR, "dash": "dash", "width": 3})
        axis["title"] = text(f"the number given (dashed: the answer, {answers.written_number(truth.number)})")
    most = max(given.values()) if len(given) <= MOST_NUMBER_BARS else counted.answered
    fig.update_layout(
        title=title_style(heading(counted)),
        height=260,
        margin={"l": 10, "r": 10, "t": 40, "b": 30},
        xaxis=axis,
        yaxis={"title": "answers", "rangemode": "tozero", "dtick": max(1, int(np.ceil(most / 5)))},
        bargap=0.1,
        showlegend=False,
    )
    return fig
