"""A lesson's handout: the whole lesson as one HTML file a learner takes home, readable offline.

It holds the lesson's title and summary, then each step: its title, the view it opens in words,
its text, its figures (interactive, drawn by plotly.js, which the file holds once, in its head)
and its question with the answer folded in ``<details>``. Presenter notes stay out: they are for
whoever leads a room. Every figure is built by the function its page draws it with, for the
step's view standing alone (every setting the step does not name at its default, as a link
opens it), so its numbers are the page's (bert_embeddings.figures.handout_pages;
tests/lessons/test_handout.py compares each with the page's own).

Nothing from the lesson is ever markup: its texts are read by bert_embeddings.lessons.text
(paragraphs, bold, italics, code) and every character is escaped; figures carry their data as
JSON, which Plotly's writer escapes for a script. The file fetches nothing: no script, style
sheet, font or image comes from elsewhere. A figure with a colour of its own keeps it (the
Okabe-Ito palette of bert_embeddings.figures.charts), on a light page.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable

import plotly.graph_objects as go
import plotly.io
import plotly.offline

from bert_embeddings.analysis import concepts, vocab_search
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import (
    charts,
    check,
    handout_pages,
    handout_parts,
    page_figures,
    settings,
    toolbar,
)
from bert_embeddings.lessons import answers, figure_kit
from bert_embeddings.lessons import figures as lesson_figures
from bert_embeddings.lessons import text as lesson_text
from bert_embeddings.lessons.lesson import Lesson, Step
from bert_embeddings.models import checkpoints, threads
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import stages as space_stages
from bert_embeddings.views import link_text, pages
from bert_embeddings.views.sources import Sources

Loader = Callable[[str], LoadedModel]  # a model named by a step, by its spec


def handout(
    lesson: Lesson,
    model: LoadedModel,
    load: Loader | None = None,
    computed: Callable[[LoadedModel], Sources] = Sources,
) -> str:
    """The handout of ``lesson`` with ``model`` (the sidebar's model: a step naming another
    model has it loaded with ``load``, by default as the app loads a listed model or a Hub id).
    ``computed`` gives the results a model's figures are drawn from: computed here by default,
    or read from the caches the app's pages read (components/caches/handouts.py)."""
    sources: dict[int, Sources] = {}
    every_facts: dict[int, figure_kit.Facts] = {}  # a step's figures, for the model it shows
    models: dict[str, LoadedModel | str] = {}
    steps = []
    with threads.as_on_the_server():  # the page's numbers to the last bit
        for number, step in enumerate(lesson.steps, 1):
            used, said = _model_for(step, model, models, load or _load)
            found = sources.setdefault(id(used), computed(used))
            page = pages.current(step.page)
            parts = handout_pages.shown(page, check.values(dict(step.view)), found)
            facts = every_facts.setdefault(
                id(used), figure_kit.Facts(found, figure_kit.Stages(used, compute=False))
            )
            steps.append(_step(number, len(lesson.steps), step, page, used, said, parts, facts))
    library = _plotly(steps)
    return _PAGE.format(
        title=_escape(lesson.title),
        plotly=library,
        style=_STYLE,
        header=_header(lesson, model, drawn=bool(library)),
        contents=_contents(lesson),
        steps="\n".join(steps),
    )


def _plotly(steps: list[str]) -> str:
    """plotly.js, held once in the head, for a handout that draws a figure; nothing for one that
    draws none: it is 4.8 MB, which a lesson whose pages' figures are all computed in the
    background (What moved's) carried for nothing. "local" keeps plotly.js from asking the network
    for MathJax's configuration (no figure has mathematics: charts.text escapes every dollar sign)."""
    if not any('<figure class="chart"' in step for step in steps):  # (a lesson's text is escaped)
        return ""
    return (
        "<script>window.PlotlyConfig = {MathJaxConfig: 'local'};</script>\n"
        f'<script charset="utf-8">{plotly.offline.get_plotlyjs()}</script>\n' + toolbar.HANDOUT_PNG_BUTTON
    )


def _load(spec: str) -> LoadedModel:
    return checkpoints.load_model(spec, fallback=spec in checkpoints.listed_specs())


def _model_for(step: Step, model: LoadedModel, models: dict, load: Loader) -> tuple[LoadedModel, str]:
    """The model a step shows (the one it names, else ``model``), and a sentence about it if any."""
    spec = dict(step.view).get(check.MODEL)
    if spec is None or spec == model.spec:
        return model, ""
    if spec not in models:
        try:
            models[spec] = load(spec)
        except (ExplorerError, OSError) as problem:
            models[spec] = (
                f"This step opens {spec}, which cannot be loaded here ({problem}); it shows {model.name}."
            )
    found = models[spec]
    if isinstance(found, str):
        return model, found
    return found, found.notice or ""


# --- the parts of the page --------------------------------------------------------------------


def _escape(value: object) -> str:
    return html.escape(str(value), quote=True)


_TAGS = {lesson_text.BOLD: "strong", lesson_text.ITALIC: "em", lesson_text.CODE: "code"}


def _paragraphs(text: str, css: str = "", facts: figure_kit.Facts | None = None) -> str:
    """A lesson text as paragraphs of escaped spans: bold, italics and code its only markup; with
    ``facts``, its figures computed for their model (the one the handout is written for)."""
    attribute = f' class="{css}"' if css else ""
    found = []
    rendered = lesson_figures.render(text, facts) if facts is not None else None
    for paragraph in rendered.paragraphs if rendered else lesson_text.paragraphs(text):
        found.append(f"<p{attribute}>{''.join(map(_span, paragraph))}</p>")
    if rendered is not None and rendered.pending:
        found.append(f'<p class="note">{_escape(WAITING)}</p>')
    return "\n".join(found)


def _span(span: lesson_text.Span) -> str:
    tag = _TAGS.get(span.kind)
    return f"<{tag}>{_escape(span.text)}</{tag}>" if tag else _escape(span.text)


WAITING = (
    "Figures marked “not computed yet” were not computed when this handout was made: the step's "
    "page computes them in the background, once asked."
)


def _header(lesson: Lesson, model: LoadedModel, drawn: bool) -> str:
    made = time.strftime("%Y-%m-%d")
    figures = (
        "Every figure is the one its page draws for the step's view: hover, zoom and pan it here, offline."
        if drawn
        else "None of its steps' figures can be drawn in a handout: each step says in words what its "
        "page shows, and the explorer draws it."
    )
    return (
        f"<h1>{_escape(lesson.title)}</h1>\n"
        + (f'<p class="summary">{_escape(lesson.summary)}</p>\n' if lesson.summary.strip() else "")
        + f'<p class="about">A lesson of the BERT Embedding Explorer, {len(lesson.steps)} steps, with '
        f"{_escape(model.name)}; made {made}. {figures}</p>"
    )


def _contents(lesson: Lesson) -> str:
    items = "".join(
        f'<li><a href="#step-{n}">{_escape(step.title)}</a></li>' for n, step in enumerate(lesson.steps, 1)
    )
    return f'<nav aria-label="Steps"><ol>{items}</ol></nav>'


def _view(step: Step, page: str, model: LoadedModel) -> str:
    """The step's view in words: its page and model, then each setting it names that the page
    does not open with anyway, as a person reads it (a typed text in quotation marks)."""
    by_url = {setting.url: setting for setting in settings.LINKED}
    named = []
    for name, text in step.params.items():
        if name in by_url and (said := _setting_in_words(by_url[name], text)) is not None:
            label, value, typed = (_escape(part) if isinstance(part, str) else part for part in said)
            named.append(f"{label} <q>{value}</q>" if typed else f"{label}: {value}" if value else label)
    title = pages.BY_URL[page].title if page in pages.BY_URL else page
    settings_named = f"; {'; '.join(named)}" if named else ""
    return (
        f'<p class="view">On the page <strong>{_escape(title)}</strong>, with {_escape(model.name)}'
        f"{settings_named}.</p>"
    )


_ANY_TEXT = "any words"  # what only a reader of typed text (a sentence, a word, a pattern) takes as it is


def _setting_in_words(setting: settings.Setting, text: str) -> tuple[str, str, bool] | None:
    """(its label, its value for people, whether a person typed it) for a setting a view names;
    None for one that says nothing the page would not show anyway: its default (a view stands
    alone, every setting it leaves out at its default), or a value its reader refuses."""
    try:
        value = setting.read(text)
    except ValueError:
        return None
    if value is None or value == settings.default(setting.key):
        return None
    try:
        typed = setting.read(_ANY_TEXT) == _ANY_TEXT
    except ValueError:  # a reader of a list, a number or a switch
        typed = False
    label = settings.LABELS.get(setting.key, setting.url)
    if setting.key == settings.TOY_ITEMS:
        try:
            *names, last = concepts.parse(value).names
        except ExplorerError:
            names, last = [], ""
        if last:
            return label, f"{', '.join(names)} and {last}" if names else last, False
    if isinstance(value, str) and typed:
        if not value.strip():
            return f"no {label.removeprefix('the ')}", "", False
        shown = " ".join(value.split())
        return label, shown if len(shown) <= 80 else shown[:79] + "…", True
    return label, _chosen(setting.key, value), False


def _chosen(key: str, value: object) -> str:
    """A value chosen from a list, a switch or a number, as its page shows it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if key == settings.PCA_KINDS:
        return ", ".join(vocab_search.KINDS[kind] for kind in value) or "none"
    if key == settings.DIMENSIONS:
        return f"{value[0]} to {value[1]}"
    if key in (settings.CMP_MODEL, settings.MV_MODEL):
        names = {checkpoints.BUNDLED: checkpoints.BUNDLED_NAME, settings.SAME: "the sidebar's model"}
        return names.get(value, str(value))
    if key == settings.LAYER_STAGE:
        return page_figures.STAGE_TITLES.get(str(value), str(value))
    if key in (settings.MV_STAGE_A, settings.MV_STAGE_B):
        return "the last layer" if value == link_text.LAST_LAYER else space_stages.stage_label(str(value))
    return str(value)


def _part(part: handout_parts.Part, number: int, index: int) -> str:
    if isinstance(part, handout_parts.Note):
        said = f"The page says: {part.text}" if part.kind == handout_parts.ERROR else part.text
        if part.markup:  # the explorer's own text, its code spans as code
            return f'<p class="note">{"".join(map(_span, _spans_of(said)))}</p>'
        return f'<p class="note">{_escape(said)}</p>'
    if isinstance(part, handout_parts.Metric):
        return f'<p class="note">{_escape(part.label)}: {_escape(part.value)}</p>'
    if isinstance(part, handout_parts.Table):
        return _table(part)
    if not isinstance(part, handout_parts.Chart):  # a download, the pieces' chips: the page's only
        return ""
    # A template of the handout's own: a page's figures take the Streamlit theme in the browser,
    # and whatever template a process has made its default must not reach the file.
    figure = charts.finish(go.Figure(part.figure)).update_layout(template=_TEMPLATE)
    drawn = plotly.io.to_html(
        figure,
        include_plotlyjs=False,
        full_html=False,
        div_id=f"step-{number}-figure-{index}",
        config=charts.CHART_CONFIG,
    )
    return f'<figure class="chart" data-key="{_escape(part.key)}">{drawn}</figure>'


def _spans_of(text: str) -> list[lesson_text.Span]:
    return [span for paragraph in lesson_text.paragraphs(text) for span in paragraph]


def _table(table: handout_parts.Table) -> str:
    columns = table.columns if table.shown is None else table.shown
    head = "".join(f'<th scope="col">{_escape(name)}</th>' for name in columns)
    formats = table.formats or {}
    cells = [
        [formats[name] % cell for cell in column] if name in formats else column
        for name, column in columns.items()
    ]
    rows = zip(*cells, strict=True)
    body = "".join("<tr>" + "".join(f"<td>{_escape(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<div class="table"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


_TAKES = {answers.PIECE: "Answer with a piece of the vocabulary.", answers.NUMBER: "Answer with a number."}


def _takes(key: answers.Key | None) -> str:
    """What a question with a key takes: its choices, or the kind of answer."""
    if key is None:
        return ""
    if key.kind == answers.CHOICE:
        return f'<p class="takes">Choices: {" · ".join(_escape(choice) for choice in key.choices)}</p>'
    return f'<p class="takes">{_TAKES[key.kind]}</p>'


def _step(number: int, steps: int, step: Step, page: str, model, said: str, parts, facts) -> str:
    question = ""
    if step.question.strip():
        question = (
            '<div class="question"><p class="label">Question</p>'
            f"{_paragraphs(step.question, facts=facts)}{_takes(step.key)}"
            f"<details><summary>The answer</summary>{_paragraphs(step.answer, facts=facts)}</details></div>"
        )
    notice = f'<p class="note">{_escape(said)}</p>' if said else ""
    drawn = "\n".join(filter(None, (_part(part, number, index) for index, part in enumerate(parts))))
    return (
        f'<section class="step" id="step-{number}" aria-labelledby="step-{number}-title">\n'
        f'<p class="number">Step {number} of {steps}</p>\n'
        f'<h2 id="step-{number}-title">{_escape(step.title)}</h2>\n'
        f"{_view(step, page, model)}\n{notice}\n{_paragraphs(step.text, facts=facts)}\n"
        f"{drawn}\n{question}\n</section>"
    )


_GRID = {"gridcolor": "#e6e6e6", "zerolinecolor": "#bdbdbd", "linecolor": "#bdbdbd", "automargin": True}
_TEMPLATE = go.layout.Template(
    layout={
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "font": {"color": handout_parts.INK, "family": "system-ui, Arial, sans-serif"},
        "colorway": charts.PALETTE,
        "xaxis": _GRID,
        "yaxis": _GRID,
        "hoverlabel": {"font": {"color": handout_parts.INK}, "bgcolor": "#ffffff"},
    }
)

_STYLE = """
:root { color-scheme: light; }
body { margin: 0; background: #ffffff; color: #111111; font: 17px/1.55 system-ui, -apple-system,
  "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1.25rem 4rem; }
h1 { font-size: 2rem; line-height: 1.2; margin: 0.5rem 0; }
h2 { font-size: 1.45rem; line-height: 1.25; margin: 0.2rem 0 0.6rem; }
.summary { font-size: 1.15rem; margin: 0.4rem 0; }
.about, .number, .view, .note { color: #444444; }
.about { font-size: 0.95rem; }
.number { margin: 0; font-size: 0.9rem; text-transform: uppercase; letter-spacing: 0.04em; }
.view { font-size: 0.95rem; }
.note { border-left: 4px solid #0072B2; padding: 0.2rem 0.8rem; background: #f3f7fb; }
nav ol { padding-left: 1.5rem; }
.step { border-top: 1px solid #cccccc; padding-top: 1.2rem; margin-top: 2rem; }
code { font: 0.92em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f2f2f2;
  padding: 0.05em 0.3em; border-radius: 3px; }
q { quotes: "\\201C" "\\201D"; }
a { color: #0058a3; }
figure.chart { margin: 1rem 0; }
.question { background: #fbf6e9; border: 1px solid #e6d7a8; border-radius: 6px; padding: 0.2rem 1rem;
  margin: 1rem 0; }
.question .label { font-weight: 700; margin-bottom: 0; }
.question .takes { font-style: italic; }
details { margin: 0.6rem 0 0.8rem; }
summary { cursor: pointer; font-weight: 600; color: #0058a3; }
.table { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.95rem; }
th, td { border: 1px solid #cccccc; padding: 0.25rem 0.6rem; text-align: left; }
th { background: #f2f2f2; }
@media print { .step { break-inside: avoid-page; } details { display: block; } }
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
{plotly}
</head>
<body>
<main>
<header>
{header}
</header>
{contents}
{steps}
</main>
</body>
</html>
"""
