"""A character with no glyph of its own in a lesson's text (U+0000, a bell, a tab inside a line, a
right-to-left override, a line separator) shows as its code point, ``[U+0000]``, as the lesson's
title shows it on the page: never as "�" (markdown-it-py's stand-in for U+0000), and never as an
invisible character that hides or reorders the text around it, in the page or in the handout."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from bert_embeddings.lessons import figures, handout, lesson, text
from bert_embeddings.lessons.text import BOLD, CODE, PLAIN, Span
from components.lessons import step_text
from components.parts import echo

pytestmark = pytest.mark.usefixtures("offline")

# As a lesson file writes them: TOML's \\uXXXX escapes (a raw NUL byte makes the file "not text").
INVISIBLE = {
    "NUL": ("\\u0000", "[U+0000]"),
    "bell": ("\\u0007", "[U+0007]"),
    "tab": ("\\t", "[U+0009]"),
    "right-to-left override": ("\\u202E", "[U+202E]"),
    "line separator": ("\\u2028", "[U+2028]"),
    "zero-width space": ("\\u200B", "[U+200B]"),
}


def a_lesson(escape: str) -> lesson.Lesson:
    return lesson.read(
        f'title = "Cats{escape}dogs"\nsummary = ""\n\n'
        f'[[step]]\ntitle = "Cats{escape}dogs"\ntext = "Cats{escape}dogs"\n\n'
        '[step.view]\npage = "concepts"\n'
    )


def shown(markdown: str) -> str:
    """What a reader sees of Streamlit's Markdown: CommonMark's rendering, its tags left out."""
    return re.sub("<[^>]+>", "", MarkdownIt("commonmark").render(markdown)).strip()


def test_the_reader_gives_each_invisible_character_as_its_code_point():
    assert text.paragraphs("a\x00b **c\x00d** `e\x00f`\x00") == [
        [
            Span(PLAIN, "a[U+0000]b "),
            Span(BOLD, "c[U+0000]d"),
            Span(PLAIN, " "),
            Span(CODE, "e[U+0000]f"),
            Span(PLAIN, "[U+0000]"),
        ]
    ]
    assert text.paragraphs("left\u202eright\u2028x\ty") == [
        [Span(PLAIN, "left[U+202E]right[U+2028]x[U+0009]y")]
    ]
    assert text.plain_text("one\x00two\n\nthree") == "one[U+0000]two\n\nthree"


def test_lines_paragraphs_and_marks_are_read_as_before():
    """Line breaks (also Windows' and old Macs') still join a paragraph's lines and blank lines
    still part paragraphs: only the invisible characters left in the text are written out."""
    assert text.paragraphs("one\r\ntwo\r\rthree\n\n**four**") == [
        [Span(PLAIN, "one two")],
        [Span(PLAIN, "three")],
        [Span(BOLD, "four")],
    ]
    assert text.paragraphs("\tindented\n\ttoo") == [[Span(PLAIN, "indented too")]]


@pytest.mark.parametrize("escape, written", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_the_page_shows_a_steps_text_as_it_shows_its_title(escape, written):
    """The lesson bar: the step's title through echo.plain, its text through step_text.markdown."""
    step = a_lesson(escape).steps[0]
    title, body = shown(echo.plain(step.title)), shown(step_text.markdown(step.text))
    assert title == body == f"Cats{written}dogs"
    assert "\ufffd" not in body


@pytest.mark.parametrize("escape, written", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_the_page_shows_a_figure_filled_text_the_same_way(escape, written):
    """A text with a figure is read with the figure's place marked; its characters show the same."""
    source = a_lesson(escape).steps[0].text + " {{model}}"
    rendered = step_text.as_markdown(figures.render(source, None))
    assert shown(rendered) == f"Cats{written}dogs (could not be computed)"


def test_the_handout_shows_a_steps_text_with_its_code_points(bundled):
    """The handout escapes every span: a NUL came out as "�", a right-to-left override as itself."""
    for escape, written in INVISIBLE.values():
        found = a_lesson(escape)
        character = found.steps[0].text[len("Cats")]
        page = handout.handout(found, bundled)
        assert f"<p>Cats{written}dogs</p>" in page, escape
        assert f"<p>Cats{character}" not in page and "<p>Cats\ufffd" not in page
