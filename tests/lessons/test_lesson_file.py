"""The lesson file's reader and writer: good files read exactly and round-trip; every kind of bad
one is refused whole, with every problem named by its step and field; a text's markup is read
in one pass, and anything but bold, italics and code is text."""

from __future__ import annotations

import pytest

from bert_embeddings import limits
from bert_embeddings.errors import LessonError
from bert_embeddings.lessons import lesson, text

GOOD = '''
title = "Two steps"
summary = "A short lesson."

[[step]]
title = "Pieces"
text = """
BERT reads **pieces**, not words.

A second paragraph with `code` and *italics*."""
question = "How many pieces?"
answer = "Six."
notes = "Only the leader sees this."

[step.view]
page = "tokens"
a = "I am Sinan"
b = ""

[[step]]
title = "Neighbours"
text = "The nearest pieces of dog."

[step.view]
page = "neighbours"
q = "dog"
k = "5"
'''


def problems_of(source: str | bytes) -> list[str]:
    with pytest.raises(LessonError) as raised:
        lesson.read(source)
    return raised.value.problems


def test_a_good_file_is_read_as_written_and_round_trips_exactly():
    """Every field, every view parameter in its order, and the file written again reads the same."""
    found = lesson.read(GOOD)
    assert (found.title, found.summary, len(found.steps)) == ("Two steps", "A short lesson.", 2)
    first = found.steps[0]
    assert first.view == (("page", "tokens"), ("a", "I am Sinan"), ("b", ""))
    assert first.page == "tokens" and first.params == {"a": "I am Sinan", "b": ""}
    assert (first.question, first.answer, first.notes) == (
        "How many pieces?",
        "Six.",
        "Only the leader sees this.",
    )
    assert first.text.startswith("BERT reads **pieces**") and "\n\nA second paragraph" in first.text
    assert found.steps[1].params == {"q": "dog", "k": "5"}
    assert lesson.read(lesson.write(found)) == found
    again = lesson.read(lesson.write(found).encode("utf-8"))
    assert again == found


def test_an_old_page_address_is_a_page():
    """A step may name the Maps page by its old address, as old links do."""
    found = lesson.read(
        GOOD.replace('page = "neighbours"\nq = "dog"\nk = "5"', 'page = "pca"\nmethod = "pca"')
    )
    assert found.steps[1].page == "pca"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            ('page = "tokens"', 'page = "nowhere"'),
            "step 1, view.page: 'nowhere' is not a page of the explorer",
        ),
        (('q = "dog"', 'zz = "dog"'), "step 2, view.zz: not a setting of the explorer's links"),
        (('q = "dog"', 'method = "pca"'), "step 2, view.method: the neighbours page has no such setting"),
        (('k = "5"', 'k = "500"'), "step 2, view.k: '500' cannot be used: k must be from 1 to 100"),
        (('k = "5"', "k = 5"), "step 2, view.k: a view's values are text, not int"),
        (('answer = "Six."', 'answer = ""'), "step 1: its question has no answer"),
        (('title = "Pieces"', 'titel = "Pieces"'), "step 1: 'titel' is not a field of a step"),
        (('title = "Pieces"', 'titel = "Pieces"'), "step 1: it has no title"),
        (('summary = "A short lesson."', "summary = 3"), "the lesson's summary must be text, not int"),
    ],
)
def test_each_kind_of_bad_step_is_named_by_its_step_and_field(change, expected):
    old, new = change
    assert old in GOOD
    assert any(p.startswith(expected) for p in problems_of(GOOD.replace(old, new))), problems_of(
        GOOD.replace(old, new)
    )


def test_every_problem_is_said_at_once_and_nothing_is_half_loaded():
    """Three problems in two steps: one LessonError listing all three (no lesson returned)."""
    bad = (
        GOOD.replace('page = "tokens"', 'page = "x"')
        .replace('k = "5"', 'k = "0"')
        .replace('answer = "Six."', "")
    )
    found = problems_of(bad)
    assert len(found) == 3 and [p.split(",")[0].split(":")[0] for p in found] == [
        "step 1",
        "step 1",
        "step 2",
    ]
    with pytest.raises(LessonError, match="This lesson cannot be opened: step 1"):
        lesson.read(bad)


def test_limits_and_what_is_not_a_lesson_file():
    """Too many steps, too long a text or title, too large a file, not text, not TOML, no steps."""
    step = '[[step]]\ntitle = "s"\ntext = "t"\n[step.view]\npage = "tokens"\n'
    many = 'title = "x"\nsummary = ""\n' + step * (limits.LESSON_STEPS.most + 1)
    assert problems_of(many) == [
        f"the lesson has {limits.LESSON_STEPS.most + 1} steps; at most {limits.LESSON_STEPS.most}"
    ]
    long_text = GOOD.replace("The nearest pieces of dog.", "x" * (limits.LESSON_TEXT.most + 1))
    assert any(p.startswith("step 2, text has 3,001 characters") for p in problems_of(long_text))
    long_title = GOOD.replace('title = "Two steps"', f'title = "{"t" * (limits.LESSON_TITLE.most + 1)}"')
    assert any(p.startswith("the lesson's title has") for p in problems_of(long_title))
    huge = "#" * (limits.LESSON_FILE.most + 1)
    assert problems_of(huge)[0].startswith(f"the file has {limits.LESSON_FILE.most + 1:,} bytes")
    assert problems_of(b"\xff\xfe\x00binary") == ["the file is not text (UTF-8)"]
    assert problems_of(b"title = 1\x00") == ["the file is not text (it holds NUL bytes)"]
    assert problems_of("this is = not [toml")[0].startswith("the file is not a lesson file (TOML)")
    assert problems_of('title = "x"\nsummary = "y"') == ["the lesson has no steps ([[step]] tables)"]
    with pytest.raises(LessonError, match="not int"):
        lesson.read(12)


def test_html_script_latex_and_links_in_a_text_are_only_text():
    """A stranger's markup means nothing: only bold, italics and code are read as marks; the rest
    stays in the plain spans exactly as typed (the page and the handout escape them)."""
    hostile = "<script>alert(1)</script> [link](https://evil.example) $x^2$ <b>bold?</b> **real** `c<d>`"
    spans = text.paragraphs(hostile)[0]
    assert [s.kind for s in spans] == [text.PLAIN, text.BOLD, text.PLAIN, text.CODE]
    assert spans[0].text == "<script>alert(1)</script> [link](https://evil.example) $x^2$ <b>bold?</b> "
    assert spans[3].text == "c<d>"
    assert text.paragraphs("an *open* and *un closed") == [
        [
            text.Span(text.PLAIN, "an "),
            text.Span(text.ITALIC, "open"),
            text.Span(text.PLAIN, " and *un closed"),
        ]
    ]
    assert text.plain_text("one **two**\n\nthree") == "one two\n\nthree"
