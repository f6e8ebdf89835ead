"""A question that takes an answer (bert_embeddings.lessons.answers): its key read from a lesson
file, the truth it holds for a model, answers read as a person gives them, and the verdicts."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

from bert_embeddings import api
from bert_embeddings.errors import LessonError
from bert_embeddings.lessons import answers, builtin, figure_kit, figures, lesson
from bert_embeddings.lessons.text import CODE, ITALIC, PLAIN, Span

pytestmark = pytest.mark.usefixtures("offline")

HEAD = 'title = "T"\nsummary = "S"\n'


def a_lesson(key: str, question: str = 'question = "Q?"\nanswer = "A."\n') -> str:
    step = f'[[step]]\ntitle = "one"\ntext = "t"\n{question}'
    return f'{HEAD}{step}\n[step.key]\n{key}\n[step.view]\npage = "tokens"\n'


def problems_of(key: str, **kwargs) -> str:
    with pytest.raises(LessonError) as raised:
        lesson.read(a_lesson(key, **kwargs))
    return str(raised.value)


def rendered(*spans: Span) -> figures.Rendered:
    return figures.Rendered((tuple(spans),), False)


def test_each_kind_of_key_reads_and_writes_back_exactly():
    for key in (
        'choices = ["yes", "no", "it depends"]\nright = "it depends"',
        'choices = ["a", "b", "c"]\nright = ["a", "c"]',
        'pieces = "{{neighbours word=dog k=10}}"',
        'number = "{{stage_cosine stage=last}}"\nwithin = 0.05',
        "number = 6",
        "number = 0.25\nwithin = 0",
    ):
        found = lesson.read(a_lesson(key))
        assert found.steps[0].key is not None, key
        assert lesson.read(lesson.write(found)) == found, key


@pytest.mark.parametrize(
    ("key", "said"),
    [
        ('choices = ["yes", "no"]\nright = "maybe"', "'maybe' is not one of the choices"),
        ('choices = ["yes", "no"]', "the choices have no right one"),
        ('choices = ["yes", "Yes"]\nright = "yes"', "two choices are the same"),
        (f"choices = [{', '.join(repr(str(n)) for n in range(9))}]\nright = '1'", "9 given; at most 8"),
        ('choices = ["yes", ""]\nright = "yes"', "none empty"),
        ('choices = ["' + "x" * 101 + '"]\nright = "' + "x" * 101 + '"', "at most 100"),
        ('pieces = "{{nowhere}}"', "no figure is called 'nowhere'"),
        ('number = "many"', "'many' is not a number"),
        ("number = 3\nwithin = -1", "within: a number, 0 or more"),
        ("number = 3\nwithin = nan", "within: a number, 0 or more"),
        ('number = 3\nright = "3"', "number takes within"),
        ('pieces = "`a`"\nchoices = ["a"]', "one of choices, pieces or number (2 given)"),
        ("colour = 3", "'colour' is not part of a key"),
    ],
)
def test_a_key_that_cannot_be_used_is_named_by_its_step_and_field(key, said):
    assert said in problems_of(key)
    assert "step 1, key" in problems_of(key)


def test_a_key_needs_a_question():
    assert "it has a key but no question" in problems_of("number = 6", question="")


def test_the_truth_of_each_kind_for_a_rendered_figure():
    choice = answers.Key(answers.CHOICE, ("yes", "no"), ("{{f}}",))
    assert answers.truth(choice, lambda _: rendered(Span(CODE, "No"))) == answers.Truth(
        answers.CHOICE, ("no",)
    )
    piece = answers.Key(answers.PIECE, right=("{{f}}",))
    spans = (Span(CODE, "cat"), Span(PLAIN, ", "), Span(CODE, "##s"), Span(PLAIN, " and "), Span(CODE, "pup"))
    assert answers.truth(piece, lambda _: rendered(*spans)).right == ("cat", "##s", "pup")
    number = answers.Key(answers.NUMBER, right=("{{f}}",), within=0.1)
    for shown, value in (("0.412", 0.412), ("1,234", 1234.0), ("45%", 45.0), ("-3.1e-07", -3.1e-07)):
        assert answers.truth(number, lambda _, s=shown: rendered(Span(PLAIN, s))).number == value


def test_a_figure_this_model_cannot_give_leaves_the_question_without_a_key():
    number = answers.Key(answers.NUMBER, right=("{{f}}",))
    missing = answers.truth(number, lambda _: rendered(Span(ITALIC, "(it has 2 layers)")))
    assert missing == figures.Missing("it has 2 layers")
    waiting = answers.truth(number, lambda _: rendered(Span(ITALIC, f"({figure_kit.PENDING})")))
    assert isinstance(waiting, figures.Missing) and waiting.pending
    assert isinstance(answers.truth(number, lambda _: rendered(Span(PLAIN, "3 of 10"))), figures.Missing)
    choice = answers.Key(answers.CHOICE, ("yes", "no"), ("{{f}}",))
    assert (
        "not one of the choices" in answers.truth(choice, lambda _: rendered(Span(PLAIN, "perhaps"))).reason
    )


def test_verdicts_say_right_or_not_and_by_how_much():
    both = answers.Truth(answers.CHOICE, ("the helicopter", "the rocket"))
    assert answers.verdict(both, "the rocket") == answers.Verdict(True, "Right.")
    assert (
        answers.verdict(both, "the jet").said == "Not this time: the answer is the helicopter and the rocket."
    )
    listed = answers.Truth(answers.PIECE, ("cat", "##s", "pup"))
    assert answers.verdict(listed, "##s") == answers.Verdict(True, "Right: ##s is number 2 of the 3.")
    assert answers.verdict(listed, "dog") == answers.Verdict(False, "Not this time: dog is not among the 3.")
    near = answers.Truth(answers.NUMBER, number=0.412, within=0.05)
    assert answers.verdict(near, 0.45) == answers.Verdict(
        True, "Right: the answer is 0.412, 0.038 away, within 0.050."
    )
    assert answers.verdict(near, 0.5) == answers.Verdict(
        False, "Not this time: the answer is 0.412, 0.088 away."
    )
    assert answers.verdict(answers.Truth(answers.NUMBER, number=6.0), 6.0) == answers.Verdict(
        True, "Right: exactly 6."
    )


def test_only_a_choice_a_piece_or_a_finite_number_is_taken():
    choice = answers.Key(answers.CHOICE, ("yes", "no"), ("yes",))
    assert answers.read_answer(choice, " Yes ") == "yes"
    number = answers.Key(answers.NUMBER, right=("1",))
    assert answers.read_answer(number, "1,000.5") == 1000.5
    piece = answers.Key(answers.PIECE, right=("`a`",))
    vocabulary = {"dog", "##s"}
    is_piece = lambda typed: typed if typed in vocabulary else None  # noqa: E731
    assert answers.read_answer(piece, "##s", is_piece) == "##s"
    hostile = [
        (choice, "<script>alert(1)</script>"),
        (choice, "y" * 10_000),
        (number, "1e999"),
        (number, "nan"),
        (number, "inf"),
        (number, "0x10"),
        (number, "1" * 200),
        (number, ["1"]),
        (number, True),
        (piece, "dogs and cats"),
        (piece, None),
    ]
    for key, given in hostile:
        with pytest.raises(answers.AnswerError):
            answers.read_answer(key, given, is_piece)
    with pytest.raises(Exception, match="at most 100"):
        answers.read_answer(piece, "d" * 101, is_piece)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("6", 6.0),
        ("6,0", 6.0),  # a decimal comma, as half the world writes it
        ("0,63", 0.63),
        ("-0,5", -0.5),
        (",5", 0.5),
        ("0,630", 0.63),  # no thousands group starts with 0
        ("12,5", 12.5),
        ("1,000.5", 1000.5),  # commas between thousands, then a point
        ("1,234,567", 1234567.0),  # several commas: only thousands
        ("2.5e-3", 0.0025),
        (" 7 ", 7.0),
    ],
)
def test_a_number_is_read_as_the_person_wrote_it(typed, read):
    """What the number box takes: a point or one decimal comma, and commas between thousands."""
    number = answers.Key(answers.NUMBER, right=("1",))
    assert answers.read_answer(number, typed) == read


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("45%", "without the % sign"),
        ("1,234", "could be 1234 or 1.234"),
        ("-6,000", "could be -6000 or -6.000"),
        ("1,2,3", "a decimal comma, 0,25, is fine too"),
        ("1.234,5", "a decimal comma, 0,25, is fine too"),
        ("6,0,", "a decimal comma, 0,25, is fine too"),
        ("1 000", "a decimal comma, 0,25, is fine too"),
        ("9" * 41, "at most 40 characters"),
        ("1e999", "too large"),
    ],
)
def test_a_number_that_could_be_misread_is_refused_with_the_reason(typed, said):
    """A percent sign, a comma that could be either kind, or a list of commas is refused, never
    guessed: "45%" is not taken as 45, nor "1,2,3" as 123."""
    number = answers.Key(answers.NUMBER, right=("1",))
    with pytest.raises(answers.AnswerError, match=re.escape(said)):
        answers.read_answer(number, typed)


def test_the_score_says_one_question_in_the_singular():
    assert (
        answers.score_said(1, 1, 1)
        == "Your answers: 1 right of 1 answered (1 question in this lesson takes one)."
    )
    assert answers.score_said(0, 2, 6).endswith("(6 questions in this lesson take one).")


def test_a_person_s_number_is_echoed_with_the_digits_they_typed():
    assert [answers.typed_text(v) for v in (5.5, 0.63, 6.0, 1234.0, -0.005)] == [
        "5.5",
        "0.63",
        "6",
        "1,234",
        "-0.005",
    ]


def test_reading_a_number_is_linear_in_what_was_typed():
    number = answers.Key(answers.NUMBER, right=("1",))
    for typed in ("1" * 200_000, "1." + "1e" * 100_000, "-" + "0" * 199_999 + "x"):
        start = time.perf_counter()
        with pytest.raises(answers.AnswerError):
            answers.read_answer(number, typed)
        assert time.perf_counter() - start < 0.5


TOY = {"bee": (2, 0, 4), "jet": (1, 1, 1), "helicopter": (0, 4, 2), "rocket": (0, 2, 4), "eagle": (3, 0, 3)}


def test_the_built_in_drone_question_is_keyed_with_the_toys_own_nearest():
    step = builtin.load("embeddings").steps[0]
    drone = np.array((0, 3, 3), dtype=np.float64)
    cosines = {
        name: np.dot(drone, row) / np.linalg.norm(drone) / np.linalg.norm(row) for name, row in TOY.items()
    }
    best = max(cosines.values())
    nearest = {f"the {name}" for name, c in cosines.items() if np.isclose(c, best)}
    assert set(step.key.right) == nearest and set(step.key.choices) == {f"the {name}" for name in TOY}


@pytest.mark.slow("What moved's lists of the bundled model's 30,522 pieces, computed")
def test_every_built_in_key_holds_for_the_bundled_model(bundled):
    """Each key gives a truth for the model on screen: the movers question's pieces are the
    notebook API's own ranking (What moved's lists computed here first, in the run's cache folder,
    or read from it)."""
    from bert_embeddings.lessons.figure_kit import Facts, Stages
    from bert_embeddings.views.sources import Sources

    model = bundled
    moved = api.compare(api.space(model, "token"), api.space(model, "output"), k=10, geometry_name="raw")
    facts = Facts(Sources(model), Stages(model, compute=False))  # (the lists the API kept)
    special = Sources(model).index().special
    for name in ("embeddings", "alike", "layers"):
        for step in builtin.load(name).steps:
            if step.key is None:
                continue
            found = answers.truth(step.key, lambda source: figures.render(source, facts))
            assert isinstance(found, answers.Truth), (name, step.title, found)
            if step.key.kind == answers.PIECE:
                order = np.lexsort((np.arange(len(moved.pieces)), moved.second_order, moved.overlap))
                expected = [moved.pieces[i] for i in order if not special[i]][:10]
                assert list(found.right) == expected


def test_a_learner_s_answers_travel_in_a_cookie_and_come_back_whole():
    given = {0: "the helicopter", 2: None, 3: "6.0", 7: "caf\u00e9 ##s; path=/"}
    text = answers.kept_text("embeddings", given)
    assert all(c.isalnum() or c in "._:-" for c in text)  # (cookie-safe: no ; , = or space)
    assert answers.read_kept(text) == ("embeddings", given)
    many = answers.kept_text("embeddings", {n: "x" * 100 for n in range(60)})
    assert len(many) <= answers.KEPT_MOST and answers.read_kept(many)[1] == {
        n: "x" * 100 for n in range(len(answers.read_kept(many)[1]))
    }


@pytest.mark.parametrize(
    "sent",
    [
        "",
        "x" * (answers.KEPT_MOST + 1),
        "Embeddings.0:eA",  # (not a lesson's name)
        "embeddings.0:eA.0=1",
        "embeddings.1234:eA",
        "embeddings.0:" + "e" * 301,
        "embeddings.0:_w",  # (not UTF-8)
        "[" * 3000,
        "embeddings." + "." * 2000,
    ],
)
def test_a_cookie_that_is_not_one_the_app_wrote_is_ignored(sent):
    assert answers.read_kept(sent) is None
