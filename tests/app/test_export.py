"""Exported files hold exactly the numbers on screen: CSV and .npy read back bit for bit."""

from __future__ import annotations

import io

import numpy as np
import pytest

from bert_embeddings.figures import export
from testkit.apptest import PAGES, every_file_builds, read_csv, run_page, unfolded


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_csv_reads_back_to_the_same_floats(dtype):
    rng = np.random.default_rng(0)
    values = (rng.standard_normal((7, 5)) * np.logspace(-30, 30, 5)).astype(dtype)
    values[0, 0], values[1, 1], values[2, 2] = 0.0, np.finfo(dtype).tiny, np.finfo(dtype).max
    data = export.matrix_csv(values, [f"t{i}" for i in range(7)], [10, 11, 12, 13, 14], "token")
    header, labels, cells = read_csv(data)
    assert header == ["token", "10", "11", "12", "13", "14"]
    assert labels == [f"t{i}" for i in range(7)]
    back = np.array(cells, dtype=np.float64).astype(dtype)
    assert np.array_equal(back, values)  # bit for bit, not approximately


def test_labels_with_commas_and_quotes_stay_one_cell():
    data = export.matrix_csv(np.ones((2, 1), np.float32), ['a, "b"', "##ing"], ["x"])
    _, labels, cells = read_csv(data)
    assert labels == ['a, "b"', "##ing"] and cells == [["1"], ["1"]]


def test_a_vector_is_one_column_and_integers_stay_integers():
    _, labels, cells = read_csv(export.matrix_csv(np.array([3, 4, 5])))
    assert labels == ["0", "1", "2"] and cells == [["3"], ["4"], ["5"]]


def test_wrong_label_counts_are_refused():
    with pytest.raises(ValueError, match="labels"):
        export.matrix_csv(np.zeros((2, 3)), ["a"], ["x", "y", "z"])


@pytest.mark.parametrize("values", [np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2], np.ones(5)])
def test_npy_reads_back_with_dtype_and_shape(values):
    back = np.load(io.BytesIO(export.matrix_npy(values)), allow_pickle=False)
    assert back.dtype == values.dtype and np.array_equal(back, values)


def test_file_stem_keeps_only_safe_characters():
    assert export.file_stem("all-MiniLM-L6-v2 (bundled) Token rows") == "all-minilm-l6-v2-bundled-token-rows"
    assert export.file_stem("../../etc/passwd") == "etc-passwd"
    assert export.file_stem("") == "export"


# --- the download buttons on the pages ---------------------------------------------------


# (What moved offers its files once its spaces' neighbour lists are computed: tests/app/test_moved.py)
@pytest.mark.slow("every download of whole pages")
@pytest.mark.parametrize("page", [p for p in PAGES if p != "pages/moved.py"])
def test_every_page_offers_its_numbers_and_every_file_builds(page, downloads):
    """Each figure's matrix comes as .csv and .npy (tables as .csv), and each file reads back
    (a folded part's once unfolded)."""
    at = unfolded(run_page(page))
    downloads.clear()  # only what the page itself offers, on a run of its own
    at.run()
    assert not at.exception
    every_file_builds(at, downloads)


def test_embedding_page_exports_equal_the_models_own_module(downloads):
    """The token rows are the model's own rows, bit for bit; the LayerNorm output is the module's."""
    import torch
    from transformers import AutoModel

    from bert_embeddings.models import checkpoints

    at = run_page("pages/embedding_layer.py", a="Exports are exact.", b="")
    assert not at.exception
    model = AutoModel.from_pretrained(checkpoints.bundled_folder(), local_files_only=True).eval()
    token_file = next(name for name in downloads if name and name.endswith("token-rows.npy"))
    output_file = next(name for name in downloads if name and name.endswith("layernorm-output.npy"))
    tokens = np.load(io.BytesIO(downloads[token_file]()))
    output = np.load(io.BytesIO(downloads[output_file]()))
    encoding = checkpoints.load_bundled().encode("Exports are exact.", "", True)
    ids = torch.from_numpy(np.asarray(encoding.ids, dtype=np.int64))[None]
    segments = torch.from_numpy(np.asarray(encoding.segment_ids, dtype=np.int64))[None]
    with torch.no_grad():
        rows = model.embeddings.word_embeddings.weight[ids[0]].numpy()
        module = model.embeddings(input_ids=ids, token_type_ids=segments)[0].numpy()
    assert np.array_equal(tokens, rows)
    assert np.abs(output - module).max() <= 1e-5


GEOMETRY_PAGES = ["pages/neighbours.py", "pages/axes.py", "pages/maps.py", "pages/geometry.py"]


@pytest.mark.slow("every download of whole pages")
@pytest.mark.parametrize("page", GEOMETRY_PAGES)
def test_a_file_whose_numbers_change_with_the_geometry_changes_its_name(
    page, downloads, tmp_path, monkeypatch
):
    """neighbours-of-king.csv was one name for raw and all-but-the-top 5 alike: a file name
    stands for its numbers, so two files of one name must hold the same bytes."""
    from testkit.apptest import open_link

    # A cache folder of its own: neighbour lists that another test's background job finishes
    # meanwhile add a row to the Geometry page's overlap table between two of these views.
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))

    seen = {}
    for params in ({}, {"geometry": "abtt", "d": "5"}, {"geometry": "standardised"}):
        downloads.clear()
        at = open_link(params, page)
        assert not at.exception
        for name, make in list(downloads.items()):
            if name:
                data = make()
                assert seen.setdefault(name, data) == data, f"{name}: other numbers under the same name"
    assert any("all-but-the-top-5" in name for name in seen)


def test_long_file_stems_stay_distinct_and_short():
    """Two long names that differ only past the cut are two files (Streamlit's download keys are
    made from them, and one page may offer both)."""
    head = "what moved a " + "/very/long/model/folder" * 8
    first, second = export.file_stem(head, "figures"), export.file_stem(head, "neighbours in a")
    assert first != second and max(len(first), len(second)) <= export.STEM_LENGTH  # (cut at whole words)
    assert first.startswith("what-moved-a-very-long-model-folder")
    assert export.file_stem(head, "figures") == first  # the same name, the same file


def test_a_long_name_is_shortened_in_its_longest_clauses_and_keeps_the_short_ones():
    """What moved's files were cut at 120 characters from the end: the geometry and the layer went
    (per-piece-figures-...-layer-6-all-bu-a6ea80f5.csv). The long clauses (a model's folder) are
    shortened instead; the stage, the geometry and k come through whole."""
    from bert_embeddings.models.bundled import BUNDLED_NAME

    # the issue's /moved?to=6&geometry=abtt&d=5, as the page names it now (the model said once)
    stem = export.file_stem(
        f"per-piece figures, what moved: {BUNDLED_NAME}, token rows → layer 6 (all-but-the-top 5, k 10)"
    )
    assert (
        stem
        == "per-piece-figures-what-moved-all-minilm-l6-v2-bundled-token-rows-layer-6-all-but-the-top-5-k-10"
    )
    folder = "/srv/models/" + "a-fine-tuned-checkpoint-kept-in-a-deep-folder/" * 4 + "step-5000"
    for what in ("per-piece figures", "neighbours in A", "pieces by neighbours kept"):
        stem = export.file_stem(
            f"{what}, what moved: {folder}, token rows → {folder}, layer 12 (standardised, k 100)"
        )
        assert len(stem) <= export.STEM_LENGTH, stem
        assert stem.startswith(export.file_stem(what)), stem
        assert "-token-rows-" in stem and "-layer-12-standardised-k-100-" in stem, stem
        assert "5000" in stem  # a cut clause keeps its end too: a folder's last part


def test_a_piece_in_a_name_never_vanishes_and_two_pieces_never_share_a_name():
    """'neighbours of ,' was neighbours-of.csv; '##ing' and 'ing', 'King' and 'king' were one name."""
    names = {
        piece: export.file_stem("neighbours of", export.Verbatim(piece), "(raw, k 10)")
        for piece in (",", "", "##ing", "ing", "King", "king", "comma", "[CLS]", "\u200b", "ो", "king - man")
    }
    assert len(set(names.values())) == len(names)
    assert names["king"] == "neighbours-of-king-raw-k-10"  # a plain piece is written as it is
    assert names[","].startswith("neighbours-of-comma-") and names["##ing"].startswith(
        "neighbours-of-number-sign-number-sign-ing-"
    )
    assert all(name.endswith("-raw-k-10") for name in names.values())
