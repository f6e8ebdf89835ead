"""A setting holds until the person changes it: across the Maps page's tabs, across pages and
browser Back, in real headless Chromium (persist_state, and components/parts/widgets.arrive).

Streamlit forgets a widget's value whenever a run does not draw it: the Vocabulary tab's geometry,
highlight and kinds went back to their defaults after a look at another tab, and so did
Neighbours' k and query after a visit to another page. The walk below changes settings on every
page and tab that has them, visits the others, and checks each setting where it is shown: in
the address bar, which links to the view on screen (every setting but its default)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from testkit.browser import APP_IDLE, back_to, open_page, streamlit_server
from testkit.pytest_chromium import playwright_api

sync_api = playwright_api()

# One test process runs this file: its tests share what it starts (make test runs two).
pytestmark = [pytest.mark.xdist_group("settings-browser"), pytest.mark.browser]


VOCABULARY = {"highlight": "^king", "kinds": "word,number", "geometry": "abtt", "d": "6", "x": "2", "y": "3"}
GEOMETRY = {"geometry": "abtt", "d": "6"}


@pytest.fixture(scope="module")
def page(tmp_path_factory, browser):
    log = tmp_path_factory.mktemp("settings") / "server.log"
    with streamlit_server(log=log) as (base, _):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        tab = context.new_page()
        tab.base = base
        yield tab
        context.close()


def shown(page) -> dict[str, str]:
    """The settings the address bar holds for the view on screen (once the page's run is done)."""
    page.wait_for_selector(APP_IDLE)
    return dict(parse_qsl(urlsplit(page.url).query))


def holds(page, path: str, expected: dict[str, str]) -> None:
    """The page at ``path`` shows ``expected`` (and maybe more): waits for its address to say so."""
    try:
        page.wait_for_url(
            lambda url: (
                urlsplit(url).path == f"/{path}"
                and expected.items() <= dict(parse_qsl(urlsplit(url).query)).items()
            ),
            timeout=60_000,
        )
    except sync_api.TimeoutError:
        pytest.fail(f"on /{path}, expected {expected}, the address holds {shown(page)} at {page.url}")
    page.wait_for_selector(APP_IDLE)
    assert expected.items() <= shown(page).items(), page.url


def nav(page, title: str) -> None:
    page.locator("[data-testid='stSidebarNav']").get_by_text(title, exact=True).click()


def tab(page, label: str) -> None:
    page.get_by_role("tab", name=label).click()


def enter(page, label: str, text: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(text)
    box.press("Enter")


def test_settings_hold_across_tabs_pages_and_back(page):
    """Every setting changed stays as set while its tab or page is away, and when browser Back
    returns to it."""
    query = "&".join(f"{k}={v}" for k, v in VOCABULARY.items()).replace("^", "%5E").replace(",", "%2C")
    open_page(page, f"{page.base}/maps?{query}")
    holds(page, "maps", VOCABULARY)
    tab(page, "Sentence journey")
    page.get_by_text("your sentence's own components").click()
    holds(page, "maps", {"tab": "journey", "basis": "sentence", "x": "2", "y": "3"})
    tab(page, "Positions")
    holds(page, "maps", {"tab": "positions", "x": "2", "y": "3"})
    tab(page, "Vocabulary")  # the tab that once lost its geometry, highlight and kinds
    holds(page, "maps", VOCABULARY)

    nav(page, "Neighbours")  # the geometry holds on every page that shows it
    holds(page, "neighbours", GEOMETRY)
    enter(page, "How many neighbours (k)", "20")
    holds(page, "neighbours", {"k": "20"})
    enter(page, "Word or piece", "queen")
    holds(page, "neighbours", {**GEOMETRY, "k": "20", "q": "queen"})
    nav(page, "Positions")
    enter(page, "First position", "7")
    holds(page, "positions", {"p1": "7"})
    nav(page, "Your own axes")
    holds(page, "axes", GEOMETRY)
    nav(page, "Tokens")
    nav(page, "Neighbours")  # k and q once went back to 10 and king here
    holds(page, "neighbours", {**GEOMETRY, "k": "20", "q": "queen"})
    nav(page, "Positions")
    holds(page, "positions", {"p1": "7"})
    nav(page, "Maps")
    holds(page, "maps", VOCABULARY)
    tab(page, "Sentence journey")
    holds(page, "maps", {"tab": "journey", "basis": "sentence"})

    back_to(page, "positions")  # Back to Positions, then to Neighbours: as they were left
    holds(page, "positions", {"p1": "7"})
    back_to(page, "neighbours")
    holds(page, "neighbours", {**GEOMETRY, "k": "20", "q": "queen"})
    nav(page, "Maps")
    holds(page, "maps", {**VOCABULARY, "tab": "journey", "basis": "sentence"})


def test_old_addresses_open_the_pages_they_meant(page):
    """The Maps and Overview pages' old addresses, /pca and /home, open those pages (a link's
    settings kept), and the address bar then shows today's addresses, /maps and /overview."""
    open_page(page, f"{page.base}/pca?highlight=%5Eking&x=2&y=3")
    holds(page, "maps", {"highlight": "^king", "x": "2", "y": "3"})
    page.get_by_role("heading", name="Maps", exact=True).wait_for(timeout=60_000)
    open_page(page, f"{page.base}/home")
    page.wait_for_url(lambda url: urlsplit(url).path == "/overview", timeout=60_000)
    page.get_by_role("heading", name="BERT's embedding layer", exact=True).wait_for(timeout=60_000)
