"""Every page through Streamlit's AppTest: the default input, and every awkward or bad one."""

from __future__ import annotations

import re

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from bert_embeddings import config
from bert_embeddings.analysis import vocab_search
from bert_embeddings.figures import charts, settings
from bert_embeddings.models import checkpoints
from components.parts import draw
from testkit.apptest import (
    PAGES,
    ROOT,
    SENTENCE_PAGES,
    array,
    figures,
    messages,
    neighbours_page,
    open_link,
    page_with,
    run_page,
    session,
    shown,
    unfolded,
)
from testkit.random_models import damaged_bundled_copy
from testkit.stand_in_hub import stand_in_hub, use_hub, use_hub_cache, without_retry_waits

pytestmark = pytest.mark.usefixtures("offline")  # the default model resolves offline at once


@pytest.mark.slow("whole pages in AppTest, seconds each")
@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_with_the_default_input(page):
    """Each page renders, names the model in use (if it uses one), and raises nothing."""
    at = run_page(page)
    assert not at.exception
    assert not at.error
    if page != "pages/concepts.py":  # the toy space needs no model
        assert checkpoints.BUNDLED_NAME in messages(at)  # the offline notice names the model


def stage_detail(at: AppTest):
    """The Embedding layer page's one stage in full."""
    return next(f for f in figures(at) if f.layout.title.text and f.data[0].type == "heatmap")


@pytest.mark.slow("whole pages in AppTest, seconds each")
def test_embedding_page_draws_every_stage_and_passes_the_check():
    """An overview of the five stages, each stage in full on request, and a passed check below 1e-5."""
    at = run_page("pages/embedding_layer.py", a="Hello world", b="")
    stages = ["Token rows", "Position rows", "Segment rows", "Sum (before LayerNorm)", "LayerNorm output"]
    overview = figures(at)[0]
    assert [a.text for a in overview.layout.annotations] == stages
    breakdown = decompose_bundled("Hello world")
    expected = [breakdown.token, breakdown.position, breakdown.segment, breakdown.summed, breakdown.output]
    for code, title, values in zip(settings.LAYER_STAGES, stages, expected, strict=False):
        at.segmented_control(key=settings.LAYER_STAGE).set_value(code).run()
        detail = stage_detail(at)
        assert detail.layout.title.text == title
        assert list(detail.data[0].y) == ["0 · [CLS]", "1 · hello", "2 · world", "3 · [SEP]"]
        assert np.array_equal(array(detail.data[0].z), values.astype(np.float32))  # exact, every value
    assert float(at.metric[0].value) <= 1e-5
    assert any("Passed" in shown(s.value) for s in at.success)


def decompose_bundled(text_a: str):
    from bert_embeddings.analysis import decompose

    model = checkpoints.load_bundled()
    return decompose.decompose(model, model.encode(text_a, "", True))


def test_the_overview_sends_colour_levels_that_follow_the_values():
    """Each overview panel is one byte a cell: the level of each value on its panel's scale."""
    at = run_page("pages/embedding_layer.py", a="Hello world", b="")
    panels = figures(at)[0].data
    expected = decompose_bundled("Hello world")
    for panel, values in zip(panels, (expected.token, expected.position), strict=False):
        levels = array(panel.z)
        assert levels.dtype == np.uint8 and levels.shape[0] == 4
        shown = values[:, :: int(panel.dx)]
        limit = np.abs(shown).max()
        np.testing.assert_allclose(levels / 254 * 2 * limit - limit, shown, atol=limit / 254 + 1e-7)


def test_dimension_range_zooms_the_stage_in_full():
    """Choosing dims 300-320 shows exactly those 21 columns of the stage in full."""
    at = run_page("pages/embedding_layer.py", a="Hello world", b="")
    at.slider(key="dims").set_value((300, 320)).run()
    for code in ("token", "output"):
        at.segmented_control(key=settings.LAYER_STAGE).set_value(code).run()
        detail = stage_detail(at).data[0]
        assert (detail.x0, detail.dx) == (300, 1)
        assert array(detail.z).shape == (4, 21)


def test_segment_heatmap_uses_row_one_for_sentence_b():
    """With a pair, sentence B's pieces show the second segment row."""
    at = run_page("pages/embedding_layer.py", a="Hi", b="there")
    at.segmented_control(key=settings.LAYER_STAGE).set_value("segment").run()
    model = checkpoints.load_bundled()
    segment = array(stage_detail(at).data[0].z)
    assert (segment[:3] == model.tables.token_type_embeddings[0]).all()  # [CLS] hi [SEP]
    assert (segment[3:] == model.tables.token_type_embeddings[1]).all()  # there [SEP]


def test_tokens_page_folds_its_table_until_asked():
    """The chips show the pieces; their table (and its CSV) is folded and drawn once unfolded."""
    at = run_page("pages/tokens.py", a="embeddings", b="ok")
    assert not at.dataframe
    assert "The pieces as a table, and its CSV" in [e.label for e in at.expander]
    assert len(unfolded(at).dataframe) == 1


def test_tokens_page_lists_pieces_ids_segments_and_positions():
    """The table shows each piece with its id, segment and word group."""
    at = unfolded(run_page("pages/tokens.py", a="embeddings", b="ok"))
    table = at.dataframe[0].value
    assert list(table["piece"]) == ["[CLS]", "em", "##bed", "##ding", "##s", "[SEP]", "ok", "[SEP]"]
    assert list(table["segment"]) == [0, 0, 0, 0, 0, 0, 1, 1]
    assert list(table["position"]) == list(range(8))
    assert len(set(table["word"][1:5])) == 1 and table["word"][0] == "special"


def test_special_tokens_switch():
    """Turning special tokens off leaves the bare pieces from position 0."""
    at = unfolded(run_page("pages/tokens.py", a="hello world", b="", special=False))
    assert list(at.dataframe[0].value["piece"]) == ["hello", "world"]


BAD_TEXT = {
    "empty": ({"a": "", "b": ""}, "Type a sentence"),
    "whitespace": ({"a": "   \n  ", "b": ""}, "Type a sentence"),
    "b_without_a": ({"a": "", "b": "only B"}, "Sentence A is empty"),
    "zero_width_only": ({"a": "\u200b\u200c\u200d", "b": ""}, "only characters"),
    "two_thousand_words": ({"a": "word " * 1_900, "b": ""}, "pieces were dropped"),
    "over_the_limit": ({"a": "word " * 10_000, "b": ""}, "accepts at most 10,000"),
    "emoji": ({"a": "I ❤️ 🍕", "b": ""}, "[UNK]"),
    "cjk": ({"a": "我喜欢自然语言处理", "b": ""}, "own"),
    "right_to_left": ({"a": "مرحبا بالعالم", "b": "שלום"}, "Right-to-left"),
    "control_characters": ({"a": "tab\there\x00nul\x1bescape\u200bzw", "b": ""}, "invisible or control"),
}


@pytest.mark.parametrize("case", list(BAD_TEXT))
@pytest.mark.parametrize("page", SENTENCE_PAGES)
def test_bad_text_gets_a_message_not_a_traceback(page, case):
    """Awkward or empty text shows a clear message on every page and nothing crashes."""
    inputs, expected = BAD_TEXT[case]
    at = run_page(page, **inputs)
    assert not at.exception
    assert expected in messages(at), messages(at)


def test_app_keeps_working_after_bad_input():
    """After an error, correcting the input brings the page back."""
    at = run_page("pages/embedding_layer.py", a="", b="only B")
    assert at.error
    at.text_area(key=settings.SENTENCE_A_KEY).set_value("Now with A").run()
    assert not at.error and not at.exception
    assert len(at.get("plotly_chart")) == 4


@pytest.fixture
def gpt2_folder(tmp_path):
    from transformers import GPT2Config

    GPT2Config(n_layer=1, n_embd=8, n_head=2).save_pretrained(tmp_path)
    return tmp_path


@pytest.mark.slow("nine broken checkpoints loaded")
@pytest.mark.parametrize("page", [p for p in PAGES if p != "pages/concepts.py"])
def test_bad_models_get_a_message(page, tmp_path, gpt2_folder):
    """An invalid id, a folder that is no checkpoint and a GPT-2 folder are each explained."""
    for spec, expected in (
        ("not a model id!", "is not a Hugging Face Hub id"),
        (str(tmp_path / "empty"), "There is no folder"),
        (str(gpt2_folder), "'gpt2' model"),
    ):
        at = run_page(page, model=spec)
        assert not at.exception
        assert expected in messages(at), (spec, messages(at))


def test_unknown_hub_model_is_reported(monkeypatch):
    """A Hub id the Hub does not know gets a message (Hub played by a local server)."""

    with stand_in_hub(status=404) as (url, _requested):
        use_hub(monkeypatch, url)
        at = run_page("pages/embedding_layer.py", model="no-such-org/no-such-bert")
    assert not at.exception
    assert "no public model 'no-such-org/no-such-bert'" in messages(at)


def test_damaged_bundled_model_is_refused_on_the_page(tmp_path, monkeypatch):
    """A bundled file with the wrong checksum is refused with a message, not used."""
    monkeypatch.setenv(config.BUNDLED_DIR, str(damaged_bundled_copy(tmp_path / "bundled")))
    st.cache_resource.clear()  # the good bundled model may be cached from earlier tests
    try:
        at = run_page("pages/embedding_layer.py")
        assert not at.exception
        assert "sha256" in messages(at) and "Reinstall" in messages(at)
    finally:
        monkeypatch.delenv(config.BUNDLED_DIR)
        st.cache_resource.clear()


def test_default_model_from_environment(monkeypatch):
    """BERT_EXPLORER_MODEL=bundled starts the picker on the bundled model, with no notice."""
    monkeypatch.setenv(config.MODEL, "bundled")
    at = run_page("pages/overview.py")
    assert at.selectbox(key=settings.MODEL_KEY).value == "bundled"
    assert not at.exception and "cannot be reached" not in messages(at)
    assert checkpoints.BUNDLED_NAME in " ".join(shown(c.value) for c in at.caption)


def test_truncation_is_a_warning_that_counts_dropped_pieces():
    """1,900 words: a warning (not just a note) says how many pieces were dropped."""
    at = unfolded(run_page("pages/tokens.py", a="word " * 1_900, b=""))
    assert any("1,390 pieces were dropped" in shown(w.value) for w in at.warning)
    assert len(at.dataframe[0].value) == 512


# --- the neighbours page -------------------------------------------------------------------


def result_pieces(at: AppTest) -> list[str]:
    """The results table's pieces (AppTest finds plain dataframes by position: results first)."""
    assert len(at.dataframe) == 2, "expected the results table and the grid"
    return list(at.dataframe[0].value["piece"])


def test_word_query_shows_table_chart_and_pills():
    """'king' lists ten neighbours with queen among them, as a table, bars and clickable pills."""
    at = neighbours_page()
    assert not at.exception and not at.error
    pieces = result_pieces(at)
    assert len(pieces) == 10 and "queen" in pieces and "king" not in pieces
    bars = next(f for f in figures(at) if f.layout.title.text.startswith("Closest to"))
    assert [label.split(". ", 1)[1] for label in bars.data[0].y] == pieces
    assert list(at.pills(key=settings.NB_NEXT).options) == pieces


def test_clicking_a_neighbour_makes_it_the_next_query():
    """Choosing 'queen' among the results searches from queen."""
    at = neighbours_page()
    at.pills(key=settings.NB_NEXT).set_value("queen").run()
    assert at.text_input(key=settings.NB_WORD).value == "queen"
    assert "queen" not in result_pieces(at) and "king" in result_pieces(at)
    assert not at.exception


@pytest.mark.slow("whole pages in AppTest, seconds each")
def test_query_modes(bundled):
    """Token id, arithmetic and a sentence token at a stage each produce neighbours."""
    at = neighbours_page(nb_mode="token id", nb_id=bundled.tokenizer.token_to_id("dog"))
    assert "dogs" in result_pieces(at)
    at = neighbours_page(nb_mode="arithmetic", nb_expression="king - man + woman")
    assert result_pieces(at)[0] == "queen"
    at = neighbours_page(nb_mode="sentence token", nb_token=3, nb_stage="LayerNorm output")
    assert not at.exception and len(result_pieces(at)) == 10
    assert "bank" in at.get("plotly_chart")[0].proto.spec


@pytest.mark.parametrize("mode", ["word", "sentence token"])
def test_a_truncated_sentence_is_said_once_on_the_neighbours_page(mode):
    """In every query mode (the sentence token mode reads the sentence twice, for the query and
    for the grid), the page says once that pieces were dropped."""
    at = run_page("pages/neighbours.py", a="word " * 600, b="")
    at.button_group(key=settings.NB_MODE).set_value(mode).run()
    assert not at.exception and not at.error
    dropped = [w for w in at.warning if "pieces were dropped" in shown(w.value)]
    assert len(dropped) == 1, [shown(w.value) for w in at.warning]


def test_multi_piece_word_offers_each_piece_or_the_mean():
    """A word of several pieces shows its pieces; one can be chosen instead of the mean."""
    at = neighbours_page(nb_word="embeddings")
    assert [shown(o) for o in at.radio(key=settings.NB_PIECE).options] == [
        "the mean of all pieces",
        "piece em",
        "piece ##bed",
        "piece ##ding",
        "piece ##s",
    ]
    at.radio(key=settings.NB_PIECE).set_value(1).run()
    assert "##bed" in at.get("plotly_chart")[0].proto.spec


def test_filters_and_k():
    """k, hiding ## pieces and an include pattern all shape the results."""
    at = neighbours_page(nb_k=25, nb_hide_continuation=True, nb_include="^q")
    pieces = result_pieces(at)
    assert 0 < len(pieces) <= 25 and all(p.startswith("q") for p in pieces)
    at = neighbours_page(geometry="centred", nb_exclude="^queen$")
    assert "queen" not in result_pieces(at) and not at.exception


def test_a_search_is_computed_once_for_every_session(bundled, monkeypatch):
    """A workshop's followers all run the same search: the second session is served from the
    shared cache, with exactly the results (and grid) the core computes directly."""
    calls = []
    for name in ("nearest", "nearest_for_each"):
        real = getattr(vocab_search, name)
        monkeypatch.setattr(vocab_search, name, lambda *a, _real=real, **k: calls.append(1) or _real(*a, **k))
    first = run_page("pages/neighbours.py", a="harbours and quays", b="")
    first.text_input(key=settings.NB_WORD).set_value("harbour").run()
    counted = len(calls)
    second = run_page("pages/neighbours.py", a="harbours and quays", b="")
    second.text_input(key=settings.NB_WORD).set_value("harbour").run()
    assert counted > 0 and len(calls) == counted  # nothing computed again
    index = vocab_search.build_index(bundled.tables.word_embeddings, bundled.tokenizer)
    query = vocab_search.word_query(index, bundled.tokenizer, "harbour", None)
    expected = vocab_search.nearest(
        index, query.vector, 10, None, vocab_search.Filters(exclude_ids=query.ids)
    )
    for at in (first, second):
        assert result_pieces(at) == list(expected.pieces)
        assert list(at.dataframe[0].value["score"]) == [float(x) for x in expected.scores]
        assert list(at.dataframe[0].value["id"]) == expected.ids.tolist()


def test_grid_has_every_token_of_the_sentence():
    """The grid lists each token of the sentence with its top 5."""
    at = run_page("pages/neighbours.py", a="dogs and cats", b="")
    grid = at.dataframe[-1].value
    assert list(grid["token"]) == ["0 · [CLS]", "1 · dogs", "2 · and", "3 · cats", "4 · [SEP]"]
    assert grid["#1"][1].startswith("dogs")  # at the token-row stage a piece is its own nearest row
    assert list(grid.columns) == ["token", "#1", "#2", "#3", "#4", "#5"]


def test_the_grid_shows_as_many_neighbours_per_token_as_asked_and_a_link_keeps_it():
    """Its box takes 1 to 10; the grid's columns, its caption and the link follow it, and a number
    it cannot take is said under it while the search above keeps working."""
    from bert_embeddings.analysis import decompose, geometry
    from bert_embeddings.figures import neighbours_page
    from bert_embeddings.models import glyphs
    from bert_embeddings.views.sources import Sources

    at = open_link({"grid_k": "3", "a": "dogs and cats", "b": ""}, "pages/neighbours.py")
    grid = at.dataframe[-1].value
    assert list(grid.columns) == ["token", "#1", "#2", "#3"]
    assert "Top 3 of each token" in " ".join(c.value for c in at.caption)
    assert at.query_params["grid_k"] == "3"
    # the cells are the core's own top 3, to the shown two places
    sources = Sources(checkpoints.load_bundled())
    values = {
        settings.SENTENCE_A_KEY: "dogs and cats",
        settings.SENTENCE_B_KEY: "",
        settings.SPECIAL_TOKENS_KEY: True,
    }
    rows = decompose.stage_vectors(sources.breakdown(sources.encoding(values)))[decompose.STAGES[0]]
    index = sources.index()
    found = vocab_search.nearest_for_each(index, rows, 3, geometry.fit(index.table, "raw", 0))
    assert list(grid["#3"]) == [f"{glyphs.legible(f.pieces[2])}  {f.scores[2]:.2f}" for f in found]
    at.number_input(key=neighbours_page.Settings.key("grid_k")).set_value(11.0).run()
    assert "The grid's neighbours per token must be from 1 to 10; 11 is outside" in messages(at)
    assert len(at.dataframe) == 1 and "piece" in at.dataframe[0].value  # the search keeps its table


BAD_QUERIES = {
    "outside_vocabulary": ({"nb_word": "🦜"}, "outside the vocabulary"),
    "empty_word": ({"nb_word": "  "}, "Type a word"),
    "bad_syntax": ({"nb_mode": "arithmetic", "nb_expression": "king + - man"}, "does not parse"),
    "unknown_word_in_sum": (
        {"nb_mode": "arithmetic", "nb_expression": "king - 🦜"},
        "outside the vocabulary",
    ),
    "empty_sum": ({"nb_mode": "arithmetic", "nb_expression": ""}, "Type an expression"),
    "invalid_regex": ({"nb_include": "(["}, "cannot be used"),
    "k_too_large": ({"nb_k": 500}, "k must be from 1 to 100"),
    "k_zero": ({"nb_k": 0}, "k must be from 1 to 100"),
    "id_out_of_range": ({"nb_mode": "token id", "nb_id": 99999}, "outside"),
    "nothing_left": ({"nb_include": "^zzqqxx$"}, "leave no piece"),
}


@pytest.mark.parametrize("case", list(BAD_QUERIES))
def test_bad_queries_get_a_message(case):
    """Each bad query shows its message; the page and the grid keep working."""
    inputs, expected = BAD_QUERIES[case]
    at = neighbours_page(**inputs)
    assert not at.exception
    assert expected in messages(at), messages(at)
    if "nb_include" not in inputs and "nb_k" not in inputs:
        assert len(at.dataframe[-1].value) > 0  # the rest of the page still renders


# --- the PCA page -----------------------------------------------------------------------------


def chart(at: AppTest, title_start: str):
    return next(f for f in figures(at) if f.layout.title.text and f.layout.title.text.startswith(title_start))


def open_tab(at: AppTest, label: str) -> AppTest:
    at.session_state[settings.MAP_TAB] = label
    return at.run()


def test_pca_page_draws_three_webgl_maps_and_variance():
    """The vocabulary map (WebGL, every row) and the variance bars, then the journey and the
    positions, each drawn only when its tab is open (and the open tab is in the link)."""
    at = run_page("pages/maps.py")
    assert not at.exception and not at.error
    vocabulary = chart(at, "The whole vocabulary")
    kind_traces = [t for t in vocabulary.data if t.name in vocab_search.KINDS]
    assert {t.type for t in kind_traces} == {"scattergl"}
    assert sum(len(array(t.x)) for t in kind_traces) == 30522  # every row, each in one trace
    assert any(t.name == "your sentence" for t in vocabulary.data)
    assert len(array(chart(at, "Variance explained").data[0].y)) == 10
    assert len(figures(at)) == 2  # the other tabs' maps are not sent
    open_tab(at, "Positions")
    assert len(array(chart(at, "The 512 position").data[0].x)) == 512
    assert len(figures(at)) == 1 and at.query_params["tab"] == "positions"
    open_tab(at, "Sentence journey")
    assert chart(at, "Your sentence, stage by stage") and len(figures(at)) == 1
    assert not at.exception


def test_pca_three_d_and_axes():
    """3-D uses Scatter3d; the axes show the chosen components."""
    at = page_with(
        "pages/maps.py", **{settings.PCA_DIMS: "3-D", settings.PCA_X: 2, settings.PCA_Y: 4, settings.PCA_Z: 7}
    )
    vocabulary = chart(at, "The whole vocabulary")
    assert {t.type for t in vocabulary.data} == {"scatter3d"}
    assert vocabulary.layout.scene.xaxis.title.text.startswith("PC2")
    assert vocabulary.layout.scene.zaxis.title.text.startswith("PC7")


def test_pca_highlight_and_kinds():
    """A regex highlights its matches; hiding a kind removes its points."""
    at = page_with("pages/maps.py", **{settings.PCA_HIGHLIGHT: "^queen", settings.PCA_KINDS: [0, 1]})
    vocabulary = chart(at, "The whole vocabulary")
    names = [t.name for t in vocabulary.data]
    assert names[:2] == ["whole word", "## continuation"] and "matching ^queen" in names
    matches = next(t for t in vocabulary.data if t.name == "matching ^queen")
    assert all(p.startswith("queen") for p in matches.text)


def test_pca_journey_basis_choice():
    """The journey can be projected on the sentence's own components."""
    at = open_tab(run_page("pages/maps.py"), "Sentence journey")
    at.radio(key=settings.PCA_JOURNEY_BASIS).set_value("your sentence's own components").run()
    journey = chart(at, "Your sentence, stage by stage")
    assert [t.name for t in journey.data[1:]] == ["token row", "+ position", "+ segment", "LayerNorm output"]
    assert not at.exception


def test_pca_shows_the_latest_neighbour_search():
    """After a search on the Neighbours page, the vocabulary map highlights its results."""
    at = neighbours_page(nb_word="dogs")
    at.switch_page("pages/maps.py").run()
    assert any(t.name == "neighbours of dogs" for t in chart(at, "The whole vocabulary").data)


@pytest.mark.parametrize(
    "inputs,expected,level",
    [
        ({settings.PCA_HIGHLIGHT: "(["}, "cannot be used", "error"),
        ({settings.PCA_HIGHLIGHT: "^zzqqxx$"}, "No piece of the vocabulary matches", "warning"),
        ({settings.PCA_X: 11}, "from 1 to 10; 11 is outside", "error"),
        ({settings.PCA_Y: 1}, "different component for each axis", "error"),
    ],
)
def test_pca_bad_inputs(inputs, expected, level):
    """A broken regex, a highlight matching nothing and impossible components are explained."""
    at = page_with("pages/maps.py", **inputs)
    assert not at.exception
    assert any(expected in shown(m.value) for m in getattr(at, level))


# --- concepts, positions, segments, context --------------------------------------------------


def test_concepts_is_the_landing_page_and_edits_work():
    """The toy space opens first; an added item appears; a non-numeric value is explained."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert at.title[0].value == "What is an embedding?"
    at.text_area(key="toy_items").set_value(
        at.text_area(key="toy_items").value + "\npuppy, 0.9, 0.2, 0.95"
    ).run()
    similarity = next(f for f in figures(at) if f.layout.title.text == "Cosine similarity")
    assert list(similarity.data[0].x)[-1] == "puppy"
    at.text_area(key="toy_items").set_value("item, a, b, c\ncat, 1, lots, 2").run()
    assert not at.exception and "'lots' is not a number" in messages(at)


def test_the_concepts_caption_names_the_pairs_of_the_items_on_screen():
    """The lesson's own items (bee, eagle, ... rocket): the caption names their most and least alike
    pairs by cosine, computed here apart, and no item that is not in the table."""
    from bert_embeddings.analysis import concepts

    at = session({"lesson": "embeddings", "step": "1"})
    space = concepts.parse(at.text_area(key=settings.TOY_ITEMS).value)
    assert "bee" in space.names and "kitten" not in space.names
    unit = space.vectors / np.linalg.norm(space.vectors, axis=1, keepdims=True)
    pairs = {
        (a, b): float(unit[i] @ unit[j])
        for i, a in enumerate(space.names)
        for j, b in enumerate(space.names)
        if i < j
    }
    caption = next(shown(c.value) for c in at.caption if shown(c.value).startswith("Cosine compares"))
    most, least = max(pairs, key=pairs.get), min(pairs, key=pairs.get)
    assert f"Most alike here: {most[0]} and {most[1]} (cosine {pairs[most]:.3f})" in caption
    assert f"Least alike: {least[0]} and {least[1]} (cosine {pairs[least]:.3f})" in caption
    absent = set(concepts.parse(concepts.DEFAULT_TEXT).names) - set(space.names)  # kitten, cat...
    assert absent and not absent & set(re.findall(r"\w+", caption))


def test_positions_page_compares_learned_and_sinusoid():
    """Both 512 x 512 similarity maps (drawn at every third position), the norms, and two
    positions compared; bad positions explained."""
    at = run_page("pages/positions.py")
    learned = next(f for f in figures(at) if f.layout.title.text.startswith("Learned"))
    assert array(learned.data[0].z).shape == (171, 171)
    norms = next(f for f in figures(at) if f.layout.title.text.startswith("Length"))
    assert np.allclose(array(norms.data[1].y), np.sqrt(384 / 2), rtol=1e-5)  # the sinusoid's rows
    at.number_input(key="pos_second").set_value(512).run()
    assert not at.exception and "511; 512 is outside" in messages(at)


def test_the_learned_lengths_fill_an_axis_of_their_own():
    """The chart of lengths: the learned rows' lengths on a y axis that spans about their own range
    (the sinusoid's, several times longer, on another), and the caption gives that range."""
    at = run_page("pages/positions.py")
    learned = np.linalg.norm(checkpoints.load_bundled().tables.position_embeddings, axis=1)
    norms = next(f for f in figures(at) if f.layout.title.text.startswith("Length"))
    line = next(trace for trace in norms.data if trace.name == "learned")
    np.testing.assert_allclose(array(line.y), learned, rtol=1e-5)
    low, high = norms.layout["yaxis" + line.yaxis.removeprefix("y")].range
    assert low <= learned.min() and high >= learned.max()
    assert high - low <= 1.5 * np.ptp(learned)
    other = next(trace for trace in norms.data if trace.name == "sinusoid")
    assert other.yaxis != line.yaxis and array(other.y).min() > 2 * learned.max()
    said = f"run from {learned.min():.2f} (position {learned.argmin()}) to {learned.max():.2f}"
    assert any(said in shown(c.value) for c in at.caption)


def test_segments_page_with_and_without_sentence_b():
    """With a pair the swap is drawn per token; without B the page says so and still draws."""
    at = run_page("pages/segments.py", a="Hi there", b="General Kenobi")
    swap = next(f for f in figures(at) if f.layout.title.text.startswith("Same piece"))
    labels = list(swap.data[0].x)
    assert labels[0] == "0 · [CLS]" and labels[-1].endswith("[SEP]") and not at.exception
    values = array(swap.data[0].y)
    assert len(values) == len(labels) and np.all(values < 1) and np.all(values > 0)
    at = run_page("pages/segments.py", a="Hi there", b="")
    assert "There is no sentence B" in messages(at) and not at.exception


def vertical_bands(figure) -> tuple[tuple[float, float], tuple[float, float]]:
    """The title's and the legend's bands (lowest, highest) in pixels from the figure's foot, as
    the layout places them: the title in the top margin, the legend from its anchor, one row of 20
    px per series at most (the rows a narrow screen may wrap it into)."""
    layout = figure.layout
    height, top, foot = layout.height, layout.margin.t, layout.margin.b
    legend = layout.legend
    if legend.yref == "container":
        base = legend.y * height
    else:  # paper: the plot area's own height
        base = foot + (1.02 if legend.y is None else legend.y) * (height - top - foot)
    tall = 20 * len(figure.data)
    band = {"bottom": (base, base + tall), "top": (base - tall, base)}.get(
        legend.yanchor, (base - tall, base)
    )
    return (height - top, height), band


def test_the_segment_rows_legend_is_clear_of_the_title():
    """The Segments page's first figure: its legend lies at the foot, below the plot, and cannot
    reach the title, however a narrow screen wraps it."""
    at = run_page("pages/segments.py", a="Hi there", b="General Kenobi")
    rows = next(f for f in figures(at) if f.layout.title.text.startswith("The two segment rows"))
    (title_low, title_high), (legend_low, legend_high) = vertical_bands(rows)
    assert legend_high <= title_low or legend_low >= title_high, (
        (title_low, title_high),
        (legend_low, legend_high),
    )
    assert legend_high <= rows.layout.margin.b + 20 * len(rows.data)  # at the foot, growing downwards


def context_page(**inputs) -> AppTest:
    return page_with("pages/context.py", **inputs)


def test_context_page_follows_a_word_through_the_layers():
    """Seven layers of the bundled model plus the token row; the word starts identical."""
    at = context_page()
    similarity = next(f for f in figures(at) if f.layout.title.text.startswith("Cosine similarity"))
    assert list(similarity.data[0].x) == ["token row", "embeddings", *(f"layer {n}" for n in range(1, 7))]
    values = array(similarity.data[0].y)
    assert values[0] == pytest.approx(1.0) and values[-1] < values[1]
    at.slider(key="ctx_layer").set_value(3).run()
    assert any(f.layout.title.text == "After layer 3" for f in figures(at))


@pytest.mark.parametrize(
    "inputs,expected",
    [
        ({"ctx_second": "She paid the cash into her account."}, "does not occur in sentence 2"),
        ({"ctx_word": "🦜"}, "outside the vocabulary"),
        (
            {"ctx_first": "He sat by the river.", "ctx_second": "He sat by the river.", "ctx_word": "river"},
            "the same",
        ),
        ({"ctx_first": "  "}, "Type a sentence"),
    ],
)
def test_context_bad_inputs(inputs, expected):
    """A word missing from a sentence, an unknown word, identical or empty sentences are explained."""
    at = context_page(**inputs)
    assert not at.exception and expected in messages(at), messages(at)


@pytest.mark.slow("whole pages in AppTest, seconds each")
def test_only_the_context_page_loads_the_whole_model(monkeypatch):
    """Every other page renders without ever loading the full model."""
    from bert_embeddings.analysis import contextual

    def refuse(model):
        raise AssertionError("a page other than Context loaded the whole model")

    monkeypatch.setattr(contextual, "load_full_model", refuse)
    st.cache_resource.clear()
    try:
        for page in PAGES:
            if page != "pages/context.py":
                at = run_page(page)
                assert not at.exception and not at.error, page
    finally:
        st.cache_resource.clear()


# --- every family on every page --------------------------------------------------------------


@pytest.fixture(scope="module", params=["distilbert", "roberta", "albert", "electra"])
def family_folder(request, tmp_path_factory):
    from testkit.random_models import family_configs, write_random_model

    configs = family_configs()

    return request.param, write_random_model(tmp_path_factory.mktemp(request.param), configs[request.param])


@pytest.mark.slow("whole pages in AppTest, seconds each")
@pytest.mark.parametrize("page", [p for p in PAGES if p != "pages/concepts.py"])
def test_every_page_works_for_every_family(family_folder, page):
    """DistilBERT, RoBERTa, ALBERT and ELECTRA render every page without an exception."""
    family, folder = family_folder
    at = run_page(page, model=str(folder))
    assert not at.exception, (family, page, [e.value for e in at.exception])
    assert not at.error, (family, page, [e.value for e in at.error])
    if page == "pages/embedding_layer.py":
        titles = [a.text for a in figures(at)[0].layout.annotations]  # the overview's panels
        assert ("Segment rows" in titles) == (family != "distilbert")
        assert any(t.startswith("Projected to the hidden size") for t in titles) == (
            family in ("albert", "electra")
        )
        assert any("Passed" in shown(s.value) for s in at.success)


def test_picker_offers_the_curated_models_with_sizes():
    """The picker lists the curated families, the bundled model and a free field, with a caption."""
    at = run_page("pages/overview.py")
    options = at.selectbox(key=settings.MODEL_KEY).options
    for spec in (
        "bert-base-uncased",
        "distilbert-base-uncased",
        "roberta-base",
        "albert-base-v2",
        "prajjwal1/bert-tiny",
    ):
        assert spec in options
    assert options[-1] == "Other Hub id or local folder..."


def sidebar_about(at: AppTest) -> str:
    """The sidebar's words about the model in use, as read (bold marks left out)."""
    return " ".join(shown(c.value).replace("**", "") for c in at.sidebar.caption if "In use" in c.value)


def in_use(model: checkpoints.LoadedModel) -> str:
    """The model as the sidebar should describe it, from its own config and tables."""
    layers = model.config.get("num_hidden_layers", model.config.get("n_layers"))
    return (
        f"In use: {model.name}: {layers} layer{'s' if layers != 1 else ''}, a token table of "
        f"{len(model.tables.word_embeddings):,} x {model.tables.word_embeddings.shape[1]}, "
        f"{len(model.tables.position_embeddings):,} positions"
    )


@pytest.mark.slow("whole pages in AppTest, seconds each")
def test_the_sidebar_describes_the_model_in_use_and_why_it_fell_back(tiny_bert_dir):
    """Offline, bert-base-uncased falls back to the bundled model: the sidebar describes the model
    loaded (name, layers, table, positions) and says that it fell back and why, never the size
    of the model asked for; the bundled model chosen, no fallback; a folder typed, that model."""
    at = run_page("pages/overview.py")
    assert at.selectbox(key=settings.MODEL_KEY).value == "bert-base-uncased"
    about = sidebar_about(at)
    assert in_use(checkpoints.load_bundled()) in about
    assert "Fell back: HF_HUB_OFFLINE is set and bert-base-uncased is not in the local" in about
    assert "110M" not in about and "768" not in about
    at.selectbox(key=settings.MODEL_KEY).set_value(checkpoints.BUNDLED).run()
    about = sidebar_about(at)
    assert in_use(checkpoints.load_bundled()) in about and "Fell back" not in about
    at.selectbox(key=settings.MODEL_KEY).set_value(settings.OTHER).run()
    at.text_input(key=settings.CUSTOM_MODEL_KEY).set_value(str(tiny_bert_dir)).run()
    about = sidebar_about(at)
    assert (
        in_use(
            checkpoints.load_folder(
                tiny_bert_dir, spec=str(tiny_bert_dir), name=str(tiny_bert_dir), source="local"
            )
        )
        in about
    )
    assert not at.exception and "Fell back" not in about


def test_host_can_switch_off_the_free_model_field(monkeypatch):
    """BERT_EXPLORER_ALLOW_CUSTOM_MODELS=0 leaves only the curated and bundled models."""
    monkeypatch.setenv(config.ALLOW_CUSTOM, "0")
    at = run_page("pages/overview.py")
    assert "Other Hub id or local folder..." not in at.selectbox(key=settings.MODEL_KEY).options
    assert not at.exception


def test_a_model_that_fails_leaves_the_previous_one_usable(tmp_path):
    """After a good model, a folder that is no checkpoint shows its message and the page goes on."""
    at = run_page("pages/embedding_layer.py")
    at.selectbox(key=settings.MODEL_KEY).set_value(settings.OTHER).run()
    at.text_input(key=settings.CUSTOM_MODEL_KEY).set_value(str(tmp_path)).run()
    assert not at.exception
    assert "no config.json" in messages(at)
    assert f"Still showing {checkpoints.BUNDLED_NAME}" in messages(at)
    assert len(at.get("plotly_chart")) == 4 and any("Passed" in shown(s.value) for s in at.success)


def test_compare_two_models(tiny_bert_dir):
    """Offline both sides are the bundled model: the page says there is no second model and how to
    get one, shows the word's neighbours in the one model and no verdict; a random model shares few
    neighbours; both split the sentence."""
    at = run_page("pages/compare.py")
    assert not at.exception and not at.error
    said = " ".join(shown(i.value) for i in at.info)
    assert "There is no second model to compare with" in said and checkpoints.BUNDLED_NAME in said
    assert "a checkpoint folder typed in the field below" in said and "Running offline" in said
    assert "once the Hub can be reached, restart it" in said  # bert-base-uncased fell back
    assert not at.metric and len(at.dataframe) == 1  # the word's neighbours in the one model
    at.text_input(key="cmp_custom").set_value(str(tiny_bert_dir)).run()
    assert len(at.dataframe) == 4  # neighbours on each side, then tokenization on each side
    assert not at.exception
    shared = int(at.metric[0].value.split()[0])
    assert shared < 10
    at.text_input(key="cmp_word").set_value("🦜").run()
    assert not at.exception and "outside the vocabulary" in messages(at)


def test_compare_without_the_free_field_says_the_host_switched_it_off(monkeypatch):
    """With the free field switched off, the way to a second model left is a listed one; the page
    names the setting that switched the field off."""
    monkeypatch.setenv(config.ALLOW_CUSTOM, "0")
    at = run_page("pages/compare.py")
    said = " ".join(shown(i.value) for i in at.info)
    assert "There is no second model to compare with" in said and config.ALLOW_CUSTOM in said
    assert "field below" not in said and not at.metric and not at.exception


def test_cut_off_download_on_the_page_keeps_the_previous_model(tmp_path, monkeypatch):
    """A download that stops midway shows its message; the session's previous model stays in use."""
    from testkit.random_models import write_random_bert

    folder = write_random_bert(tmp_path / "repo", hidden=32, positions=40)
    at = run_page("pages/embedding_layer.py")
    use_hub_cache(monkeypatch, tmp_path / "hub-cache")
    without_retry_waits(monkeypatch)  # (huggingface_hub retries each cut transfer: 23 s of waiting)
    with stand_in_hub({"someone/cut-bert": folder}, drop_after=100_000) as (url, _):
        use_hub(monkeypatch, url)
        at.selectbox(key=settings.MODEL_KEY).set_value(settings.OTHER).run()
        at.text_input(key=settings.CUSTOM_MODEL_KEY).set_value("someone/cut-bert").run()
    assert not at.exception
    assert "cut off" in messages(at) and f"Still showing {checkpoints.BUNDLED_NAME}" in messages(at)
    assert len(at.get("plotly_chart")) == 4


def test_a_secret_can_switch_off_the_free_model_field(tmp_path, monkeypatch):
    """A Streamlit secret BERT_EXPLORER_ALLOW_CUSTOM_MODELS = false hides the free field."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.secrets[config.ALLOW_CUSTOM] = "false"
    at.run()
    assert "Other Hub id or local folder..." not in at.selectbox(key=settings.MODEL_KEY).options


@pytest.mark.parametrize("page", ["pages/embedding_layer.py", "pages/maps.py", "pages/overview.py"])
def test_presenter_mode_enlarges_the_text_of_every_figure(page):
    """Every figure's text, title and annotations (and its height) grow by the presenter scale."""
    at = run_page(page)
    before = figures(at)
    at.toggle(key=settings.PRESENTER_KEY).set_value(True).run()
    after = figures(at)
    assert not at.exception and len(after) == len(before) > 0
    scale = draw.PRESENTER_SCALE
    for small, large in zip(before, after, strict=True):
        assert large.layout.font.size == pytest.approx((small.layout.font.size or 12) * scale)
        if small.layout.title.text:
            assert large.layout.title.font.size == pytest.approx((small.layout.title.font.size or 17) * scale)
        for a, b in zip(small.layout.annotations, large.layout.annotations, strict=True):
            assert b.font.size == pytest.approx((a.font.size or 12) * scale)
        if small.layout.height:
            assert large.layout.height == round(small.layout.height * scale)
        assert large.data == small.data  # the same numbers, only bigger text
    assert any("font-size: 135%" in h.proto.body for h in at.get("html"))


def test_positions_draws_every_third_position_as_colours_that_follow_the_values():
    """512 x 512 cosine matrices go to the browser as 171 x 171 colour levels, one byte a cell:
    every third position, each level the one of the value computed there; the caption sends the
    reader to the exact figures (Compare two positions, the downloads), and the colour bar reads
    in cosines."""
    from bert_embeddings.analysis import cosine

    at = run_page("pages/positions.py")
    learned = checkpoints.load_bundled().tables.position_embeddings
    heatmap = next(f for f in figures(at) if f.data[0].type == "heatmap").data[0]
    assert (heatmap.x0, heatmap.dx, heatmap.y0, heatmap.dy) == (0, 3, 0, 3)
    z = array(heatmap.z)
    assert z.dtype == np.uint8 and (heatmap.zmin, heatmap.zmax) == (0, charts.LEVELS - 1)
    np.testing.assert_array_equal(z, charts.colour_levels(cosine.matrix(learned)[::3, ::3], 1.0))
    assert list(heatmap.colorbar.ticktext) == ["\u22121", "\u22120.5", "0", "0.5", "1"]  # Plotly's minus
    assert list(heatmap.colorbar.tickvals) == charts.colour_levels(np.linspace(-1, 1, 5), 1.0).tolist()
    assert "%{z" not in heatmap.hovertemplate  # no number shown that is not the value
    captions = " ".join(shown(c.value) for c in at.caption)
    assert "Every third position is drawn" in captions and "under Compare two positions" in captions


def test_the_cosine_maps_can_show_the_first_positions_one_cell_each(downloads):
    """ "first 32": both cosine maps hold positions 0 to 31, every one drawn, each value the one
    computed, while their downloads hold every position (as the control's help says); the
    caption says which positions it shows of how many; a link carries the choice, and "all" (the
    default) leaves the link."""
    import io

    from bert_embeddings.analysis import cosine, positions

    at = page_with("pages/positions.py", **{settings.POS_SPAN: "first 32"})
    assert not at.exception and not at.error
    learned = checkpoints.load_bundled().tables.position_embeddings
    maps = {f.layout.title.text: f.data[0] for f in figures(at) if f.data[0].type == "heatmap"}
    sinusoid = positions.sinusoid(*learned.shape)
    for title, matrix in (("Learned", cosine.matrix(learned)), ("Sinusoid", cosine.matrix(sinusoid))):
        heatmap = next(trace for name, trace in maps.items() if name.startswith(title))
        assert (heatmap.x0 or 0, heatmap.dx or 1) == (0, 1)
        np.testing.assert_array_equal(array(heatmap.z), matrix[:32, :32])
        held = next(
            name
            for name in downloads
            if name and name.endswith("position-cosine.npy") and ("sinusoid" in name) == (title == "Sinusoid")
        )
        np.testing.assert_array_equal(np.load(io.BytesIO(downloads[held]())), matrix)
    captions = " ".join(shown(c.value) for c in at.caption)
    assert "each of the first 32 positions (of 512)" in captions and "Every third" not in captions
    assert "Hover a cell for its exact value" in captions
    assert at.query_params["upto"] == "32"

    again = open_link(dict(at.query_params), "pages/positions.py")
    assert again.segmented_control(key=settings.POS_SPAN).value == "first 32"
    heatmap = next(f for f in figures(again) if f.data[0].type == "heatmap").data[0]
    assert array(heatmap.z).shape == (32, 32)
    again.segmented_control(key=settings.POS_SPAN).set_value("all").run()
    assert "upto" not in again.query_params
    heatmap = next(f for f in figures(again) if f.data[0].type == "heatmap").data[0]
    assert array(heatmap.z).shape == (171, 171)
