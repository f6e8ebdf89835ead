"""A notebook's figures (bert_embeddings.figures.notebook) are the app's: for the same input and
settings, each equals, as a parsed Plotly spec, the figure its page sends to the browser."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings import api
from bert_embeddings.figures import notebook, settings
from testkit.apptest import ROOT

pytestmark = pytest.mark.usefixtures("offline")  # the default model resolves offline at once


def page_spec(
    page: str, key: str, sentences: tuple[str, str] | None = None, widgets=(), model: str = "bundled"
) -> dict:
    """The spec of the chart ``key`` on ``page`` with the bundled model (or a checkpoint folder),
    the sidebar's sentences (if given), and the page's widgets set as given: (kind, key, value),
    e.g. ("text_input", "nb_word", "river")."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    if model == "bundled":
        at.selectbox(key=settings.MODEL_KEY).set_value("bundled").run()
    else:
        at.selectbox(key=settings.MODEL_KEY).set_value(settings.OTHER).run()
        at.text_input(key=settings.CUSTOM_MODEL_KEY).set_value(model).run()
    keys = (settings.SENTENCE_A_KEY, settings.SENTENCE_B_KEY)
    for sentence_key, sentence in zip(keys, sentences or ("", ""), strict=True):
        if sentences is not None:
            at.text_area(key=sentence_key).set_value(sentence).run()
    at.switch_page(page).run()
    for kind, widget_key, value in widgets:
        getattr(at, kind)(key=widget_key).set_value(value).run()
    assert not at.exception, at.exception
    charts = [c for c in at.get("plotly_chart") if c.proto.id.endswith(key) or key in c.proto.id]
    assert len(charts) == 1, [c.proto.id for c in at.get("plotly_chart")]
    sent = json.loads(charts[0].proto.spec)
    sent["layout"].pop("template", None)  # (see spec)
    return sent


def spec(figure) -> dict:
    """A figure's numbers and layout, without its template: a page sends a bare one (Streamlit's
    theme styles the chart), a notebook keeps Plotly's own."""
    found = json.loads(figure.to_json())
    found["layout"].pop("template", None)
    return found


def test_the_overview_is_the_home_pages(bundled):
    pair = ("Streamlit draws what the notebook draws.", "Both use one function.")  # B as well
    assert spec(notebook.overview(bundled, *pair)) == page_spec("pages/overview.py", "overview", pair)


@pytest.mark.parametrize(
    ("word", "geometry_name", "k"),
    [("river", "raw", 10), ("river", "standardised", 7), ("well-known", "raw", 5)],
)
@pytest.mark.slow("a whole page's figures, in the app and from the notebook API")
def test_the_neighbour_bars_are_the_neighbours_pages(bundled, word, geometry_name, k):
    """In the page's word mode; a hyphenated word is a word in the notebook too."""
    expected = page_spec(
        "pages/neighbours.py",
        "nb_bars",
        widgets=[
            ("text_input", settings.NB_WORD, word),
            ("number_input", settings.NB_K, float(k)),
            ("segmented_control", settings.GEOMETRY, geometry_name),
        ],
    )
    assert spec(notebook.neighbours(bundled, word, k=k, geometry_name=geometry_name)) == expected


@pytest.mark.slow("a whole page's figures, in the app and from the notebook API")
def test_the_axes_chart_is_your_own_axes_pages(bundled):
    ends, words, keys = (
        {"x": ("cold", "hot"), "y": ("small", "big")},
        "ice, fire, ant, whale",
        settings.AX_ENDS,
    )
    expected = page_spec(
        "pages/axes.py",
        "ax_chart",
        widgets=[
            *[
                ("text_input", keys[name][end], text)
                for name, (start_end) in ends.items()
                for end, text in enumerate(start_end)
            ],
            ("text_input", keys["z"][0], ""),
            ("text_input", keys["z"][1], ""),
            ("text_area", settings.AX_WORDS, words),
            ("segmented_control", settings.GEOMETRY, "centred"),
        ],
    )
    assert spec(notebook.words_on_axes(bundled, ends, words, geometry_name="centred")) == expected


@pytest.mark.parametrize(
    ("geometry_name", "components"), [("raw", (1, 2)), ("centred", (2, 3)), ("standardised", (1, 2, 3))]
)
@pytest.mark.slow("a whole page's figures, in the app and from the notebook API")
def test_the_pca_map_is_the_maps_pages(bundled, geometry_name, components):
    """Every row of the vocabulary on the components asked for, the sentence's pieces marked."""
    widgets = [("segmented_control", settings.GEOMETRY, geometry_name)]
    if len(components) == 3:
        widgets.append(("segmented_control", settings.PCA_DIMS, settings.MAP_DIMS[1]))
    keys = (settings.PCA_X, settings.PCA_Y, settings.PCA_Z)
    widgets += [("number_input", key, float(c)) for key, c in zip(keys, components, strict=False)]
    sentences = ("I am Sinan", "She is Zoe")
    expected = page_spec("pages/maps.py", "pca_vocabulary", sentences, widgets)
    found = notebook.pca_map(
        bundled, geometry_name, components=components, text_a=sentences[0], text_b=sentences[1]
    )
    assert spec(found) == expected


@pytest.mark.slow("a t-SNE map")
def test_the_tsne_map_is_the_maps_pages(tiny_bert_dir, monkeypatch, tmp_path):
    """A finished t-SNE map (made here as a host would, into a cache folder of its own), with its
    region labels: the page reads the same map from the same folder and draws the same figure."""
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path))
    monkeypatch.setenv("BERT_EXPLORER_MAP_ITERATIONS", "30")
    model = api.load(str(tiny_bert_dir))
    api.tsne_map(model, compute=True)
    widgets = [("segmented_control", settings.MAP_METHOD, settings.MAP_METHODS[1])]
    expected = page_spec(
        "pages/maps.py", "tsne_vocabulary", ("I am Sinan", ""), widgets, model=str(tiny_bert_dir)
    )
    assert spec(notebook.tsne_map(model, text_a="I am Sinan")) == expected
    assert any(trace.get("name") == "regions" for trace in expected["data"])


@pytest.mark.slow("a whole page's figures, in the app and from the notebook API")
def test_a_dark_notebook_gets_the_dark_themes_ink(bundled):
    """The sentence's mark and its labels are drawn in the theme's text colour; nothing else
    changes."""
    from bert_embeddings.errors import OutOfRangeError
    from bert_embeddings.figures import charts

    light, dark = (notebook.pca_map(bundled, text_a="Hi", theme=t).to_json() for t in ("light", "dark"))
    assert json.loads(dark)["data"][-1]["marker"]["color"] == charts.INK["dark"] != charts.INK["light"]
    assert dark.count(charts.INK["dark"]) == 4  # the mark, and its three pieces' labels
    assert json.loads(dark.replace(charts.INK["dark"], charts.INK["light"])) == json.loads(light)
    with pytest.raises(OutOfRangeError, match="'light' or 'dark'"):
        notebook.pca_map(bundled, text_a="I am Sinan", theme="sepia")


def test_a_map_not_made_says_how_to_make_it(tiny_bert_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="python -m bert_embeddings map"):
        notebook.tsne_map(api.load(str(tiny_bert_dir)))


def test_a_different_input_gives_a_different_figure(bundled):
    """The comparisons above can fail: the spec depends on what was asked."""
    assert spec(notebook.neighbours(bundled, "river")) != spec(notebook.neighbours(bundled, "lake"))


@pytest.mark.slow("a whole page's figures, in the app and from the notebook API")
def test_every_example_in_the_docstrings_runs():
    found = doctest.testmod(notebook, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert found.attempted >= 5 and found.failed == 0, found
    assert all(getattr(notebook, name).__doc__ for name in notebook.__all__)


def test_the_figures_import_no_streamlit():
    """A notebook gets the figures without Streamlit (a fresh interpreter, nothing imported yet)."""
    code = (
        "import sys; from bert_embeddings.figures import notebook; from bert_embeddings import api; "
        "print('streamlit' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_search_behind_the_bars_is_the_neighbours_answer(bundled):
    query, found = api.search(bundled, "river", k=5)
    assert [n.id for n in api.neighbours(bundled, "river", k=5)] == list(found.ids)
    assert query.description == "river"
