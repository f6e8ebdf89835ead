"""The t-SNE map of the vocabulary: its exact neighbours and recall against brute force, its
determinism, and its cache on disk (round trip in another process, damage detected)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bert_embeddings.jobs import files, local, progress, records
from bert_embeddings.maps import forecast, knn, map_jobs, neighbour_map
from testkit.apptest import ROOT
from testkit.brute import brute_cosines, random_table

SMALL = neighbour_map.Settings(perplexity=10, iterations=60, seed=7)


def test_exact_neighbours_equal_brute_force():
    """Every row's 15 nearest other rows by cosine, against float64 over all pairs: the same
    cosines, in order, and no better row left out (float32 cannot order rows closer than ~1e-7);
    exact ties, as with the zero row, go by the lower id."""
    table = random_table(rows=300)
    ids, sims = neighbour_map.exact_neighbours(table, 15, block=64)
    exact = brute_cosines(table)
    for row in range(len(table)):
        got = exact[row, ids[row]]
        np.testing.assert_allclose(sims[row], got, atol=1e-6)
        assert np.all(np.diff(got) <= 1e-6) and row not in ids[row]
        assert np.sort(exact[row])[-15] <= got.min() + 1e-6  # nothing better left out
    assert ids[5].tolist() == [0, 1, 2, 3, 4, *range(6, 16)]  # the zero row: all tied at 0
    assert ids[3][0] == 9 and sims[3][0] == pytest.approx(1.0, abs=1e-6)


def reference_lists(table: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact lists as the map first found them, row by row: float32 products pick every
    column within the rounding slack of the row's k-th best, float64 sums in numpy's fixed order
    decide, ties by the lower id."""
    from bert_embeddings.analysis import cosine

    unit = cosine.unit_rows(np.array(table, dtype=np.float32), in_place=True)  # as the search scales
    slack = 2 * table.shape[1] * 2.0**-24
    ids, sims = [], []
    for row in range(len(unit)):
        scores = unit @ unit[row]
        scores[row] = -np.inf
        kth = np.partition(scores, len(scores) - k)[len(scores) - k]
        candidates = np.flatnonzero(scores >= kth - slack)
        exact = (unit[candidates].astype(np.float64) * unit[row].astype(np.float64)).sum(axis=1)
        order = np.lexsort((candidates, -exact))[:k]
        ids.append(candidates[order])
        sims.append(exact[order].astype(np.float32))
    return np.array(ids), np.array(sims)


def test_the_blocked_search_gives_the_row_by_row_lists_bit_for_bit(monkeypatch):
    """The search with floors from a sample of the columns, each pair's product computed once
    and its candidates handed on to later blocks, gives exactly the lists a row-by-row search
    gives (ties and duplicate rows included), for the map's k and the spaces' k, with a sample
    or without, in blocks that divide the table or not."""
    rng = np.random.default_rng(8)
    table = rng.standard_normal((3000, 24)).astype(np.float32)
    table[100:140] = table[7]  # forty duplicates of a row: ties everywhere among them
    table[2000:2050] = np.round(table[2000:2050], 1)
    for k in (20, 100):
        expected = reference_lists(table, k)
        for step, block in ((knn.SAMPLE_STEP, 256), (knn.SAMPLE_STEP, 97), (1, 256)):
            monkeypatch.setattr(knn, "SAMPLE_STEP", step)
            found = neighbour_map.exact_neighbours(table, k, block=block, threads=2)
            assert np.array_equal(found[0], expected[0]) and np.array_equal(found[1], expected[1])


def test_a_row_tied_with_every_other_row_is_summed_a_chunk_at_a_time(monkeypatch):
    """A zero row (as the bert-base-shaped stand-in's [PAD] row is) has cosine 0 with every other
    row, all tied at its k-th best: its float64 sums take SUMS_CHUNK candidates' rows at a time,
    never the whole table at once (some 470 MB for bert-base), and every list is still the
    row-by-row one, bit for bit."""
    table = np.random.default_rng(9).standard_normal((3000, 24)).astype(np.float32)
    table[0] = 0
    monkeypatch.setattr(knn, "SUMS_CHUNK", 500, raising=False)  # (the old search had none)
    summed, cosines64 = [], knn.cosines64
    monkeypatch.setattr(
        knn, "cosines64", lambda query, others: summed.append(len(others)) or cosines64(query, others)
    )
    found = neighbour_map.exact_neighbours(table, 20, threads=2)
    expected = reference_lists(table, 20)
    assert np.array_equal(found[0], expected[0]) and np.array_equal(found[1], expected[1])
    assert found[0][0].tolist() == list(range(1, 21))  # the zero row: all tied at 0, by id
    assert max(summed) == 500 and sum(summed) >= len(table) - 1  # its 2,999 candidates, in chunks


def brute_lists(table: np.ndarray, k: int, block: int = 2048) -> tuple[np.ndarray, np.ndarray]:
    """reference_lists, a block of rows at a time: each row against every column (the whole
    products, no floor, no symmetry), float64 sums deciding among the float32 candidates."""
    from bert_embeddings.analysis import cosine

    unit = cosine.unit_rows(np.array(table, dtype=np.float32), in_place=True)
    slack = 2 * table.shape[1] * 2.0**-24
    ids, sims = np.empty((len(unit), k), np.int64), np.empty((len(unit), k), np.float32)
    for start in range(0, len(unit), block):
        scores = unit[start : start + block] @ unit.T
        scores[np.arange(len(scores)), np.arange(start, start + len(scores))] = -np.inf
        kth = np.partition(scores, scores.shape[1] - k, axis=1)[:, scores.shape[1] - k]
        for i, row in enumerate(range(start, start + len(scores))):
            candidates = np.flatnonzero(scores[i] >= kth[i] - slack)
            exact = (unit[candidates].astype(np.float64) * unit[row].astype(np.float64)).sum(axis=1)
            order = np.lexsort((candidates, -exact))[:k]
            ids[row], sims[row] = candidates[order], exact[order]
    return ids, sims


@pytest.mark.slow("30,522 rows against brute force")
def test_every_row_of_the_bundled_table_has_the_brute_force_list(bundled):
    table = bundled.tables.word_embeddings
    expected = brute_lists(table, 20)
    found = neighbour_map.exact_neighbours(table, 20, threads=2)
    assert np.array_equal(found[0], expected[0]) and np.array_equal(found[1], expected[1])


def test_the_neighbour_stages_progress_is_its_share_of_the_products_done():
    """Progress counts products, not rows: the first blocks are multiplied by the most rows."""
    n, block = 2000, 100
    reported = []
    table = np.random.default_rng(2).standard_normal((n, 16)).astype(np.float32)
    neighbour_map.exact_neighbours(table, 10, block=block, progress=lambda s, f: reported.append(f))
    assert reported[0] == 0 and reported[1] == knn.FLOORS_SHARE and reported[-1] == pytest.approx(1)
    assert all(a <= b for a, b in zip(reported, reported[1:], strict=False))
    products = np.cumsum([block * (n - start) for start in range(0, n, block)])
    counted = knn.FLOORS_SHARE + (1 - knn.FLOORS_SHARE) * products / products[-1]
    np.testing.assert_allclose(reported[2:], counted, atol=block / n)


def test_rows_of_any_length_and_type_give_the_same_lists(tmp_path):
    """Cosine does not see a row's length: rows made 2**60 times longer or shorter (which
    float32 products of the rows as they are could not hold, so those go through a scaled
    copy), a float64 table, a table read from disk through a memory map and tables stored
    column by column, all give the lists of the table as it was, bit for bit. A row that is
    not all finite numbers is named."""
    rng = np.random.default_rng(11)
    table = rng.standard_normal((1500, 32)).astype(np.float32)
    expected = neighbour_map.exact_neighbours(table, 20, block=128, threads=2)
    assert not knn.Rows.of(table).unit
    stretched = table.copy()
    stretched[::3] *= np.float32(2.0**60)
    stretched[1::3] *= np.float32(2.0**-60)
    assert knn.Rows.of(stretched).unit
    np.save(tmp_path / "table.npy", table)
    on_disk = np.load(tmp_path / "table.npy", mmap_mode="r")
    assert knn.Rows.of(np.asfortranarray(stretched)).unit
    columns_first = (np.asfortranarray(t) for t in (table, stretched))
    for other in (stretched, table.astype(np.float64), on_disk, *columns_first):
        found = neighbour_map.exact_neighbours(other, 20, block=128, threads=2)
        assert np.array_equal(found[0], expected[0]) and np.array_equal(found[1], expected[1])
    broken = table.copy()
    broken[1234, 5] = np.nan
    with pytest.raises(ValueError, match="row 1,234 of the table is not all finite"):
        neighbour_map.exact_neighbours(broken, 20)


def test_the_worker_hands_back_the_tables_pages_once_it_has_read_it(tmp_path):
    """A big table read through a memory map stays in the worker's memory until it lets go."""
    from bert_embeddings.maps import map_worker
    from testkit.browser import rss_mb

    np.save(tmp_path / "table.npy", np.ones((4096, 4096), dtype=np.float32))  # 64 MB
    table = np.load(tmp_path / "table.npy", mmap_mode="r")
    before = rss_mb(os.getpid())
    assert float(table.sum(dtype=np.float64)) == 4096 * 4096  # every page read
    read = rss_mb(os.getpid())
    map_worker.let_go(table)
    assert read - before > 48 and read - rss_mb(os.getpid()) > 48
    assert float(table[-1].sum()) == 4096  # still readable, from the file


def brute_recall(coords: np.ndarray, true_ids: np.ndarray) -> float:
    k = true_ids.shape[1]
    total = 0
    for i in range(len(coords)):
        distance = np.linalg.norm(coords - coords[i], axis=1)
        distance[i] = np.inf
        near = np.argsort(distance, kind="stable")[:k]
        total += len(set(near.tolist()) & set(true_ids[i].tolist()))
    return total / (len(coords) * k)


@pytest.mark.parametrize("seed", [0, 1])
def test_recall_equals_a_brute_force_count(seed):
    rng = np.random.default_rng(seed)
    coords = rng.standard_normal((400, 2)).astype(np.float32)
    true_ids = np.array(
        [rng.choice([j for j in range(400) if j != i], 10, replace=False) for i in range(400)]
    )
    assert neighbour_map.recall_at_k(coords, true_ids) == pytest.approx(brute_recall(coords, true_ids))
    # the map that is the table itself finds every neighbour
    ids, _ = neighbour_map.exact_neighbours(np.c_[coords, np.ones(400)].astype(np.float32), 10)
    assert 0 <= neighbour_map.recall_at_k(coords, ids) <= 1


def test_the_map_is_deterministic_and_keeps_neighbours():
    """The same table and settings give the same coordinates (exact neighbours and a PCA start
    leave nothing to chance); clusters stay together (recall above PCA's) and all is finite."""
    table = random_table()
    first = neighbour_map.compute(table, SMALL, threads=1)
    second = neighbour_map.compute(table, SMALL, threads=1)
    assert np.array_equal(first.coords, second.coords)
    assert first.coords.shape == (len(table), 2) and np.isfinite(first.coords).all()
    assert first.recall == second.recall and first.recall > first.pca_recall
    other = neighbour_map.compute(table, neighbour_map.Settings(perplexity=20, iterations=60), threads=1)
    assert not np.array_equal(first.coords, other.coords)  # the settings decide the picture


def _map_under(blas_threads: int, threads: int, table: np.ndarray) -> neighbour_map.NeighbourMap:
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=blas_threads, user_api="blas"):
        return neighbour_map.compute(table, SMALL, threads=threads)


def test_the_map_is_bit_identical_under_one_and_two_blas_threads():
    """The page's promise: the thread count cannot change the picture, to the last bit."""
    table = random_table(rows=500, hidden=48)
    one = _map_under(1, 1, table)
    two = _map_under(2, 2, table)
    assert np.array_equal(one.coords, two.coords) and one.recall == two.recall
    assert one.pca_recall == two.pca_recall
    assert np.array_equal(one.kept, two.kept) and np.array_equal(one.neighbours, two.neighbours)
    assert one.regions.central == two.regions.central and np.array_equal(
        one.regions.of_row, two.regions.of_row
    )


# A child process that computes the small map's neighbours and coordinates under 1 and under 2
# BLAS threads and prints their digests.
CHILD = """
import hashlib, sys, numpy as np
from threadpoolctl import threadpool_limits
from bert_embeddings.maps import neighbour_map
table = np.load(sys.argv[1])
settings = neighbour_map.Settings(**eval(sys.argv[2]))
for blas in (1, 2):
    with threadpool_limits(limits=blas, user_api="blas"):
        ids, sims = neighbour_map.exact_neighbours(table, 30, threads=blas)
        coords = neighbour_map.compute(table, settings, threads=blas).coords
    print(*(hashlib.sha256(a.tobytes()).hexdigest() for a in (ids, sims, coords)))
"""


def _cpu_runs_haswell_kernels() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return " avx2" in flags and " fma" in flags


@pytest.mark.server("a map worker process")
@pytest.mark.skipif(not _cpu_runs_haswell_kernels(), reason="the CPU cannot run OpenBLAS's Haswell kernels")
def test_the_map_is_the_same_under_blas_kernels_whose_threads_sum_differently(tmp_path):
    """OpenBLAS's Haswell kernels (what AMD Zen CPUs run) give another float32 product under
    2 threads than under 1; under them the map is still the same under 1 and 2 threads, and the
    neighbour lists and cosines are those of this machine's own kernels."""
    import hashlib
    import os

    table = random_table(rows=500, hidden=48)
    np.save(tmp_path / "table.npy", table)

    def under_haswell(code: str, *args: str) -> list[str]:
        env = {**os.environ, "OPENBLAS_CORETYPE": "Haswell"}
        command = [sys.executable, "-c", code, str(tmp_path / "table.npy"), *args]
        run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        return run.stdout.splitlines()

    one, two = (line.split() for line in under_haswell(CHILD, repr(SMALL.as_dict())))
    assert one == two
    ids, sims = neighbour_map.exact_neighbours(table, 30)
    assert one[:2] == [hashlib.sha256(a.tobytes()).hexdigest() for a in (ids, sims)]
    # The kernels' products really do differ with the thread count: without the care taken in
    # exact_neighbours the lists would differ too.
    products = under_haswell(PRODUCTS)
    assert products[0] != products[1]


PRODUCTS = """
import hashlib, sys, numpy as np
from threadpoolctl import threadpool_limits
table = np.load(sys.argv[1])
for blas in (1, 2):
    with threadpool_limits(limits=blas, user_api="blas"):
        print(hashlib.sha256((table[:256] @ table.T).tobytes()).hexdigest())
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    local._jobs.clear()  # a map another test file left computing does not queue this one's
    yield tmp_path / "cache"
    local._jobs.clear()


def wait(job: local.Job, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while job.running() and time.time() < deadline:
        time.sleep(0.1)
    assert not job.running() and job.failure() is None, (job.folder / files.LOG).read_text()


@pytest.mark.server("a map worker process")
def test_a_map_is_computed_once_kept_on_disk_and_read_back_by_another_process(cache):
    table = random_table(rows=400)
    job = map_jobs.start(table, SMALL)
    assert isinstance(job, local.Job)
    assert map_jobs.start(table, SMALL) is job  # a second request joins the running job
    wait(job)
    done = map_jobs.start(table, SMALL)
    assert isinstance(done, map_jobs.Done) and done.coords.shape == (400, 2)
    # The worker (two BLAS threads, two of openTSNE's) computes the very map this process does
    # under one thread of each.
    expected = _map_under(1, 1, table)
    np.testing.assert_array_equal(done.coords, expected.coords)
    assert done.meta["recall_at_10"] == pytest.approx(expected.recall)
    np.testing.assert_array_equal(done.kept, expected.kept)
    np.testing.assert_array_equal(done.neighbours, expected.neighbours)
    np.testing.assert_array_equal(done.regions.of_row, expected.regions.of_row)
    assert done.regions.central == expected.regions.central and done.regions.sizes == expected.regions.sizes
    np.testing.assert_array_equal(done.regions.anchors, expected.regions.anchors)
    assert not (job.folder / files.TABLE).exists()  # the table copy is cleaned up
    # another server process finds it without computing: it loads, and starts no worker
    code = (
        "import sys, numpy as np; from bert_embeddings.maps import map_jobs, neighbour_map; "
        f"t = np.load(sys.argv[1]); r = map_jobs.start(t, neighbour_map.Settings(**{SMALL.as_dict()!r})); "
        "print(type(r).__name__, float(r.coords.sum()))"
    )
    np.save(cache.parent / "table.npy", table)
    out = subprocess.run(
        [sys.executable, "-c", code, str(cache.parent / "table.npy")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out[0] == "Done" and float(out[1]) == pytest.approx(float(done.coords.sum()))


@pytest.fixture(scope="module")
def made_map(tmp_path_factory):
    """A cache folder holding the map of random_table(rows=400), made once by a worker: each
    damage below is done to a copy of it."""
    made = tmp_path_factory.mktemp("made-map") / "cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BERT_EXPLORER_CACHE", str(made))
        local._jobs.clear()  # (as ``cache`` does)
        wait(map_jobs.start(random_table(rows=400), SMALL))
    return made


@pytest.mark.server("a map worker process")
@pytest.mark.parametrize(
    "damage, name",
    [
        *(("flip a byte", name) for name in map_jobs.ARRAYS),
        ("cut short", map_jobs.COORDS),
        ("cut short", map_jobs.REGIONS),
        ("no record", None),
        ("wrong rows", None),
    ],
)
def test_a_damaged_or_partial_map_is_never_shown_but_computed_again(made_map, cache, damage, name):
    table = random_table(rows=400)
    shutil.copytree(made_map, cache)
    assert isinstance(map_jobs.start(table, SMALL), map_jobs.Done)  # (the whole map, as made)
    folder = map_jobs.folder_for(files.fingerprint(table), SMALL)
    damaged = folder / (name or map_jobs.COORDS)
    data = bytearray(damaged.read_bytes())
    if damage == "flip a byte":
        data[-3] ^= 0xFF
        damaged.write_bytes(bytes(data))
    elif damage == "cut short":
        damaged.write_bytes(bytes(data[: len(data) // 2]))
    elif damage == "no record":
        records.path(folder, map_jobs.RECORD).unlink()
    if damage == "wrong rows":
        assert map_jobs.load(folder, rows=399) is None  # a map of another size is not this table's
    else:
        assert map_jobs.load(folder, rows=400) is None
    again = map_jobs.start(table, SMALL)
    assert isinstance(again, local.Job)  # computed again, not shown
    wait(again)
    assert isinstance(map_jobs.start(table, SMALL), map_jobs.Done)


def simulated_run(shape, speed: float, layout: forecast.LayoutProfile) -> list:
    """Progress reports of a run on a machine ``speed`` times slower than the reference, whose
    layout costs what ``layout`` says, at its pace."""
    predicted = forecast.predicted_seconds(shape, layout)
    steps, clock = [], 0.0
    for stage, seconds in enumerate(predicted):
        seconds *= speed
        for i in range(21):
            f = i / 20
            steps.append(forecast.Step(stage, f, clock + seconds * forecast._share_done(stage, f, layout)))
        clock += seconds
    return steps


@pytest.mark.parametrize("speed", [0.6, 1.0, 2.5])
@pytest.mark.parametrize(
    "layout",
    [forecast.EVEN, forecast.SPREADING, forecast.LayoutProfile(24.0, 0.4, 1.2)],
    ids=["even", "spreading", "between"],
)
def test_the_time_left_follows_what_the_stages_really_cost(speed, layout):
    """On any machine speed, and whether the layout's iterations get dearer as the map spreads
    (six times at the end on a real vocabulary) or not: once a tenth of the run is done, the
    range shown holds the truth (within 10 %, or a second) until the layout's pace is known;
    then one figure within 15 % of the truth (or a second)."""
    shape = forecast.Shape(rows=30522, width=768, neighbours=90, early=250, later=500)
    steps = simulated_run(shape, speed, layout)
    total = steps[-1].elapsed
    singles = 0
    for i, step in enumerate(steps):
        if step.elapsed < 0.1 * total or step.elapsed >= total - 0.5:
            continue
        left = forecast.seconds_left(steps[: i + 1], shape)
        truth = total - step.elapsed
        # (a second either way is too little to tell at the end of a run)
        assert left.low * 0.9 - 1 <= truth <= left.high * 1.1 + 1, (step, left, truth)
        if left.low == left.high:
            singles += 1
            assert left.low == pytest.approx(truth, rel=0.15, abs=1), (step, left, truth)
    assert singles >= 10  # most of the layout shows one figure


@pytest.mark.parametrize("pace", [0.5, 1.0, 3.0])
def test_the_estimate_before_a_map_is_the_whole_forecast_at_the_servers_pace(pace, tmp_path):
    """Before it starts: each layout profile's stages summed, times this server's pace, which
    a map's worker keeps (a map that took the middle of the range has pace 1)."""
    from bert_embeddings.maps import pace as paces

    shape = forecast.Shape(rows=119547, width=768, neighbours=20, early=166, later=334)
    even, spreading = (sum(forecast.predicted_seconds(shape, p)) for p in (forecast.EVEN, forecast.SPREADING))
    expected = forecast.before_start(shape, pace)
    assert (expected.low, expected.high) == pytest.approx(
        (pace * min(even, spreading), pace * max(even, spreading))
    )
    assert paces.read(tmp_path) is None
    paces.record(tmp_path, shape, pace * (even + spreading) / 2)
    assert paces.read(tmp_path) == pytest.approx(pace, abs=1e-3)
    paces.record(tmp_path, shape, 1e6)  # a run that waited on something else: not kept
    assert paces.read(tmp_path) == pytest.approx(pace, abs=1e-3)
    (tmp_path / paces.PACE).write_text('{"pace": "fast"}')
    assert paces.read(tmp_path) is None


def test_the_memory_estimate_counts_the_table_the_products_and_the_candidates_handed_on():
    from bert_embeddings.maps import knn

    assert knn.block_rows(119547, 2) == 256 and knn.block_rows(250002, 2) < 256
    for rows in (30522, 119547, 250002):
        shape = forecast.Shape(rows, 768, 20, 166, 334)
        products = knn.block_rows(rows, 2) * rows * 5 * 2
        assert products <= knn.PRODUCTS_MB * 1e6 or knn.block_rows(rows, 2) == 256
        handed_on = rows * knn.SAMPLE_STEP * 20 / 4 * 12
        assert forecast.peak_mb(shape) == pytest.approx(
            forecast._WORKER_MB + (rows * 768 * 4 + products + handed_on) / 1e6
        )


@pytest.mark.server("a map worker process")
def test_one_map_is_computed_at_a_time_and_the_next_starts_when_it_is_done(cache):
    """A second table's map waits while the first is computed (no second worker's memory), and
    the first request after that starts it; mapping a prepared table keeps the original's size."""
    first, second = random_table(rows=400), random_table(rows=300, seed=5)
    job = map_jobs.start(first, SMALL)
    queued = map_jobs.start(second, SMALL, "second", prepare=lambda t: -t)
    assert queued.waiting() and queued.running() and queued.failure() is None
    assert not (queued.folder / files.TABLE).exists()  # nothing prepared while it waits
    wait(job)
    assert not queued.running()
    started = map_jobs.start(second, SMALL, "second", prepare=lambda t: -t)
    assert not started.waiting()
    wait(started)
    done = map_jobs.start(second, SMALL, "second")
    assert isinstance(done, map_jobs.Done)
    expected = _map_under(1, 1, -second)
    np.testing.assert_array_equal(done.coords, expected.coords)


@pytest.mark.server("a map worker process")
def test_progress_gives_a_stage_and_an_estimate(cache):
    """A real worker's progress file carries what the page's bar and time left need."""
    table = random_table(rows=400)
    job = map_jobs.start(table, SMALL)
    reports = []
    while job.running():
        reports.append(progress.read(job.folder))
        time.sleep(0.05)
    reports = [r for r in reports if r]
    assert reports, "no progress report was seen"
    for report in reports:
        assert report["stage"] in neighbour_map.STAGES
        done, left = progress.time_left(report)
        assert 0 <= done <= 1 and left is not None and 0 <= left.low <= left.high  # the forecast's
    assert progress.time_left(None) == (0.0, None)
    assert progress.time_left({"stage": "layout"}) == (0.0, None)  # an old or cut file


def test_a_job_without_a_forecast_of_its_own_gets_its_time_left_from_its_pace():
    """A stage space's or aligned maps' report (no forecast): its time left is extrapolated from
    its share done and its seconds so far, once a tenth is done; the worker's own forecast, where
    it gives one, is taken as it is."""
    assert progress.time_left({"stage": "neighbours", "fraction": 0.05, "elapsed": 3}) == (0.05, None)
    done, left = progress.time_left({"stage": "neighbours", "fraction": 0.25, "elapsed": 10})
    assert done == 0.25 and left == progress.TimeLeft(30.0, 30.0)
    done, left = progress.time_left({"fraction": 0.5, "elapsed": 4, "left": [9.0, 3.0]})
    assert left == progress.TimeLeft(3.0, 9.0)
    assert progress.time_left({"fraction": "x", "elapsed": 1}) == (0.0, None)


def test_a_cache_folder_that_is_a_file_gets_a_message_not_a_traceback(tmp_path, monkeypatch):
    """BERT_EXPLORER_CACHE pointing at a file: a named error that says what to fix."""
    from bert_embeddings.errors import MapStorageError

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file")
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(blocker))
    # No other job of this process: one still computing would queue this one before its folder
    # is made (it fails when its turn comes, as the job panel then says).
    monkeypatch.setattr(local, "_jobs", {})
    with pytest.raises(MapStorageError) as raised:
        map_jobs.start(random_table(rows=50), SMALL)
    message = str(raised.value)
    assert "is a file, not a folder" in message or "a file, not a folder" in message
    assert "BERT_EXPLORER_CACHE" in message and "try again" in message
    assert local._jobs == {}  # nothing half-started


def _running_worker(cache) -> local.Job:
    """A map job whose worker has started on a long map (its input, table.npy, written)."""
    table = random_table(rows=3000, seed=11)
    job = map_jobs.start(table, neighbour_map.Settings(perplexity=10, iterations=5000, seed=7))
    assert isinstance(job, local.Job) and (job.folder / files.TABLE).exists()
    while job.running() and not (job.folder / files.PROGRESS).exists():  # the worker is computing
        time.sleep(0.05)
    return job


@pytest.mark.server("a map worker process")
@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGKILL"])
def test_a_stopped_worker_leaves_no_copy_of_the_table_behind(cache, signal_name):
    """Its 47 MB input (for bert-base) once stayed after the worker was killed: a worker that is
    told to stop removes it itself, and one killed outright is cleaned up by the server."""
    import signal

    job = _running_worker(cache)
    job.process.send_signal(getattr(signal, signal_name))
    job.process.wait(timeout=60)
    assert job.failure() is not None  # the page says the map's process stopped
    assert not (job.folder / files.TABLE).exists() and not (job.folder / files.PROGRESS).exists()
    assert not list(job.folder.glob("*.part")) and not records.path(job.folder, map_jobs.RECORD).exists()


@pytest.mark.server("a map worker process")
def test_a_failed_job_is_known_to_everyone_until_retried_and_then_starts_again(cache):
    """A killed worker's job stays known (job_in), so any view that looks finds the failure
    without asking for the job; retry forgets it, and the next start runs a new worker."""
    import signal

    job = _running_worker(cache)
    job.process.send_signal(signal.SIGKILL)
    job.process.wait(timeout=60)
    assert local.job_in(job.folder) is job and "exit code -9" in job.failure()
    table = random_table(rows=3000, seed=11)
    settings = neighbour_map.Settings(perplexity=10, iterations=5000, seed=7)
    assert map_jobs.start(table, settings) is job  # asked again before a retry: the failure, not a loop
    local.retry(job.folder)
    assert local.job_in(job.folder) is None
    again = map_jobs.start(table, settings)
    assert isinstance(again, local.Job) and again is not job and again.running()
    assert again.process.pid != job.process.pid
    again.process.kill()
    again.process.wait(timeout=60)


@pytest.mark.server("a map worker process")
def test_leftovers_older_than_a_day_are_swept_when_the_next_map_starts(cache):
    """A worker killed with its server leaves its input in a shared cache folder; the next map
    started there removes what is over a day old, and nothing newer (another replica's job)."""
    import os

    old, recent = cache / "maps" / "aaa" / "x", cache / "maps" / "bbb" / "x"
    for folder in (old, recent):
        folder.mkdir(parents=True)
        (folder / files.TABLE).write_bytes(b"0" * 1000)
        (folder / "coords.npy.123.part").write_bytes(b"0")
    day_and_more = time.time() - files.LEFTOVER_SECONDS - 60
    os.utime(old / files.TABLE, (day_and_more, day_and_more))
    wait(map_jobs.start(random_table(rows=300), SMALL))
    assert not (old / files.TABLE).exists() and not list(old.glob("*.part"))
    assert (recent / files.TABLE).exists()


@pytest.mark.server("a map worker process")
def test_background_work_runs_at_idle_priority_unless_the_host_says_normal(cache, monkeypatch):
    """A map's worker (every job's, maps and stage spaces alike: one launcher) takes only CPU
    time nobody else wants (SCHED_IDLE), the default; BERT_EXPLORER_JOB_PRIORITY=normal leaves it
    at the server's."""
    for setting, policy in (("idle", os.SCHED_IDLE), ("normal", os.SCHED_OTHER)):
        monkeypatch.setenv("BERT_EXPLORER_JOB_PRIORITY", setting)
        local._jobs.clear()
        job = map_jobs.start(random_table(rows=2000, seed=20 + policy), SMALL)
        assert isinstance(job, local.Job)
        assert os.sched_getscheduler(job.process.pid) == policy
        job.process.kill()
        job.process.wait()
