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
from bert_embeddings.figures import export, moved_pieces, moved_whole, settings
from bert_embeddings.jobs import local
from components.parts import echo
from components.sections import space_view
from testkit.apptest import every_file_builds, messages, run_page, select_row, shown
from testkit.random_models import keep_first_pieces, write_random_bert

pytestmark = [pytest.mark.usefixtures("offline"), pytest.mark.xdist_group("moved")]

# The page compares two spaces over the whole vocabulary: these random models keep the first 4,000
# of its 30,522 pieces ("river" among them), so that their neighbour lists take a fraction of the time.
PIECES = 4000


@pytest.fixture
def two_layer_model(tmp_path, monkeypatch):
    """A random 2-layer BERT as the app's default (so listed) model, and a cache of this test's own."""
    folder = keep_first_pieces(write_random_bert(tmp_path / "two-layers", layers=2, seed=11), PIECES)
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


@pytest.mark.server("stage-space worker processes")
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
    built = every_file_builds(at, downloads)
    figures_file = next(n for n in built if n.startswith("per-piece-figures") and n.endswith(".npy"))
    saved = np.load(io.BytesIO(built[figures_file]))
    np.testing.assert_array_equal(saved[:, 0], expected.overlap)
    np.testing.assert_array_equal(saved[:, 1], expected.second_order)
    for side, lists in (("a", expected.lists_a), ("b", expected.lists_b)):
        name = next(n for n in built if n.startswith(f"neighbours-in-{side}-") and n.endswith(".npy"))
        np.testing.assert_array_equal(np.load(io.BytesIO(built[name])), lists)
    # k is checked: a message, and the page keeps working
    at.number_input(key=settings.MV_K).set_value(101.0).run()
    assert not at.exception and "k" in messages(at) and "100" in messages(at)


@pytest.mark.slow("a random model written, the page in AppTest on it and on the bundled model")
def test_a_step_at_the_last_layer_keeps_last_in_its_link_after_the_job_button(two_layer_model, monkeypatch):
    """Step 3 of the built-in lesson "What the layers do" names ``to = "last"``: the page shows the
    model's last layer (2 here), and the address bar, after "Compute the neighbour lists" as
    before it, says ``to=last`` (it once said ``to=2``, which another model does not open at its
    last layer). Another model moves the stage to its own last layer; a stage picked is linked as
    it is. The offer's note states bert-base's figure as bert-base's, and the pieces shared here."""
    from testkit.apptest import page_title, session

    asked = []

    def not_started(side, shape, start):  # the click is seen; no worker is started here
        asked.append(start)

    monkeypatch.setattr(space_view, "lists", not_started)
    at = session({"lesson": "layers", "step": "3"})
    assert not at.exception and page_title(at) == "What moved"
    assert at.selectbox(key=settings.MV_STAGE_B).value == "2" and at.query_params["to"] == "last"
    note = " ".join(shown(c.value) for c in at.caption)
    assert "about half a minute for bert-base's 30,522 pieces (4,000 shared here)" in note
    at.button(key="mv_compute").click().run()
    assert True in asked and not at.exception
    assert at.query_params["to"] == "last" and at.query_params["step"] == "3"
    assert at.run().query_params["to"] == "last"
    at.selectbox(key=settings.MODEL_KEY).set_value("bundled").run()  # 6 layers
    assert at.selectbox(key=settings.MV_STAGE_B).value == "6" and at.run().query_params["to"] == "last"
    at.selectbox(key=settings.MV_STAGE_B).set_value("1").run()
    assert at.run().query_params["to"] == "1"


def test_a_stage_the_model_lacks_falls_back_with_a_message(two_layer_model):
    at = AppTest.from_file(str(run_page.__globals__["APP"]), default_timeout=120)
    at.query_params.update({"to": "9", "vs": str(two_layer_model)})
    at.run()
    at.switch_page("pages/moved.py").run()
    assert not at.exception
    assert "is not available here" in messages(at)


@pytest.mark.server("stage-space worker processes")
def test_aligned_maps_drawn_from_the_kept_files_with_each_maps_recall_and_the_step_in_the_link(
    two_layer_model, monkeypatch
):
    """The page's side of the aligned maps: the button starts the job (its own computation is
    pinned in tests/spaces); finished maps on disk are drawn at the link's step between A and B,
    with each map's recall and the chosen piece's path."""
    from bert_embeddings.spaces import aligned, aligned_jobs, space_jobs

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
    job = local.job_in(folder / "jobs" / "maps")
    assert job is not None
    if job.process is not None:  # its maps are pinned elsewhere: here, stand-in maps are kept
        job.process.terminate()
        job.process.wait()
    local._jobs.clear()
    rng = np.random.default_rng(0)
    maps = rng.standard_normal((3, model.vocab_size, 2)).astype(np.float32)
    aligned_jobs.save(folder, aligned.AlignedMaps(*maps, 0.41, 0.385, 0.39))
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


# --- the page's files, its movers and its side by side (one computed pair for all of them) ---


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """A random 2-layer BERT in a folder with a long name (its name is the model's), as the app's
    default model (not the other tests' one: cached maps are named by the model), and a cache that
    this module's tests share: the first computes the lists."""
    root = tmp_path_factory.mktemp("moved")
    folder = write_random_bert(root / "a-two-layer-model-in-a-folder-whose-name-is-long", layers=2, seed=13)
    keep_first_pieces(folder, PIECES)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BERT_EXPLORER_MODEL", str(folder))
        patch.setenv("BERT_EXPLORER_CACHE", str(root / "cache"))
        yield folder


def compared_page(folder) -> AppTest:
    """The page comparing the model's token rows with its embedding output, the lists computed."""
    at = run_page("pages/moved.py")
    at.selectbox(key=settings.MV_MODEL).set_value(str(folder)).run()
    for button in [b for b in at.button if b.key == "mv_compute"]:  # (none once the lists are there)
        button.click().run()
    return until_compared(at)


@pytest.mark.server("stage-space worker processes")
def test_every_file_of_the_page_names_its_geometry_and_k_and_the_side_by_side_its_piece(compared, downloads):
    """The cut of a long name once dropped the geometry and k (the model's folder took the room), the
    side by side's files never named them, and a punctuation piece vanished from its name."""
    at = compared_page(compared)
    at.text_input(key=settings.MV_PIECE).set_value(",").run()
    assert not at.exception and not at.error, messages(at)
    downloads.clear()
    at.run()
    stems = {name.rsplit(".", 1)[0] for name in downloads if name}
    assert len(stems) >= 8  # movers, figures, two lists, two side by side, two whole-picture figures
    for stem in stems:
        assert len(stem) <= export.STEM_LENGTH
        assert "-token-rows-embedding-output-raw-k-10" in stem, stem
    side_by_side = [stem for stem in stems if "neighbours-of" in stem]
    assert len(side_by_side) == 2 and all("-comma-" in stem for stem in side_by_side), side_by_side


@pytest.mark.server("stage-space worker processes")
def test_a_click_on_a_mover_shows_that_piece_side_by_side(compared):
    """Clicking a row of the movers puts its piece side by side (it once did nothing)."""
    at = compared_page(compared)
    movers = at.dataframe[0].value
    row = next(i for i, piece in enumerate(movers["piece"]) if i > 0 and piece.isascii() and piece.isalpha())
    piece = movers["piece"].iloc[row]
    select_row(at, moved_pieces.MOVERS, row, "kind")  # a click on a cell of the row
    assert not at.exception and not at.error, messages(at)
    assert at.text_input(key=settings.MV_PIECE).value == piece
    assert any(shown(m.value).startswith(f"{piece}: keeps ") for m in at.markdown), piece
    other = next(i for i, p in enumerate(movers["piece"]) if i != row and p.isascii() and p.isalpha())
    select_row(at, moved_pieces.MOVERS, other)  # a click on the row's box
    assert at.text_input(key=settings.MV_PIECE).value == movers["piece"].iloc[other]


@pytest.mark.server("stage-space worker processes")
def test_at_k_100_the_next_piece_buttons_are_each_sides_10_nearest(compared):
    """At k = 100 the buttons were every neighbour of both sides (205 of them); now the 10 nearest of
    each, said in the label, and a click on one still shows it side by side."""
    at = compared_page(compared)
    at.number_input(key=settings.MV_K).set_value(100.0).run()
    assert not at.exception and not at.error, messages(at)
    buttons = at.pills(key=settings.MV_NEXT)
    side_a, side_b = (at.dataframe[i].value["piece"].tolist() for i in (1, 2))
    assert len(side_a) == len(side_b) == 100
    nearest = list(dict.fromkeys([*side_a[:10], *side_b[:10]]))
    assert buttons.options == [echo.plain(piece) for piece in nearest]
    assert "10 nearest" in buttons.label
    piece = next(p for p in nearest if p.isascii() and p.isalpha())
    buttons.set_value(piece).run()
    assert at.text_input(key=settings.MV_PIECE).value == piece


@pytest.mark.server("stage-space worker processes")
def test_the_aligned_maps_numbers_come_as_files(compared, downloads):
    """The aligned maps had no download: the points at the step shown, A's and B's maps and each
    piece's overlap, for every shared piece, as CSV and .npy."""
    from bert_embeddings.spaces import aligned, aligned_jobs, space_jobs

    model = api.load(str(compared))
    key = space_jobs.model_key(model)
    spec = aligned_jobs.PairSpec(
        key,
        space_jobs.Spec(str(compared), "token", ("raw", 0)),
        key,
        space_jobs.Spec(str(compared), "output", ("raw", 0)),
    )
    folder = aligned_jobs.folder_for(spec)  # stand-in maps where the finished job keeps its own
    maps = np.random.default_rng(1).standard_normal((3, model.vocab_size, 2)).astype(np.float32)
    folder.mkdir(parents=True, exist_ok=True)
    aligned_jobs.save(folder, aligned.AlignedMaps(*maps, 0.41, 0.385, 0.39))
    at = compared_page(compared)
    at.select_slider(key=settings.MV_STEP).set_value("50").run()
    assert not at.exception and not at.error, messages(at)
    downloads.clear()
    at.run()
    built = every_file_builds(at, downloads)
    name = next(n for n in built if n.startswith("aligned-maps-at-50") and n.endswith(".npy"))
    assert "-raw-k-10" in name
    saved = np.load(io.BytesIO(built[name]))
    expected = api.compare(api.space(model, "token"), api.space(model, "output"))
    halfway = ((maps[0].astype(np.float64) + maps[1]) / 2).astype(np.float32)
    np.testing.assert_array_equal(saved[:, :2], halfway)
    np.testing.assert_array_equal(saved[:, 2:4], maps[0])
    np.testing.assert_array_equal(saved[:, 4:6], maps[1])
    np.testing.assert_array_equal(saved[:, 6], expected.overlap)
    header = built[name.replace(".npy", ".csv")].decode().splitlines()[0]
    assert header == "piece,x at 50%,y at 50%,x in A,y in A,x in B,y in B,overlap@10"


# --- what the page says ------------------------------------------------------------------


def test_with_nine_shared_pieces_the_whole_overlap_names_the_k_it_is_computed_at():
    """With 9 shared pieces each has 8 others: "mean overlap@10" was computed at k = 8 and read
    1.0 under the name @10; the figure now carries the k it is at, and the page says why."""
    from bert_embeddings.spaces import compare

    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((9, 8)).astype(np.float32) for _ in range(2))
    lists = compare.neighbour_lists(a), compare.neighbour_lists(b)
    at_8 = compare.overlap(*lists, 8).mean()
    figures = {
        part.label: part.value for part in moved_whole.whole(compare.compare(a, b, *lists, 5), 9).metrics
    }
    assert [label for label in figures if "overlap" in label] == ["Mean overlap@5", "Mean overlap@8"]
    assert figures["Mean overlap@8"] == f"{at_8:.3f}"
    at_k_8 = moved_whole.whole(compare.compare(a, b, *lists, 8), 9)
    said = at_k_8.k_note.text
    assert "at least 11 shared pieces" in said and "with 9" in said and "k = 8" in said
    assert [part.label for part in at_k_8.metrics if "@" in part.label] == ["Mean overlap@8"]


def test_the_cost_of_a_one_layer_model_says_one_layer(tiny_bert_dir):
    """'keeping all 1 layers' is now 'keeping its one layer'."""
    from bert_embeddings.models import checkpoints

    said = space_view.layer_cost(checkpoints.load_model(str(tiny_bert_dir)))
    assert "keeping its one layer" in said and "1 layers" not in said
