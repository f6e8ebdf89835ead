"""What moved, through Streamlit's AppTest: two stages of a small random model compared on the page,
the figures the notebook API gives for the same spaces, and bad stages and k said as messages."""

from __future__ import annotations

import base64
import io
import json
import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings import api
from components import settings
from testkit.apptest import every_file_builds, messages, run_page
from testkit.random_models import write_random_bert

pytestmark = [pytest.mark.usefixtures("offline"), pytest.mark.xdist_group("moved")]


@pytest.fixture
def two_layer_model(tmp_path, monkeypatch):
    """A random 2-layer BERT as the app's default (so listed) model, and a cache of this test's own."""
    folder = write_random_bert(tmp_path / "two-layers", layers=2, seed=11)
    monkeypatch.setenv("BERT_EXPLORER_MODEL", str(folder))
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    return folder


def until_compared(at: AppTest, timeout: float = 600) -> AppTest:
    deadline = time.monotonic() + timeout
    while not at.metric and time.monotonic() < deadline:
        assert not at.exception and not at.error, messages(at)
        time.sleep(0.5)
        at.run()
    assert at.metric, messages(at)
    return at


def test_two_stages_of_one_model_compared_as_the_api_compares_them(two_layer_model, downloads):
    at = run_page("pages/moved.py")
    at.selectbox(key=settings.MV_MODEL).set_value(str(two_layer_model)).run()
    at.selectbox(key=settings.MV_STAGE_B).set_value("2").run()
    assert not at.exception and not at.error
    assert "loads its" in messages(at) and "MB" in messages(at)  # the layer's cost, said first
    at.button(key="mv_compute").click().run()
    until_compared(at)
    model = api.load(str(two_layer_model))
    expected = api.compare(api.space(model, "token"), api.space(model, 2))
    values = {m.label: m.value for m in at.metric}
    assert values["Mean overlap@10"] == f"{expected.mean_overlap_10:.3f}"
    assert values["Linear CKA"] == f"{expected.cka:.3f}"
    assert values["Procrustes residual"] == f"{expected.procrustes:.3f}"
    movers = at.dataframe[0].value
    order = expected.overlap.argsort(kind="stable")
    assert float(movers.iloc[0]["overlap@10"]) == expected.overlap[order[0]]
    assert len(movers) == 200  # the first 200 are sent; the download holds them all
    downloads.clear()
    at.run()
    files = every_file_builds(at, downloads)
    figures_file = next(n for n in files if n.startswith("per-piece-figures") and n.endswith(".npy"))
    saved = np.load(io.BytesIO(files[figures_file]))
    np.testing.assert_array_equal(saved[:, 0], expected.overlap)
    np.testing.assert_array_equal(saved[:, 1], expected.second_order)
    for side, lists in (("a", expected.lists_a), ("b", expected.lists_b)):
        name = next(n for n in files if n.startswith(f"neighbours-in-{side}-") and n.endswith(".npy"))
        np.testing.assert_array_equal(np.load(io.BytesIO(files[name])), lists)
    # k is checked: a message, and the page keeps working
    at.number_input(key=settings.MV_K).set_value(101.0).run()
    assert not at.exception and "k" in messages(at) and "100" in messages(at)


def test_a_stage_the_model_lacks_falls_back_with_a_message(two_layer_model):
    at = AppTest.from_file(str(run_page.__globals__["APP"]), default_timeout=120)
    at.query_params.update({"to": "9", "vs": str(two_layer_model)})
    at.run()
    at.switch_page("pages/moved.py").run()
    assert not at.exception
    assert "is not available here" in messages(at)


def test_aligned_maps_drawn_from_the_kept_files_with_each_maps_recall_and_the_step_in_the_link(
    two_layer_model, monkeypatch
):
    """The page's side of the aligned maps: the button starts the job (its own computation is
    pinned in tests/spaces); finished maps on disk are drawn at the link's step between A and B,
    with each map's recall and the chosen piece's path."""
    from bert_embeddings.maps import map_jobs
    from bert_embeddings.spaces import aligned_jobs, space_jobs

    at = run_page("pages/moved.py")
    at.selectbox(key=settings.MV_MODEL).set_value(str(two_layer_model)).run()
    at.button(key="mv_compute").click().run()
    until_compared(at)
    at.button(key="mv_draw_maps").click().run()
    model = api.load(str(two_layer_model))
    key = space_jobs.model_key(model)
    spec = aligned_jobs.PairSpec(
        key,
        space_jobs.Spec(str(two_layer_model), "token", ("raw", 0)),
        key,
        space_jobs.Spec(str(two_layer_model), "output", ("raw", 0)),
    )
    folder = aligned_jobs.folder_for(spec)
    job = map_jobs.job_in(folder / "jobs" / "maps")
    assert job is not None
    if job.process is not None:  # its maps are pinned elsewhere: here, stand-in maps are kept
        job.process.terminate()
        job.process.wait()
    map_jobs._jobs.clear()
    rng = np.random.default_rng(0)
    maps = rng.standard_normal((3, model.vocab_size, 2)).astype(np.float32)
    space_jobs.save_array(folder, aligned_jobs.MAPS, maps, np.float32)
    space_jobs.save_array(folder, aligned_jobs.RECALLS, np.array([0.41, 0.385, 0.39]), np.float64)
    at.text_input(key=settings.MV_PIECE).set_value("river").run()
    at.select_slider(key=settings.MV_STEP).set_value("50").run()
    assert not at.exception and not at.error, messages(at)
    said = " ".join(caption.value for caption in at.caption).replace("\\", "").replace("\u2060", "")
    assert (
        "A's map 0.410" in said and "aligned by Procrustes 0.385" in said and "0.390 for B's own map" in said
    )
    assert "0.005 lower, within the 0.02" in said
    assert at.query_params.get("mv_step") == "50"
    drawn = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "kept, of 10" in c.proto.spec)
    points = np.column_stack([plotted(drawn["data"][0][axis]) for axis in "xy"])
    np.testing.assert_allclose(points, (maps[0] + maps[1]) / 2, atol=1e-6)  # halfway, as the slider says
    row = model.tokenizer.token_to_id("river")
    path = drawn["data"][1]  # the piece's path: in A, where it is now, in B
    assert [float(v) for v in plotted(path["x"])] == pytest.approx(
        [maps[0, row, 0], points[row, 0], maps[1, row, 0]]
    )


def plotted(values) -> np.ndarray:
    """A trace's numbers as Plotly sends them: a list, or typed bytes in base64."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
    return np.asarray(values, dtype=np.float64)
