"""How long a t-SNE map's computation has left: from what each of its stages costs.

The stages cost very different things: the exact neighbours grow with rows squared times the
table's width, the layout with rows times iterations, and a layout iteration gets dearer as
the map spreads out (openTSNE's FFT grid grows with the map's extent: on the bundled model
the last tenth of the layout's iterations takes about six times as long as the first). A
share of the whole fixed per stage, or a straight line through the iterations, ran two to
three times low for that reason.

So the forecast (1) predicts each stage's seconds from a cost model measured on this kind of
2-core machine (bench.maps prints the stage times it is checked against), (2) scales every
prediction by how fast this machine has really been so far, and (3) within the layout, fits
the cost per iteration as a straight line in the iteration (it grows), from the iterations
already done, and extrapolates it to the end.
"""

from __future__ import annotations

from dataclasses import dataclass

# Seconds for 30,522 rows on the reference machine, and how they scale (see predicted_seconds).
_NEIGHBOURS_FIXED_S, _NEIGHBOURS_PER_WIDTH_S = 4.9, 0.0096
_AFFINITIES_S, _EARLY_S, _LAYOUT_S, _FAITHFULNESS_S = 0.8, 5.5, 37.0, 0.7
_REFERENCE_ROWS, _REFERENCE_NEIGHBOURS, _REFERENCE_EARLY, _REFERENCE_LAYOUT = 30522, 90, 250, 500
# The layout's cost per iteration at its start and end, as shares of its mean (bundled model).
_LAYOUT_RATE_START, _LAYOUT_RATE_GROWTH = 0.125, 1.75


@dataclass(frozen=True)
class Shape:
    """What decides a computation's cost: the table's size and the map's settings."""

    rows: int
    width: int
    neighbours: int
    early: int  # iterations with early exaggeration
    later: int  # iterations without


@dataclass(frozen=True)
class Step:
    """One progress report: the stage (its index), how much of it is done, seconds since start."""

    stage: int
    fraction: float
    elapsed: float


def predicted_seconds(shape: Shape) -> tuple[float, ...]:
    """Each stage's seconds on the reference machine."""
    scale = shape.rows / _REFERENCE_ROWS
    return (
        scale**2 * (_NEIGHBOURS_FIXED_S + _NEIGHBOURS_PER_WIDTH_S * shape.width),
        scale * _AFFINITIES_S * shape.neighbours / _REFERENCE_NEIGHBOURS,
        scale * _EARLY_S * shape.early / _REFERENCE_EARLY,
        scale * _LAYOUT_S * shape.later / _REFERENCE_LAYOUT,
        scale * _FAITHFULNESS_S,
    )


LAYOUT = 3  # the stage whose cost per iteration grows


def _share_done(stage: int, fraction: float, rate: tuple[float, float] | None = None) -> float:
    """The share of a stage's seconds spent when ``fraction`` of its work is done."""
    if stage != LAYOUT:
        return fraction
    start, growth = rate or (_LAYOUT_RATE_START, _LAYOUT_RATE_GROWTH)
    return (start * fraction + growth * fraction**2 / 2) / (start + growth / 2)


def _layout_rate(steps: list[Step]) -> tuple[float, float] | None:
    """The layout's seconds per unit of fraction, as a line ``a + b f`` fitted to the reports so
    far (at least three intervals), growth never negative; None before that."""
    points = [s for s in steps if s.stage == LAYOUT]
    pairs = [(a, b) for a, b in zip(points, points[1:], strict=False) if b.fraction > a.fraction]
    if len(pairs) < 3:
        return None
    xs = [(a.fraction + b.fraction) / 2 for a, b in pairs]
    ys = [(b.elapsed - a.elapsed) / (b.fraction - a.fraction) for a, b in pairs]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    growth = max(0.0, sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread)
    return mean_y - growth * mean_x, growth


def _expected(step: Step, predicted: tuple[float, ...]) -> float:
    """Seconds the reference machine would have spent by this report."""
    return sum(predicted[: step.stage]) + predicted[step.stage] * _share_done(step.stage, step.fraction)


def seconds_left(steps: list[Step], shape: Shape) -> float | None:
    """Seconds until the map is done, from the reports so far (oldest first); None before the
    first report."""
    if not steps:
        return None
    now = steps[-1]
    predicted = predicted_seconds(shape)
    began = {s.stage: s.elapsed for s in reversed(steps)}  # the first report of each stage
    # this stage's own start: the first report of it, less its share done by then
    stage_start = began.get(now.stage, now.elapsed)
    fitted = _layout_rate(steps) if now.stage == LAYOUT else None
    if fitted is not None:
        start, growth = fitted
        left_here = start * (1 - now.fraction) + growth * (1 - now.fraction**2) / 2
        spent_here = now.elapsed - stage_start
    else:
        done_here = _share_done(now.stage, now.fraction)
        spent_here = now.elapsed - stage_start
        left_here = (
            spent_here / done_here * (1 - done_here) if done_here > 0.05 and spent_here > 0.5 else None
        )
    # How fast this machine is, against the reference: the work done since the first report
    # (before it, start-up costs would swamp it), once a second of predicted work is done.
    expected = _expected(now, predicted) - _expected(steps[0], predicted)
    speed = (now.elapsed - steps[0].elapsed) / expected if expected > 1 else 1.0
    if left_here is None:
        left_here = speed * predicted[now.stage] * (1 - _share_done(now.stage, now.fraction))
    return max(0.0, left_here + speed * sum(predicted[now.stage + 1 :]))
