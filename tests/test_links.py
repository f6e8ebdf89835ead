"""Shareable links through AppTest: set a view, read its URL, open the URL again, same view."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components import links, widgets
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
    at.selectbox(key=widgets.MODEL_KEY).set_value("bundled").run()
    at.text_area(key=widgets.SENTENCE_A_KEY).set_value("Dogs chase the cars.").run()
    at.text_area(key=widgets.SENTENCE_B_KEY).set_value("").run()
    at.text_input(key=widgets.NB_WORD).set_value("dogs").run()
    at.number_input(key=widgets.NB_K).set_value(17).run()
    at.radio(key=widgets.NB_SIMILARITY).set_value(widgets.SIMILARITIES[1]).run()
    at.text_input(key=widgets.NB_EXCLUDE).set_value("^c").run()
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
    keys = [widgets.MODEL_KEY, widgets.SENTENCE_A_KEY, widgets.SENTENCE_B_KEY, widgets.NB_WORD]
    keys += [widgets.NB_K, widgets.NB_SIMILARITY, widgets.NB_EXCLUDE]
    assert widget_values(again, keys) == widget_values(at, keys)
    assert neighbour_table(again) == neighbour_table(at)
    assert len(neighbour_table(again)) == 17
    assert dict(again.query_params) == link


@pytest.mark.parametrize(
    ("mode", "set_query", "expected"),
    [
        (
            "token id",
            lambda at: at.number_input(key=widgets.NB_ID).set_value(1012),
            {"mode": "id", "id": "1012"},
        ),
        (
            "arithmetic",
            lambda at: at.text_input(key=widgets.NB_EXPRESSION).set_value("paris - france + italy"),
            {"mode": "sum", "sum": "paris - france + italy"},
        ),
        (
            "sentence token",
            lambda at: at.selectbox(key=widgets.NB_STAGE).set_value("LayerNorm output"),
            {"mode": "token", "stage": "layernorm", "token": "1"},
        ),
    ],
)
def test_each_query_mode_survives_the_round_trip(mode, set_query, expected):
    at = fresh("pages/neighbours.py")
    at.button_group(key=widgets.NB_MODE).set_value(mode).run()
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
    at.button_group(key=widgets.PCA_DIMS).set_value("3-D").run()
    for key, number in ((widgets.PCA_X, 3), (widgets.PCA_Y, 1), (widgets.PCA_Z, 5)):
        at.number_input(key=key).set_value(number).run()
    at.text_input(key=widgets.PCA_HIGHLIGHT).set_value("^qu").run()
    assert not at.exception and not at.error
    link = dict(at.query_params)
    assert link == {"map": "3", "x": "3", "y": "1", "z": "5", "highlight": "^qu"}

    again = open_link(link, "pages/pca.py")
    assert not again.exception and not again.error
    keys = [widgets.PCA_DIMS, widgets.PCA_X, widgets.PCA_Y, widgets.PCA_Z, widgets.PCA_HIGHLIGHT]
    assert widget_values(again, keys) == widget_values(at, keys)
    before = [f for f in figures(at) if "vocabulary" in f.layout.title.text]
    after = [f for f in figures(again) if "vocabulary" in f.layout.title.text]
    assert before and after == before


def test_the_link_holds_only_the_settings_of_the_page_shown():
    """A page's own settings leave the URL when another page is opened; the sidebar's stay."""
    at = fresh("pages/neighbours.py")
    at.text_area(key=widgets.SENTENCE_A_KEY).set_value("Short.").run()
    at.number_input(key=widgets.NB_K).set_value(5).run()
    assert dict(at.query_params) == {"a": "Short.", "k": "5"}
    at.switch_page("pages/tokens.py").run()
    assert dict(at.query_params) == {"a": "Short."}


def test_defaults_leave_the_url_empty():
    assert dict(fresh("pages/neighbours.py").query_params) == {}


def test_a_sentence_too_long_for_a_link_is_left_out():
    at = fresh("pages/tokens.py")
    at.text_area(key=widgets.SENTENCE_A_KEY).set_value("word " * 500).run()
    assert "a" not in at.query_params
    assert not at.exception
    assert "sentence A stay out of the link" in " ".join(shown(c.value) for c in at.sidebar.caption)


@pytest.mark.parametrize(
    ("name", "value", "key"),
    [
        ("k", "0", widgets.NB_K),
        ("k", "500", widgets.NB_K),
        ("k", "ten", widgets.NB_K),
        ("id", "-4", widgets.NB_ID),
        ("mode", "telepathy", widgets.NB_MODE),
        ("sim", "euclid", widgets.NB_SIMILARITY),
        ("only", "(", widgets.NB_INCLUDE),
        ("special", "maybe", widgets.SPECIAL_TOKENS_KEY),
        ("a", "x" * 10_001, widgets.SENTENCE_A_KEY),
        ("x", "11", widgets.PCA_X),
        ("z", "1.5", widgets.PCA_Z),
        ("map", "4", widgets.PCA_DIMS),
        ("highlight", "[a-", widgets.PCA_HIGHLIGHT),
        ("model", "../../etc", widgets.MODEL_KEY),
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
    default = widgets.model_options()[0] if key == widgets.MODEL_KEY else widgets.DEFAULTS[key]
    assert at.session_state.get(key, default) == default  # absent: its widget is not on this page
    assert at.session_state[widgets.SENTENCE_B_KEY] == "A valid part of the same link."
    assert "could not be used" not in messages(at)  # said once, not on every run after


def test_a_cleared_sentence_a_reopens_as_it_was_left():
    """Clearing A puts ?a= in the address; opening that link shows the same view, no notice."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.text_area(key=widgets.SENTENCE_A_KEY).set_value("").run()
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
    assert at.session_state[widgets.MODEL_KEY] == widgets.OTHER
    assert at.session_state[widgets.CUSTOM_MODEL_KEY] == "google-bert/bert-base-cased"


def test_a_custom_model_link_is_refused_where_the_host_switched_custom_models_off(monkeypatch):
    monkeypatch.setenv("BERT_EXPLORER_ALLOW_CUSTOM_MODELS", "0")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"model": "someone/their-bert"})
    at.run()
    assert "only offers the models in its list" in messages(at)
    assert at.session_state[widgets.MODEL_KEY] == widgets.model_options()[0]


def test_a_linked_token_the_sentence_lacks_falls_back_to_its_default():
    at = open_link({"a": "Hi.", "b": "", "mode": "token", "token": "40"}, "pages/neighbours.py")
    assert not at.exception and not at.error
    assert "Token 40 is not available here" in messages(at)
    assert at.session_state[widgets.NB_TOKEN] == 1
    assert neighbour_table(at)


def test_every_parameter_reads_back_what_it_writes():
    """Each setting's URL text reads back to the same value, for a value other than its default."""
    samples = {
        widgets.SENTENCE_A_KEY: "A sentence & a = sign?",
        widgets.SENTENCE_B_KEY: "",
        widgets.SPECIAL_TOKENS_KEY: False,
        widgets.NB_MODE: "sentence token",
        widgets.NB_WORD: "##ing",
        widgets.NB_ID: 0,
        widgets.NB_EXPRESSION: "a + b",
        widgets.NB_TOKEN: 3,
        widgets.NB_STAGE: "+ segment",
        widgets.NB_K: 100,
        widgets.NB_SIMILARITY: widgets.SIMILARITIES[1],
        widgets.NB_HIDE_CONTINUATION: True,
        widgets.NB_HIDE_SPECIAL: False,
        widgets.NB_LEAVE_OUT: False,
        widgets.NB_INCLUDE: r"^\w+$",
        widgets.NB_EXCLUDE: "x|y",
        widgets.PCA_DIMS: "3-D",
        widgets.PCA_X: 10,
        widgets.PCA_Y: 1,
        widgets.PCA_Z: 7,
        widgets.PCA_HIGHLIGHT: ".",
    }
    assert {p.key for p in links.PARAMS} == set(samples)
    for param in links.PARAMS:
        value = samples[param.key]
        assert value != widgets.DEFAULTS.get(param.key), param.name
        assert param.read(param.write(value)) == value, param.name
