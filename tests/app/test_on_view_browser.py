"""A phone draws a page's charts as they come into view (components/parts/on_view.py), in real
headless Chromium: after the session's first page, a page sends its charts below the fold as
placeholders that name their chart in the theme's text colour; each is drawn when scrolled to, and
a rerun of the page keeps the drawn ones (no placeholder comes back); a desktop draws every chart
at once."""

from __future__ import annotations

import pytest

from testkit.browser import APP_IDLE, charts_drawn, open_page, streamlit_server
from testkit.pytest_chromium import playwright_api

sync_api = playwright_api()

pytestmark = [pytest.mark.xdist_group("on-view-browser"), pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
CHARTS = 4  # Embedding layer's, drawn or waiting (tests/app/test_browser.py counts them on a desktop)
DESKTOP = {"width": 1440, "height": 900}
COUNTED = """() => ({charts: document.querySelectorAll("[data-testid='stPlotlyChart']").length,
    waiting: [...document.querySelectorAll(".drawn-on-view")].map(box => box.innerText)})"""
# The placeholders' text colour beside the page's own text's (its title's).
INKS = """() => [getComputedStyle(document.querySelector(".drawn-on-view p")).color,
    getComputedStyle(document.querySelector("[data-testid='stMain'] h1")).color]"""
# Counts every placeholder put on the page from now on.
WATCH_PLACEHOLDERS = """() => {
    window.placeholdersAdded = 0;
    new MutationObserver(changes => changes.forEach(change => change.addedNodes.forEach(node => {
        if (node.nodeType === 1 && (node.matches(".drawn-on-view") || node.querySelector(".drawn-on-view"))) {
            window.placeholdersAdded += 1;
        }
    }))).observe(document.body, {childList: true, subtree: true});
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with streamlit_server(log=tmp_path_factory.mktemp("on-view") / "server.log") as (base, _process):
        yield base


def counts(page, charts: int) -> dict:
    """What the page holds once it holds ``charts`` charts and no placeholder (waited for: for a
    moment after a run, the chart a run replaced can still be on the page), or when that wait ends."""
    try:
        page.wait_for_function(
            f"() => {{ const n = ({COUNTED})(); return n.charts === {charts} && !n.waiting.length; }}",
            timeout=15_000,
        )
    except sync_api.TimeoutError:
        pass
    return page.evaluate(COUNTED)


def settled(page) -> None:
    page.wait_for_selector(APP_IDLE)
    charts_drawn(page)


def to_embedding_layer(page, base: str) -> None:
    """The session's first page (Positions), then Embedding layer through the app's own link."""
    open_page(page, f"{base}/positions")
    settled(page)
    if page.viewport_size["width"] <= 640:  # the server has heard that the screen is narrow
        page.wait_for_selector("[data-narrow='true']", state="attached")
        settled(page)
    page.locator("a[href$='/embedding_layer']").first.dispatch_event("click")
    page.get_by_role("heading", name="The embedding layer", exact=False).first.wait_for()
    page.wait_for_function(
        f"() => {{ const n = ({COUNTED})(); return n.charts + n.waiting.length >= {CHARTS}; }}"
    )
    settled(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_phone_draws_the_charts_below_the_fold_as_they_come_into_view(browser, server, scheme):
    page = browser.new_context(viewport=PHONE, color_scheme=scheme).new_page()
    try:
        to_embedding_layer(page, server)
        first = page.evaluate(COUNTED)
        assert first["charts"] <= 1 and len(first["waiting"]) >= 3, first  # (the first may be in view)
        assert all(said.endswith("drawn when you scroll to it.") for said in first["waiting"]), first
        assert any(said.startswith("Token rows") for said in first["waiting"]), first
        ink, text = page.evaluate(INKS)
        assert ink == text, (ink, text)  # the theme's ink, whose contrast the page checks elsewhere
        scrolled = 0
        for _ in range(2 * CHARTS):  # each placeholder scrolled to (a run can draw one meanwhile)
            settled(page)
            waiting = page.locator(".drawn-on-view")
            if not waiting.count():
                break
            before = page.evaluate(COUNTED)["charts"]
            waiting.first.scroll_into_view_if_needed()
            page.wait_for_function(f"() => ({COUNTED})().charts > {before}")
            scrolled += 1
        assert scrolled >= 2  # (the charts came one scroll at a time, not all at once)
        assert counts(page, CHARTS) == {"charts": CHARTS, "waiting": []}
        # A rerun of the page (another stage chosen) keeps what was drawn: no placeholder returns.
        page.evaluate(WATCH_PLACEHOLDERS)
        page.locator("[data-testid='stButtonGroup']").get_by_text("Position rows", exact=True).first.click()
        settled(page)
        assert counts(page, CHARTS) == {"charts": CHARTS, "waiting": []}
        assert page.evaluate("window.placeholdersAdded") == 0
    finally:
        page.context.close()


def test_a_desktop_draws_every_chart_at_once(browser, server):
    page = browser.new_context(viewport=DESKTOP).new_page()
    try:
        to_embedding_layer(page, server)
        assert counts(page, CHARTS) == {"charts": CHARTS, "waiting": []}
    finally:
        page.context.close()
