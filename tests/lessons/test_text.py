"""A lesson's text as bert_embeddings.lessons.text reads it: CommonMark's paragraphs, emphasis and
code spans (markdown-it-py's own CommonMark renderer is the reference), everything else shown as
typed, in time linear in the text."""

from __future__ import annotations

import gc
import html
import time

import pytest
from markdown_it import MarkdownIt

from bert_embeddings import limits
from bert_embeddings.errors import InputTooLongError
from bert_embeddings.lessons import text
from bert_embeddings.lessons.text import BOLD, CODE, ITALIC, PLAIN, Span

_TAGS = {BOLD: "strong", ITALIC: "em", CODE: "code"}


def as_html(found: list[list[Span]]) -> str:
    """The spans as CommonMark's renderer writes them (one tag per marked span)."""
    return "".join(
        "<p>"
        + "".join(
            f"<{_TAGS[s.kind]}>{html.escape(s.text, quote=False)}</{_TAGS[s.kind]}>"
            if s.kind in _TAGS
            else html.escape(s.text, quote=False)
            for s in paragraph
        )
        + "</p>\n"
        for paragraph in found
    )


# Texts of paragraphs, stars and backticks only (no entity, escape, '_' or nesting), where the
# reader and CommonMark must agree exactly.
AS_COMMONMARK = [
    "one **two** *three* `four`",
    "*a *b*",
    "**a",
    "an *open* and *un closed",
    "a * b * c",
    "*foo bar *",
    "foo*bar*baz",
    "**foo*",
    "*foo**",
    "`` a ` b ``",
    "` `` `",
    "`open code",
    "two\nlines\n\n\nand  \n  a break",
    "`code` **bold** `more`",
    "``",
]


@pytest.mark.parametrize("written", AS_COMMONMARK)
def test_marks_are_read_as_commonmark_reads_them(written):
    """Line breaks aside (a paragraph's are spaces here), the spans are CommonMark's."""
    reference = MarkdownIt("commonmark").render(written).replace("<br />\n", " ").replace("\n", " ")
    assert as_html(text.paragraphs(written)) == reference.replace("</p> ", "</p>\n")


@pytest.mark.parametrize(
    "written",
    [
        "<script>alert(1)</script> <b>bold?</b> <!-- c -->",
        "[link](https://evil.example) ![image](x.png) <https://auto.example> https://bare.example",
        "$x^2$ \\(y\\) \\[z\\]",
        "&amp; &lt;b&gt; &#42;not italics&#42; &copy; &nbsp;",
        "\\` \\\\ \\_ \\[x\\]",
        "snake_case _under_ __init__ ~~strike~~ | a | table |",
        "# heading",
        "- a list",
        "1. a list",
        "> a quote",
        "    indented",
        "---",
    ],
)
def test_everything_but_the_marks_is_shown_as_typed(written):
    """HTML, links, LaTeX, entities, backslashes, '_', headings, lists: one plain span, exactly the
    characters typed (a paragraph's own leading spaces aside)."""
    assert text.paragraphs(written) == [[Span(PLAIN, written.strip())]]


def test_a_backslash_does_not_escape_a_mark():
    """A backslash is a character like any other: the star after it still marks italics."""
    assert text.paragraphs("\\*a*") == [[Span(PLAIN, "\\"), Span(ITALIC, "a")]]


def test_marks_inside_marks_take_the_innermost():
    """The spans are flat: text in italics inside bold is italic, and the bold around it stays."""
    assert text.paragraphs("**a *b* `c` d** ***e***") == [
        [
            Span(BOLD, "a "),
            Span(ITALIC, "b"),
            Span(BOLD, " "),
            Span(CODE, "c"),
            Span(BOLD, " d"),
            Span(PLAIN, " "),
            Span(BOLD, "e"),
        ]
    ]


HOSTILE = {
    "stars": "*",
    "unbalanced": "**a* ",
    "lines": "*a\n",
    "under-star": "_*",
    "backticks": "`a``",
    "brackets": "[<",
    "entities": "&amp;\\*",
}


@pytest.mark.parametrize("unit", HOSTILE.values(), ids=HOSTILE.keys())
def test_reading_is_linear_in_the_text_whatever_it_holds(unit):
    """A hostile text as long as a lesson's text may be is read in well under a tenth of a second
    of the CPU (a reader quadratic in it would take seconds). The time is this thread's, with the
    garbage collector held off as timeit holds it: in a worker of the whole suite, other threads
    and a collection of what earlier tests left in the process may fall in the read, and neither
    is the reader's."""
    hostile = (unit * limits.LESSON_TEXT.most)[: limits.LESSON_TEXT.most]
    gc.collect()
    gc.disable()
    try:
        started = time.thread_time()
        found = text.paragraphs(hostile)
        spent = time.thread_time() - started
    finally:
        gc.enable()
    assert spent < 0.1
    assert sum(len(s.text) for p in found for s in p) <= len(hostile)


@pytest.mark.parametrize("unit", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_longer_text_is_refused_before_it_is_read(unit):
    """200,000 characters are refused at once, naming the limit (every lesson's texts are checked
    against it when the lesson is opened, so no page meets this)."""
    started = time.perf_counter()
    with pytest.raises(InputTooLongError, match="the explorer accepts at most 3,000"):
        text.paragraphs(unit * (200_000 // len(unit)))
    assert time.perf_counter() - started < 1.0
