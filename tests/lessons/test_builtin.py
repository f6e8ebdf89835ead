"""The lessons that ship with the explorer: each loads, writes and reads back as the same steps,
shows only views a link could show, keeps within the limits, and holds in its texts nothing but
the markup a lesson may use. Their figures are checked, on two models, in test_figures.py."""

from __future__ import annotations

import re

import pytest

from bert_embeddings import limits
from bert_embeddings.figures import check, settings
from bert_embeddings.lessons import builtin, lesson, text
from bert_embeddings.views import pages


@pytest.fixture(scope="module", params=builtin.NAMES)
def found(request) -> lesson.Lesson:
    return builtin.load(request.param)


def test_the_explorer_offers_three_lessons_in_order():
    assert builtin.names() == ("embeddings", "alike", "layers")
    assert [builtin.load(name).title for name in builtin.NAMES] == [
        "The many embeddings of BERT",
        "Why every BERT vector looks alike",
        "What the layers do",
    ]


def test_each_lesson_round_trips_exactly_through_its_file(found):
    """Written as a file and read again: the same lesson, field for field and view for view."""
    written = lesson.write(found)
    assert lesson.read(written) == found
    assert lesson.read(written.encode("utf-8")) == found
    assert lesson.write(lesson.read(written)) == written


def test_every_steps_view_is_one_a_link_could_show(found):
    """Each step names a page of the explorer and only settings that page reads, with values its
    link reader takes: check.check_view finds nothing."""
    for number, step in enumerate(found.steps, 1):
        assert check.check_view(dict(step.view)) == [], (found.title, number, step.title)
        assert step.page in pages.BY_URL


def test_titles_texts_and_steps_keep_within_the_limits(found):
    assert 1 <= len(found.steps) <= limits.LESSON_STEPS.most
    assert found.title.strip() and len(found.title) <= limits.LESSON_TITLE.most
    assert found.summary.strip() and len(found.summary) <= limits.LESSON_TITLE.most
    assert len(lesson.write(found).encode("utf-8")) <= limits.LESSON_FILE.most
    for step in found.steps:
        assert step.title.strip() and len(step.title) <= limits.LESSON_TITLE.most
        assert step.text.strip()
        for field in (step.text, step.question, step.answer, step.notes):
            assert len(field) <= limits.LESSON_TEXT.most, step.title
        assert bool(step.question.strip()) == bool(step.answer.strip()), step.title
    assert len({step.title for step in found.steps}) == len(found.steps)  # the claims find steps by title


# Outside bold, italics and code, what would mean something to a Markdown or HTML renderer: a
# tag, an entity, a link or image, LaTeX, a heading, a list, a quote, a table, a stray marker.
NOT_PLAIN = re.compile(r"[<>$\\`|~]|\*|\]\(|&\w+;|https?:|^\s*(?:#|[-+] |\d+\. |>)|__|\b_\w")


def test_the_texts_hold_only_paragraphs_bold_italics_and_code(found):
    """Every mark in a text is one the lesson reader reads; nothing in the plain parts would be
    markup anywhere else (so the page, a handout and a plain editor show the same words)."""
    for step in found.steps:
        for field in (step.text, step.question, step.answer, step.notes):
            for paragraph in text.paragraphs(field):
                for span in paragraph:
                    if span.kind == text.PLAIN:
                        assert not NOT_PLAIN.search(span.text), (step.title, span.text)
                    else:
                        assert span.text == span.text.strip() and "\n" not in span.text, step.title


def test_a_step_on_a_page_with_a_geometry_names_it():
    """A geometry set by one lesson stays for the next page that uses it; every step whose page
    compares vectors in a geometry names the one its text speaks of."""
    for name in builtin.NAMES:
        for step in builtin.load(name).steps:
            if step.page in settings.GEOMETRY_PAGES:
                assert step.params.get("geometry") in ("raw", "centred", "abtt", "standardised"), step.title


def test_no_lesson_moves_the_room_to_another_model():
    """Every lesson plays on the sidebar's model: no step sets one, and What moved compares two
    stages of that same model (its figures are computed for it: test_figures.py)."""
    for name in builtin.names():
        for step in builtin.load(name).steps:
            assert check.MODEL not in step.params, (name, step.title)
            if step.page == "moved":
                assert step.params.get("vs") == settings.SAME, step.title


# A phrase said twice in a row ("the the"), or a count given whole and then its whole again: the
# figure `kept` gives "1 of 10" itself, so "keeps {{kept ...}} of its 10" reads "1 of 10 of its 10".
DOUBLED = re.compile(
    r"\b(\w[\w']*(?: \w[\w']*){0,3}) \1\b|\bof (\d[\d,]*)(?: \w+){0,2}? (?:its |their )?\2\b"
)


def test_doubled_finds_a_phrase_or_a_count_said_twice():
    for doubled in (
        "keeps 1 of 10 of its 10 from",
        "2 of 10 of 10",
        "the the piece",
        "in the model in the model",
    ):
        assert DOUBLED.search(doubled), doubled
    for fine in (
        "keeps 10 of 10 neighbours",
        "side by side",
        "not BERT's: BERT's rows",
        "3 of 10 and 2 of 10",
    ):
        assert not DOUBLED.search(fine), fine


@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    """A random 2-layer BERT of the first 4,000 pieces ("the" and "dog" among them): every figure
    of the lessons, What moved's stage spaces and lists too, computed in seconds."""
    from bert_embeddings import api
    from testkit.random_models import keep_first_pieces, write_random_bert

    folder = tmp_path_factory.mktemp("small") / "model"
    return api.load(str(keep_first_pieces(write_random_bert(folder, layers=2, seed=5), 4000)))


@pytest.mark.usefixtures("offline")
@pytest.mark.slow("every built-in lesson's figures on a small random model, its stage spaces and lists")
def test_no_rendered_step_says_a_phrase_twice(small_model):
    """Each text of each built-in lesson, its figures rendered as the bar shows them, reads without
    a doubled phrase: a figure's own words are not said again around it."""
    from bert_embeddings.lessons import figures

    for name in builtin.names():
        facts = figures.Facts.of(small_model)
        for number, step in enumerate(builtin.load(name).steps, 1):
            for field in (step.text, step.question, step.answer, step.notes):
                for paragraph in figures.render(field, facts).paragraphs:
                    shown = "".join(span.text for span in paragraph)
                    assert "{{" not in shown and "(not computed yet)" not in shown, (name, number, shown)
                    found = DOUBLED.search(shown)
                    assert found is None, f"{name} step {number}: {found.group()!r} in {shown!r}"
