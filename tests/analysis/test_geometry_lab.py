"""The Geometry page: its measurements against float64 brute force on explicitly transformed
tables, its sentences against the figures they state, and the page itself through AppTest."""

from __future__ import annotations

import functools
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings.analysis import decompose, geometry_lab, vocab_search
from bert_embeddings.figures import geometry_page, lab_charts, settings, views
from bert_embeddings.jobs import local
from bert_embeddings.models import checkpoints
from bert_embeddings.spaces import space_jobs, stages
from components.sections import geometry_view
from testkit import brute
from testkit.apptest import ROOT, figures, messages, run_page, shown
from testkit.random_models import keep_first_pieces, write_random_bert

# One test process runs this file: its tests share what it starts (make test runs two); the
# default model resolves offline at once.
pytestmark = [pytest.mark.xdist_group("geometry-lab"), pytest.mark.usefixtures("offline")]


def brute_mean_cosine(rows: np.ndarray) -> float:
    """Every pair's cosine in float64, the diagonal left out (a row of zeros has cosine 0)."""
    norms = np.linalg.norm(rows, axis=1)
    unit = rows / np.where(norms > 0, norms, 1)[:, None]
    cosines = unit @ unit.T
    n = len(rows)
    return float((cosines.sum() - np.trace(cosines)) / (n * (n - 1)))


def test_layout_sorts_pieces_as_a_bert_vocabulary_is_laid_out():
    pieces = ["[PAD]", "[unused0]", "[CLS]", "<s>", "a", "!", "##a", "##ing", "the", "1990", "é"]
    names = [geometry_lab.LAYOUT[k] for k in geometry_lab.layout(pieces)]
    assert names == [
        "special",
        "[unused]",
        "special",
        "special",
        "single character",
        "single character",
        "## piece",
        "## piece",
        "whole word",
        "whole word",
        "single character",
    ]


@pytest.fixture(scope="module")
def bundled_lab(bundled):
    index = vocab_search.build_index(bundled.tables.word_embeddings, bundled.tokenizer)
    outputs = lambda start, stop: decompose.vocabulary_outputs(bundled, start, stop)  # noqa: E731
    return geometry_lab.measure(index.table, outputs, index.pieces, 3), index


SHAPES = [("raw", 0), ("centred", 0), ("all-but-the-top", 3), ("standardised", 0)]


@pytest.mark.parametrize("shape", SHAPES)
def test_each_tables_mean_cosine_equals_brute_force_on_the_bundled_model(bundled, bundled_lab, shape):
    """On a sample of 1,500 rows the brute force is exact; the lab's figures are over every row,
    so they are checked against the brute force over every row through the mean's formula
    (the sum of every unit row), itself checked against all pairs on the sample."""
    lab, index = bundled_lab
    outputs = geometry_lab.output_table(lambda a, b: decompose.vocabulary_outputs(bundled, a, b), index.size)
    for name, table in zip(geometry_lab.TABLES, (index.table, outputs), strict=True):
        rows = brute.transformed(table, *shape)  # every row, fitted to the whole table, float64
        unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        n = len(unit)
        total = unit.sum(axis=0)
        expected = float((total @ total - n) / (n * (n - 1)))
        sample = unit[:1500]
        assert brute_mean_cosine(sample) == pytest.approx(
            float(((sample.sum(0) @ sample.sum(0)) - len(sample)) / (len(sample) * (len(sample) - 1))),
            abs=1e-12,
        )
        found = lab.stats[name][shape[0]]
        assert found.mean_cosine == pytest.approx(expected, abs=1e-6), name
        shares = (total**2 - (unit**2).sum(axis=0)) / (n * (n - 1))
        np.testing.assert_allclose(found.contributions, shares, atol=1e-7)
        assert found.contributions.sum() == pytest.approx(found.mean_cosine, abs=1e-12)


def test_the_output_table_is_the_embedding_modules_own_output(bundled):
    """Every piece alone at position 1, segment A, as the model's own module computes it."""
    import torch

    module = decompose.build_reference_module(bundled)
    ids = np.array([0, 101, 1996, 2047, 2048, 2054, 30521])  # across the blocks' edges too
    table = geometry_lab.output_table(lambda a, b: decompose.vocabulary_outputs(bundled, a, b), 30522)
    with torch.inference_mode():
        expected = module(
            input_ids=torch.tensor(ids)[:, None],
            token_type_ids=torch.zeros((len(ids), 1), dtype=torch.long),
            position_ids=torch.ones((len(ids), 1), dtype=torch.long),
        )[:, 0].numpy()
    np.testing.assert_allclose(table[ids], expected, atol=1e-5)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_sentences_mean_cosine_equals_brute_force(bundled, bundled_lab, shape):
    lab, index = bundled_lab
    encoding = bundled.encode("The river bank flooded.", "")
    stages = decompose.stage_vectors(decompose.decompose(bundled, encoding))
    found = geometry_lab.sentence_cosines(lab, stages, decompose.STAGES[-1])
    outputs = geometry_lab.output_table(lambda a, b: decompose.vocabulary_outputs(bundled, a, b), index.size)
    for stage, rows in stages.items():
        fitted_to = outputs if stage == decompose.STAGES[-1] else index.table
        expected = brute_mean_cosine(brute.transformed(fitted_to, *shape, rows=rows))
        assert found[stage][shape[0]] == pytest.approx(expected, abs=1e-9), stage
    assert geometry_lab.sentence_cosines(lab, {k: v[:1] for k, v in stages.items()}, "x") == {}


def test_the_length_sentence_states_the_rank_correlation_it_measured(bundled_lab):
    """Spearman's correlation recomputed with numpy ranks (no ties among float lengths)."""
    lab, index = bundled_lab
    words = np.flatnonzero(lab.layout == geometry_lab.WHOLE_WORD)
    lengths = np.linalg.norm(index.table[words].astype(np.float64), axis=1).astype(np.float32)
    ranks = np.argsort(np.argsort(lengths)).astype(np.float64)
    expected = np.corrcoef(np.arange(len(words)), ranks)[0, 1]
    assert lab.whole_word_spearman == pytest.approx(expected, abs=1e-6)  # float32 lengths may tie
    said = geometry_page.lengths_sentence(lab, index.pieces)
    assert f"{expected:+.2f}" in said and f"{len(words):,} whole words" in said
    assert ("shorter" if expected < 0 else "longer") in said
    assert "bert-base-uncased" in said  # the bundled model keeps its vocabulary


def test_the_lengths_chart_draws_each_stretchs_median_and_band_as_numpy_finds_them(bundled_lab):
    """Each part of the layout, stretch by stretch of the ids: the chart's median and 10th-90th
    percentile band are numpy's own on exactly the rows of that part in that stretch, and its
    counts add up to every row of the part; the chart sends a few thousand numbers, not a marker
    a row."""
    lab, index = bundled_lab
    figure = views.row_lengths(lab)
    n = len(lab.lengths)
    lines = [trace for trace in figure.data if trace.showlegend is not False]
    assert len(lines) == len(set(lab.layout.tolist()))
    for kind, name in enumerate(geometry_lab.LAYOUT):
        ids = np.flatnonzero(lab.layout == kind)
        if not ids.size:
            continue
        line = next(trace for trace in lines if trace.legendgroup == name)
        data = np.asarray(line.customdata)
        assert data[:, 2].sum() == ids.size and name in line.name and f"({ids.size:,})" in line.name
        for (first, last, count, low, high), median in zip(data, line.y, strict=True):
            rows = ids[(ids >= first) & (ids <= last)]
            assert (
                rows.size == count
                and (rows * lab_charts.STRETCHES // n == first * lab_charts.STRETCHES // n).all()
            )
            np.testing.assert_allclose(
                (low, median, high), np.percentile(lab.lengths[rows], (10, 50, 90)), rtol=1e-6
            )
    assert sum(np.asarray(trace.y).size for trace in figure.data) <= 3 * len(lines) * lab_charts.STRETCHES


def open_geometry(params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update(params or {})
    return at.run().switch_page("pages/geometry.py").run()


def test_the_rank_correlation_is_scipys_spearman_to_the_last_bit():
    """Ties share their mean rank, a constant or nan input gives nan: the float scipy.stats.spearmanr
    gives, which the page no longer imports for this one figure."""
    import warnings

    from scipy.stats import spearmanr

    rng = np.random.default_rng(4)
    for trial in range(60):
        n = int(rng.integers(3, 2000))
        ids = np.sort(rng.choice(50_000, n, replace=False)) if trial % 4 else rng.integers(0, 6, n)
        lengths = rng.standard_normal(n).astype(np.float32)
        lengths = np.round(lengths, 1) if trial % 3 == 0 else lengths  # many ties
        assert geometry_lab.rank_correlation(ids, lengths) == float(spearmanr(ids, lengths).statistic)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ids, lengths in (
            ([1, 2, 3], [5.0, 5.0, 5.0]),
            ([1, 2, 3], [1.0, np.nan, 2.0]),
            ([4, 4, 4], [1.0, 2.0, 3.0]),
        ):
            assert np.isnan(spearmanr(ids, lengths).statistic)
            assert np.isnan(geometry_lab.rank_correlation(np.array(ids), np.array(lengths, dtype=np.float32)))


def test_measuring_a_model_leaves_scipy_stats_unimported():
    """scipy.stats is some 170 modules and 20 MB that a server keeps once imported: the Geometry
    page's measurements do without it."""
    import subprocess
    import sys

    script = (
        "import sys, numpy as np\n"
        "from bert_embeddings.analysis import geometry_lab\n"
        "table = np.random.default_rng(0).standard_normal((600, 24)).astype(np.float32)\n"
        "pieces = [f'w{i}' for i in range(600)]\n"
        "lab = geometry_lab.measure(table, lambda a, b: table[a:b] * 2, pieces, 2)\n"
        "assert np.isfinite(lab.whole_word_spearman)\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert found.stdout.split() == ["False"]


# Measured in a process of its own: tracemalloc counts every thread's allocations, and a
# thread another test left running in this process would count as this one's.
OUTPUT_TABLE_PEAK = """
import json, tracemalloc
import numpy as np
from bert_embeddings.analysis import geometry_lab
n, width = 10_000, 64
table = np.random.default_rng(1).standard_normal((n, width))
tracemalloc.start()
found = geometry_lab.output_table(lambda a, b: table[a:b] * 1.5, n)  # float64 blocks, as LayerNorm's may be
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
equal = bool(np.array_equal(found, (table * 1.5).astype(np.float32)))
block = geometry_lab.OUTPUT_BLOCK * width * 8
print(json.dumps({"peak": peak, "nbytes": found.nbytes, "block": block, "equal": equal}))
"""


def test_the_output_table_is_written_a_block_at_a_time():
    """The layer's output for every piece is held once: each block is written into the table and
    let go, not listed and concatenated (which held the table twice, 188 MB for bert-base)."""
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", OUTPUT_TABLE_PEAK], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["equal"]
    assert found["peak"] <= found["nbytes"] + 2 * found["block"] + 100_000, found


@pytest.mark.slow("geometries fitted to the whole vocabulary, on several pages")
def test_the_page_states_the_figures_it_shows(bundled_lab):
    """The finding, the table and the chart carry the lab's own figures, first the finding."""
    lab, _ = bundled_lab
    at = open_geometry()
    assert not at.exception and not at.error
    text = " ".join(shown(m.value) for m in at.markdown)
    output = lab.stats["layer output"]["raw"]
    assert f"{output.mean_cosine:.3f}" in text and f"{lab.stats['token rows']['raw'].mean_cosine:.3f}" in text
    table = at.dataframe[0].value
    assert list(table.columns) == ["raw", "centred", "all-but-the-top 3", "standardised"]
    assert (
        table.loc["layer output (every piece)", "standardised"]
        == lab.stats["layer output"]["standardised"].mean_cosine
    )
    assert any(i.startswith("your sentence") for i in table.index)
    bars = next(f for f in figures(at) if f.data[0].type == "bar")
    top = output.top(3)
    assert list(bars.data[1].x[:3]) == [f"dim {d}" for d in top]
    gamma = next(d.value for d in at.dataframe if "dimension" in d.value.columns)
    assert list(gamma["dimension"][:3]) == top.tolist()


@pytest.mark.slow("geometries fitted to the whole vocabulary, on several pages")
def test_the_switch_changes_the_chart_and_d_travels_in_the_link():
    at = open_geometry({"geometry": "abtt", "d": "5"})
    assert not at.exception and not at.error
    assert at.slider(key=settings.GEOMETRY_REMOVED).value == 5
    assert "all-but-the-top 5" in list(at.dataframe[0].value.columns)
    title = next(f for f in figures(at) if f.data[0].type == "bar").layout.title.text
    assert "all-but-the-top 5 geometry" in title
    at.segmented_control(key=settings.GEOMETRY).set_value("standardised").run()
    assert dict(at.query_params)["geometry"] == "standardised"
    assert "d" not in at.query_params or at.query_params["d"] == "5"


@pytest.mark.slow("geometries fitted to the whole vocabulary, on several pages")
def test_d_is_kept_while_another_geometry_is_looked_at():
    """Set D, look at another geometry (the slider is not drawn), come back: D is as it was set."""
    at = open_geometry({"geometry": "abtt"})
    at.slider(key=settings.GEOMETRY_REMOVED).set_value(11).run()
    at.segmented_control(key=settings.GEOMETRY).set_value("centred").run()
    assert not [s for s in at.slider if s.key == settings.GEOMETRY_REMOVED]
    at.segmented_control(key=settings.GEOMETRY).set_value("all-but-the-top").run()
    assert not at.exception
    assert at.slider(key=settings.GEOMETRY_REMOVED).value == 11


@pytest.mark.slow("geometries fitted to the whole vocabulary, on several pages")
def test_d_beyond_a_small_tables_rank_gets_a_message(tmp_path):
    """A 16-wide model cannot lose 20 directions: the page says so, and nothing breaks."""
    from testkit.random_models import write_random_bert

    at = run_page("pages/geometry.py", model=str(write_random_bert(tmp_path, hidden=16)))
    at.segmented_control(key=settings.GEOMETRY).set_value("all-but-the-top").run()
    at.slider(key=settings.GEOMETRY_REMOVED).set_value(20).run()
    assert not at.exception
    assert "too few to remove 20 directions" in messages(at)
    table = at.dataframe[0].value
    assert table["all-but-the-top 20"].isna().all() and table["raw"].notna().all()  # the rest measured
    assert not [f for f in figures(at) if f.data[0].type == "bar"]  # no chart of what is not there
    # D stays 20 while another geometry is looked at: that one is measured and drawn in full
    at.segmented_control(key=settings.GEOMETRY).set_value("centred").run()
    assert not at.exception and [f for f in figures(at) if f.data[0].type == "bar"]


@pytest.mark.slow("geometries fitted to the whole vocabulary, on several pages")
def test_a_try_button_opens_neighbours_in_that_geometry():
    at = open_geometry()
    next(b for b in at.button if b.key == "try_standardised").click().run()
    assert not at.exception
    assert at.session_state[settings.GEOMETRY] == "standardised"
    at.switch_page("pages/neighbours.py").run()  # AppTest does not follow a page's own st.switch_page
    assert at.text_input(key=settings.NB_WORD).value == "the"
    assert "of the 10 nearest change from raw cosine in the standardised geometry" in " ".join(
        c.value for c in at.caption
    )


@pytest.mark.slow("geometries fitted to the whole vocabulary, on several pages")
def test_the_geometry_chosen_on_one_page_holds_on_the_others():
    """One setting: chosen on Neighbours, it is the geometry of Your own axes and Geometry too,
    after a page without it in between; and changed there, it is changed on Neighbours."""
    at = run_page("pages/neighbours.py")
    at.segmented_control(key=settings.GEOMETRY).set_value("all-but-the-top").run()
    at.slider(key=settings.GEOMETRY_REMOVED).set_value(6).run()
    at.switch_page("pages/tokens.py").run()
    at.switch_page("pages/axes.py").run()
    assert not at.exception
    assert at.segmented_control(key=settings.GEOMETRY).value == "all-but-the-top"
    assert at.slider(key=settings.GEOMETRY_REMOVED).value == 6
    assert dict(at.query_params)["geometry"] == "abtt" and dict(at.query_params)["d"] == "6"
    at.segmented_control(key=settings.GEOMETRY).set_value("centred").run()
    at.switch_page("pages/geometry.py").run()
    assert at.segmented_control(key=settings.GEOMETRY).value == "centred"
    at.switch_page("pages/neighbours.py").run()
    assert "Top 5 of each token by cosine in the centred geometry" in " ".join(c.value for c in at.caption)


def brute_neighbours(rows: np.ndarray, k: int = 10) -> list[set]:
    norms = np.linalg.norm(rows, axis=1)
    unit = rows / np.where(norms > 0, norms, 1)[:, None]
    cosines = unit @ unit.T
    np.fill_diagonal(cosines, -np.inf)
    ids = np.arange(len(rows))
    return [set(np.lexsort((ids, -line))[:k].tolist()) for line in cosines]


@pytest.mark.parametrize("shape", SHAPES[1:])
def test_the_overlap_with_raw_equals_brute_force(shape):
    """The page's figure, from the lists a stage-space job computes, against float64 brute force."""
    rng = np.random.default_rng(7)
    table = (rng.standard_normal((400, 16)) + np.linspace(0, 3, 16)).astype(np.float32)
    raw = brute_neighbours(brute.transformed(table, "raw"))
    there = brute_neighbours(brute.transformed(table, *shape))
    expected = np.mean([len(a & b) / 10 for a, b in zip(raw, there, strict=True)])
    found = geometry_page.overlap_with_raw(
        space_jobs.lists_of(table, ("raw", 0)), space_jobs.lists_of(table, shape)
    )
    assert found == pytest.approx(expected, abs=1e-12)


def own_random_bert(tmp_path, monkeypatch, request) -> Path:
    """A random 16-wide BERT with weights of this test's own (the server process keeps a model's
    lists in memory by its weights, whatever the cache folder), and a cache folder of this test's
    own, where its neighbour lists are computed."""
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    return write_random_bert(
        tmp_path / "model", hidden=16, seed=zlib.crc32(request.node.name.encode()) % 1000
    )


@pytest.fixture
def random_model(tmp_path, monkeypatch, request):
    """The vocabulary's first 4,000 pieces of such a model: the jobs and their checks are those
    of 30,522 rows, on fewer."""
    return keep_first_pieces(own_random_bert(tmp_path, monkeypatch, request), 4000)


@pytest.fixture
def whole_random_model(tmp_path, monkeypatch, request):
    """All 30,522 rows, so that a job is surely still computing when the test stops its worker."""
    return own_random_bert(tmp_path, monkeypatch, request)


OVERLAP = geometry_page.OVERLAP_COLUMN


def overlap_table(at: AppTest):
    return next((d.value for d in at.dataframe if "geometry" in d.value.columns), None)


def panel(at: AppTest) -> str:
    """What the page says of its jobs: the bar's text, the waiting and failed lines, the note."""
    return " ".join([*(p.text for p in at.get("progress")), messages(at), *(c.value for c in at.caption)])


def until(at: AppTest, done, timeout: float = 600) -> AppTest:
    """Runs the page again (as the panel's timer does) until ``done(at)``."""
    deadline = time.monotonic() + timeout
    while not done(at):
        assert not at.exception, at.exception
        assert time.monotonic() < deadline, panel(at)
        time.sleep(0.5)
        at.run()
    return at


@functools.cache
def spaces_of(folder) -> Path:
    """Where the model's stage spaces are kept (in the test's cache folder)."""
    return space_jobs.folder_for(space_jobs.model_key(checkpoints.load_model(str(folder))))


def jobs_of(folder) -> list[local.Job]:
    """This server process's jobs for the model's spaces (other tests' jobs stay in its list)."""
    return [job for job in list(local._jobs.values()) if job.folder.is_relative_to(spaces_of(folder))]


def figures_of(folder, removed: int) -> dict[str, float]:
    """Each geometry's figure as the lists computed in this process give it."""
    table = checkpoints.load_model(str(folder)).tables.word_embeddings
    raw = space_jobs.lists_of(table, ("raw", 0))
    return {
        geometry_view.described(shape): geometry_page.overlap_with_raw(raw, space_jobs.lists_of(table, shape))
        for shape in (("centred", 0), ("all-but-the-top", removed), ("standardised", 0))
    }


@pytest.mark.server("stage-space worker processes")
def test_the_page_shows_each_geometrys_overlap_once_computed(random_model):
    """The job panel first (the geometry computing, and how many are left), then each geometry's
    figure over every piece, as the lists computed in this process give it."""
    at = run_page("pages/geometry.py", model=str(random_model))
    assert not at.exception and not at.error
    assert "geometries still to compute" in panel(at) or overlap_table(at) is not None
    until(at, lambda at: overlap_table(at) is not None and len(overlap_table(at)) == 3)
    shown_figures = overlap_table(at)
    assert "still to compute" not in panel(at) and not at.get("progress")
    expected = figures_of(random_model, 1)
    assert list(shown_figures["geometry"]) == list(expected)
    assert dict(zip(shown_figures["geometry"], shown_figures[OVERLAP], strict=True)) == expected


@pytest.mark.server("stage-space worker processes")
def test_a_failed_overlap_job_shows_its_reason_and_try_again_starts_it_afresh(whole_random_model):
    """A worker stopped outright: the page says so, and Try again starts the computation afresh in
    a new worker, the page showing its progress (a finished computation's figures are the test
    above's)."""
    at = run_page("pages/geometry.py", model=str(whole_random_model))

    def computing():
        return [job for job in jobs_of(whole_random_model) if job.running() and not job.waiting()]

    until(at, lambda at: computing())
    running = computing()[0]
    running.process.kill()
    running.process.wait()
    until(at, lambda at: any(button.key == "geo_overlaps_again" for button in at.button))
    assert "could not be computed: the background process stopped" in panel(at)
    at.button(key="geo_overlaps_again").click().run()
    assert not any(button.key == "geo_overlaps_again" for button in at.button)
    until(at, lambda at: [job for job in computing() if job.process.pid != running.process.pid])
    assert "geometries still to compute" in panel(at) and not at.error
    for job in computing():  # (not left to compute beside the next tests)
        job.process.kill()
        job.process.wait()


@pytest.mark.server("stage-space worker processes")
def test_several_ds_tried_in_a_row_do_not_each_start_a_computation(random_model, tmp_path):
    """While another job computes, each D asked for waits (the panel says so) and starts nothing;
    the last D's figures come once it is done, and the D's passed on the way are never computed."""
    blocker = local.Job(
        tmp_path / "another-job",
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"]),
        0.0,
    )
    local._jobs[blocker.folder] = blocker
    try:
        at = run_page("pages/geometry.py", model=str(random_model))
        at.segmented_control(key=settings.GEOMETRY).set_value("all-but-the-top").run()
        for d in (2, 3, 4):
            at.slider(key=settings.GEOMETRY_REMOVED).set_value(d).run()
        assert not at.exception and not at.error
        assert "waiting while another map or space is computed" in panel(at)
        assert jobs_of(random_model) and not [job for job in jobs_of(random_model) if not job.waiting()]
    finally:
        blocker.process.kill()
        blocker.process.wait()
        local._jobs.pop(blocker.folder, None)
    until(at, lambda at: overlap_table(at) is not None and len(overlap_table(at)) == 3)
    assert "all-but-the-top 4" in list(overlap_table(at)["geometry"])
    for d in (1, 2, 3):
        spec = space_jobs.Spec(str(random_model), stages.TOKEN, ("all-but-the-top", d))
        assert space_jobs.lists_for(spaces_of(random_model), spec) is None


def test_a_one_piece_sentence_says_why_it_has_no_rows_in_the_table():
    """/geometry?a=a&b=&special=0: the sentence's rows once vanished without a word."""
    at = run_page("pages/geometry.py", a="a", b="", special=False)
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if "raw" in d.value.columns)
    assert not [row for row in table.index if str(row).startswith("your sentence")]
    assert "a mean over pairs needs two or more" in " ".join(shown(i.value) for i in at.info)
    at.toggle(key=settings.SPECIAL_TOKENS_KEY).set_value(True).run()  # [CLS] a [SEP]: three pieces
    table = next(d.value for d in at.dataframe if "raw" in d.value.columns)
    assert [row for row in table.index if str(row).startswith("your sentence")]
    assert "a mean over pairs needs two or more" not in " ".join(shown(i.value) for i in at.info)
