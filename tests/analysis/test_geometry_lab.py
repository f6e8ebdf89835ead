"""The Geometry page: its measurements against float64 brute force on explicitly transformed
tables, its sentences against the figures they state, and the page itself through AppTest."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings.analysis import decompose, geometry_lab, overlap_jobs, vocab_search
from bert_embeddings.views import settings
from components.sections import geometry_view
from testkit import brute
from testkit.apptest import ROOT, figures, messages, run_page, shown

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
    said = geometry_view.lengths_sentence(lab, index.pieces)
    assert f"{expected:+.2f}" in said and f"{len(words):,} whole words" in said
    assert ("shorter" if expected < 0 else "longer") in said
    assert "bert-base-uncased" in said  # the bundled model keeps its vocabulary


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
# background task another test left in this process (an overlap) would count as this one's.
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


def test_d_is_kept_while_another_geometry_is_looked_at():
    """Set D, look at another geometry (the slider is not drawn), come back: D is as it was set."""
    at = open_geometry({"geometry": "abtt"})
    at.slider(key=settings.GEOMETRY_REMOVED).set_value(11).run()
    at.segmented_control(key=settings.GEOMETRY).set_value("centred").run()
    assert not [s for s in at.slider if s.key == settings.GEOMETRY_REMOVED]
    at.segmented_control(key=settings.GEOMETRY).set_value("all-but-the-top").run()
    assert not at.exception
    assert at.slider(key=settings.GEOMETRY_REMOVED).value == 11


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
    rng = np.random.default_rng(7)
    table = (rng.standard_normal((400, 16)) + np.linspace(0, 3, 16)).astype(np.float32)
    raw = brute_neighbours(brute.transformed(table, "raw"))
    there = brute_neighbours(brute.transformed(table, *shape))
    expected = np.mean([len(a & b) / 10 for a, b in zip(raw, there, strict=True)])
    assert overlap_jobs.compute(table, *shape) == pytest.approx(expected, abs=1e-12)


def wait_for_overlaps(key: str, table: np.ndarray, removed: int, timeout: float = 300) -> dict:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = {n: overlap_jobs.overlap_with_raw(key, table, n, removed) for n, _ in SHAPES[1:]}
        if not any(isinstance(f, overlap_jobs.Pending) for f in found.values()):
            return found
        time.sleep(0.5)
    raise AssertionError("the background comparison did not finish")


@pytest.mark.slow("the whole vocabulary's overlaps, in every geometry")
def test_the_background_job_computes_each_figure_once_and_the_same():
    rng = np.random.default_rng(8)
    table = (rng.standard_normal((300, 12)) + 1).astype(np.float32)
    key = f"test-{rng.integers(1 << 60)}"
    first = overlap_jobs.overlap_with_raw(key, table, "centred")
    assert isinstance(first, overlap_jobs.Pending) and first.ahead >= 1
    found = wait_for_overlaps(key, table, 3)
    for name, removed in SHAPES[1:]:
        assert found[name] == overlap_jobs.compute(table, name, removed)


# (slow as it waits behind the overlaps the page's tests asked for, unless they ran first and saw
# them through)
@pytest.mark.slow("the whole vocabulary's overlaps, in every geometry")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_figure_that_failed_unexpectedly_or_whose_worker_died_is_computed_again(monkeypatch):
    """An unexpected error is shown (for RETRY_AFTER), then computed again when asked for; a
    worker thread that dies mid-task is replaced at the next request and the task taken up."""
    import threading

    rng = np.random.default_rng(9)
    table = (rng.standard_normal((200, 12)) + 1).astype(np.float32)
    key = f"test-{rng.integers(1 << 60)}"
    real, calls = overlap_jobs.compute, []

    def flaky(*args):
        if args[0] is not table:  # a task another test left in this process's queue
            return real(*args)
        calls.append(threading.current_thread())
        if len(calls) == 1:
            raise MemoryError("no room just now")
        if len(calls) == 2:
            raise SystemExit  # ends the worker thread
        return real(*args)

    monkeypatch.setattr(overlap_jobs, "compute", flaky)
    monkeypatch.setattr(overlap_jobs, "RETRY_AFTER", 2.0)
    assert isinstance(overlap_jobs.overlap_with_raw(key, table, "centred"), overlap_jobs.Pending)
    found = wait_for(lambda: overlap_jobs.overlap_with_raw(key, table, "centred"), overlap_jobs.Failed)
    assert "MemoryError: no room just now" in found.reason
    assert overlap_jobs.overlap_with_raw(key, table, "centred") == found  # shown, not retried at once
    # asked again later: queued again; the worker dies on it, the next request replaces it
    figure = wait_for(lambda: overlap_jobs.overlap_with_raw(key, table, "centred"), float)
    assert figure == real(table, "centred", 0)
    assert len(calls) == 3 and calls[1] is not calls[2]  # a new thread finished the task


def wait_for(ask, kind, timeout: float = 120):
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if isinstance(found := ask(), kind):
            return found
        time.sleep(0.1)
    raise AssertionError(f"no {kind.__name__} in time")


@pytest.mark.slow("the whole vocabulary's overlaps, in every geometry")
def test_the_page_shows_each_geometrys_overlap_once_computed(tmp_path):
    """Pending first (with what is left), then each figure as computed over every piece."""
    import time

    from bert_embeddings.models import checkpoints
    from testkit.random_models import write_random_bert

    folder = write_random_bert(tmp_path, hidden=16, seed=3)
    at = run_page("pages/geometry.py", model=str(folder))
    assert not at.exception and not at.error
    shown_first = " ".join(shown(i.value) for i in at.info)
    assert "in the background" in shown_first or [d for d in at.dataframe if "geometry" in d.value.columns]
    figures_shown = None
    for _ in range(600):
        tables = [d.value for d in at.dataframe if "geometry" in d.value.columns]
        if tables and len(tables[0]) == 3:
            figures_shown = tables[0]
            break
        time.sleep(0.5)
        at.run()
    assert figures_shown is not None, "the figures never appeared"
    assert list(figures_shown["geometry"]) == ["centred", "all-but-the-top 1", "standardised"]
    assert "in the background" not in " ".join(shown(i.value) for i in at.info)
    table = checkpoints.load_model(str(folder)).tables.word_embeddings
    column = "of the 10 nearest by raw cosine, kept"
    assert figures_shown[column][0] == overlap_jobs.compute(table, "centred", 0)


# (slow as it waits behind the overlaps the page's tests asked for, unless they ran first and saw
# them through)
@pytest.mark.slow("the whole vocabulary's overlaps, in every geometry")
def test_a_session_trying_d_after_d_keeps_one_request_in_the_queue(monkeypatch):
    """A stranger opening d=11 ... d=16 once put a newcomer's d=9 behind six jobs: each request of
    a session replaces its last, so the newcomer waits for at most the one being computed and the
    stranger's latest."""
    import threading

    rng = np.random.default_rng(10)
    table = (rng.standard_normal((200, 24)) + 1).astype(np.float32)
    key = f"test-{rng.integers(1 << 60)}"
    gate, real = threading.Event(), overlap_jobs.compute

    def held(*args):  # the first task holds the worker until the queue has been looked at
        gate.wait(60)
        return real(*args)

    monkeypatch.setattr(overlap_jobs, "compute", held)
    with overlap_jobs._lock:  # another test's tasks may still be in this process's queue
        others = len(overlap_jobs._places)
    try:
        for d in range(11, 17):
            found = overlap_jobs.request("stranger", key, table, [("all-but-the-top", d)])
            assert isinstance(found[0], overlap_jobs.Pending)
        newcomer = overlap_jobs.request("newcomer", key, table, [("all-but-the-top", 9)])[0]
        # the one running, the stranger's latest and itself
        assert isinstance(newcomer, overlap_jobs.Pending) and newcomer.ahead <= 3 + others
        # what the stranger withdrew is not computed at all (unless asked again)
        withdrawn = [(key, "all-but-the-top", d) for d in range(12, 16)]
        assert not any(task in overlap_jobs._figures for task in withdrawn)
    finally:
        gate.set()
    figure = wait_for(
        lambda: overlap_jobs.request("newcomer", key, table, [("all-but-the-top", 9)])[0], float
    )
    assert figure == real(table, "all-but-the-top", 9)


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
