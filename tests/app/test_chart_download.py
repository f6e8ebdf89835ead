"""Every chart's toolbar downloads it as an SVG (a vector image), at its size and theme on screen.

Every chart on a page is drawn by components/parts/draw.py's ``chart`` with
bert_embeddings.figures.charts.CHART_CONFIG, and a lesson's handout draws its figures with the
same config: the camera of every toolbar downloads an SVG. (In a real browser, the file it
downloads: tests/app/test_browser.py, test_a_charts_toolbar_downloads_it_as_an_svg_at_its_size_and_theme.)
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from bert_embeddings.figures import charts
from components.parts import draw
from testkit import apptest

pytestmark = pytest.mark.usefixtures("offline")  # the default model resolves offline at once

ROOT = Path(__file__).resolve().parents[2]


def test_the_toolbar_downloads_an_svg_at_the_size_on_screen():
    """The camera's format is SVG, with no width, height or scale of its own (plotly.js then
    draws the file at the chart's size on screen, with the layout the browser shows: the theme's
    colours), and its tooltip names the format; the config is plain JSON, as st.plotly_chart sends
    it (a button of one's own would need a JavaScript function, which JSON cannot carry)."""
    config = charts.CHART_CONFIG
    assert config["toImageButtonOptions"] == {"format": "svg"}
    assert config["locales"]["en"]["dictionary"] == {"Download plot": charts.DOWNLOAD_TITLE}
    assert "SVG" in charts.DOWNLOAD_TITLE
    assert "toImage" not in config["modeBarButtonsToRemove"]  # (the camera stays)
    assert not {"modeBarButtonsToAdd", "modeBarButtons"} & set(config)
    assert config["displaylogo"] is False and config["showSendToCloud"] is False  # (a handout's too)
    assert json.loads(json.dumps(config)) == config
    assert draw.CHART_CONFIG is config


def _app_files() -> list[Path]:
    return [*(ROOT / "pages").glob("*.py"), *(ROOT / "components").rglob("*.py"), ROOT / "app.py"]


def test_every_chart_on_a_page_is_drawn_with_the_one_config():
    """Only draw.chart calls st.plotly_chart, and each of its calls (a chart, a chart that
    answers a click) passes CHART_CONFIG."""
    drawing = [
        path.relative_to(ROOT).as_posix()
        for path in _app_files()
        if "plotly_chart(" in path.read_text(encoding="utf-8")
    ]
    assert drawing == ["components/parts/draw.py"]
    tree = ast.parse((ROOT / "components" / "parts" / "draw.py").read_text(encoding="utf-8"))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "plotly_chart"
    ]
    assert len(calls) == 2
    for call in calls:
        config = next(keyword.value for keyword in call.keywords if keyword.arg == "config")
        assert isinstance(config, ast.Name) and config.id == "CHART_CONFIG", ast.dump(config)


def test_a_handout_draws_its_figures_with_the_same_config_and_never_as_a_picture():
    """The code that writes HTML of a figure is the handout's, with CHART_CONFIG; nothing in the
    package or the app makes a picture of a figure (a PNG, a JPEG) instead."""
    sources = {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for path in [*(ROOT / "bert_embeddings").rglob("*.py"), *_app_files()]
    }
    writing = sorted(name for name, text in sources.items() if "to_html(" in text or "write_html(" in text)
    assert writing == ["bert_embeddings/lessons/handout.py"]
    assert "config=charts.CHART_CONFIG" in sources["bert_embeddings/lessons/handout.py"]
    pictures = sorted(name for name, text in sources.items() if "to_image(" in text or "write_image(" in text)
    assert pictures == []


def test_each_chart_a_page_draws_carries_the_svg_download():
    """What the browser receives: every chart of the Embedding layer page (four, drawn through
    draw.chart) carries the config, its download as an SVG."""
    at = apptest.run_page("pages/embedding_layer.py")
    assert not at.exception, at.exception
    drawn = at.get("plotly_chart")
    assert len(drawn) == 4
    for chart in drawn:
        config = json.loads(chart.proto.config)
        assert config == charts.CHART_CONFIG and config["toImageButtonOptions"]["format"] == "svg"
