"""The Maps page's t-SNE map: progress while it is computed (never blocking anything else),
then the map with its faithfulness, highlights and link; a click on a point opens Neighbours."""

from __future__ import annotations

import io
import os
import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings.analysis import geometry, vocab_search
from bert_embeddings.figures import charts, map_marks, settings
from bert_embeddings.jobs import files, local
from bert_embeddings.maps import map_jobs, map_reading
from bert_embeddings.models import glyphs
from testkit import apptest
from testkit.apptest import ROOT, figures, messages

# One test process runs this file: its tests share what it starts (make test runs two); the
# default model resolves offline at once.
pytestmark = [pytest.mark.xdist_group("maps-page"), pytest.mark.usefixtures("offline")]


@pytest.fixture(scope="module", autouse=True)
def quick_maps(tmp_path_factory):
    """Maps in a cache of their own, with few iterations: a real computation, in seconds."""
    saved = {k: os.environ.get(k) for k in ("BERT_EXPLORER_CACHE", "BERT_EXPLORER_MAP_ITERATIONS")}
    os.environ["BERT_EXPLORER_CACHE"] = str(tmp_path_factory.mktemp("maps-cache"))
    os.environ["BERT_EXPLORER_MAP_ITERATIONS"] = "30"
    local._jobs.clear()  # a map another test file left computing does not queue these
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    local._jobs.clear()


def open_maps(params: dict) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update(params)
    at.run()
    return at.switch_page("pages/maps.py").run()


def wait_for_the_map(timeout: float = 300) -> None:
    deadline = time.time() + timeout
    while any(job.running() for job in local._jobs.values()) and time.time() < deadline:
        time.sleep(0.25)
    assert not any(job.running() or job.failure() for job in local._jobs.values())


@pytest.mark.server("the t-SNE map, computed by a worker process")
def test_progress_first_then_the_map_with_its_faithfulness(monkeypatch, tmp_path):
    """In a cache folder of its own (another test of the file may have made the module's map):
    the progress first, other pages free meanwhile, then the map with its recall."""
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    at = open_maps({"method": "tsne", "highlight": "^[0-9]+$"})
    assert not at.exception and not at.error
    assert at.get("progress"), "the page shows the computation's progress"
    assert not [f for f in figures(at) if "t-SNE" in (f.layout.title.text or "")]
    # meanwhile nothing waits for it: PCA and other pages draw at once
    at.segmented_control(key=settings.MAP_METHOD).set_value("PCA").run()
    assert not at.exception and any(
        "The whole vocabulary" in (f.layout.title.text or "") for f in figures(at)
    )
    at.switch_page("pages/neighbours.py").run()
    assert not at.exception and not at.error and at.get("plotly_chart")
    wait_for_the_map()
    at = open_maps({"method": "tsne", "highlight": "^[0-9]+$"})
    assert not at.exception and not at.error
    tsne = next(f for f in figures(at) if "t-SNE" in (f.layout.title.text or ""))
    symbols = {t.name: t.marker.symbol for t in tsne.data}
    pattern = charts.text("matching ^[0-9]+$")  # as Plotly is given it: '$' as an entity
    assert symbols[pattern] == "diamond" and symbols["your sentence"] == "square"
    said = messages(at) + " ".join(apptest.shown(m.value) for m in at.markdown)
    assert "neighbour recall@10 =" in said
    params = {k: v[0] if isinstance(v, list) else v for k, v in at.query_params.items()}
    assert params.get("method") == "tsne"


@pytest.mark.server("the t-SNE map, computed by a worker process")
def test_the_page_shows_the_maps_own_numbers(bundled):
    """The figure's points are the coordinates kept on disk; the recall shown is the map's."""
    wait_for_the_map()
    at = open_maps({"method": "tsne"})
    if at.get("progress"):  # the first test computed it already, unless run alone
        wait_for_the_map()
        at = open_maps({"method": "tsne"})
    from components.caches.map_state import map_settings

    table = bundled.tables.word_embeddings
    done = map_jobs.load(map_jobs.folder_for(files.fingerprint(table), map_settings()), len(table))
    assert done is not None and done.meta["settings"]["iterations"] == 30
    tsne = next(f for f in figures(at) if "t-SNE" in (f.layout.title.text or ""))
    index = vocab_search.build_index(table, bundled.tokenizer)
    whole_words = np.flatnonzero(index.kinds == vocab_search.WHOLE_WORD)
    from testkit.apptest import array

    np.testing.assert_array_equal(array(tsne.data[0].x), done.coords[whole_words, 0])
    said = " ".join(apptest.shown(m.value) for m in at.markdown)
    assert f"recall@10 = {done.meta['recall_at_10']:.3f}" in said


def finished_map(bundled, params: dict) -> tuple[AppTest, map_jobs.Done]:
    """The Maps page with the t-SNE map computed, and that map as it is on disk."""
    from components.caches.map_state import map_settings

    wait_for_the_map()
    at = open_maps(params)
    if at.get("progress"):  # computed by an earlier test, unless run alone
        wait_for_the_map()
        at = open_maps(params)
    table = bundled.tables.word_embeddings
    done = map_jobs.load(map_jobs.folder_for(files.fingerprint(table), map_settings()), len(table))
    assert done is not None
    return at, done


def tsne_figure(at: AppTest):
    return next(f for f in figures(at) if "t-SNE" in (f.layout.title.text or ""))


@pytest.mark.server("the t-SNE map, computed by a worker process")
def test_colour_by_neighbours_kept_with_labels_and_its_caption(bundled):
    from testkit.apptest import array

    at, done = finished_map(bundled, {"method": "tsne", "colour": "kept", "kinds": "word,number"})
    assert not at.exception and not at.error
    figure = tsne_figure(at)
    index = vocab_search.build_index(bundled.tables.word_embeddings, bundled.tokenizer)
    shown = np.flatnonzero(np.isin(index.kinds, [vocab_search.WHOLE_WORD, vocab_search.NUMBER]))
    cloud = figure.data[0]
    np.testing.assert_array_equal(array(cloud.marker.color), done.kept[shown])
    assert figure.layout.coloraxis.cmax == 10 and cloud.marker.coloraxis == "coloraxis"
    regions = next(t for t in figure.data if t.name == "regions")
    # the regions' labels that fit without overlapping, largest first, each a label of its region
    labels = map_reading.labels(done.regions, index.pieces, index.kinds, glyphs.legible)
    placed = map_marks.placed_labels(done.regions.anchors, [label.short for label in labels], done.coords)
    assert regions.mode == "text" and 1 <= len(regions.text) == len(placed) <= len(labels) <= 30
    assert list(regions.text) == map_marks.gl_texts([labels[n].short for n, _ in placed])
    captions = " ".join(apptest.shown(c.value) for c in at.caption)
    assert f"{np.mean(done.kept == 0):.1%} of pieces keep none" in captions
    assert f"{np.mean(done.kept >= 5):.1%} keep 5 or more" in captions
    assert f"recall@10 = {done.kept.mean() / 10:.3f}" in " ".join(apptest.shown(m.value) for m in at.markdown)
    params = {k: v[0] if isinstance(v, list) else v for k, v in at.query_params.items()}
    assert params.get("colour") == "kept"
    at.toggle(key=settings.MAP_LABELS).set_value(False).run()
    assert not [t for t in tsne_figure(at).data if t.name == "regions"]
    params = {k: v[0] if isinstance(v, list) else v for k, v in at.query_params.items()}
    assert params.get("labels") == "0"


@pytest.mark.server("the t-SNE map, computed by a worker process")
def test_colour_by_hubness_and_the_table_of_the_biggest_hubs(bundled):
    from testkit.apptest import array

    at, done = finished_map(bundled, {"method": "tsne", "colour": "hubs"})
    assert not at.exception and not at.error
    occurrence = done.occurrence
    assert occurrence.sum() == 10 * len(done.coords)
    cloud = tsne_figure(at).data[0]
    colours = array(cloud.marker.color)
    assert np.all(np.diff(colours) >= 0)  # the biggest hubs are drawn last, on top
    assert sorted(colours.tolist()) == sorted(occurrence.tolist())  # every kind shown by default
    table = at.dataframe[0].value
    top = np.lexsort((np.arange(len(occurrence)), -occurrence))[:20]
    assert table["in how many pieces' 10 nearest"].tolist() == occurrence[top].tolist()
    assert table["id"].tolist() == top.tolist()
    assert all(link.startswith("neighbours?") and "q=" in link for link in table["search it"])


@pytest.mark.server("the t-SNE map, computed by a worker process")
@pytest.mark.parametrize("method", ["tsne", "pca"])
def test_a_clicked_piece_is_marked_with_the_neighbours_pages_answer(bundled, method):
    """The click's marks: its 10 nearest by cosine are what the Neighbours page finds (every
    piece shown but itself), joined by lines; the overlap in words is the piece's own count."""
    from testkit.apptest import array

    at, done = finished_map(bundled, {"method": "tsne"})
    index = vocab_search.build_index(bundled.tables.word_embeddings, bundled.tokenizer)
    row = index.pieces.index("king")
    key = f"{method}_vocabulary"
    at.session_state["_memory"] = {"map_clicked": {key: row}}
    at.segmented_control(key=settings.MAP_METHOD).set_value("t-SNE" if method == "tsne" else "PCA").run()
    assert not at.exception and not at.error
    figure = next(f for f in figures(at) if "The whole vocabulary" in (f.layout.title.text or ""))
    page = vocab_search.nearest(
        index, index.table[row], 10, filters=vocab_search.Filters(hide_special=False, exclude_ids=(row,))
    )
    marked = next(t for t in figure.data if t.name == "its 10 nearest by cosine (joined)")
    assert list(marked.hovertext) == charts.texts([glyphs.legible(p) for p in page.pieces])
    lines = next(t for t in figure.data if t.mode == "lines")
    assert np.isfinite(array(lines.x)).sum() == 20  # from the piece to each of its 10
    if method == "tsne":
        np.testing.assert_array_equal(array(marked.x), done.coords[page.ids, 0])
        said = f"{done.kept[row]} of the 10 nearest pieces to “king” by cosine"
        assert said in " ".join(m.value for m in at.markdown)
    assert (
        next(t for t in figure.data if t.name == "its 10 nearest points here").marker.symbol == "triangle-up"
    )
    assert "clicked: king" in [t.name for t in figure.data]


def test_the_pca_map_in_a_geometry_is_pca_of_its_rows_and_a_click_marks_its_neighbours(bundled):
    """geometry=standardised: the map is PCA of the standardised rows (geometry.pca, tested
    against scikit-learn), and a clicked piece's marks are its nearest in that geometry."""
    from testkit.apptest import array

    table = bundled.tables.word_embeddings
    index = vocab_search.build_index(table, bundled.tokenizer)
    space = geometry.fit(table, "standardised")
    row = index.pieces.index("king")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"geometry": "standardised"})
    at.run()
    at.switch_page("pages/maps.py")
    at.session_state["_memory"] = {"map_clicked": {"pca_vocabulary": row}}
    at.run()
    assert not at.exception and not at.error
    figure = next(f for f in figures(at) if "The whole vocabulary" in (f.layout.title.text or ""))
    assert "PCA, standardised geometry" in figure.layout.title.text
    whole_words = np.flatnonzero(index.kinds == vocab_search.WHOLE_WORD)
    _, coords = geometry.pca(table, space)
    np.testing.assert_allclose(array(figure.data[0].x), coords[whole_words, 0], atol=1e-4)
    found = vocab_search.nearest(
        index, table[row], 10, space, vocab_search.Filters(hide_special=False, exclude_ids=(row,))
    )
    marked = next(t for t in figure.data if t.name == "its 10 nearest by cosine (joined)")
    assert list(marked.hovertext) == charts.texts([glyphs.legible(p) for p in found.pieces])
    assert dict(at.query_params)["geometry"] == "standardised"


@pytest.mark.server("the t-SNE map, computed by a worker process")
def test_a_geometrys_t_sne_map_is_a_job_of_its_own_on_its_rows(bundled):
    """geometry=centred with t-SNE: its own job and folder; the neighbour lists it keeps are the
    centred rows' (brute force on the very rows the worker was given), not raw's."""
    from components.caches.map_state import map_settings

    wait_for_the_map()
    params = {"method": "tsne", "geometry": "centred"}
    at = open_maps(params)
    assert not at.exception and not at.error
    if at.get("progress"):
        wait_for_the_map()
        at = open_maps(params)
    table = bundled.tables.word_embeddings
    folder = map_jobs.folder_for(f"{files.fingerprint(table)}-centred", map_settings())
    done = map_jobs.load(folder, len(table))
    assert done is not None
    assert "t-SNE, centred geometry" in tsne_figure(at).layout.title.text
    # its hubs search in the map's geometry: they once opened raw searches
    hubs = next(d.value for d in at.dataframe if "search it" in d.value.columns)
    assert all("geometry=centred" in link for link in hubs["search it"])
    rows = geometry.transformed_table(table, geometry.fit(table, "centred")).astype(np.float64)
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    sample = np.random.default_rng(3).choice(len(table), 20, replace=False)
    scores = unit[sample] @ unit.T
    scores[np.arange(20), sample] = -np.inf
    expected = [np.lexsort((np.arange(len(table)), -s))[:10] for s in scores]
    shared = np.mean([np.isin(done.neighbours[r], e).mean() for r, e in zip(sample, expected, strict=True)])
    assert shared >= 0.98, shared


def test_a_clicked_point_names_its_piece():
    """Trace and point number (what a click reports) lead back to the vocabulary id drawn there,
    whether the points are drawn by kind or all in one trace by a number, with underlays."""
    kinds = np.array([0, 1, 0, 3, 1, 0], dtype=np.int8)
    highlights = [map_marks.Highlight("your sentence", np.array([4, 2]), "#000", "square")]
    shown_kinds = [0, 1, 3]
    traces = map_marks.trace_rows(kinds, shown_kinds, None, 0, highlights)
    assert traces[0][2] == 5  # the third whole word
    assert traces[1][1] == 4 and traces[2][0] == 3
    assert traces[3][1] == 2  # the highlight's second point
    kept = map_marks.kept_colouring(np.array([3, 0, 9, 1, 2, 5]))
    traces = map_marks.trace_rows(kinds, [0, 3], kept, 2, highlights)
    assert traces[0].tolist() == [0, 2, 3, 5] and traces[1] is None and traces[2] is None
    hubs = map_marks.hub_colouring(np.array([3, 0, 9, 1, 2, 5]))
    assert map_marks.trace_rows(kinds, [0, 3], hubs, 0, [])[0].tolist() == [3, 0, 5, 2]  # hubs on top


def test_a_method_a_link_cannot_name_falls_back_with_a_notice():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"method": "umap"})
    at.run()
    assert not at.exception and "method='umap'" in messages(at)  # said on the page first shown
    at.switch_page("pages/maps.py").run()
    assert at.segmented_control(key=settings.MAP_METHOD).value == "PCA"


@pytest.fixture
def failed_map(monkeypatch, tmp_path):
    """No t-SNE map on disk, and a worker that died computing it (nothing is computed)."""
    import subprocess
    import sys

    from components.caches import map_state

    (tmp_path / files.LOG).write_text("Traceback ...\nMemoryError: out of memory\n")
    dead = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    dead.wait()
    failed = local.Job(tmp_path, dead, time.time())
    monkeypatch.setattr(map_jobs, "load", lambda folder, rows=None: None)  # no map on disk
    monkeypatch.setattr(map_jobs, "start", lambda *args, **kwargs: failed)
    map_state._finished_map.clear()
    yield tmp_path
    map_state._finished_map.clear()


def test_a_failed_computation_says_why_and_can_be_tried_again(monkeypatch, failed_map):
    """A worker that dies leaves no map: the page says why and offers to try again."""
    retried = []
    monkeypatch.setattr(local, "retry", retried.append)
    at = open_maps({"method": "tsne"})
    assert not at.exception
    assert "exit code 3" in messages(at) and "MemoryError" in messages(at)
    next(b for b in at.button if b.label == "Try again").click().run()
    assert retried == [failed_map], (messages(at), [b.label for b in at.button])


def test_a_big_vocabularys_failed_map_is_shown_without_asking_and_try_again_starts_it(
    monkeypatch, failed_map
):
    """A big vocabulary's map is asked for first; once its worker has died, the page shows the
    failure to whoever opens it (not the offer), and "Try again" asks for the map again."""
    from components.caches import map_state

    monkeypatch.setattr(map_state, "ASK_FIRST_ROWS", 1000)  # the bundled model counts as big
    failed, known, started = map_jobs.start(), [True], []
    monkeypatch.setattr(local, "job_in", lambda folder: failed if known else None)  # this process knows it
    monkeypatch.setattr(local, "retry", lambda folder: started.append(folder) or known.clear())
    at = open_maps({"method": "tsne"})
    assert not at.exception
    assert "exit code 3" in messages(at) and "Compute the map" not in [b.label for b in at.button]
    monkeypatch.setattr(map_jobs, "start", lambda *args, **kwargs: started.append("start") or failed)
    next(b for b in at.button if b.label == "Try again").click().run()
    assert started == [failed_map, "start"], started  # forgotten, then asked for again in one click


@pytest.mark.server("the t-SNE map, computed by a worker process")
def test_a_cache_folder_that_is_a_file_says_what_to_fix_and_can_be_tried_again(monkeypatch, tmp_path):
    """BERT_EXPLORER_CACHE naming a file: a message naming the setting, no traceback, and once
    the host points it at a folder, "Try again" starts the map."""
    from components.caches import map_state

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(blocker))
    map_state._finished_map.clear()
    at = open_maps({"method": "tsne"})
    assert not at.exception
    assert "not a folder" in messages(at) and "BERT_EXPLORER_CACHE" in messages(at)
    assert at.get("plotly_chart") or at.sidebar, "the rest of the page still draws"
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    next(b for b in at.button if b.label == "Try again").click().run()
    assert not at.exception and "not a folder" not in messages(at)
    assert at.get("progress") or any("t-SNE" in (f.layout.title.text or "") for f in figures(at))
    wait_for_the_map()


def pca_controls(at: AppTest) -> dict:
    """The PCA map's controls on the page, by key: 2-D / 3-D and the component boxes."""
    keys = (settings.PCA_DIMS, settings.PCA_X, settings.PCA_Y, settings.PCA_Z)
    shown = [*at.get("button_group"), *at.number_input]
    return {w.key: w.value for w in shown if w.key in keys}


def test_t_sne_shows_no_pca_controls_and_says_why(failed_map):
    """With t-SNE chosen, "Map 2-D / 3-D" and "Component on x / y" are gone (they would change
    nothing) and a plain sentence says the t-SNE map is 2-D only; back on PCA they are shown
    again, holding what was chosen before; the other tabs, which they act on, show them."""
    at = open_maps({})
    at.button_group(key=settings.PCA_DIMS).set_value("3-D").run()
    at.number_input(key=settings.PCA_X).set_value(4).run()
    assert pca_controls(at) == {
        settings.PCA_DIMS: "3-D",
        settings.PCA_X: 4,
        settings.PCA_Y: 2,
        settings.PCA_Z: 3,
    }
    note = "The t-SNE map is 2-D only: this app does not compute a 3-D t-SNE map."
    assert not [c for c in at.caption if note in c.value]

    at.button_group(key=settings.MAP_METHOD).set_value("t-SNE").run()
    assert not at.exception and pca_controls(at) == {}
    assert [c for c in at.caption if note in c.value]
    assert "no components to choose" in " ".join(c.value for c in at.caption)

    at.button_group(key=settings.MAP_METHOD).set_value("PCA").run()
    assert pca_controls(at) == {
        settings.PCA_DIMS: "3-D",
        settings.PCA_X: 4,
        settings.PCA_Y: 2,
        settings.PCA_Z: 3,
    }
    vocabulary = next(f for f in figures(at) if "The whole vocabulary" in (f.layout.title.text or ""))
    assert vocabulary.layout.scene.xaxis.title.text.startswith("PC4")

    for tab in ("Positions", "Sentence journey"):
        at.session_state[settings.MAP_TAB] = tab
        at.run()
        assert not at.exception and pca_controls(at)[settings.PCA_X] == 4, tab


def test_a_host_can_have_the_default_map_computed_at_start_up(monkeypatch):
    """BERT_EXPLORER_PRECOMPUTE_MAPS=1: the server's first run starts the default model's map,
    once per process, whatever page is opened."""
    from components.caches import map_state

    started = []
    monkeypatch.setattr(map_jobs, "start", lambda table, *args, **kwargs: started.append(table.shape))
    monkeypatch.setattr(map_state, "_precompute_started", [])
    monkeypatch.setenv("BERT_EXPLORER_PRECOMPUTE_MAPS", "1")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception and started == [(30522, 384)]
    AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert started == [(30522, 384)]  # not again
    monkeypatch.setenv("BERT_EXPLORER_PRECOMPUTE_MAPS", "0")
    monkeypatch.setattr(map_state, "_precompute_started", [])
    AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert started == [(30522, 384)]  # switched off: nothing started


def _map_figures(at: AppTest) -> list:
    """The PCA maps on the page: figures whose axes are principal components."""
    found = []
    for figure in figures(at):
        scene = figure.layout.scene
        titles = (
            [scene.xaxis.title.text, scene.yaxis.title.text, scene.zaxis.title.text]
            if figure.data and figure.data[0].type == "scatter3d"
            else [figure.layout.xaxis.title.text, figure.layout.yaxis.title.text]
        )
        if all(t and t.startswith("PC") for t in titles):
            found.append((figure, [t.split()[0] for t in titles]))
    return found


def _points(trace) -> np.ndarray:
    from testkit.apptest import array

    names = ("x", "y", "z") if trace.type == "scatter3d" else ("x", "y")
    return np.column_stack([array(getattr(trace, n)) for n in names])


@pytest.mark.parametrize(
    "params",
    [
        {"geometry": "abtt"},  # its file held components 10 and 1 under the names PC0, PC1
        {"geometry": "standardised", "x": "3", "y": "1"},
        {"map": "3", "x": "2", "y": "5", "z": "1"},
        {"tab": "positions", "x": "2", "y": "3"},  # its file said pc1-pc2
        {"tab": "journey", "x": "2", "y": "4"},
        {"tab": "journey", "basis": "sentence", "map": "3"},
    ],
)
def test_every_pca_maps_download_holds_what_its_chart_shows(bundled, downloads, params):
    """The .npy and the CSV of each map hold the very coordinates its traces draw, on the
    components its axes name, under those names in the file name and the columns."""
    from testkit.apptest import read_csv

    at = open_maps(params)
    assert not at.exception and not at.error
    maps_shown = _map_figures(at)
    assert len(maps_shown) == 1
    figure, names = maps_shown[0]
    suffix = "-on-" + "-".join(n.lower() for n in names)
    stems = {n.rsplit(".", 1)[0] for n in downloads if n and n.rsplit(".", 1)[0].endswith(suffix)}
    assert len(stems) == 1, (suffix, sorted(downloads))
    stem = stems.pop()
    values = np.load(io.BytesIO(downloads[f"{stem}.npy"]()), allow_pickle=False)
    header, labels, cells = read_csv(downloads[f"{stem}.csv"]())
    assert header[1:] == names
    np.testing.assert_array_equal(np.array(cells, dtype=np.float64).astype(values.dtype), values)
    tab = params.get("tab", "vocabulary")
    if tab == "vocabulary":  # the first trace is every whole word, in id order
        index = vocab_search.build_index(bundled.tables.word_embeddings, bundled.tokenizer)
        whole_words = np.flatnonzero(index.kinds == vocab_search.WHOLE_WORD)
        np.testing.assert_array_equal(_points(figure.data[0]), values[whole_words])
        assert [labels[i] for i in whole_words[:3]] == [index.pieces[i] for i in whole_words[:3]]
    elif tab == "positions":  # every position, in order
        path = next(t for t in figure.data if len(_points(t)) == len(values))
        np.testing.assert_array_equal(_points(path), values)
    else:  # each stage's trace, the stages one after another in the file
        stages = [t for t in figure.data if t.name]
        np.testing.assert_array_equal(np.concatenate([_points(t) for t in stages]), values)


@pytest.mark.server("the t-SNE map, computed by a worker process")
def test_a_big_vocabulary_says_what_its_map_costs_and_waits_to_be_asked(monkeypatch, tmp_path):
    """Before a big map starts, the page gives the forecast's time range and the worker's
    memory, scaled by this server's pace once it has one; the map starts on the button."""
    from bert_embeddings.maps import forecast
    from components.caches import map_state
    from components.sections import map_view

    wait_for_the_map()
    monkeypatch.setattr(map_state, "ASK_FIRST_ROWS", 1000)  # the bundled model counts as big
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path))
    at = open_maps({"method": "tsne"})
    assert not at.exception and not at.error and not at.get("progress")
    assert not any(str(folder).startswith(str(tmp_path)) for folder in local._jobs)
    shape = forecast.Shape.of(30522, 384, map_state.map_settings())
    for pace, where in (
        (None, "on a 2-core machine like"),
        (2.5, "on this server (at the pace of its last map)"),
    ):
        if pace is not None:
            (tmp_path / "maps").mkdir()
            (tmp_path / "maps" / "pace.json").write_text(f'{{"pace": {pace}}}')
            at.run()
        expected = forecast.before_start(shape, pace or 1.0)
        said = messages(at)
        assert "This vocabulary has 30,522 pieces. Its t-SNE map takes about" in said
        assert f"{map_view.duration(expected.low)} to {map_view.duration(expected.high)} {where}" in said
        assert f"about {forecast.peak_mb(shape):,.0f} MB of memory" in said
    at.button(key="map_start").click().run()
    assert not at.exception and not at.error and at.get("progress"), messages(at)
    wait_for_the_map()
    at.run()
    assert tsne_figure(at) is not None
