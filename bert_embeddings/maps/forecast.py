"""How long a t-SNE map's computation has left: from what each of its stages costs.

The stages cost very different things: the exact neighbours grow with rows squared times the
table's width, the layout with rows times iterations, and a layout iteration gets dearer as
the map spreads out (openTSNE's FFT grid grows with the map's extent). How far a map spreads
depends on the table: on the bundled model the layout took 37 s and its last tenth of
iterations six times as long as its first; on a random table of bert-base's shape 12 s, at a
nearly even pace. A share of the whole fixed per stage, or a straight line through the
iterations, ran two to three times low for that reason.

So the forecast (1) predicts each stage's seconds from a cost model measured on this kind of
2-core machine (bench.maps prints the stage times, and how the time left it showed compares
with the truth); (2) scales the predictions by how fast this machine has really been so far;
(3) until the layout's own pace is known, gives a range, from a layout like the random
table's to one like a real vocabulary's; (4) within the layout, fits the cost per iteration
as a straight line in the iteration from the iterations done, and extrapolates it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bert_embeddings.jobs import progress

# Seconds for 30,522 rows on the reference machine, and how they scale (see predicted_seconds).
# (The neighbours' stage includes the layout's start, the table's last whole read.)
_NEIGHBOURS_FIXED_S, _NEIGHBOURS_PER_WIDTH_S = 1.8, 0.0048
_AFFINITIES_S, _EARLY_S, _FAITHFULNESS_S, _REGIONS_S = 0.5, 5.5, 0.7, 0.35
# What the map's worker holds besides its table and products: Python, numpy, openTSNE and
# scikit-learn loaded, the lists and the layout (measured: 870 MB in all for 119,547 x 768).
_WORKER_MB = 190
_REFERENCE_ROWS, _REFERENCE_NEIGHBOURS, _REFERENCE_EARLY, _REFERENCE_LAYOUT = 30522, 90, 250, 500


@dataclass(frozen=True)
class LayoutProfile:
    """What a layout of 500 iterations costs, and its cost per iteration at its start and its
    growth to the end, as shares of its mean (``start + growth * f`` at fraction f)."""

    seconds: float
    start: float
    growth: float


EVEN = LayoutProfile(12.2, 0.6, 0.8)  # a random table of bert-base's shape
SPREADING = LayoutProfile(37.0, 0.125, 1.75)  # the bundled model's vocabulary


@dataclass(frozen=True)
class Shape:
    """What decides a computation's cost: the table's size and the map's settings."""

    rows: int
    width: int
    neighbours: int
    early: int  # iterations with early exaggeration
    later: int  # iterations without

    @staticmethod
    def of(rows: int, width: int, settings) -> Shape:
        """A map of a (rows, width) table with neighbour_map.Settings ``settings``."""
        return Shape(rows, width, settings.neighbours, settings.early, settings.iterations - settings.early)


@dataclass(frozen=True)
class Step:
    """One progress report: the stage (its index), how much of it is done, seconds since start."""

    stage: int
    fraction: float
    elapsed: float


# Seconds left: a range until the layout's own pace is known, then low == high.
TimeLeft = progress.TimeLeft


LAYOUT = 3  # the stage whose cost per iteration depends on the table


def predicted_seconds(shape: Shape, layout: LayoutProfile) -> tuple[float, ...]:
    """Each stage's seconds on the reference machine, with a layout like ``layout``'s."""
    scale = shape.rows / _REFERENCE_ROWS
    return (
        scale**2 * (_NEIGHBOURS_FIXED_S + _NEIGHBOURS_PER_WIDTH_S * shape.width),
        scale * _AFFINITIES_S * shape.neighbours / _REFERENCE_NEIGHBOURS,
        scale * _EARLY_S * shape.early / _REFERENCE_EARLY,
        scale * layout.seconds * shape.later / _REFERENCE_LAYOUT,
        scale * _FAITHFULNESS_S,
        scale * _REGIONS_S,
    )


def _share_done(stage: int, fraction: float, layout: LayoutProfile) -> float:
    """The share of a stage's seconds spent when ``fraction`` of its work is done."""
    if stage != LAYOUT:
        return fraction
    return (layout.start * fraction + layout.growth * fraction**2 / 2) / (layout.start + layout.growth / 2)


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


def _expected(step: Step, predicted: tuple[float, ...], layout: LayoutProfile) -> float:
    """Seconds the reference machine would have spent by this report."""
    return sum(predicted[: step.stage]) + predicted[step.stage] * _share_done(
        step.stage, step.fraction, layout
    )


def _speed(steps: list[Step], predicted: tuple[float, ...], layout: LayoutProfile) -> float:
    """How much slower than the reference this machine has been: over the work since the first
    report (before it, start-up costs would swamp it), once a second of predicted work is done."""
    expected = _expected(steps[-1], predicted, layout) - _expected(steps[0], predicted, layout)
    return (steps[-1].elapsed - steps[0].elapsed) / expected if expected > 1 else 1.0


def _left(steps: list[Step], shape: Shape, layout: LayoutProfile) -> float:
    """Seconds left if the layout is like ``layout``."""
    now = steps[-1]
    predicted = predicted_seconds(shape, layout)
    first_of_stage = next(s.elapsed for s in steps if s.stage == now.stage)
    spent_here = now.elapsed - first_of_stage
    done_here = _share_done(now.stage, now.fraction, layout)
    speed = _speed(steps, predicted, layout)
    if done_here > 0.05 and spent_here > 0.5:
        left_here = spent_here / done_here * (1 - done_here)
    else:
        left_here = speed * predicted[now.stage] * (1 - done_here)
    return max(0.0, left_here + speed * sum(predicted[now.stage + 1 :]))


def seconds_left(steps: list[Step], shape: Shape) -> TimeLeft | None:
    """Seconds until the map is done, from the reports so far (oldest first); None before the
    first report."""
    if not steps:
        return None
    now = steps[-1]
    fitted = _layout_rate(steps) if now.stage == LAYOUT else None
    if now.stage < LAYOUT or (now.stage == LAYOUT and fitted is None):
        low, high = sorted((_left(steps, shape, EVEN), _left(steps, shape, SPREADING)))
        return TimeLeft(low, high)
    # The stages after the layout take a second or so: the pace up to the layout's start (where
    # the two profiles agree) scales their prediction.
    predicted = predicted_seconds(shape, EVEN)
    speed = _speed([s for s in steps if s.stage < LAYOUT] or steps[:1], predicted, EVEN)
    if now.stage > LAYOUT:
        left = speed * (sum(predicted[now.stage :]) - predicted[now.stage] * now.fraction)
    else:
        start, growth = fitted
        left_here = start * (1 - now.fraction) + growth * (1 - now.fraction**2) / 2
        left = max(0.0, left_here) + speed * sum(predicted[LAYOUT + 1 :])
    return TimeLeft(left, left)


def whole(steps: list[Step], shape: Shape) -> tuple[float, TimeLeft | None]:
    """(share of the whole map done, its time left or None) from the reports so far: the share
    is the time spent against the time spent and the middle of the time left."""
    left = seconds_left(steps, shape)
    if left is None:
        return 0.0, None
    elapsed, middle = steps[-1].elapsed, (left.low + left.high) / 2
    return (min(elapsed / (elapsed + middle), 1.0) if elapsed + middle > 0 else 0.0), left


def before_start(shape: Shape, pace: float = 1.0) -> TimeLeft:
    """The whole map's seconds on a machine ``pace`` times as slow as the reference, before it
    starts: from a layout like the random table's to one like a real vocabulary's."""
    low, high = sorted(pace * sum(predicted_seconds(shape, profile)) for profile in (EVEN, SPREADING))
    return TimeLeft(low, high)


def pace(shape: Shape, seconds: float) -> float:
    """How many times the reference machine's time a whole map of ``shape`` took (against the
    middle of the range before_start gives)."""
    expected = before_start(shape)
    return seconds / ((expected.low + expected.high) / 2)


def peak_mb(shape: Shape, threads: int = 2) -> float:
    """The map worker's peak memory in MB: its table, the products held at once by the exact
    neighbours (bert_embeddings.maps.knn: ``threads`` blocks, 5 bytes a pair), the candidates
    they hand on, and the rest."""
    from bert_embeddings.maps.knn import SAMPLE_STEP, block_rows

    products = block_rows(shape.rows, threads) * shape.rows * 5 * threads
    # Candidates handed on to later blocks: about SAMPLE_STEP times k a row, a quarter of them
    # held at the middle of the run, 12 bytes each.
    handed_on = shape.rows * SAMPLE_STEP * max(shape.neighbours, 10) / 4 * 12
    return _WORKER_MB + (shape.rows * shape.width * 4 + products + handed_on) / 1e6
