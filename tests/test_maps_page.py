"""The Maps page's t-SNE map: progress while it is computed (never blocking anything else),
then the map with its faithfulness, highlights and link; a click on a point opens Neighbours."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings import map_jobs, vocab_search
from components import charts, maps, settings
from tests.conftest import ROOT
from tests.test_app import figures, messages, offline  # noqa: F401 - offline: an autouse fixture


@pytest.fixture(scope="module", autouse=True)
def quick_maps(tmp_path_factory):
    """Maps in a cache of their own, with few iterations: a real computation, in seconds."""
    saved = {k: os.environ.get(k) for k in ("BERT_EXPLORER_CACHE", "BERT_EXPLORER_MAP_ITERATIONS")}
    os.environ["BERT_EXPLORER_CACHE"] = str(tmp_path_factory.mktemp("maps-cache"))
    os.environ["BERT_EXPLORER_MAP_ITERATIONS"] = "30"
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    map_jobs._jobs.clear()


def open_maps(params: dict) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update(params)
    at.run()
    return at.switch_page("pages/pca.py").run()


def wait_for_the_map(timeout: float = 300) -> None:
    deadline = time.time() + timeout
    while any(job.running() for job in map_jobs._jobs.values()) and time.time() < deadline:
        time.sleep(0.25)
    assert not any(job.running() or job.failure() for job in map_jobs._jobs.values())


def test_progress_first_then_the_map_with_its_faithfulness():
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
    shown = messages(at) + " ".join(m.value for m in at.markdown)
    assert "neighbour recall@10 =" in shown
    params = {k: v[0] if isinstance(v, list) else v for k, v in at.query_params.items()}
    assert params.get("method") == "tsne"


def test_the_page_shows_the_maps_own_numbers(bundled):
    """The figure's points are the coordinates kept on disk; the recall shown is the map's."""
    wait_for_the_map()
    at = open_maps({"method": "tsne"})
    if at.get("progress"):  # the first test computed it already, unless run alone
        wait_for_the_map()
        at = open_maps({"method": "tsne"})
    from components.state import map_settings

    table = bundled.tables.word_embeddings
    done = map_jobs.load(map_jobs.folder_for(map_jobs.fingerprint(table), map_settings()), len(table))
    assert done is not None and done.meta["settings"]["iterations"] == 30
    tsne = next(f for f in figures(at) if "t-SNE" in (f.layout.title.text or ""))
    index = vocab_search.build_index(table, bundled.tokenizer)
    whole_words = np.flatnonzero(index.kinds == vocab_search.WHOLE_WORD)
    from tests.test_app import array

    np.testing.assert_array_equal(array(tsne.data[0].x), done.coords[whole_words, 0])
    assert f"recall@10 = {done.meta['recall_at_10']:.3f}" in " ".join(m.value for m in at.markdown)


def test_a_clicked_point_names_its_piece():
    """Trace and point number (what a click reports) lead back to the vocabulary id drawn there."""
    kinds = np.array([0, 1, 0, 3, 1, 0], dtype=np.int8)
    highlights = [("your sentence", np.array([4, 2]), "#000", "square")]
    shown_kinds = [0, 1, 3]
    assert maps.point_id(kinds, shown_kinds, highlights, 0, 2) == 5  # the third whole word
    assert maps.point_id(kinds, shown_kinds, highlights, 1, 1) == 4
    assert maps.point_id(kinds, shown_kinds, highlights, 2, 0) == 3
    assert maps.point_id(kinds, shown_kinds, highlights, 3, 1) == 2  # the highlight's second point


def test_a_method_a_link_cannot_name_falls_back_with_a_notice():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"method": "umap"})
    at.run()
    assert not at.exception and "method='umap'" in messages(at)  # said on the page first shown
    at.switch_page("pages/pca.py").run()
    assert at.segmented_control(key=settings.MAP_METHOD).value == "PCA"


@pytest.fixture
def failed_map(monkeypatch, tmp_path):
    """No t-SNE map on disk, and a worker that died computing it (nothing is computed)."""
    import subprocess
    import sys

    from components import state

    (tmp_path / map_jobs.LOG).write_text("Traceback ...\nMemoryError: out of memory\n")
    dead = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    dead.wait()
    failed = map_jobs.Job(tmp_path, dead, time.time())
    monkeypatch.setattr(map_jobs, "load", lambda folder, rows=None: None)  # no map on disk
    monkeypatch.setattr(map_jobs, "start", lambda *args, **kwargs: failed)
    state._finished_map.clear()
    yield tmp_path
    state._finished_map.clear()


def test_a_failed_computation_says_why_and_can_be_tried_again(monkeypatch, failed_map):
    """A worker that dies leaves no map: the page says why and offers to try again."""
    retried = []
    monkeypatch.setattr(map_jobs, "retry", retried.append)
    at = open_maps({"method": "tsne"})
    assert not at.exception
    assert "exit code 3" in messages(at) and "MemoryError" in messages(at)
    next(b for b in at.button if b.label == "Try again").click().run()
    assert retried == [failed_map], (messages(at), [b.label for b in at.button])


def test_a_cache_folder_that_is_a_file_says_what_to_fix_and_can_be_tried_again(monkeypatch, tmp_path):
    """BERT_EXPLORER_CACHE naming a file: a message naming the setting, no traceback, and once
    the host points it at a folder, "Try again" starts the map."""
    from components import state

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(blocker))
    state._finished_map.clear()
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
    from components import state

    started = []
    monkeypatch.setattr(map_jobs, "start", lambda table, *args, **kwargs: started.append(table.shape))
    monkeypatch.setattr(state, "_precompute_started", [])
    monkeypatch.setenv("BERT_EXPLORER_PRECOMPUTE_MAPS", "1")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception and started == [(30522, 384)]
    AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert started == [(30522, 384)]  # not again
    monkeypatch.setenv("BERT_EXPLORER_PRECOMPUTE_MAPS", "0")
    monkeypatch.setattr(state, "_precompute_started", [])
    AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert started == [(30522, 384)]  # switched off: nothing started
