"""Shareable links through AppTest: set a view, read its URL, open the URL again, same view."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components import settings, widgets
from tests.conftest import ROOT, shown
from tests.test_app import figures, messages


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def open_link(params: dict, page: str) -> AppTest:
    """A new session opening a link: the query parameters, then the page (AppTest's first run
    always lands on the default page, whose run reads the link)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update(params)
    at.run()
    return at.switch_page(page).run()


def fresh(page: str) -> AppTest:
    return open_link({}, page)


def neighbour_table(at: AppTest) -> list[tuple]:
    frame = next(d for d in at.dataframe if "rank" in d.value.columns).value
    return list(frame.itertuples(index=False))


def widget_values(at: AppTest, keys) -> dict:
    return {key: at.session_state[key] for key in keys}


def test_a_neighbour_view_survives_the_round_trip():
    """Model, sentences, word, k, similarity and a filter: the reopened link shows the same table."""
    at = fresh("pages/neighbours.py")
    at.selectbox(key=settings.MODEL_KEY).set_value("bundled").run()
    at.text_area(key=settings.SENTENCE_A_KEY).set_value("Dogs chase the cars.").run()
    at.text_area(key=settings.SENTENCE_B_KEY).set_value("").run()
    at.text_input(key=settings.NB_WORD).set_value("dogs").run()
    at.number_input(key=settings.NB_K).set_value(17).run()
    at.radio(key=settings.NB_SIMILARITY).set_value(settings.SIMILARITIES[1]).run()
    at.text_input(key=settings.NB_EXCLUDE).set_value("^c").run()
    assert not at.exception and not at.error
    link = dict(at.query_params)
    assert link == {
        "model": "bundled",
        "a": "Dogs chase the cars.",
        "b": "",
        "q": "dogs",
        "k": "17",
        "sim": "centred",
        "not": "^c",
    }

    again = open_link(link, "pages/neighbours.py")
    assert not again.exception and not again.error and not again.warning
    keys = [settings.MODEL_KEY, settings.SENTENCE_A_KEY, settings.SENTENCE_B_KEY, settings.NB_WORD]
    keys += [settings.NB_K, settings.NB_SIMILARITY, settings.NB_EXCLUDE]
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
    at = fresh("pages/pca.py")
    at.button_group(key=settings.PCA_DIMS).set_value("3-D").run()
    for key, number in ((settings.PCA_X, 3), (settings.PCA_Y, 1), (settings.PCA_Z, 5)):
        at.number_input(key=key).set_value(number).run()
    at.text_input(key=settings.PCA_HIGHLIGHT).set_value("^qu").run()
    assert not at.exception and not at.error
    link = dict(at.query_params)
    assert link == {"map": "3", "x": "3", "y": "1", "z": "5", "highlight": "^qu"}

    again = open_link(link, "pages/pca.py")
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
        ("sim", "euclid", settings.NB_SIMILARITY),
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
        ("z", "1.5", settings.PCA_Z),
        ("map", "4", settings.PCA_DIMS),
        ("highlight", "[a-", settings.PCA_HIGHLIGHT),
        ("model", "../../etc", settings.MODEL_KEY),
    ],
)
def test_an_invalid_value_falls_back_to_the_default_with_a_notice(name, value, key):
    """The notice names the value; the widget holds its default; the rest of the link applies."""
    page = "pages/pca.py" if key.startswith("pca") else "pages/neighbours.py"
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({name: value, "b": "A valid part of the same link."})
    at.run()
    assert not at.exception
    notice = messages(at)
    assert "could not be used" in notice and f"{name}={value[:60]!r}" in notice
    at.switch_page(page).run()
    assert not at.exception and not at.error
    default = widgets.model_options()[0] if key == settings.MODEL_KEY else settings.DEFAULTS[key]
    assert at.session_state.get(key, default) == default  # absent: its widget is not on this page
    assert at.session_state[settings.SENTENCE_B_KEY] == "A valid part of the same link."
    assert "could not be used" not in messages(at)  # said once, not on every run after


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
    at.query_params.update({"colour": "blue", "embed": "true"})
    at.run()
    assert "colour (not a setting of this app)" in messages(at)
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
    assert at.session_state[settings.MODEL_KEY] == widgets.model_options()[0]


def test_a_linked_token_the_sentence_lacks_falls_back_to_its_default():
    at = open_link({"a": "Hi.", "b": "", "mode": "token", "token": "40"}, "pages/neighbours.py")
    assert not at.exception and not at.error
    assert "Token 40 is not available here" in messages(at)
    assert at.session_state[settings.NB_TOKEN] == 1
    assert neighbour_table(at)


def test_every_parameter_reads_back_what_it_writes():
    """Each setting's URL text reads back to the same value, for a value other than its default."""
    samples = {
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
        settings.NB_SIMILARITY: settings.SIMILARITIES[1],
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
        settings.AX_ORIGIN: settings.ORIGINS[1],
        settings.AX_STAGE: "LayerNorm output",
        settings.AX_HIDE_CONTINUATION: True,
        settings.AX_HIDE_SPECIAL: False,
        settings.AX_LEAVE_OUT: False,
        settings.AX_INCLUDE: "^s",
        settings.AX_EXCLUDE: "[0-9]",
        settings.LAYER_STAGE: "output",
        settings.MAP_METHOD: "t-SNE",
        settings.MAP_TAB: "Positions",
        settings.NB_GRID_STAGE: "LayerNorm output",
        settings.PCA_JOURNEY_BASIS: settings.JOURNEY_BASES[1],
        settings.TOY_ITEMS: "item, size\nant, 1\nwhale, 9",
        settings.CTX_FIRST: "A bank of fog.",
        settings.CTX_SECOND: "",
        settings.CTX_WORD: "fog",
        settings.CMP_WORD: "river",
        settings.CMP_K: 25,
    }
    assert {p.key for p in settings.LINKED} == set(samples)
    for param in settings.LINKED:
        value = samples[param.key]
        assert value != settings.DEFAULTS.get(param.key), param.url
        assert param.read(param.write(value)) == value, param.url


def test_a_fresh_neighbours_page_uses_the_default_search_options():
    """The options the settings table gives a fresh page are the ones the page searches with."""
    from bert_embeddings import checkpoints, vocab_search

    at = open_link({}, "pages/neighbours.py")
    model = checkpoints.load_bundled()
    index = vocab_search.build_index(model.tables.word_embeddings, model.tokenizer)
    options = widgets.SearchOptions.defaults()
    query = vocab_search.word_query(index, model.tokenizer, settings.default(settings.NB_WORD))
    found = vocab_search.nearest(index, query.vector, options.k, options.centred, options.filters(query.ids))
    assert [row.piece for row in neighbour_table(at)] == list(found.pieces)


# The settings a link gives as a whole number, with a value each accepts.
WHOLE_NUMBER_PARAMS = {"id": "7", "k": "7", "x": "7", "y": "7", "z": "7", "token": "7", "cmp_k": "7"}


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
    assert setting.read(WHOLE_NUMBER_PARAMS[name]) == 7


def test_the_whole_number_settings_are_the_ones_checked_above():
    """Each linked setting whose value is a number is in WHOLE_NUMBER_PARAMS (none forgotten)."""
    numeric = {
        s.url
        for s in settings.LINKED
        if isinstance(s.default, int | float) and not isinstance(s.default, bool)
    }
    assert numeric | {"token"} == set(WHOLE_NUMBER_PARAMS)


def test_the_core_reads_a_number_as_text_the_same_way():
    """limits.whole_number, given text, reads it as a link does: '1_0' is refused, not 10."""
    from bert_embeddings import limits
    from bert_embeddings.errors import OutOfRangeError

    assert limits.whole_number("10", "k", 1, 100) == 10 == limits.whole_number(10.0, "k", 1, 100)
    for text in ("1_0", " 10", "+10", "\uff11\uff10", "1e1"):
        with pytest.raises(OutOfRangeError, match="must be a whole number from 1 to 100"):
            limits.whole_number(text, "k", 1, 100)


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
        (
            "pages/pca.py",
            {"tab": "journey", "basis": "sentence"},
            {settings.PCA_JOURNEY_BASIS: settings.JOURNEY_BASES[1]},
        ),
    ],
)
def test_settings_of_every_page_travel_in_a_link_and_back(page, params, boxes):
    """A link to Compare, Concepts, Context, the Neighbours grid or the sentence journey opens
    with its values in their boxes, and the address bar then holds the same parameters."""
    at = open_link(params, page)
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    for key, value in boxes.items():
        assert at.session_state[key] == value, key
    shown = at.query_params
    for name, text in params.items():
        assert shown.get(name) in (text, [text]), (name, shown.get(name))
