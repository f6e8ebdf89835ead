"""A learner takes each built-in lesson in the app, on the bundled model and on a random checkpoint
768 wide (the sidebar's model, as a host sets it): at every step the bar shows each figure the
step names as the core computes it for that model, and a figure that waits for What moved's
background lists says so, never another model's number."""

from __future__ import annotations

import pytest

from bert_embeddings import api
from bert_embeddings.figures import settings
from bert_embeddings.lessons import builtin, expressions, figure_kit, figures
from bert_embeddings.spaces import stages
from components.lessons import step_text
from components.parts import echo
from testkit.apptest import session, shown
from testkit.random_models import write_random_bert

pytestmark = pytest.mark.usefixtures("offline")


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    return write_random_bert(
        tmp_path_factory.mktemp("random-768"), seed=5, hidden=768, positions=512, layers=1
    )


def bar(at) -> str:
    return " ".join(shown(m.value) for m in at.markdown)


@pytest.mark.slow("every step of a built-in lesson in the app, on two models")
@pytest.mark.parametrize("lesson_name", builtin.names())
@pytest.mark.parametrize("which", ["bundled", "random-768"])
def test_each_step_shows_the_figures_of_the_sidebars_model(lesson_name, which, wide, monkeypatch, tmp_path):
    """Every step of the lesson, opened by its link: each figure it names is in the bar, as
    lessons.figures computes it for the model the sidebar runs (What moved's wait for its lists)."""
    spec = "bundled" if which == "bundled" else str(wide)
    monkeypatch.setenv("BERT_EXPLORER_MODEL", spec)
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))  # no stage spaces made yet
    model = api.load(spec)
    facts = figure_kit.Facts(figure_kit.Sources(model), figure_kit.Stages(model, compute=False))
    width = facts.width()
    for number, step in enumerate(builtin.load(lesson_name).steps, 1):
        at = session({"lesson": lesson_name, "step": str(number)})
        assert not at.exception, (number, [e.message for e in at.exception])
        if skip := [b for b in at.button if b.label == "Skip: show the answer"]:  # (a question first)
            skip[0].click().run()
            assert not at.exception, (number, [e.message for e in at.exception])
        said = bar(at)
        assert "{{" not in said and step.title in said, number
        waiting = False
        for expression in expressions.expressions(" ".join((step.text, step.question, step.answer))):
            value = figures.value(expression, facts)
            for span in figures.shown(value):  # each piece a code span, each number as the text has it
                assert span.text in said, (number, expression.source, span.text)
            if expression.name == "width":
                assert figures.as_text(value) == f"{width:,}"
            waiting |= isinstance(value, figures.Missing) and value.pending
        assert (figure_kit.WAITING in said) == waiting, number


def test_what_moved_compares_the_sidebars_model_with_itself_up_to_its_last_layer():
    """The layers lesson's views name no model: `vs=same` picks the sidebar's model and `to=last`
    its last layer (6 for the bundled model); the step's view is then the one on screen, so the bar
    offers no way back to it."""
    at = session({"lesson": "layers", "step": "3"})
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state[settings.MV_MODEL] == settings.SAME
    assert at.selectbox(key=settings.MV_MODEL).value == settings.SAME
    assert at.session_state[settings.MV_STAGE_B] == str(stages.layer_count(api.load("bundled")))
    assert "Back to this step's view" not in [b.label for b in at.button]
    at.selectbox(key=settings.MV_STAGE_B).set_value("2").run()
    assert "Back to this step's view" in [b.label for b in at.button]


def test_where_the_bundled_model_stands_in_the_figures_are_its_own(monkeypatch):
    """Offline, the default bert-base-uncased falls back to the bundled model: the first lesson's
    figures are the bundled model's, computed, never "could not be computed"."""
    monkeypatch.delenv("BERT_EXPLORER_MODEL", raising=False)
    at = session({"lesson": "embeddings", "step": "1"})
    assert not at.exception, [e.message for e in at.exception]
    said = bar(at)
    assert "could not be computed" not in said
    assert "384 in all-MiniLM-L6-v2 (bundled)" in said


def inline(markdown: str) -> list[tuple[str, str]]:
    """What a CommonMark reader (markdown-it-py) makes of one paragraph: its tokens and texts."""
    from markdown_it import MarkdownIt

    (paragraph,) = [t for t in MarkdownIt("commonmark").parseInline(markdown) if t.children]
    return [(t.type, t.content) for t in paragraph.children]


def test_a_piece_that_is_a_backtick_stays_one_code_span():
    """A figure's pieces are code, whatever they hold: each written span is one code span holding
    exactly the piece, so a piece made of backticks cannot close it early and turn the rest of the
    text into markup (here, a link); a character that reorders text shows as its code point."""
    for piece in ("`", "``", "a`b", "` [x](http://example.com) `", "dog", "##an"):
        assert inline(echo.code(piece)) == [("code_inline", piece)], piece
    assert inline(echo.code("a\u202eb")) == [("code_inline", "a[U+202E]b")]


@pytest.mark.parametrize(
    "source, expected",
    [
        # the reviewer's text: code, a figure's backtick piece, then a link and an image as code
        (
            "`x`{{word_pieces word=`}}`[click](https://evil.example) ![](https://evil.example/p.png)`",
            "code_inline",
        ),
        ("**the model {{width}} wide**", "strong"),
        ("*it is {{id word=zzqqxx}} here*", "em"),
        ("`{{pieces text=a}}`", "code_inline"),
    ],
)
def test_figures_inside_marked_text_stay_inside_it_and_nothing_becomes_a_link(source, expected):
    """A figure in bold is bold, in italics italic, in code code; a lesson's text never yields a
    link or an image, whatever its figures give."""
    written = step_text.as_markdown(figures.render(source, figure_kit.Facts.of(api.load("bundled"))))
    tokens = inline(written)
    types = {kind for kind, _ in tokens}
    assert not types & {"link_open", "image", "html_inline"}, tokens
    assert expected + ("" if expected == "code_inline" else "_open") in types, tokens


def test_a_figure_this_server_cannot_compute_is_said_in_the_step_and_the_lesson_goes_on(
    tmp_path, monkeypatch
):
    """On a model fetched as its embedding layer only (as the app fetches one from the Hub), the
    first lesson's last step names the encoder's figures it cannot give in its text, in its own
    words, and the bar's ways on are there: reading the results for the bar never stops the page."""
    from safetensors.torch import load_file, save_file

    folder = write_random_bert(tmp_path / "partial", layers=1)
    weights = load_file(folder / "model.safetensors")
    save_file({k: v for k, v in weights.items() if "embeddings" in k}, folder / "model.safetensors")
    monkeypatch.setenv("BERT_EXPLORER_MODEL", str(folder))
    steps = len(builtin.load("embeddings").steps)
    assert builtin.load("embeddings").steps[-1].page == "context"
    at = session({"lesson": "embeddings", "step": str(steps)})
    assert not at.exception
    assert "are not on this server" in bar(at)
    assert {"Back", "Close the lesson"} <= {b.label for b in at.button}
