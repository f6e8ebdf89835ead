"""The lesson file's reader and writer: good files read exactly and round-trip; every kind of bad
one is refused whole, with every problem named by its step and field; a text's markup is read
in one pass, and anything but bold, italics and code is text."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from bert_embeddings import __main__ as command
from bert_embeddings import limits
from bert_embeddings.errors import LessonError
from bert_embeddings.lessons import lesson, text
from testkit.brute import nesting_depth

ROOT = Path(__file__).resolve().parents[2]

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


DEEP = 5_000
DEEP_FILES = {  # each a few kB, each more than Python's stack takes
    "arrays": "x = " + "[" * DEEP + "]" * DEEP,
    "inline tables": "x = " + "{a = " * DEEP + "1" + "}" * DEEP,
    "arrays and inline tables": "x = " + "[{a = " * (DEEP // 2) + "1" + "}]" * (DEEP // 2),
}


def too_deep(depth: int) -> str:
    return (
        f"the file nests arrays or tables {depth:,} deep; a lesson nests at most {limits.LESSON_DEPTH.most}"
    )


@pytest.mark.parametrize("kind", list(DEEP_FILES))
def test_a_file_nested_thousands_deep_is_named_never_a_crash(kind):
    """The file a tester sent: tomllib itself runs out of stack on it (RecursionError); the
    lesson's reader says how deep it nests and how deep a lesson may, before tomllib reads it."""
    with pytest.raises(RecursionError):
        tomllib.loads(DEEP_FILES[kind])
    assert problems_of(DEEP_FILES[kind]) == [too_deep(DEEP)]


def test_tables_named_thousands_deep_are_refused_though_tomllib_reads_them():
    """Dotted keys make tables without brackets, and tomllib reads them without recursing; what it
    returns would still overflow the stack of whatever walks it next, so it is refused too."""
    for source in ("[" + "a." * DEEP + "a]\nx = 1", "a." * DEEP + "a = 1", "x = {" + "a." * DEEP + "a = 1}"):
        depth = nesting_depth(tomllib.loads(source)) - 1
        assert depth >= DEEP and problems_of(source) == [too_deep(depth)]


def test_a_lesson_as_deep_as_allowed_is_read_and_one_level_more_is_refused():
    most = limits.LESSON_DEPTH.most
    for depth in (most, most + 1):
        extra = "extra = " + "[" * depth + "]" * depth + "\n"
        assert nesting_depth(tomllib.loads(extra)) - 1 == depth
        expected = (
            [too_deep(depth)] if depth > most else ["'extra' is not part of a lesson (title, summary, step)"]
        )
        assert problems_of(extra + GOOD) == expected


BRACKETS = "[" * 1_000 + "]" * 1_000  # (a text holds at most 3,000 characters)
EVERY_STRING = (
    """
title = "Brackets"
summary = "A '[' in every kind of string."

[[step]]
title = "Every kind of string"
text = \"\"\"BRACKETS and an escaped \\\"\"\" and two quotes at the end\"\"\"\"\"
question = 'BRACKETS'
answer = "BRACKETS \\" ["
notes = '''BRACKETS
'''''

[step.view]
page = "tokens"
"""
).replace("BRACKETS", BRACKETS)
FIELDS = ("text", "question", "answer", "notes")


def test_brackets_in_texts_and_comments_are_text_not_nesting():
    """Thousands of brackets inside each kind of TOML string (basic, literal, and both multi-line,
    with escaped and closing quotes), and in comments: the lesson reads as tomllib reads it, and
    the same with its comments as without."""
    found, expected = lesson.read(EVERY_STRING).steps[0], tomllib.loads(EVERY_STRING)["step"][0]
    assert [getattr(found, f) for f in FIELDS] == [expected[f] for f in FIELDS]
    assert all(BRACKETS in expected[f] for f in FIELDS)
    assert found.text.endswith('escaped """ and two quotes at the end""') and found.notes.endswith("''")
    comment = f"# {'[' * DEEP}{'{' * DEEP}\n"
    commented = EVERY_STRING.replace("\n[", f"\n{comment}[").replace('"tokens"\n', f'"tokens"  {comment}')
    assert commented.count(comment) == 3 and lesson.read(commented) == lesson.read(EVERY_STRING)


def test_the_command_names_a_file_nested_too_deep_and_exits_2(tmp_path):
    """python -m bert_embeddings lesson FILE --check, as a host runs it: the problem and exit 2
    (as for every lesson that cannot be used), no traceback."""
    source = tmp_path / "deep.toml"
    source.write_text(DEEP_FILES["arrays"], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "bert_embeddings", "lesson", str(source), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == command.WRONG_INPUT == 2
    assert "Traceback" not in done.stderr and not done.stdout
    assert done.stderr.splitlines() == ["error: this lesson cannot be used:", f"  - {too_deep(DEEP)}"]


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
