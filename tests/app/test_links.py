"""Shareable links through AppTest: set a view, read its URL, open the URL again, same view."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings.analysis import geometry
from bert_embeddings.figures import neighbours_page, settings
from bert_embeddings.models import checkpoints
from components.parts import models
from components.view_state import links, session_entries
from testkit.apptest import ROOT, figures, messages, open_link, shown

pytestmark = pytest.mark.usefixtures("offline")  # the default model resolves offline at once


def fresh(page: str) -> AppTest:
    return open_link({}, page)


def neighbour_table(at: AppTest) -> list[tuple]:
    frame = next(d for d in at.dataframe if "rank" in d.value.columns).value
    return list(frame.itertuples(index=False))


def widget_values(at: AppTest, keys) -> dict:
    return {key: at.session_state[key] for key in keys}


def test_a_neighbour_view_survives_the_round_trip():
    """Model, sentences, word, k, geometry and a filter: the reopened link shows the same table."""
    at = fresh("pages/neighbours.py")
    at.selectbox(key=settings.MODEL_KEY).set_value("bundled").run()
    at.text_area(key=settings.SENTENCE_A_KEY).set_value("Dogs chase the cars.").run()
    at.text_area(key=settings.SENTENCE_B_KEY).set_value("").run()
    at.text_input(key=settings.NB_WORD).set_value("dogs").run()
    at.number_input(key=settings.NB_K).set_value(17).run()
    at.segmented_control(key=settings.GEOMETRY).set_value("all-but-the-top").run()
    at.slider(key=settings.GEOMETRY_REMOVED).set_value(5).run()
    at.text_input(key=settings.NB_EXCLUDE).set_value("^c").run()
    assert not at.exception and not at.error
    link = dict(at.query_params)
    assert link == {
        "model": "bundled",
        "a": "Dogs chase the cars.",
        "b": "",
        "q": "dogs",
        "k": "17",
        "geometry": "abtt",
        "d": "5",
        "not": "^c",
    }

    again = open_link(link, "pages/neighbours.py")
    assert not again.exception and not again.error and not again.warning
    keys = [settings.MODEL_KEY, settings.SENTENCE_A_KEY, settings.SENTENCE_B_KEY, settings.NB_WORD]
    keys += [settings.NB_K, settings.GEOMETRY, settings.GEOMETRY_REMOVED, settings.NB_EXCLUDE]
    assert widget_values(again, keys) == widget_values(at, keys)
    assert neighbour_table(again) == neighbour_table(at)
    assert len(neighbour_table(again)) == 17
    assert dict(again.query_params) == link


@pytest.mark.parametrize(
    ("mode", "set_query", "expected"),
    [
        (
            "token id",
            lambda at: at.number_input(key=settings.NB_ID).set_value(1012),
            {"mode": "id", "id": "1012"},
        ),
        (
            "arithmetic",
            lambda at: at.text_input(key=settings.NB_EXPRESSION).set_value("paris - france + italy"),
            {"mode": "sum", "sum": "paris - france + italy"},
        ),
        (
            "sentence token",
            lambda at: at.selectbox(key=settings.NB_STAGE).set_value("LayerNorm output"),
            {"mode": "token", "stage": "layernorm", "token": "1"},
        ),
    ],
)
def test_each_query_mode_survives_the_round_trip(mode, set_query, expected):
    at = fresh("pages/neighbours.py")
    at.button_group(key=settings.NB_MODE).set_value(mode).run()
    set_query(at).run()
    assert not at.exception and not at.error
    link = dict(at.query_params)
    assert link == expected  # only this mode's query is in the link, not the other modes' inputs
    again = open_link(link, "pages/neighbours.py")
    assert not again.exception and not again.error
    assert neighbour_table(again) == neighbour_table(at)


def test_a_pca_view_survives_the_round_trip():
    """3-D, chosen components and a highlight: the reopened link draws the same vocabulary map."""
    at = fresh("pages/maps.py")
    at.button_group(key=settings.PCA_DIMS).set_value("3-D").run()
    for key, number in ((settings.PCA_X, 3), (settings.PCA_Y, 1), (settings.PCA_Z, 5)):
        at.number_input(key=key).set_value(number).run()
    at.text_input(key=settings.PCA_HIGHLIGHT).set_value("^qu").run()
    assert not at.exception and not at.error
    link = dict(at.query_params)
    assert link == {"map": "3", "x": "3", "y": "1", "z": "5", "highlight": "^qu"}

    again = open_link(link, "pages/maps.py")
    assert not again.exception and not again.error
    keys = [settings.PCA_DIMS, settings.PCA_X, settings.PCA_Y, settings.PCA_Z, settings.PCA_HIGHLIGHT]
    assert widget_values(again, keys) == widget_values(at, keys)
    before = [f for f in figures(at) if "vocabulary" in f.layout.title.text]
    after = [f for f in figures(again) if "vocabulary" in f.layout.title.text]
    assert before and after == before


def test_the_link_holds_only_the_settings_of_the_page_shown():
    """A page's own settings leave the URL when another page is opened; the sidebar's stay."""
    at = fresh("pages/neighbours.py")
    at.text_area(key=settings.SENTENCE_A_KEY).set_value("Short.").run()
    at.number_input(key=settings.NB_K).set_value(5).run()
    assert dict(at.query_params) == {"a": "Short.", "k": "5"}
    at.switch_page("pages/tokens.py").run()
    assert dict(at.query_params) == {"a": "Short."}


def test_defaults_leave_the_url_empty():
    assert dict(fresh("pages/neighbours.py").query_params) == {}


def test_a_sentence_too_long_for_a_link_is_left_out():
    at = fresh("pages/tokens.py")
    at.text_area(key=settings.SENTENCE_A_KEY).set_value("word " * 500).run()
    assert "a" not in at.query_params
    assert not at.exception
    assert "sentence A stay out of the link" in " ".join(shown(c.value) for c in at.sidebar.caption)


@pytest.mark.parametrize(
    ("name", "value", "key"),
    [
        ("k", "0", settings.NB_K),
        ("k", "500", settings.NB_K),
        ("k", "ten", settings.NB_K),
        ("id", "-4", settings.NB_ID),
        ("mode", "telepathy", settings.NB_MODE),
        ("geometry", "euclid", settings.GEOMETRY),
        ("sim", "euclid", settings.GEOMETRY),  # an earlier link's name, read as "geometry"
        ("d", "21", settings.GEOMETRY_REMOVED),
        ("d", "0", settings.GEOMETRY_REMOVED),
        ("only", "(", settings.NB_INCLUDE),
        ("special", "maybe", settings.SPECIAL_TOKENS_KEY),
        ("a", "x" * 10_001, settings.SENTENCE_A_KEY),
        ("x", "11", settings.PCA_X),
        ("x", "1_0", settings.PCA_X),  # int() reads it as 10, which is in range
        ("k", " 1", settings.NB_K),
        ("k", "+1", settings.NB_K),
        ("k", "\uff11\uff12", settings.NB_K),  # full-width digits: int() reads 12
        ("k", "1e1", settings.NB_K),
        ("id", "2_054", settings.NB_ID),
        ("grid_k", "11", neighbours_page.Settings.key("grid_k")),
        ("z", "1.5", settings.PCA_Z),
        ("map", "4", settings.PCA_DIMS),
        ("highlight", "[a-", settings.PCA_HIGHLIGHT),
        ("model", "../../etc", settings.MODEL_KEY),
    ],
)
def test_an_invalid_value_falls_back_to_the_default_with_a_notice(name, value, key):
    """The notice names the value; the widget holds its default; the rest of the link applies."""
    page = "pages/maps.py" if key.startswith("pca") else "pages/neighbours.py"
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({name: value, "b": "A valid part of the same link."})
    at.run()
    assert not at.exception
    notice = messages(at)
    assert "could not be used" in notice and f"{name}={value[:60]!r}" in notice
    at.switch_page(page).run()
    assert not at.exception and not at.error
    default = models.model_options()[0] if key == settings.MODEL_KEY else settings.DEFAULTS.get(key)
    if key == settings.GEOMETRY_REMOVED:  # the model's own default: its width / 100
        default = geometry.default_removed(checkpoints.load_bundled().tables.word_embeddings.shape[1])
    assert at.session_state.get(key, default) == default  # absent: its widget is not on this page
    assert at.session_state[settings.SENTENCE_B_KEY] == "A valid part of the same link."
    assert "could not be used" not in messages(at)  # said once, not on every run after


@pytest.mark.parametrize(
    ("old", "page", "shown"),
    [
        ({"sim": "centred"}, "pages/neighbours.py", "centred"),
        ({"sim": "cosine"}, "pages/neighbours.py", "raw"),
        ({"origin": "centred"}, "pages/axes.py", "centred"),
        ({"sim": "cosine", "geometry": "standardised"}, "pages/neighbours.py", "standardised"),
    ],
)
def test_an_earlier_links_similarity_or_origin_opens_as_the_geometry(old, page, shown):
    """Links made before the geometry switch (sim=, origin=) still open as they meant, without a
    notice, and the address bar then says it the new way."""
    at = open_link(old, page)
    assert not at.exception and not at.error
    assert "could not be used" not in messages(at)
    assert at.session_state[settings.GEOMETRY] == shown
    assert "sim" not in at.query_params and "origin" not in at.query_params
    assert at.query_params.get("geometry", "raw") == shown


def test_a_cleared_sentence_a_reopens_as_it_was_left():
    """Clearing A puts ?a= in the address; opening that link shows the same view, no notice."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.text_area(key=settings.SENTENCE_A_KEY).set_value("").run()
    assert at.query_params["a"] == ""
    again = open_link({"a": ""}, "pages/tokens.py")
    assert "could not be used" not in messages(again)
    assert "Sentence A is empty" in messages(again) and not again.exception


def test_an_unknown_parameter_is_named_and_ignored():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"palette": "blue", "embed": "true"})
    at.run()
    assert "palette (not a setting of this app)" in messages(at)
    assert "embed" not in messages(at)  # Streamlit's own parameter


def test_a_hub_id_in_a_link_fills_the_free_field():
    at = open_link({"model": "google-bert/bert-base-cased"}, "pages/tokens.py")
    assert at.session_state[settings.MODEL_KEY] == settings.OTHER
    assert at.session_state[settings.CUSTOM_MODEL_KEY] == "google-bert/bert-base-cased"


def test_a_custom_model_link_is_refused_where_the_host_switched_custom_models_off(monkeypatch):
    monkeypatch.setenv("BERT_EXPLORER_ALLOW_CUSTOM_MODELS", "0")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"model": "someone/their-bert"})
    at.run()
    assert "only offers the models in its list" in messages(at)
    assert at.session_state[settings.MODEL_KEY] == models.model_options()[0]


def test_a_linked_token_the_sentence_lacks_falls_back_to_its_default():
    at = open_link({"a": "Hi.", "b": "", "mode": "token", "token": "40"}, "pages/neighbours.py")
    assert not at.exception and not at.error
    assert "Token 40 is not available here" in messages(at)
    assert at.session_state[settings.NB_TOKEN] == 1
    assert neighbour_table(at)


def a_value_other_than_its_default(setting) -> object:
    """For a whole number or a choice, a value its reader accepts that is not its default (None for
    any other setting): a new setting of either kind needs no sample of its own below."""
    default = settings.DEFAULTS.get(setting.key)
    if (within := getattr(setting.read, "within", None)) is not None:
        low, high = within
        return next(n for n in range(low, low + 3) if (high is None or n <= high) and n != default)
    if (codes := getattr(setting.read, "codes", None)) is not None:
        return next(value for value in codes.values() if value != default)
    return None


def test_every_parameter_reads_back_what_it_writes():
    """Each setting's URL text reads back to the same value, for a value other than its default."""
    samples = {
        setting.key: value
        for setting in settings.LINKED
        if (value := a_value_other_than_its_default(setting)) is not None
    }
    samples |= {
        settings.SENTENCE_A_KEY: "A sentence & a = sign?",
        settings.SENTENCE_B_KEY: "",
        settings.SPECIAL_TOKENS_KEY: False,
        settings.NB_MODE: "sentence token",
        settings.NB_WORD: "##ing",
        settings.NB_ID: 0,
        settings.NB_EXPRESSION: "a + b",
        settings.NB_TOKEN: 3,
        settings.NB_STAGE: "+ segment",
        settings.NB_K: 100,
        neighbours_page.Settings.key("grid_k"): 10,
        settings.GEOMETRY: "standardised",
        settings.GEOMETRY_REMOVED: 12,
        settings.NB_HIDE_CONTINUATION: True,
        settings.NB_HIDE_SPECIAL: False,
        settings.NB_LEAVE_OUT: False,
        settings.NB_INCLUDE: r"^\w+$",
        settings.NB_EXCLUDE: "x|y",
        settings.PCA_DIMS: "3-D",
        settings.PCA_X: 10,
        settings.PCA_Y: 1,
        settings.PCA_Z: 7,
        settings.PCA_HIGHLIGHT: ".",
        **{key: "cold, ice" for key in settings.AX_ENDS["x"] + settings.AX_ENDS["y"] + settings.AX_ENDS["z"]},
        settings.AX_WORDS: "a, b\nc",
        settings.AX_STAGE: "LayerNorm output",
        settings.AX_HIDE_CONTINUATION: True,
        settings.AX_HIDE_SPECIAL: False,
        settings.AX_LEAVE_OUT: False,
        settings.AX_INCLUDE: "^s",
        settings.AX_EXCLUDE: "[0-9]",
        settings.LAYER_STAGE: "output",
        settings.MAP_METHOD: "t-SNE",
        settings.MAP_TAB: "Positions",
        settings.MAP_COLOUR: settings.MAP_COLOURS[2],
        settings.MAP_LABELS: False,
        settings.NB_GRID_STAGE: "LayerNorm output",
        settings.PCA_JOURNEY_BASIS: settings.JOURNEY_BASES[1],
        settings.TOY_ITEMS: "item, size\nant, 1\nwhale, 9",
        settings.CTX_FIRST: "A bank of fog.",
        settings.CTX_SECOND: "",
        settings.CTX_WORD: "fog",
        settings.CMP_WORD: "river",
        settings.CMP_K: 25,
        settings.NB_PIECE: 2,
        settings.PCA_KINDS: [3, 0],  # in the order chosen
        settings.DIMENSIONS: (300, 320),
        settings.POS_FIRST: 0.0,
        settings.POS_SECOND: 511.0,
        settings.POS_SPAN: "first 32",
        settings.CTX_LAYER: 3,
        settings.CMP_MODEL: checkpoints.listed_specs()[0],
        settings.CMP_CUSTOM: "someone/their-bert",
        settings.MV_MODEL: checkpoints.listed_specs()[0],
        settings.MV_CUSTOM: "someone/their-bert",
        settings.MV_STAGE_A: "12",
        settings.MV_STAGE_B: "token",
        settings.MV_K: 100,
        settings.MV_PIECE: "##ing",
        settings.MV_HIDE_CONTINUATION: True,
        settings.MV_HIDE_SPECIAL: False,
        settings.MV_LEAVE_OUT: True,
        settings.MV_INCLUDE: "^s",
        settings.MV_EXCLUDE: "[0-9]",
        settings.MV_STEP: "75",
        **{key: "rose, ##ing, a&b" for key in settings.AX_WEAT.values()},
    }
    assert {p.key for p in settings.LINKED} == set(samples)
    for param in settings.LINKED:
        value = samples[param.key]
        assert value != settings.DEFAULTS.get(param.key), param.url
        assert param.read(param.write(value)) == value, param.url


def test_a_fresh_neighbours_page_uses_the_default_search_options():
    """The options the settings table gives a fresh page are the ones the page searches with."""
    from bert_embeddings.analysis import geometry, vocab_search

    at = open_link({}, "pages/neighbours.py")
    model = checkpoints.load_bundled()
    index = vocab_search.build_index(model.tables.word_embeddings, model.tokenizer)
    options = neighbours_page.Settings()
    query = vocab_search.word_query(index, model.tokenizer, options.word)
    space = geometry.fit(index.table, options.geometry, 0)  # D counts only for all-but-the-top
    found = vocab_search.nearest(index, query.vector, options.k, space, options.filters(query.ids))
    assert [row.piece for row in neighbour_table(at)] == list(found.pieces)


# The settings a link gives as a whole number (their readers say what they accept), with a value
# each accepts.
WHOLE_NUMBER_PARAMS = {
    s.url: 7
    if s.read.within[0] <= 7 and (s.read.within[1] is None or 7 <= s.read.within[1])
    else s.read.within[0]
    for s in settings.LINKED
    if hasattr(s.read, "within")
}


@pytest.mark.parametrize(
    "text", ["1_0", " 1", "1 ", "+1", "\uff11", "\u0661", "1e1", "1.0", "0x1", "", "-", "1\n"]
)
@pytest.mark.parametrize("name", list(WHOLE_NUMBER_PARAMS))
def test_a_whole_number_in_a_link_is_plain_digits_only(name, text):
    """What Python's int() also reads (underscores, spaces, a plus sign, other scripts' digits)
    is refused by every whole-number setting, with the reason; plain digits are read."""
    setting = next(s for s in settings.LINKED if s.url == name)
    with pytest.raises(ValueError, match="digits 0-9"):
        setting.read(text)
    assert setting.read(str(WHOLE_NUMBER_PARAMS[name])) == WHOLE_NUMBER_PARAMS[name]


@pytest.mark.parametrize("text", ["99999999999999999999999", "-99999999999999999999999", "9" * 5_000])
@pytest.mark.parametrize("name", list(WHOLE_NUMBER_PARAMS))
def test_a_number_of_too_many_digits_in_a_link_is_out_of_range_not_badly_written(name, text):
    """mv_k=99999999999999999999999 was "not in the digits 0-9": it is plain digits, a number far
    out of range, and the reason says so."""
    setting = next(s for s in settings.LINKED if s.url == name)
    with pytest.raises(ValueError) as refused:
        setting.read(text)
    reason = str(refused.value)
    assert "digits 0-9" not in reason and ("is outside" in reason or "is beyond" in reason), reason
    assert ("99,999,999,999,999,999,999,999" if len(text) < 30 else "a number of 5,000 digits") in reason


def test_the_whole_number_settings_are_the_ones_checked_above():
    """Each linked setting whose value is a number is in WHOLE_NUMBER_PARAMS (none forgotten)."""
    numeric = {
        s.url
        for s in settings.LINKED
        if isinstance(s.default, int | float) and not isinstance(s.default, bool)
    }
    known = {"id", "k", "grid_k", "x", "y", "z", "token", "cmp_k", "mv_k", "piece", "p1", "p2", "layer"}
    assert numeric | known <= set(WHOLE_NUMBER_PARAMS)


def test_the_core_reads_a_number_as_text_the_same_way():
    """limits.whole_number, given text, reads it as a link does: '1_0' is refused, not 10."""
    from bert_embeddings import limits
    from bert_embeddings.errors import OutOfRangeError

    assert limits.whole_number("10", "k", 1, 100) == 10 == limits.whole_number(10.0, "k", 1, 100)
    for text in ("1_0", " 10", "+10", "\uff11\uff10", "1e1"):
        with pytest.raises(OutOfRangeError, match="must be a whole number from 1 to 100"):
            limits.whole_number(text, "k", 1, 100)


@pytest.mark.parametrize(
    "text",
    [
        "7",
        "007",
        "100",
        "0",
        "101",
        "-3",
        "1_0",
        " 1",
        "+1",
        "\uff11",
        "\u0661",
        "\u00b2",
        "1.0",
        "",
        "9" * 5_000,
    ],
)
def test_a_host_setting_and_a_lesson_figure_read_a_number_as_a_link_does(text):
    """A host's setting and a lesson figure's argument read a whole number by limits.whole_number,
    and say what they take in one phrase (never int()'s own words)."""
    from bert_embeddings import config_values, limits
    from bert_embeddings.errors import OutOfRangeError
    from bert_embeddings.lessons import figure_kit, figures

    try:
        expected: int | None = limits.whole_number(text, "k", 1, 100)
    except OutOfRangeError:
        expected = None
    for reader in (config_values.whole(1, 100), figure_kit.whole_in(1, 100)):
        if expected is not None:
            assert reader(text) == expected
        else:
            with pytest.raises(ValueError) as refused:
                reader(text)
            assert str(refused.value) == "a whole number from 1 to 100, in the digits 0-9"
    if expected is None and text and " " not in text and len(text) < 100:  # as a lesson writes it
        written = f"{{{{neighbours word=dog k={text}}}}}"
        said = f"{written!r}: k={text!r} is not a whole number from 1 to 100, in the digits 0-9"
        assert figures.problems(f"T {written}") == [said]


@pytest.mark.parametrize(
    ("page", "params", "boxes"),
    [
        (
            "pages/compare.py",
            {"cmp_word": "river", "cmp_k": "25"},
            {settings.CMP_WORD: "river", settings.CMP_K: 25},
        ),
        (
            "pages/concepts.py",
            {"items": "item, size\nant, 1\nwhale, 9"},
            {settings.TOY_ITEMS: "item, size\nant, 1\nwhale, 9"},
        ),
        (
            "pages/context.py",
            {"s1": "A bank of fog.", "s2": "The fog lifted.", "word": "fog"},
            {
                settings.CTX_FIRST: "A bank of fog.",
                settings.CTX_SECOND: "The fog lifted.",
                settings.CTX_WORD: "fog",
            },
        ),
        ("pages/neighbours.py", {"grid": "layernorm"}, {settings.NB_GRID_STAGE: "LayerNorm output"}),
        ("pages/neighbours.py", {"q": "embeddings", "piece": "1"}, {settings.NB_PIECE: 1}),
        ("pages/maps.py", {"kinds": "number,word"}, {settings.PCA_KINDS: [3, 0]}),
        ("pages/embedding_layer.py", {"dims": "300-320"}, {settings.DIMENSIONS: (300, 320)}),
        ("pages/positions.py", {"p1": "10", "p2": "0"}, {settings.POS_FIRST: 10, settings.POS_SECOND: 0}),
        ("pages/context.py", {"layer": "2"}, {settings.CTX_LAYER: 2}),
        (
            "pages/compare.py",
            {"cmp": checkpoints.listed_specs()[0]},
            {settings.CMP_MODEL: checkpoints.listed_specs()[0]},
        ),
        ("pages/compare.py", {"cmp_id": "someone/their-bert"}, {settings.CMP_CUSTOM: "someone/their-bert"}),
        ("pages/moved.py", {"vs_id": "someone/their-bert"}, {settings.MV_CUSTOM: "someone/their-bert"}),
        (
            "pages/maps.py",
            {"tab": "journey", "basis": "sentence"},
            {settings.PCA_JOURNEY_BASIS: settings.JOURNEY_BASES[1]},
        ),
    ],
)
def test_settings_of_every_page_travel_in_a_link_and_back(page, params, boxes):
    """A link to Compare, Concepts, Context, the Neighbours grid or the sentence journey opens
    with its values in their boxes, and the address bar then holds the same parameters; so do
    the piece of a split word, the kinds of piece on the map, the dimension range, the two
    positions, Context's layer and Compare's and What moved's second model (listed, or a Hub id:
    the two pages share one picker)."""
    at = open_link(params, page)
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    for key, value in boxes.items():
        assert at.session_state[key] == value, key
    shown = at.query_params
    for name, text in params.items():
        assert shown.get(name) in (text, [text]), (name, shown.get(name))


def test_each_new_parameter_shows_on_its_page():
    """What the links above open is what the page then shows: the piece searched with, the
    kinds on the map, the dimensions of the heatmap, the positions and the layer."""
    at = open_link({"q": "embeddings", "piece": "1"}, "pages/neighbours.py")
    assert "##bed" in at.get("plotly_chart")[0].proto.spec and at.radio(key=settings.NB_PIECE).value == 1
    at = open_link({"kinds": "number,word"}, "pages/maps.py")
    vocabulary = next(f for f in figures(at) if "vocabulary" in f.layout.title.text)
    assert {t.name for t in vocabulary.data if t.name in settings_kinds()} == {"number", "whole word"}
    at = open_link({"dims": "300-320"}, "pages/embedding_layer.py")
    assert at.slider(key=settings.DIMENSIONS).value == (300, 320)
    detail = next(f for f in figures(at) if f.data and getattr(f.data[0], "x0", None) == 300)
    assert detail.data[0].dx == 1
    at = open_link({"p1": "10", "p2": "0"}, "pages/positions.py")
    assert any("rows 10 and 0" in m.label for m in at.metric)
    at = open_link({"layer": "2"}, "pages/context.py")
    assert any(f.layout.title.text == "After layer 2" for f in figures(at))
    assert not at.exception


def settings_kinds() -> set[str]:
    from bert_embeddings.analysis import vocab_search

    return set(vocab_search.KINDS)


@pytest.mark.parametrize(
    ("page", "params", "key", "default", "message"),
    [
        (
            "pages/context.py",
            {"layer": "99"},
            settings.CTX_LAYER,
            6,
            "Layer 99 is not available here, so layer 6",
        ),
        (
            "pages/embedding_layer.py",
            {"dims": "0-999"},
            settings.DIMENSIONS,
            (0, 383),
            "The range of dimensions 0-999 is not available here, so the range of dimensions 0-383",
        ),
        (
            "pages/neighbours.py",
            {"q": "king", "piece": "2"},
            settings.NB_PIECE,
            None,
            "Piece 2 (this word is one piece) is not available here, so the mean of its pieces",
        ),
        (
            "pages/neighbours.py",
            {"q": "embeddings", "piece": "9"},
            settings.NB_PIECE,
            None,
            "Piece 9 (this word has pieces 0 to 3) is not available here",
        ),
        (
            "pages/compare.py",
            {"cmp_id": "/etc"},
            settings.CMP_CUSTOM,
            "",
            "cmp_id='/etc' (not a Hugging Face Hub id",
        ),
        (
            "pages/compare.py",
            {"cmp": "/etc"},
            settings.CMP_MODEL,
            "bundled",
            "cmp='/etc' (not one of the models",
        ),
        ("pages/compare.py", {"cmp": "someone/bert"}, settings.CMP_MODEL, "bundled", "not one of the models"),
    ],
)
def test_a_value_beyond_the_model_or_the_word_gives_a_message_and_the_default(
    page, params, key, default, message
):
    """A layer the model lacks, dimensions beyond its width, a piece the word lacks, a folder or
    an unlisted name as the model to compare with: a message, the default, no exception; and
    the address bar then leaves the value out."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update(params)
    said = messages(at.run())  # a value the link's check refuses is named on the first page
    at.switch_page(page).run()
    said += " " + messages(at)  # one the page cannot show, on the page
    assert not at.exception
    assert message in said, said
    assert at.session_state[key] == default if key in at.session_state else default is None
    at.run()
    assert not (set(params) - {"q"}) & set(at.query_params), dict(at.query_params)
    if page == "pages/compare.py":  # the default model to compare with, loaded as usual (offline,
        # the sidebar's model too: the page says there is no second model)
        assert f"'Compare with' gives {checkpoints.BUNDLED_NAME}" in messages(at)


def test_a_position_beyond_the_model_names_its_range():
    """Positions read a link's number like a typed one: beyond the model's, the page says so."""
    at = open_link({"p1": "9999"}, "pages/positions.py")
    assert not at.exception and "must be from 0 to 511" in messages(at)


def test_a_hub_id_to_compare_is_refused_where_the_host_switched_custom_models_off(monkeypatch):
    monkeypatch.setenv("BERT_EXPLORER_ALLOW_CUSTOM_MODELS", "0")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"cmp_id": "someone/their-bert"})
    notice = messages(at.run())
    assert "cmp_id='someone/their-bert' (this app only offers the models in its list)" in notice
    at.switch_page("pages/compare.py").run()
    assert settings.CMP_CUSTOM not in at.session_state and not at.exception  # no field to fill


@pytest.mark.parametrize(
    ("name", "text"),
    [
        *(("dims", t) for t in ("", "5", "5-", "-5", "10-5", "0-100000", "0-3-4", "0_1-5", " 0-5")),
        *(("dims", t) for t in ("0-5 ", "0x1-5", "1e2-300", "\u0660-\u0663", "0\u20135", "x" * 20_000)),
        *(("kinds", t) for t in ("words", "word,", ",word", "word,word", "WORD", "word, number")),
        *(("kinds", t) for t in ("number;word", "x" * 20_000)),
        *(("cmp", t) for t in ("/etc", "../../etc", "tests", "someone/bert", "", "bundled ", "x" * 20_000)),
        *(("cmp_id", t) for t in ("/etc", "../x", "~/x", "a b", "x" * 400, "someone/" + "m" * 250)),
        *(("layer", t) for t in ("1000", "-1")),
        *(("piece", t) for t in ("101", "-1")),
        *(("p1", t) for t in ("-1",)),
    ],
)
def test_a_hostile_text_for_a_new_setting_gets_a_reason(name, text):
    """Each new parameter refuses what it cannot use, saying why (before any work: long texts
    are refused by their length)."""
    setting = next(s for s in settings.LINKED if s.url == name)
    with pytest.raises(ValueError, match=r"\w") as refused:
        setting.read(text)
    assert len(str(refused.value)) < 200


def with_state(monkeypatch, values: dict) -> None:
    """Make ``st.session_state`` (which links read) this dictionary, outside a script run."""
    import streamlit as st

    monkeypatch.setattr(st, "session_state", dict(values))


def test_a_room_view_has_no_length_limit(monkeypatch):
    """view_params leaves long sentences out of a link, but with text_limit=None (a room's view)
    keeps them; what the page cannot read (k of 500) stays out of both."""
    long = "word " * 1000
    with_state(monkeypatch, {settings.SENTENCE_A_KEY: long, settings.NB_K: 500.0, settings.NB_WORD: "dog"})
    assert links.view_params("neighbours") == {"q": "dog"}
    assert links.view_params("neighbours", text_limit=None) == {"a": long, "q": "dog"}
    assert links.left_out("neighbours") == ["k (the value typed is not valid)"]  # not the long sentence


def test_left_out_names_what_a_view_cannot_carry(monkeypatch):
    """A folder as the model, a value the page refuses, a folder to compare with: each named as
    people read it on the page; only the page's own settings count."""
    with_state(
        monkeypatch,
        {
            settings.MODEL_KEY: settings.OTHER,
            settings.CUSTOM_MODEL_KEY: "/models/my-bert",
            settings.NB_K: 1.5,
            settings.PCA_X: 11.0,
            settings.CMP_CUSTOM: "/models/other",
            settings.CMP_K: 500.0,
        },
    )
    folder = "a folder on this server, which followers cannot load"
    assert links.left_out("neighbours") == [f"the model ({folder})", "k (the value typed is not valid)"]
    assert links.left_out("maps") == [
        f"the model ({folder})",
        "the component on x (the value typed is not valid)",
    ]
    assert links.left_out("compare") == [
        f"the model ({folder})",
        f"the other model to compare with ({folder})",
        "k (the value typed is not valid)",
    ]
    with_state(monkeypatch, {settings.MODEL_KEY: settings.OTHER, settings.CUSTOM_MODEL_KEY: "not an id"})
    assert links.left_out("tokens") == ["the model (not a Hugging Face Hub id)"]
    with_state(
        monkeypatch,
        {settings.NB_K: 20.0, settings.MODEL_KEY: settings.OTHER, settings.CUSTOM_MODEL_KEY: "a/b"},
    )
    assert links.left_out("neighbours") == []
    assert links.view_params("neighbours") == {"model": "a/b", "k": "20"}


def test_a_default_worked_out_from_the_model_stays_out_of_the_link(monkeypatch):
    """Every dimension, or the last layer, is the page's default: the link leaves it out, as it
    leaves out any default; a narrower range is carried."""
    defaults = {settings.DIMENSIONS: (0, 383), settings.CTX_LAYER: 6}
    state = {
        session_entries.LINK: {links.PAGE_DEFAULTS: defaults},
        settings.DIMENSIONS: (0, 383),
        settings.CTX_LAYER: 6,
    }
    with_state(monkeypatch, state)
    assert links.view_params("embedding_layer") == {} == links.view_params("context")
    with_state(monkeypatch, {**state, settings.DIMENSIONS: (0, 10), settings.CTX_LAYER: 0})
    assert links.view_params("embedding_layer") == {"dims": "0-10"}
    assert links.view_params("context") == {"layer": "0"}


def test_the_model_s_own_default_moves_with_the_model(monkeypatch, tiny_bert_dir):
    """Every dimension and the last layer follow a change of model without a word (24 wide and
    one layer, then 384 and six); a range chosen within both stays; one beyond the new model's
    width gets the message and the default, never Streamlit's out-of-range error."""
    monkeypatch.setenv("BERT_EXPLORER_MODEL", str(tiny_bert_dir))
    at = fresh("pages/embedding_layer.py")
    assert at.slider(key=settings.DIMENSIONS).value == (0, 23)
    at.selectbox(key=settings.MODEL_KEY).set_value("bundled").run()
    assert at.slider(key=settings.DIMENSIONS).value == (0, 383)
    assert not at.exception and "not available" not in messages(at)
    assert "dims" not in at.run().query_params
    at.slider(key=settings.DIMENSIONS).set_value((5, 10)).run()
    at.selectbox(key=settings.MODEL_KEY).set_value(str(tiny_bert_dir)).run()
    assert at.slider(key=settings.DIMENSIONS).value == (5, 10)
    at.selectbox(key=settings.MODEL_KEY).set_value("bundled").run()
    at.slider(key=settings.DIMENSIONS).set_value((100, 200)).run()
    at.selectbox(key=settings.MODEL_KEY).set_value(str(tiny_bert_dir)).run()
    assert "The range of dimensions 100-200 is not available here" in messages(at) and not at.exception
    assert at.slider(key=settings.DIMENSIONS).value == (0, 23)

    at.switch_page("pages/context.py").run()
    assert at.slider(key=settings.CTX_LAYER).value == 1
    at.selectbox(key=settings.MODEL_KEY).set_value("bundled").run()
    assert at.slider(key=settings.CTX_LAYER).value == 6
    assert not at.exception and "not available" not in messages(at)
    assert "layer" not in at.run().query_params


def test_a_setting_given_twice_is_named_and_neither_value_is_taken():
    """/geometry?geometry=abtt&geometry=centred once showed centred, the last, with no notice."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"geometry": ["abtt", "centred"], "b": "A valid part of the same link."})
    at.run()
    assert "geometry (given 2 times; a link names each setting once)" in messages(at)
    at.switch_page("pages/geometry.py").run()
    assert not at.exception and at.session_state[settings.GEOMETRY] == "raw"
    assert at.session_state[settings.SENTENCE_B_KEY] == "A valid part of the same link."


@pytest.mark.parametrize(
    "params, name",
    [({"lesson": "embeddings", "step": ["4", "5"]}, "step"), ({"lesson": ["embeddings", "alike"]}, "lesson")],
)
def test_a_lesson_or_step_given_twice_is_not_taken_and_the_notice_says_so(params, name):
    """?lesson=embeddings&step=4&step=5 opens the lesson at its first step, and
    ?lesson=embeddings&lesson=alike opens no lesson: neither value wins silently, as for a
    setting, and the notice names what the default stands in for."""
    from components.lessons import player
    from testkit.apptest import lesson_fields, session

    at = session(params)
    assert not at.exception
    playing = lesson_fields(at).get(player.PLAYING)
    if name == "step":
        assert playing.name == "embeddings" and playing.step == 0
    else:
        assert playing is None
    said = messages(at)
    assert f"the default stands in for: {name} (given 2 times; a link names each setting once)" in said


@pytest.mark.parametrize("text", ["0", "07", "token ", "Token", "1000", "\u0663", "output1", "-1", "", "1.0"])
def test_a_stage_in_a_link_is_token_output_or_a_plain_layer_number(text):
    """What moved's stages: a link's text is token, output or a layer number in digits 0-9."""
    setting = settings.BY_KEY[settings.MV_STAGE_B]
    with pytest.raises(ValueError, match="not a stage"):
        setting.read(text)
    assert [setting.read(t) for t in ("token", "output", "1", "12", "999")] == [
        "token",
        "output",
        "1",
        "12",
        "999",
    ]


def test_every_whole_run_writes_the_address_even_when_the_servers_copy_agrees(monkeypatch):
    """The server's copy of the query is what a run's request carried, not what the browser
    shows: a message from an earlier run that lands after browser Back changed the page left
    Maps' settings in Positions' address. Every whole run says the view's address, so
    the next run mends any such gap; the browser changes nothing when the text is the same."""
    from streamlit.runtime.state import query_params

    sent = []
    real = query_params.QueryParams._send_query_param_msg
    monkeypatch.setattr(
        query_params.QueryParams, "_send_query_param_msg", lambda self: sent.append(dict(self)) or real(self)
    )
    at = open_link({"p1": "7"}, "pages/positions.py")
    assert not at.exception and at.query_params.get("p1") == "7"
    sent.clear()
    at.run()  # nothing changed: the server's copy already holds this view
    assert sent and sent[-1].get("p1") == "7", sent
