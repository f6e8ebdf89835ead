"""The lesson player through AppTest: a lesson opened from the first page, a link or a file;
each step applies its view (the page and the settings it names, nothing else); Back, Next, the
way back to the step's view and Close; a room's followers on the leader's step; a lesson made
while exploring, downloaded and opened again as the same steps."""

from __future__ import annotations

import pytest

from bert_embeddings import limits
from bert_embeddings.errors import LessonError
from bert_embeddings.figures import settings
from bert_embeddings.lessons import builtin, lesson
from components.lessons import opening, player
from components.rooms import follow
from testkit.apptest import (
    TITLES,
    bar_text,
    button,
    click,
    lead,
    lesson_fields,
    messages,
    page_title,
    room_fields,
    session,
    shown,
    started,
)

pytestmark = pytest.mark.usefixtures("offline")


def test_the_first_lesson_from_start_to_end_shows_each_steps_view():
    """Start from the first page; each Next shows the step's page and the settings it names."""
    found = builtin.load("embeddings")
    at = started()
    for number, step in enumerate(found.steps):
        assert page_title(at) == TITLES[step.page], (number, step.page)
        assert lesson_fields(at)[player.PLAYING].step == number
        assert f"step {number + 1} of {len(found.steps)}" in " ".join(p.text for p in at.get("progress"))
        for name, text in step.params.items():
            setting = next(s for s in settings.LINKED if s.url == name)
            assert at.session_state[setting.key] == setting.read(text), (number, name)
        assert not at.exception, [e.message for e in at.exception]
        if number + 1 < len(found.steps):
            click(at, "Next")
    assert button(at, "Next").disabled and not button(at, "Back").disabled


@pytest.mark.slow("a lesson taken step by step in AppTests")
def test_a_step_keeps_every_setting_it_does_not_name_and_back_to_its_view_restores_it():
    """The sentence typed before stays where a step does not name it; after exploring, the bar
    offers the step's view again and applies it; Back goes to the step before."""
    at = session()
    at.text_area(key=settings.SENTENCE_B_KEY).set_value("My own second sentence.").run()
    at.switch_page("pages/concepts.py").run()
    click(at, "Start the lesson")
    click(at, "Next")  # tokens: names a and b
    assert at.session_state[settings.SENTENCE_B_KEY] == ""
    click(at, "Next")  # embedding_layer: names a, b and detail
    click(at, "Next")  # positions: names p1 and p2 only
    assert at.session_state[settings.SENTENCE_A_KEY] == "She is Zoe"  # kept from the step before
    assert "Back to this step's view" not in [b.label for b in at.button]
    at.number_input(key=settings.POS_FIRST).set_value(9).run()
    click(at, "Back to this step's view")
    assert at.session_state[settings.POS_FIRST] == 5
    at.switch_page("pages/tokens.py").run()
    click(at, "Back to this step's view")
    assert page_title(at) == TITLES["positions"]
    click(at, "Back")
    assert page_title(at) == TITLES["embedding_layer"] and lesson_fields(at)[player.PLAYING].step == 2


def test_closing_leaves_the_person_where_they_are():
    at = started()
    click(at, "Next")
    click(at, "Close the lesson")
    assert page_title(at) == TITLES["tokens"] and player.PLAYING not in lesson_fields(at)
    assert "Next" not in [b.label for b in at.button] and "step=" not in str(dict(at.query_params))


def test_a_link_opens_a_lesson_at_its_step_and_the_address_names_it():
    """?lesson=embeddings&step=7 opens the neighbours step with its view; the address bar then
    holds the lesson and step, so a copied link reopens the same step."""
    at = session({"lesson": "embeddings", "step": "7"})
    assert not at.exception and page_title(at) == TITLES["neighbours"]
    assert at.session_state[settings.NB_WORD] == "dog"
    assert at.query_params.get("lesson") == "embeddings" and at.query_params.get("step") == "7"
    bad = session({"lesson": "nonsense"})
    assert not bad.exception and "'nonsense' is not a lesson of the explorer" in messages(bad)


def test_a_lesson_file_nested_thousands_deep_is_a_message_and_the_page_goes_on():
    """The tester's file (5,000 arrays one inside another) opened from the first page: the box
    says why it cannot be opened, as lesson.read names it, and a good file opens after it."""
    deep = ("x = " + "[" * 5_000 + "]" * 5_000).encode()
    with pytest.raises(LessonError) as raised:
        lesson.read(deep)
    at = session()
    at.switch_page("pages/concepts.py").run()
    at.file_uploader(key=opening.FILE_BOX).upload("deep.toml", deep, "application/toml").run()
    assert not at.exception and str(raised.value) in messages(at)
    assert "nests arrays or tables 5,000 deep" in str(raised.value)
    good = lesson.write(builtin.load("embeddings")).encode()
    at.file_uploader(key=opening.FILE_BOX).clear().upload("good.toml", good, "application/toml").run()
    assert not at.exception and lesson_fields(at)[player.PLAYING].lesson == builtin.load("embeddings")


def test_the_lesson_file_box_says_only_the_lessons_own_limit():
    """The label says the lesson's limit in kB; Streamlit's box (whose limit is in whole MB) lets
    through every file that limit allows, and its own "MB per file" line is not shown."""
    at = session()
    at.switch_page("pages/concepts.py").run()
    box = at.file_uploader(key=opening.FILE_BOX)
    assert f"at most {limits.LESSON_FILE.most // 1000:,} kB" in box.label and box.allowed_type == [".toml"]
    assert box.proto.max_upload_size_mb == opening.UPLOAD_MB
    assert (opening.UPLOAD_MB - 1) * 2**20 < limits.LESSON_FILE.most <= opening.UPLOAD_MB * 2**20
    styles = [h.proto.body for h in at.get("html")]
    hidden = f".st-key-{opening.FILE_BOX} [data-testid='stFileUploaderDropzoneInstructions']"
    assert any(hidden in style and "display: none" in style for style in styles), styles


@pytest.mark.slow("a lesson taken step by step in AppTests")
def test_a_room_follows_its_leaders_lesson_step_by_step_and_the_leader_sees_the_notes():
    """The leader opens a lesson: each follower's page shows the same lesson at the same step;
    the presenter's notes and the next step's title are the leader's alone."""
    leader, code = lead()
    follower = session({"follow": code})
    leader.switch_page("pages/concepts.py").run()
    click(leader, "Start the lesson")
    notes = builtin.load("embeddings").steps[0].notes
    assert "Presenter notes" in [e.label for e in leader.expander]
    for number in range(3):
        follower.run()
        assert lesson_fields(follower)[player.PLAYING].step == number
        assert room_fields(follower)[follow.FOLLOW] == code
        assert "Presenter notes" not in [e.label for e in follower.expander]
        assert page_title(follower) == page_title(leader)
        click(leader, "Next")
    assert notes and notes[:20] not in bar_text(follower)


def test_a_lesson_made_while_exploring_downloads_and_opens_again_as_the_same_steps(downloads):
    """Add this view as a step, twice; title and text edited in place; order changed; removed;
    the downloaded file reads back as exactly the steps made."""
    at = session()
    at.switch_page("pages/neighbours.py").run()
    at.text_input(key=settings.NB_WORD).set_value("cat").run()
    click(at, "Add this view as a step")
    at.switch_page("pages/tokens.py").run()
    click(at, "Add this view as a step")
    at.text_input(key=settings.LESSON_EDIT_TITLE).set_value("How it splits").run()
    at.text_area(key=settings.LESSON_EDIT_TEXT).set_value("Look at **the pieces**.").run()
    click(at, "Up")
    made = lesson_fields(at)[player.DRAFT]
    assert [s.title for s in made.steps] == ["How it splits", "Neighbours"]
    assert made.steps[1].params == {"q": "cat"} and made.steps[0].page == "tokens"
    name = next(n for n in downloads if n.endswith(".toml"))
    again = lesson.read(downloads[name]())
    assert again == made
    click(at, "Remove")
    assert [s.title for s in lesson_fields(at)[player.DRAFT].steps] == ["Neighbours"]
    click(at, "Play it")
    assert (
        page_title(at) == TITLES["neighbours"]
        and lesson_fields(at)[player.PLAYING].lesson.title == "My lesson"
    )


@pytest.mark.parametrize("asked", ["999", "-3", "abc"])
def test_a_link_to_a_step_the_lesson_lacks_opens_a_clear_step_and_says_so(asked):
    """step=999 opens the last step, step=-3 and step=abc the first; the bar says in words what
    the link asked for and which step it opened, and the address names that step."""
    found = builtin.load("embeddings")
    opens = len(found.steps) if asked == "999" else 1
    at = session({"lesson": "embeddings", "step": asked})
    assert not at.exception and lesson_fields(at)[player.PLAYING].step == opens - 1
    assert page_title(at) == TITLES[found.steps[opens - 1].page]
    assert at.query_params.get("step") == str(opens)
    named = asked if asked != "abc" else "'abc'"
    steps = f"this lesson has steps 1 to {len(found.steps)}"
    told = f"The link asks for step {named}; {steps}, so it opens at step {opens}."
    assert told in " ".join(shown(m.value) for m in at.main.info)
    at.run()  # said once: the next run is the lesson's own
    assert "The link asks for step" not in messages(at)


@pytest.mark.parametrize(
    ("asked", "opens", "named"),
    [
        ("2", 1, None),
        ("02", 1, None),
        ("\uff12", 0, "'\uff12'"),
        ("1_0", 0, "'1_0'"),
        ("+2", 0, "'+2'"),
        ("123456789012", 4, "123456789012"),
        ("9" * 40, 4, repr("9" * 20)),
        ("-" + "9" * 40, 0, repr("-" + "9" * 19)),
    ],
)
def test_a_step_is_read_as_a_links_whole_numbers_are(asked, opens, named):
    """A step's number is read by the one check of a link's whole numbers: digits 0-9 only, so
    that a number of another script or written with _ or + is named as typed, not guessed at; a
    long one past the end opens the last step."""
    from components.lessons import player

    step, said = player.step_asked(asked, 5)
    assert step == opens
    if named is None:
        assert said is None
    else:
        steps = "this lesson has steps 1 to 5"
        assert said == f"The link asks for step {named}; {steps}, so it opens at step {opens + 1}."
