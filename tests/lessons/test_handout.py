"""A lesson's handout: one HTML file that stands alone. The first built-in lesson's, with the
bundled model: every step's title and text shown as text, plotly.js in it once, nothing fetched
from elsewhere, and each figure the very numbers its page draws for the step's view (the page's
own spec, through AppTest). Then the command that writes it: done, a bad lesson, a place it
cannot be written."""

from __future__ import annotations

import dataclasses
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import plotly.offline
import pytest

from bert_embeddings import __main__ as command
from bert_embeddings.figures import settings, toolbar
from bert_embeddings.lessons import answers, builtin, figures, handout, lesson, text
from bert_embeddings.views import pages
from testkit import apptest

pytestmark = pytest.mark.usefixtures("offline")  # the default model resolves offline at once

FIRST = builtin.load(builtin.NAMES[0])


class Reading(HTMLParser):
    """What a browser would load and show: every element's tag and attributes, each script's
    text, each figure's key, and the text of each step's paragraphs."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self.figures: list[tuple[str, str]] = []  # (key, the script that draws it)
        self.paragraphs: dict[int, list[str]] = {}  # step -> the text of its <p> elements
        self._step, self._figure, self._in, self._said = 0, None, None, []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "section" and attrs.get("id", "").startswith("step-"):
            self._step = int(attrs["id"].removeprefix("step-"))
        if tag == "figure":
            self._figure = attrs.get("data-key")
        if tag in ("script", "p"):
            self._in, self._said = tag, []

    def handle_endtag(self, tag):
        if tag == self._in == "script":
            self.scripts.append("".join(self._said))
            if self._figure is not None:
                self.figures.append((self._figure, self.scripts[-1]))
        elif tag == self._in == "p":
            self.paragraphs.setdefault(self._step, []).append("".join(self._said))
        if tag == self._in:
            self._in = None
        if tag == "figure":
            self._figure = None

    def handle_data(self, data):
        if self._in:
            self._said.append(data)


def new_plot(script: str) -> tuple[list, dict]:
    """The data and layout a figure's script passes to Plotly.newPlot, as JSON."""
    decoder = json.JSONDecoder()
    at = script.index("Plotly.newPlot(") + len("Plotly.newPlot(")
    found = []
    for _ in range(3):  # the div's id, the data, the layout
        at = len(script) - len(script[at:].lstrip(" ,\n"))
        value, at = decoder.raw_decode(script, at)
        found.append(value)
    return found[1], found[2]


def decoded(value):
    """A spec with every typed array (base64) as the list of its numbers: two specs are equal when
    their numbers are, however each was encoded."""
    if isinstance(value, dict) and "bdata" in value:
        return apptest.array(value).tolist()
    if isinstance(value, dict):
        return {key: decoded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decoded(item) for item in value]
    return value


@pytest.fixture(scope="module")
def first_handout(bundled) -> str:
    return handout.handout(FIRST, bundled)


@pytest.fixture(scope="module")
def reading(first_handout) -> Reading:
    return Reading(first_handout)


def test_every_steps_title_and_text_are_there_as_text(first_handout, reading, bundled):
    """The lesson's title and summary, then each step's title, its text's paragraphs with their
    figures computed for the handout's model (bold, italics and code as <strong>, <em>, <code>),
    its question and answer folded; no presenter notes."""
    assert f"<h1>{html.escape(FIRST.title)}</h1>" in first_handout
    assert html.escape(FIRST.summary) in first_handout
    facts = figures.Facts.of(bundled)
    for number, step in enumerate(FIRST.steps, 1):
        assert f">{html.escape(step.title)}</h2>" in first_handout, step.title
        shown = reading.paragraphs[number]
        assert not any("{{" in said for said in shown), number
        for paragraph in figures.render(step.text, facts).paragraphs:
            assert "".join(span.text for span in paragraph) in shown, (number, paragraph)
            for span in paragraph:
                tag = {text.BOLD: "strong", text.ITALIC: "em", text.CODE: "code"}.get(span.kind)
                if tag:
                    assert f"<{tag}>{html.escape(span.text)}</{tag}>" in first_handout
        if step.question:
            for asked in (step.question, step.answer):
                said = "\n\n".join(
                    "".join(s.text for s in p) for p in figures.render(asked, facts).paragraphs
                )
                assert said in shown
        if step.key is not None and step.key.kind == answers.CHOICE:  # what the question takes
            assert "Choices: " + " · ".join(step.key.choices) in shown, number
        if step.notes:
            assert html.escape(text.plain_text(step.notes)) not in first_handout
    assert first_handout.count("<details>") == sum(1 for step in FIRST.steps if step.question)


def test_html_or_script_in_a_lesson_is_text(bundled):
    """A lesson from a stranger: markup in its title, texts and a sentence of its view is shown as
    typed, and adds no element: the only scripts are plotly.js, its setting, the toolbar's PNG
    button (figures/toolbar.py) and one per figure."""
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    source = f'''
title = "{hostile}"
summary = "{hostile}"

[[step]]
title = "{hostile}"
text = "**{hostile}** and `{hostile}`"
question = "{hostile}"
answer = "{hostile}"

[step.key]
choices = ["{hostile}", "b"]
right = "b"

[step.view]
page = "embedding_layer"
a = "{hostile}"
'''
    page = handout.handout(lesson.read(source), bundled)
    found = Reading(page)
    assert [tag for tag, _ in found.tags if tag in ("img", "iframe", "object", "embed")] == []
    assert [tag for tag, _ in found.tags].count("script") == 3 + len(found.figures)
    assert toolbar.HANDOUT_PNG_BUTTON in page
    assert all("Plotly.newPlot" in script for _, script in found.figures)
    escaped = html.escape(hostile)
    assert f"<h1>{escaped}</h1>" in page and f"<strong>{escaped}</strong>" in page
    assert f"<code>{escaped}</code>" in page and f"Choices: {escaped} · b" in page
    assert hostile in found.paragraphs[1]  # shown as text, as typed
    assert not re.search(r"<script>alert|<img src=x", page)


def test_plotly_js_is_in_the_file_once_and_nothing_is_fetched(first_handout, reading):
    """plotly.js is held once, in the head; no script, style sheet, image or font comes from a
    server, and no address is named outside plotly.js itself."""
    library = plotly.offline.get_plotlyjs()
    assert first_handout.count(library) == 1
    assert first_handout.index(library) < first_handout.index("</head>")
    assert sum(library in script for script in reading.scripts) == 1
    for tag, attrs in reading.tags:
        assert not {"src", "srcset", "data"} & set(attrs), (tag, attrs)
        assert not (tag == "link" and "href" in attrs), attrs
        assert not re.match(r"\s*(https?:)?//", attrs.get("href") or ""), attrs
    outside = first_handout.replace(library, "")
    assert not re.search(r"https?:|@import|url\(", outside, re.IGNORECASE)
    assert len(reading.figures) >= 15


def chart_key(chart) -> str:
    """The key a page drew a chart under (Streamlit ends the element's id with it)."""
    key = apptest.user_key(chart.proto.id)
    assert key is not None, chart.proto.id
    return key


def step_figures(reading: Reading, number: int) -> dict[str, tuple[list, dict]]:
    found = {}
    for key, script in reading.figures:
        div = re.search(r'Plotly.newPlot\(\s*"step-(\d+)-figure', script)
        if int(div.group(1)) == number:
            found[key] = new_plot(script)
    return found


DRAWN = [n for n, step in enumerate(FIRST.steps, 1) if step.page != "tokens"]


@pytest.mark.parametrize("number", DRAWN, ids=[f"{n}-{FIRST.steps[n - 1].page}" for n in DRAWN])
def test_each_figure_is_the_one_its_page_draws_for_the_steps_view(reading, number):
    """The step's view opened as a link (with the bundled model), its folded parts unfolded,
    draws exactly the handout's figures, under the same keys, with the same numbers, titles and
    layout."""
    figures_are_the_pages(reading, FIRST, number)


def figures_are_the_pages(reading: Reading, shown: lesson.Lesson, number: int) -> None:
    step = shown.steps[number - 1]
    at = apptest.unfolded(
        apptest.open_link({"model": "bundled", **step.params}, pages.BY_URL[step.page].file)
    )
    assert not at.exception, at.exception
    drawn = {chart_key(chart): json.loads(chart.proto.spec) for chart in at.get("plotly_chart")}
    found = step_figures(reading, number)
    assert set(found) == set(drawn) and found, (sorted(found), sorted(drawn))
    for key, (data, layout) in found.items():
        assert decoded(data) == decoded(drawn[key]["data"]), key
        assert decoded(without_template(layout)) == decoded(without_template(drawn[key]["layout"])), key


def without_template(layout: dict) -> dict:
    """A layout but its template: a page's figure takes the Streamlit theme in the browser, a
    handout's figure the handout's own light template (the next test)."""
    return {name: value for name, value in layout.items() if name != "template"}


def test_every_figure_has_the_handouts_own_template_whatever_the_process_default(reading):
    """Streamlit makes its theme Plotly's default template in any process that imports it; its
    colours are placeholders that only Streamlit's page replaces, and must not reach the file."""
    import plotly.io

    assert plotly.io.templates.default == "streamlit"  # (this process has imported Streamlit)
    layouts = [new_plot(script)[1] for _, script in reading.figures]
    assert layouts and all(layout["template"]["layout"]["paper_bgcolor"] == "#ffffff" for layout in layouts)
    assert not any("#000033" in json.dumps(layout) for layout in layouts)


def plot_config(script: str) -> dict:
    """The config a figure's script passes to Plotly.newPlot (after its div's id, data and layout)."""
    decoder = json.JSONDecoder()
    at = script.index("Plotly.newPlot(") + len("Plotly.newPlot(")
    for _ in range(4):
        at = len(script) - len(script[at:].lstrip(" ,\n"))
        value, at = decoder.raw_decode(script, at)
    return value


def test_every_figure_is_plotlys_own_vector_figure_and_downloads_as_an_svg(first_handout, reading):
    """A handout's figures stay vector: each is Plotly's own figure, its data and layout as JSON
    in a script that plotly.js draws in the reader's browser (as SVG, at the window's size),
    never a picture of one: the file, outside plotly.js, holds no image, canvas or embedded
    object, and no data: image. The camera of each figure's toolbar downloads it as an SVG, as on
    the pages (charts.CHART_CONFIG)."""
    from bert_embeddings.figures import charts

    outside = first_handout.replace(plotly.offline.get_plotlyjs(), "")
    assert not re.search(r"<(img|picture|canvas|object|embed|iframe)\b", outside, re.IGNORECASE)
    assert "data:image" not in outside.lower()
    assert len(reading.figures) == first_handout.count('<figure class="chart"') >= 15
    for key, script in reading.figures:
        config = plot_config(script)
        assert config["toImageButtonOptions"] == {"format": "svg"}, key
        assert config["locales"] == charts.CHART_CONFIG["locales"], key
        assert config["showSendToCloud"] is False, key  # (no "Share chart" to Plotly's cloud)


def test_the_tokens_step_is_the_pages_table(first_handout):
    """The Tokens page shows a table (folded under its chips), not a figure: the handout holds it,
    row for row."""
    number = next(n for n, step in enumerate(FIRST.steps, 1) if step.page == "tokens")
    step = FIRST.steps[number - 1]
    at = apptest.unfolded(
        apptest.open_link({"model": "bundled", **step.params}, pages.BY_URL[step.page].file)
    )
    shown = at.dataframe[0].value
    section = first_handout.split(f'id="step-{number}"', 1)[1].split("</section>", 1)[0]
    cells = re.findall(r"<td>(.*?)</td>", section)
    expected = [html.escape(str(cell)) for row in shown.itertuples(index=False) for cell in row]
    assert cells == expected and len(shown) == 6
    assert "<td>##an</td>" in section  # I am Sinan: [CLS] i am sin ##an [SEP]


def test_a_different_view_gives_different_numbers(bundled, reading):
    """The comparison above can fail: the neighbours of another word are other numbers."""
    number = next(n for n, step in enumerate(FIRST.steps, 1) if step.page == "neighbours")
    dog = FIRST.steps[number - 1]
    cat = dataclasses.replace(dog, view=tuple((k, "cat" if k == "q" else v) for k, v in dog.view))
    found = Reading(handout.handout(lesson.Lesson("Cats", "", (cat,)), bundled))
    cat_bars, dog_bars = step_figures(found, 1)["nb_bars"][0], step_figures(reading, number)["nb_bars"][0]
    assert decoded(cat_bars) != decoded(dog_bars)
    assert len(decoded(cat_bars)[0]["y"]) == len(decoded(dog_bars)[0]["y"]) == 10


SMALL = """
title = "A small lesson"
summary = "Two steps."

[[step]]
title = "Pieces"
text = "BERT reads **pieces**."

[step.view]
page = "tokens"
a = "I am Sinan"

[[step]]
title = "An embedding"
text = "Three numbers."

[step.view]
page = "concepts"
"""


def test_the_command_writes_the_handout(tmp_path, capsys):
    """python -m bert_embeddings lesson FILE --handout OUT.html: exit 0 and the file, whole."""
    source, out = tmp_path / "small.toml", tmp_path / "small.html"
    source.write_text(SMALL, encoding="utf-8")
    assert command.main(["lesson", str(source), "--handout", str(out), "--model", "bundled"]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "A small lesson" in page and len(Reading(page).figures) == 2
    assert str(out) in capsys.readouterr().out
    assert {p.name for p in tmp_path.iterdir()} == {"small.toml", "small.html"}  # no .part left


def test_a_bad_lesson_exits_2_with_its_problems(tmp_path, capsys):
    source, out = tmp_path / "bad.toml", tmp_path / "bad.html"
    source.write_text(SMALL.replace('page = "concepts"', 'page = "nowhere"'), encoding="utf-8")
    assert command.main(["lesson", str(source), "--handout", str(out), "--model", "bundled"]) == 2
    assert "step 2, view.page: 'nowhere' is not a page of the explorer" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("where", ["missing/out.html", "."])
def test_a_handout_that_cannot_be_written_exits_3(tmp_path, capsys, where):
    """A folder that is not there, or a path that is a folder: exit 3, said before any work."""
    source = tmp_path / "small.toml"
    source.write_text(SMALL, encoding="utf-8")
    out = tmp_path / where
    assert command.main(["lesson", str(source), "--handout", str(out), "--model", "bundled"]) == 3
    assert "the handout cannot be written" in capsys.readouterr().err


def test_a_write_that_fails_exits_3_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    """A disk that fails as the file is written (full, say): exit 3, no half-written file."""
    source, out = tmp_path / "small.toml", tmp_path / "small.html"
    source.write_text(SMALL, encoding="utf-8")

    class Full(type(Path())):
        def write_bytes(self, data: bytes) -> int:
            super().write_bytes(data[:10])
            raise OSError(28, "No space left on device")

    temporary = command.files.temporary
    monkeypatch.setattr(command.files, "temporary", lambda path: Full(temporary(path)))
    assert command.main(["lesson", str(source), "--handout", str(out), "--model", "bundled"]) == 3
    assert "No space left on device" in capsys.readouterr().err
    assert {p.name for p in tmp_path.iterdir()} == {"small.toml"}


@pytest.mark.slow("whole handouts")
@pytest.mark.parametrize("name", builtin.NAMES)
def test_each_builtin_handout_carries_plotly_js_only_with_a_figure(bundled, name):
    """plotly.js (4.8 MB) is in a handout only when a step draws a figure; beyond it, each
    built-in lesson's handout stays under 2.5 MB; and a step that draws nothing says so in words."""
    found = builtin.load(name)
    page = handout.handout(found, bundled)
    reading, library = Reading(page), plotly.offline.get_plotlyjs()
    assert (library in page) == bool(reading.figures)
    assert len(page.encode()) - (len(library) if reading.figures else 0) <= 2_500_000
    for number in range(1, len(found.steps) + 1):
        section = page.split(f'id="step-{number}"', 1)[1].split("</section>", 1)[0]
        assert '<figure class="chart"' in section or "<table>" in section or '<p class="note">' in section


def test_a_view_line_names_only_what_the_step_changes_in_words(bundled):
    """A step that names settings at their defaults, empty patterns and switches as 0 and 1: its
    view line leaves out the defaults and every empty value, and says each switch as yes or no."""
    view = {
        "page": "moved",
        "vs": "bundled",
        "from": "token",
        "to": "2",
        "mv_k": "10",
        "mv_piece": "",
        "mv_hide_pieces": "1",
        "mv_hide_special": "1",
        "mv_leave_out": "0",
        "mv_only": "",
        "mv_not": "",
        "b": "",
    }
    step = lesson.Step("Movers", tuple(view.items()), "Who moves.")
    page = handout.handout(lesson.Lesson("Views", "", (step,)), bundled)
    line = html.unescape(re.search(r'<p class="view">(.*?)</p>', page).group(1))
    assert "<q></q>" not in line and "“”" not in line and not re.search(r": [01][;.]", line), line
    by_url = {setting.url: setting for setting in settings.LINKED}
    for name, written in view.items():
        if name == "page":
            continue
        setting = by_url[name]
        label = settings.LABELS[setting.key]
        at_default = setting.read(written) == settings.default(setting.key)
        named = f"; {label}" in line or f"; no {label.removeprefix('the ')}" in line
        assert named != at_default, name
        if isinstance(settings.default(setting.key), bool) and not at_default:
            assert f"{label}: {'yes' if setting.read(written) else 'no'}" in line
    assert "layer 2" in line and "no sentence B" in line


@pytest.mark.slow("whole handouts")
def test_a_handout_states_each_figure_for_its_model_and_says_which_wait(bundled, monkeypatch, tmp_path):
    """The layers lesson's handout, with no stage made yet: its figures of the model itself are
    there, What moved's read "(not computed yet)", and the handout says once per text why."""
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path))
    page = handout.handout(builtin.load("layers"), bundled)
    assert "{{" not in page
    assert "compares the model in the sidebar (all-MiniLM-L6-v2 (bundled)) with itself" in page
    assert "layer 6 of all-MiniLM-L6-v2 (bundled)" in page
    assert "(not computed yet)" in page and html.escape(handout.WAITING) in page


ALIKE = builtin.load("alike")


@pytest.fixture(scope="module")
def alike_reading(bundled) -> Reading:
    return Reading(handout.handout(ALIKE, bundled))


@pytest.mark.slow("whole handouts")
@pytest.mark.parametrize("number", range(1, len(ALIKE.steps) + 1), ids=[s.page for s in ALIKE.steps])
def test_the_vocabulary_pages_figures_are_the_ones_their_page_draws(alike_reading, number):
    """Geometry and Your own axes, composed once: each step's handout figures are the page's."""
    figures_are_the_pages(alike_reading, ALIKE, number)
