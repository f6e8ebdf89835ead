"""Every row's exact nearest cosine neighbours, from half the products a plain search needs.

cos(i, j) = cos(j, i), so each pair's float32 product is computed once: block I of rows is
multiplied by the rows from its own first row on, and that product lists candidates both for
block I's rows and, read the other way, for every later row. The products are of the rows as
they are, each scaled by its length's inverse, so the table is not copied (only a table of
extreme values is scaled in a copy first). The lists stay exact:

1. a floor per row: the k-th best float32 cosine with every SAMPLE_STEP-th row (one
   sixteenth of the products; every DENSE_STEP-th for lists of DENSE_FROM_K or more, whose
   floor from a sparser sample would let too many candidates through), less the rounding
   slack. The row's exact k-th best is at least that sample's, so each of its true
   neighbours scores at or above the floor in any float32 product, whichever block computed
   it;
2. the products, a block at a time (``threads`` blocks at once, one BLAS thread each): every
   pair at or above either row's floor is a candidate, kept until the row's block is reached;
3. per row, the candidates within the slack of their own k-th best are summed again in
   float64 from the rows as cosine.unit_rows makes them, in numpy's one fixed order; those
   sums decide, ties by the lower id.

The result is bit for bit what a row-by-row search over every column gives, whatever the
thread count or the CPU's BLAS kernels: the float32 products only ever pick a superset.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import cosine

Progress = Callable[[str, float], None]  # (stage, fraction of that stage done)
STAGE = "exact neighbours"
SAMPLE_STEP = 16  # the columns a floor is taken from: every 16th row
# Long lists (What moved's, k = 100) sample every 8th row: the k-th best of every 16th row is
# about the 1,600th best of all, and each candidate above it costs more to hand on and sort than
# the twice as many products of the denser sample (as measured on the bundled model).
DENSE_STEP, DENSE_FROM_K = 8, 50


def sample_step(k: int) -> int:
    """Every how many rows the floor's sample takes for lists of k."""
    return min(SAMPLE_STEP, DENSE_STEP) if k >= DENSE_FROM_K else SAMPLE_STEP


def quiet(stage: str, fraction: float) -> None:
    pass


def exact_neighbours(
    table: np.ndarray, k: int, block: int = 0, threads: int = 1, progress: Progress = quiet
) -> tuple[np.ndarray, np.ndarray]:
    """For every row, its k most cosine-similar other rows: ids (n, k) int32, best first (ties
    by the lower id), and their cosines (n, k) float32, summed in float64. ``block`` rows are
    multiplied at a time (0: as many as keep the products held at once within PRODUCTS_MB)."""
    rows = Rows.of(table)
    n, hidden = rows.table.shape
    block = block or block_rows(n, threads)
    k = min(k, n - 1)
    ids, sims = np.empty((n, k), dtype=np.int32), np.empty((n, k), dtype=np.float32)
    if k < 1:
        return ids, sims
    # A float32 dot product of two rows is within hidden * 2**-24 of the exact value, in units
    # of the rows' lengths; the lengths themselves (float32 sums, in the scale here and in
    # cosine.unit_rows, for both rows) and the scaling round about as much again, plus a few
    # units (ERROR_ULPS). The k-th best and a candidate can each be that far off, so keep
    # everything within twice it.
    slack = np.float32(2 * (2 * hidden + ERROR_ULPS) * 2.0**-24)
    progress(STAGE, 0.0)
    rows = rows.with_units()
    floor = _floors(rows, k, block, threads) - slack

    def products(start: int) -> tuple:
        stop = min(n, start + block)
        scores = rows.scaled(start, stop) @ rows.table[start:].T  # (block, n - start), float32
        scores *= rows.scale[None, start:]
        scores[np.arange(stop - start), np.arange(stop - start)] = -np.inf  # not itself
        mine, columns = np.nonzero(scores >= floor[start:stop, None])
        own = (mine + start, columns + start, scores[mine, columns])
        later, columns = np.nonzero(scores[:, stop - start :] >= floor[None, stop:])
        # (held until their rows' blocks come: as int32, 12 bytes a candidate)
        theirs = (
            (columns + stop).astype(np.int32),
            (later + start).astype(np.int32),
            scores[later, columns + (stop - start)],
        )
        return start, stop, own, theirs

    pending: dict[int, list] = {start: [] for start in range(0, n, block)}
    step = sample_step(k)
    progress(STAGE, floors_share(step))
    for start, stop, own, theirs in _in_order(products, range(0, n, block), threads):
        _hand_on(theirs, pending, block)
        _finish(rows, [own, *pending.pop(start)], (start, stop), slack, (ids, sims))
        progress(STAGE, share_done(stop / n, step))
    return ids, sims


# The floors take a sixteenth of all the products, the blocks' half of them the rest.
def floors_share(step: int) -> float:
    """The floors' share of the stage's products: 1 / step of them, the blocks' half the rest."""
    return (1 / step) / (1 / step + 1 / 2)


FLOORS_SHARE = floors_share(SAMPLE_STEP)


def share_done(rows_done: float, step: int = SAMPLE_STEP) -> float:
    """The share of the stage's products done once the blocks up to this share of the rows
    are: block I is multiplied by the rows from its own on, so the first rows cost most."""
    floors = floors_share(step)
    return floors + (1 - floors) * (1 - (1 - rows_done) ** 2)


def block_rows(n: int, threads: int) -> int:
    """Rows per block: 256 (BLAS's best pace) unless the products held at once (``threads``
    blocks' float32 scores and their comparisons, 5 bytes a pair) would pass PRODUCTS_MB."""
    fit = int(PRODUCTS_MB * 1e6 / (5 * n * max(1, threads)))
    return max(MIN_BLOCK, min(256, fit))


PRODUCTS_MB, MIN_BLOCK = 320, 64
ERROR_ULPS = 64  # rounding beyond the dot product's and the lengths' (see exact_neighbours)
# Rows longer or shorter than this many powers of two are scaled in a copy first: their float32
# products could overflow or lose their last digits.
SAFE_RANGE = 2.0**40
UNITS_MB = 160  # the most a copy of every row made unit may hold (bert-base: 94 MB; mBERT's is not kept)


@dataclass(frozen=True)
class Rows:
    """The table as the products read it: its float32 rows (no copy when they are float32 and
    of ordinary size), and per row the factor that takes a product to a cosine."""

    table: np.ndarray
    scale: np.ndarray  # (n,) float32: 1 / the row's length, 0 for a zero row
    unit: bool  # the rows are cosine.unit_rows already (a copy, made for rows of extreme size)
    units: np.ndarray | None = None  # every row made unit, once (with_units), if it fits

    @staticmethod
    def of(table: np.ndarray, chunk: int = 8192) -> Rows:
        table = np.asarray(table, dtype=np.float32)
        largest, lengths = np.empty(len(table), np.float32), np.empty(len(table), np.float32)
        for start in range(0, len(table), chunk):  # a chunk at a time: no whole-table temporary
            part = table[start : start + chunk]
            largest[start : start + chunk] = np.max(np.abs(part), axis=1) if part.shape[1] else 0
            lengths[start : start + chunk] = np.linalg.norm(part, axis=1)
        if not np.isfinite(largest).all():
            row = int(np.flatnonzero(~np.isfinite(largest))[0])
            raise ValueError(f"row {row:,} of the table is not all finite numbers (NaN or infinity)")
        present = largest[largest > 0]
        if len(present) and (present.max() > SAFE_RANGE or present.min() < 1 / SAFE_RANGE):
            # (row-major, as any rows picked from it are: unit_rows' sums follow the layout)
            unit = cosine.unit_rows(np.array(table, order="C"), in_place=True)
            return Rows(unit, np.ones(len(table), np.float32), True)
        scale = np.divide(1, lengths, out=np.zeros_like(lengths), where=lengths > 0)
        return Rows(table, scale, False)

    def scaled(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` divided by their lengths, float32."""
        return self.table[start:stop] * self.scale[start:stop, None]

    def unit_rows(self, ids: np.ndarray) -> np.ndarray:
        """Those rows as cosine.unit_rows makes them, which the float64 sums start from."""
        if self.unit:
            return self.table[ids]
        if self.units is not None:
            return self.units[ids]
        return cosine.unit_rows(self.table[ids], in_place=True)

    def with_units(self, chunk: int = 8192) -> Rows:
        """Every row made unit once (cosine.unit_rows, a chunk of rows at a time, row-major as
        picked rows are: each row is scaled and summed alone, so the bits are those of any other
        batch), if the copy fits in UNITS_MB: a row is a candidate of some hundred others, and
        was made unit again for each."""
        n, width = self.table.shape
        if self.unit or n * width * 4 > UNITS_MB * 1e6:
            return self
        units = np.empty((n, width), np.float32)
        for start in range(0, n, chunk):
            units[start : start + chunk] = cosine.unit_rows(
                np.array(self.table[start : start + chunk], order="C"), in_place=True
            )
        return dataclasses.replace(self, units=units)


def _floors(rows: Rows, k: int, block: int, threads: int) -> np.ndarray:
    """Per row, the k-th best float32 cosine with a sample of the other rows (all of them when
    the table is small): (n,) float32, at most the row's own k-th best but for rounding."""
    n = len(rows.table)
    step = sample_step(k)
    sample = np.arange(0, n, step) if n // step > 2 * (k + 1) else np.arange(n)
    columns = rows.table[sample] * rows.scale[sample, None]
    floor = np.empty(n, dtype=np.float32)

    def one_block(start: int) -> int:
        stop = min(n, start + block)
        scores = rows.scaled(start, stop) @ columns.T
        ids = np.arange(start, stop)
        where = np.searchsorted(sample, ids)
        mine = where < len(sample)
        mine[mine] = sample[where[mine]] == ids[mine]
        scores[np.flatnonzero(mine), where[mine]] = -np.inf  # not itself
        floor[start:stop] = np.partition(scores, len(sample) - k, axis=1)[:, len(sample) - k]
        return stop

    for _ in _in_order(one_block, range(0, n, block), threads):
        pass
    return floor


def _hand_on(found: tuple, pending: dict, block: int) -> None:
    """Put candidates (rows, ids, scores) found for later rows with those rows' blocks."""
    rows, ids, scores = found
    if not len(rows):
        return
    order = np.argsort(rows, kind="stable")
    rows, ids, scores = rows[order], ids[order], scores[order]
    blocks = rows // block * block
    cuts = np.flatnonzero(np.diff(blocks)) + 1
    for part in np.split(np.arange(len(rows)), cuts):
        pending[int(blocks[part[0]])].append((rows[part], ids[part], scores[part]))


def _finish(rows: Rows, found: list, span: tuple[int, int], slack, out: tuple) -> None:
    """Each row of ``span``'s list, from all its candidates ``found`` (rows, ids, scores)."""
    start, stop = span
    ids, sims = out
    k = ids.shape[1]
    owners = np.concatenate([part[0] for part in found])
    order = np.argsort(owners, kind="stable")
    columns = np.concatenate([part[1] for part in found])[order]
    scores = np.concatenate([part[2] for part in found])[order]
    bounds = np.searchsorted(owners[order], np.arange(start, stop + 1))
    for row in range(start, stop):
        wide = columns[bounds[row - start] : bounds[row - start + 1]]
        near = scores[bounds[row - start] : bounds[row - start + 1]]
        kth = np.partition(near, len(near) - k)[len(near) - k]  # the row's k-th best, float32
        candidates = wide[near >= kth - slack]
        exact = exact_cosines(rows, row, candidates)
        best = np.lexsort((candidates, -exact))[:k]
        ids[row] = candidates[best]
        sims[row] = exact[best]


def exact_cosines(rows: Rows, row: int, candidates: np.ndarray) -> np.ndarray:
    """Row ``row``'s float64 cosines with ``candidates``, SUMS_CHUNK candidates' rows at a time.
    Most rows have a few hundred candidates, but a row can have every other row: a zero row
    (as a BERT's [PAD] row can be) has cosine 0 with all of them, all tied at its k-th best,
    and the whole table picked, scaled and summed in float64 at once would hold some 470 MB
    for bert-base. Each cosine is its own row's sum, so the chunks change no bit."""
    query = rows.unit_rows(np.array([row]))[0]
    return np.concatenate(
        [
            cosines64(query, rows.unit_rows(candidates[i : i + SUMS_CHUNK]))
            for i in range(0, max(1, len(candidates)), SUMS_CHUNK)
        ]
    )


SUMS_CHUNK = 2048  # candidates at a time in the float64 sums: 2048 x 768 holds 12 MB a copy


def cosines64(query: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Cosines of a unit row with unit rows, in float64: each product of two float32 values is
    exact there, and numpy's pairwise sum adds them in one fixed order (no BLAS)."""
    return (others.astype(np.float64) * query.astype(np.float64)).sum(axis=1)


def _in_order(work: Callable, items: Iterable, threads: int) -> Iterator:
    """``work``'s results for ``items``, in their order, ``threads`` computed at once and one
    more waiting, each with BLAS held to one thread (so that a product is summed the same way
    however many run at once, and no more than a few blocks' products are held)."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    items = iter(items)
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(max(1, threads)) as pool:
        waiting = [pool.submit(work, item) for item in itertools.islice(items, max(1, threads) + 1)]
        while waiting:
            result = waiting.pop(0).result()
            waiting.extend(pool.submit(work, item) for item in itertools.islice(items, 1))
            yield result
