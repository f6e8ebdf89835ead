"""Lessons in real headless Chromium: the first built-in lesson played from its start to its end
(every step drawn, no exception, the page and view the step names); the same with a leader and a
follower in a room (after each Next the follower shows the same page, view and step); a lesson
file opened from the first page, with its markup shown as text; each step's answer folded when
it arrives; axe-clean, light and dark, with the lesson bar open."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from bert_embeddings.config import TRUSTED_PROXIES
from bert_embeddings.lessons import builtin, lesson
from testkit.browser import (
    APP_IDLE,
    NO_WEBGL,
    as_shown,
    charts_drawn,
    lead_room,
    new_page,
    open_page,
    opened,
    streamlit_server,
)
from testkit.pytest_chromium import playwright_api

sync_api = playwright_api()

pytestmark = [pytest.mark.xdist_group("lessons-browser"), pytest.mark.browser]

LESSON = builtin.load("embeddings")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lessons")
    env = {"HF_HUB_OFFLINE": "1", "BERT_EXPLORER_CACHE": str(folder / "cache"), TRUSTED_PROXIES: "127.0.0.1"}
    with streamlit_server(env=env, log=folder / "server.log") as (base, _):
        yield base


@pytest.fixture(scope="module")
def chromium_args():
    return NO_WEBGL


def on_step(page, number: int) -> None:
    """The bar says step ``number`` (from 1), the run is over, and the page is the step's own."""
    step = LESSON.steps[number - 1]
    said = re.compile(as_shown(f"{LESSON.title}: step {number} of {len(LESSON.steps)}") + "$")
    page.get_by_text(said).wait_for(timeout=120_000)
    page.wait_for_url(lambda url: urlsplit(url).path == f"/{step.page}", timeout=120_000)
    page.wait_for_selector(APP_IDLE, timeout=120_000)
    assert page.locator("[data-testid='stException']").count() == 0, (number, step.title)
    shown = dict(parse_qsl(urlsplit(page.url).query, keep_blank_values=True))
    assert shown.get("lesson") == "embeddings" and shown.get("step") == str(number)
    for name, value in step.params.items():
        if name in ("a", "b", "q", "items"):  # (texts: the address holds them unless they are the defaults)
            assert shown.get(name, value) == value, (number, name, shown.get(name))


BAR = ".st-key-lesson_bar"


def answer_unfolded(page) -> bool:
    """Whether the bar's "Show the answer" is open (its <details> element)."""
    return answer_box(page).locator("details").evaluate("d => d.open")


def answer_box(page):
    """The bar's "Show the answer" (a follower's bar folds the step's text in another)."""
    return page.locator(BAR).locator("[data-testid='stExpander']").filter(has_text="Show the answer")


def unfold_the_answer(page) -> None:
    """Open the bar's "Show the answer" and wait until it has stopped growing: it moves the bar's
    buttons, and a click on Next while they move can land beside the button."""
    folded = answer_box(page)
    folded.get_by_text("Show the answer", exact=True).click()
    opened(page, folded)


def skip_to_the_answer(page) -> None:
    """A question that takes an answer: "Skip: show the answer"."""
    page.locator(BAR).get_by_role("button", name="Skip: show the answer").click()
    page.locator(BAR).get_by_text("Answer:").wait_for(timeout=60_000)
    page.wait_for_selector(APP_IDLE, timeout=120_000)


def asks_for_an_answer(page, label: str = "Check my answer") -> bool:
    return page.locator(BAR).get_by_role("button", name=label).count() == 1


def test_a_newcomer_takes_the_first_lesson_from_the_first_page_to_its_end(server, browser):
    """From the first page's "Start the lesson" to the last step with Next (and one Back on the
    way). The first question takes an answer, checked; the second's answer, unfolded, is folded
    on the next step, after Next and after Back; the third's is shown by skipping it."""
    assert LESSON.steps[0].key is not None and LESSON.steps[1].key is None and LESSON.steps[2].key is not None
    page = new_page(browser)
    open_page(page, f"{server}/concepts")
    page.get_by_role("button", name="Start the lesson").click()
    on_step(page, 1)
    page.locator(BAR).get_by_text("the helicopter", exact=True).click()
    page.locator(BAR).get_by_role("button", name="Check my answer").click()
    page.locator(BAR).get_by_text(re.compile("Right\\.")).wait_for(timeout=60_000)
    page.wait_for_selector(APP_IDLE, timeout=120_000)
    for number in range(2, len(LESSON.steps) + 1):
        page.get_by_role("button", name="Next", exact=True).click()
        on_step(page, number)
        if number == 2:
            unfold_the_answer(page)
        if number == 3:  # a new question asks again; Back to a step left with its answer unfolded
            assert asks_for_an_answer(page)
            skip_to_the_answer(page)
            page.get_by_role("button", name="Back", exact=True).click()
            on_step(page, 2)
            assert not answer_unfolded(page), ("Back", 2)
            page.get_by_role("button", name="Next", exact=True).click()
            on_step(page, 3)
            assert not asks_for_an_answer(page)  # (skipped: kept for the lesson)
    assert page.get_by_role("button", name="Next", exact=True).is_disabled()
    page.context.close()


def test_a_room_follows_the_leader_through_the_lesson(server, browser):
    """After each of the leader's Next, the follower shows the same page, view and step; the
    answer they had unfolded on the step before is not shown on the next; a question that takes
    an answer asks the follower for the room's."""
    leader = new_page(browser)
    code = lead_room(leader, server)
    follower = new_page(browser)
    open_page(follower, f"{server}/?follow={code}")
    follower.get_by_role("heading", name="What is an embedding?").wait_for(timeout=60_000)
    leader.get_by_role("button", name="Start the lesson").click()
    for number in range(1, len(LESSON.steps) + 1):
        if number > 1:
            leader.get_by_role("button", name="Next", exact=True).click()
        on_step(leader, number)
        on_step(follower, number)
        assert f"follow={code}" in follower.url
        assert follower.get_by_text("Presenter notes").count() == 0
        if number in (1, 3):  # a question that takes an answer is the room's (its own tests: asking)
            assert asks_for_an_answer(follower, "Send my answer")
            assert follower.locator(BAR).get_by_role("button", name="Skip: show the answer").count() == 0
        elif number == 2:
            unfold_the_answer(follower)
        if number < len(LESSON.steps):  # the next step's title, among the leader's notes
            upcoming = re.compile(as_shown(f"Next: {LESSON.steps[number].title}"))
            leader.get_by_text(upcoming).wait_for(timeout=30_000)
    follower.context.close()
    leader.context.close()


def test_a_lesson_file_opens_and_its_markup_is_only_text(server, browser, tmp_path):
    """A file opened from the first page plays; HTML in it shows as typed; a bad file is a message."""
    made = lesson.Lesson(
        "Mine",
        "",
        (
            lesson.Step(
                "<b>Not bold</b>",
                (("page", "neighbours"), ("q", "cat")),
                "<script>document.title='x'</script> **yes**",
            ),
        ),
    )
    good, bad = tmp_path / "mine.toml", tmp_path / "bad.toml"
    good.write_text(lesson.write(made))
    bad.write_text(
        'title = "x"\nsummary = ""\n[[step]]\ntitle = "t"\ntext = "t"\n[step.view]\npage = "nowhere"\n'
    )
    page = new_page(browser)
    open_page(page, f"{server}/concepts")
    page.locator("input[type='file']").set_input_files(str(bad))
    page.get_by_text(re.compile(as_shown("'nowhere' is not a page of the explorer"))).wait_for(timeout=60_000)
    page.locator("input[type='file']").set_input_files(str(good))
    page.get_by_text(re.compile(as_shown("Mine: step 1 of 1") + "$")).wait_for(timeout=60_000)
    page.wait_for_url(lambda url: urlsplit(url).path == "/neighbours", timeout=60_000)
    page.get_by_text("<b>Not bold</b>", exact=True).wait_for(timeout=30_000)  # the step title, as typed
    page.get_by_text(re.compile(as_shown("<script>document.title='x'</script>"))).wait_for(timeout=30_000)
    assert page.title() != "x" and page.locator("[data-testid='stException']").count() == 0
    page.context.close()


@pytest.mark.parametrize("viewport", [None, {"width": 390, "height": 844}], ids=["wide", "phone"])
def test_a_file_the_browser_refuses_is_said_in_words_with_the_labels_limit(
    server, browser, tmp_path, viewport
):
    """A 1.1 MB file (over the box's 1 MB) and a text file dropped in the box never reach the server:
    Streamlit marks each with a red icon and says why only in a tooltip (hover, which a touch screen
    never shows) and to screen readers, as "File must be 1.0MB or smaller". Under each refused file
    the page now says in words what the label says: a TOML file of at most 200 kB."""
    from components.lessons import opening

    big, text = tmp_path / "big.toml", tmp_path / "notes.txt"
    big.write_bytes(b"# x\n" * 275_000)  # 1,100,000 bytes
    text.write_text("hello")
    page = new_page(browser, viewport=viewport)
    open_page(page, f"{server}/concepts")
    box = page.locator(f".st-key-{opening.FILE_BOX}")
    label = box.locator("[data-testid='stWidgetLabel']").inner_text()
    assert "at most 200 kB" in label and "at most 200 kB" in opening.REFUSED
    for refused in (big, text):
        box.locator("input[type='file']").set_input_files(str(refused))
        chip = box.locator("[data-testid='stFileChip'][aria-invalid='true']")
        chip.wait_for(timeout=30_000)
        below = box.locator("[data-testid='stTooltipErrorHoverTarget']")
        # the page's style is an element of the run: while a rerun redraws it, the words can be
        # missing for a moment, so wait for them rather than read them once
        words = f'"{opening.REFUSED}"'
        page.wait_for_function(
            "([e, words]) => getComputedStyle(e, '::after').content === words",
            arg=[below.element_handle(timeout=30_000), words],
            timeout=30_000,
        )
        said = below.evaluate("e => getComputedStyle(e, '::after').content")
        assert said == words, (refused.name, said)
        # the words take a line of their own under the chip, inside the box on a phone too
        chip_box, below_box, whole = chip.bounding_box(), below.bounding_box(), box.bounding_box()
        assert below_box["height"] > chip_box["height"] + 10, (refused.name, chip_box, below_box)
        assert below_box["x"] + below_box["width"] <= whole["x"] + whole["width"] + 1
        # Streamlit's own words, which say 1.0MB, stay for screen readers only (a 1-pixel clip)
        hidden = chip.locator("[role='alert']")
        assert hidden.bounding_box()["width"] <= 1, refused.name
        chip.locator("[data-testid='stFileChipDeleteBtn'] button").click()
        chip.wait_for(state="detached", timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()


def test_the_lesson_bar_downloads_the_lessons_handout(server, browser, bundled, tmp_path):
    """ "Download a handout" in the bar gives the lesson as one HTML file: its title and step as
    text, and the very figures bert_embeddings.lessons.handout draws for the same lesson, each
    downloading from its toolbar as a PNG and as an SVG."""
    from bert_embeddings.figures import charts, toolbar
    from bert_embeddings.lessons import handout

    made = lesson.Lesson(
        "Cats <i>and</i> dogs",
        "One step.",
        (lesson.Step("The nearest", (("page", "neighbours"), ("q", "cat")), "Look."),),
    )
    page = new_page(browser)
    open_page(page, f"{server}/concepts")
    path = tmp_path / "cats.toml"
    path.write_text(lesson.write(made))
    page.locator("input[type='file']").set_input_files(str(path))
    page.get_by_text(re.compile(as_shown("step 1 of 1") + "$")).wait_for(timeout=60_000)
    page.wait_for_selector(APP_IDLE, timeout=120_000)
    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name="Download a handout").first.click()
    got = Path(download.value.path()).read_text(encoding="utf-8")
    assert download.value.suggested_filename.endswith(".html")
    expected = handout.handout(made, bundled)
    figures = lambda text: re.findall(r'<figure class="chart".*?</figure>', text, re.DOTALL)  # noqa: E731
    assert figures(got) == figures(expected) and len(figures(got)) >= 1
    assert "<h1>Cats &lt;i&gt;and&lt;/i&gt; dogs</h1>" in got and ">The nearest</h2>" in got
    # Opened offline, each figure's toolbar downloads it as a PNG as well as an SVG.
    kept = tmp_path / "handout.html"
    kept.write_text(got, encoding="utf-8")
    reader = page.context.new_page()
    reader.goto(kept.as_uri())
    figure = reader.locator("figure.chart").first
    figure.locator(".main-svg").first.wait_for(timeout=60_000)
    figure.hover()
    for name, suffix in ((toolbar.PNG_TITLE, ".png"), (charts.DOWNLOAD_TITLE, ".svg")):
        with reader.expect_download(timeout=30_000) as download:
            figure.get_by_role("button", name=name, exact=True).click()
        assert download.value.suggested_filename.endswith(suffix), download.value.suggested_filename
    assert Path(download.value.path()).read_bytes().lstrip().startswith(b"<svg")
    page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_lesson_bar_is_axe_clean(server, browser, scheme):
    """axe-core finds no serious violation and no heading out of order with the bar open."""
    from testkit.axe import audit, serious

    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme=scheme)
    page = context.new_page()
    open_page(page, f"{server}/?lesson=embeddings&step=2")
    on_step(page, 2)
    charts_drawn(page)
    assert serious(audit(page)) == []
    context.close()


def test_the_first_change_in_a_part_of_the_page_that_reruns_alone_offers_the_steps_view(server, browser):
    """Step 7 asks for another word on Neighbours, whose search reruns by itself: the very first
    word typed brings "Back to this step's view", which brings the step's word back."""
    page = new_page(browser)
    step = LESSON.steps[6]
    open_page(page, f"{server}/neighbours?lesson=embeddings&step=7")
    on_step(page, 7)
    box = page.get_by_label("Word or piece", exact=True)
    # (the step's word reaches the box in the run that applies the step)
    sync_api.expect(box).to_have_value(step.params["q"], timeout=30_000)
    way_back = page.get_by_role("button", name="Back to this step's view")
    assert way_back.count() == 0
    box.fill("cat")
    box.press("Enter")
    way_back.wait_for(timeout=60_000)
    way_back.click()
    sync_api.expect(box).to_have_value(step.params["q"], timeout=60_000)
    sync_api.expect(way_back).to_have_count(0, timeout=60_000)
    page.context.close()


# Each walk goes through every lesson forward and back: every step change, both ways. CI walks
# once; LESSON_WALKS=N walks N times (the race it guards against is rare: hunt it with many).
WALKS = int(os.environ.get("LESSON_WALKS", "1"))


@pytest.fixture
def one_core_busy():
    """A process that keeps one core busy for the test's length, as a busy host would."""
    import subprocess
    import sys

    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


def _shows_its_step(page, found: lesson.Lesson, name: str, number: int) -> None:
    """After a step change: the bar says the step, the run is over, the address is the step's page
    and holds no other value of a setting the step names, and the bar offers no way back to the
    step's view (the session shows it)."""
    step = found.steps[number - 1]
    said = re.compile(as_shown(f"{found.title}: step {number} of {len(found.steps)}") + "$")
    where = (name, number, step.page)
    page.get_by_text(said).wait_for(timeout=120_000)
    try:
        page.wait_for_url(lambda url: urlsplit(url).path == f"/{step.page}", timeout=120_000)
    except sync_api.TimeoutError:
        raise AssertionError((where, "the address stayed", page.url)) from None
    page.wait_for_selector(APP_IDLE, timeout=120_000)
    assert page.locator("[data-testid='stException']").count() == 0, where
    shown = dict(parse_qsl(urlsplit(page.url).query, keep_blank_values=True))
    assert shown.get("lesson") == name and shown.get("step") == str(number), (where, shown)
    for key, value in step.params.items():  # (the address leaves out a setting at its default)
        if key not in ("a", "b", "q", "items", "to", "from"):  # (texts and stages: as the page writes them)
            assert shown.get(key, value) == value, (where, key, shown.get(key))
    back = page.locator(BAR).get_by_role("button", name="Back to this step's view")
    assert back.count() == 0, (where, "the step opened with another view")


def test_every_step_change_of_every_lesson_shows_the_step_s_own_view(server, browser, one_core_busy):
    """Every built-in lesson walked forward with Next and back with Back (WALKS times), with one core
    busy: each step opens on its own page with its own settings, never the last step's (a page's
    background job polls meanwhile, and the browser's poll carries the last page's values)."""
    page = new_page(browser)
    for name in builtin.NAMES:
        found = builtin.load(name)
        open_page(page, f"{server}/concepts?lesson={name}")
        _shows_its_step(page, found, name, 1)
        count = len(found.steps)
        for _ in range(WALKS):
            for number in [*range(2, count + 1), *range(count - 1, 0, -1)]:
                forward = number > int(dict(parse_qsl(urlsplit(page.url).query))["step"])
                move = page.locator(BAR).get_by_role("button", name="Next" if forward else "Back", exact=True)
                move.click()
                _shows_its_step(page, found, name, number)
    page.close()


def test_a_double_tap_on_next_moves_one_step(server, browser):
    """Next tapped twice at once, on step 4 of "Why every BERT vector looks alike" (Geometry) and
    on step 2 (Geometry again at step 3): each opens the next step only, on its own page with its
    own view."""
    found, name = builtin.load("alike"), "alike"
    page = new_page(browser)
    for number in (4, 2):
        open_page(page, f"{server}/geometry?lesson={name}&step={number}")
        _shows_its_step(page, found, name, number)
        page.locator(BAR).get_by_role("button", name="Next", exact=True).dblclick()
        _shows_its_step(page, found, name, number + 1)
    page.close()


def test_a_decimal_comma_is_read_as_written_and_the_score_survives_a_reload(server, browser):
    """Step 4's number box: "45%" is refused with why and the box stays; "6,0" is 6, right; after a
    reload (a new session) the bar still shows the verdict and the learner's score."""
    page = new_page(browser)
    open_page(page, f"{server}/positions?lesson=embeddings&step=4")
    on_step(page, 4)
    box = page.locator(BAR).get_by_label("Your answer: a number")
    check = page.locator(BAR).get_by_role("button", name="Check my answer")
    box.fill("45%")
    check.click()
    page.locator(BAR).get_by_text(re.compile(as_shown("without the % sign"))).wait_for(timeout=60_000)
    page.wait_for_selector(APP_IDLE, timeout=120_000)
    box.fill("6,0")
    check.click()
    verdict = page.locator(BAR).get_by_text(re.compile(as_shown("You answered 6. Right: exactly 6.")))
    verdict.wait_for(timeout=60_000)
    score = page.locator(BAR).get_by_text(re.compile("^" + as_shown("Your answers: 1 right of 1 answered")))
    score.wait_for(timeout=60_000)
    page.wait_for_function("document.cookie.includes('bert_explorer_answers=embeddings.3')", timeout=60_000)
    page.reload()
    on_step(page, 4)
    verdict.wait_for(timeout=60_000)
    score.wait_for(timeout=60_000)
    assert check.count() == 0
    page.close()
