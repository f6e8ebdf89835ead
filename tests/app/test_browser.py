"""Every page in a real headless Chromium, against a real ``streamlit run``: one server for the
file's tests, and one of its own for a test that needs another environment (another model, a
fresh server's first visit).

Screenshots are saved to test-artifacts/ for a person to look at. Under CI=true a missing
browser fails the run; elsewhere the test skips and says how to install one.
"""

from __future__ import annotations

import re

import pytest

from bert_embeddings import config
from testkit.browser import (
    APP_IDLE,
    CHART_OR_WAITING,
    CHARTS_SHOWN,
    PAGES,
    ROOT,
    back_to,
    charts_drawn,
    click_until,
    content_height,
    open_expander,
    open_page,
    screenshot_whole_page,
    streamlit_server,
)
from testkit.pytest_chromium import playwright_api

# One test process runs this file: its tests share what it starts (make test runs two).
pytestmark = [pytest.mark.xdist_group("app-browser"), pytest.mark.browser]


ARTIFACTS = ROOT / "test-artifacts"

sync_api = playwright_api()


VIEWPORT = {"width": 1400, "height": 1000}
# The t-SNE map's iterations on this file's server, and in the map the test computes for it.
MAP_ITERATIONS = "30"


@pytest.fixture(scope="module")
def app_cache(tmp_path_factory):
    """The cache folder of this file's server (its maps, stage spaces and downloads)."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def app_url(tmp_path_factory, app_cache):
    """One server for every test of the file that needs no environment of its own."""
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    env = {config.CACHE: str(app_cache), config.MAP_ITERATIONS: MAP_ITERATIONS}
    with streamlit_server(env=env, log=log) as (base, _process):
        yield base


@pytest.fixture(scope="module")
def context(browser):
    """One browser context for the tests that open a page each: its HTTP cache keeps the app's
    scripts, so that each test does not fetch and compile them again (each visit is still a
    session of its own on the server)."""
    context = browser.new_context(viewport=VIEWPORT)
    yield context
    context.close()


@pytest.fixture
def page(context):
    page = context.new_page()
    yield page
    page.close()


def check_page(page, url: str, path: str, screenshot: str) -> None:
    """Open a page; check the frame, its charts and that no exception shows; save a screenshot."""
    open_page(page, url)
    assert page.locator("[data-testid='stException']").count() == 0
    charts = page.locator(CHART_OR_WAITING)
    # Streamlit loads its Plotly component lazily, after the run; charts in tabs not shown
    # are in the page but hidden, so wait for the count and for the first to be visible. (A chart
    # far below the fold can wait for the view: the whole page's screenshot draws it.)
    sync_api.expect(charts).to_have_count(CHARTS_SHOWN[path], timeout=30_000)
    if CHARTS_SHOWN[path]:
        charts.first.wait_for(state="visible", timeout=30_000)
    # The idle marker can be set a moment before the first run has drawn the sidebar.
    sync_api.expect(page.get_by_label("Sentence A", exact=True)).to_be_visible(timeout=30_000)
    nav = page.locator("[data-testid='stSidebarNav']").inner_text()
    assert all(title in nav for title in PAGES.values()), nav
    screenshot_whole_page(page, ARTIFACTS / screenshot)


def axe_problems(page, path: str, title: str) -> list[dict]:
    """The serious axe-core findings on the open page, once its charts are drawn; the page must be
    at its own address, with its own title, and no dialog (a page not found) over it."""
    from testkit.axe import audit, serious

    charts_drawn(page)  # charts settle after the idle marker
    assert page.url.split("?")[0].endswith(f"/{path}") and page.title().startswith(f"{title} · "), path
    assert page.locator("[role='dialog']").count() == 0, f"{path}: a dialog (page not found?)"
    return serious(audit(page))


def test_in_dark_mode_the_map_is_dark_the_check_passes_and_presenter_mode_stays_on(browser, app_url):
    """With the system in dark mode the app is dark: the Maps page opens with its charts and no
    exception, the sentence's labels on the PCA map light on a dark ground; the verification on
    the Embedding layer page passes with a tiny residual; presenter mode enlarges the text and
    stays on while moving between pages. (axe-core in the dark theme audits every page at a
    phone's and a tablet's width: tests/app/test_phone_browser.py; at this width, in the light
    theme: test_every_page_renders_with_bert_base_shapes_and_passes_axe_core.)"""
    context = browser.new_context(viewport=VIEWPORT, color_scheme="dark")
    page = context.new_page()
    check_page(page, f"{app_url}/maps", "maps", "dark-maps.png")
    dark_map_is_dark(page)
    page.set_viewport_size(VIEWPORT)  # (the screenshot made it as tall as the page)
    check_page(page, f"{app_url}/embedding_layer", "embedding_layer", "dark-embedding_layer.png")
    verification_passed(page)
    page.set_viewport_size(VIEWPORT)

    page.get_by_text("Presenter mode (larger text)").click()
    page.wait_for_function("getComputedStyle(document.documentElement).fontSize === '21.6px'", timeout=30_000)
    page.locator("[data-testid='stSidebarNav']").get_by_text("Embedding layer").click()
    page.get_by_text("Passed: within 1e-05").wait_for(state="visible", timeout=60_000)
    assert page.evaluate("getComputedStyle(document.documentElement).fontSize") == "21.6px"
    # The charts are redrawn enlarged by the page's run after the switch, which may end after the
    # check above was already in the page: wait for the first title to be redrawn.
    page.wait_for_function(
        "() => parseFloat(document.querySelector(\"[data-testid='stPlotlyChart'] .gtitle\")"
        "?.style.fontSize || '0') > 20",
        timeout=60_000,
    )
    screenshot_whole_page(page, ARTIFACTS / "dark-presenter-embedding.png")
    context.close()


def verification_passed(page) -> str:
    """The Embedding layer page's verification panel shows a passed check with a tiny residual;
    returns what the panel says."""
    panel = page.get_by_text("Passed: within 1e-05")
    panel.wait_for(state="visible", timeout=60_000)
    value = page.locator("[data-testid='stMetricValue']").first.inner_text()
    assert float(value) < 1e-5
    return panel.inner_text()


def dark_map_is_dark(page) -> None:
    """The Maps page in dark mode: a dark background, and the sentence's labels light on it."""
    vocabulary = page.locator("[data-testid='stPlotlyChart']").filter(has_text="The whole vocabulary")
    vocabulary.wait_for(state="visible", timeout=30_000)
    app = page.locator("[data-testid='stApp']")
    background = app.evaluate("e => getComputedStyle(e).backgroundColor")
    assert sum(int(n) for n in re.findall(r"\d+", background)[:3]) < 150, background
    label = vocabulary.locator(".annotation-text").first
    label.wait_for(state="attached", timeout=30_000)
    fill = label.evaluate("e => e.style.fill || getComputedStyle(e).fill")
    assert sum(int(n) for n in re.findall(r"\d+", fill)[:3]) > 600, fill  # light text on dark


def test_every_page_renders_with_bert_base_shapes_and_passes_axe_core(page, tmp_path):
    """With a model of bert-base's embedding shapes (30,522 x 768), each page opens at its own
    address, with its own title, finishes running, shows its charts and no exception, and
    verifies; axe-core (WCAG 2.1 AA and best practice) finds no serious or critical violation and
    no heading out of order on it in light mode. (The dark theme: the test above.)"""
    from testkit.random_models import write_random_bert

    # bert-base's embedding tables; one encoder layer is enough, the app never reads it.
    checkpoint = write_random_bert(tmp_path / "bert-base-shaped", hidden=768, positions=512, heads=12)
    found = {}
    with streamlit_server(env={config.MODEL: str(checkpoint)}, log=tmp_path / "log") as (base, _):
        for path, title in PAGES.items():
            check_page(page, f"{base}/{path}", path, f"bert-base-shaped-{path}.png")
            if path == "embedding_layer":
                assert "× 768 numbers" in verification_passed(page)
            if problems := axe_problems(page, path, title):
                found[path] = problems
            page.set_viewport_size(VIEWPORT)  # (the screenshot made it as tall as the page)
    assert not found, found


# Faint text far below the viewport, in Streamlit's scrolling main area.
FAINT_TEXT_BELOW = """() => {
    const spacer = document.createElement('div');
    spacer.style.height = '3000px';
    const faint = document.createElement('p');
    faint.id = 'faint-probe';
    faint.textContent = 'Too faint to read';
    faint.style.cssText = 'color: #bbbbbb; background: #ffffff;';
    document.querySelector("[data-testid='stMainBlockContainer']").append(spacer, faint);
}"""


def test_the_accessibility_audit_sees_the_whole_page(app_url, page):
    """Text with too little contrast far below the viewport is a violation the audit reports
    (axe alone sees only the viewport); the viewport is as it was afterwards."""
    from testkit.axe import audit

    open_page(page, f"{app_url}/tokens")
    page.get_by_text("flooded", exact=True).first.wait_for(state="visible", timeout=30_000)
    page.wait_for_selector(APP_IDLE)
    # (On a loaded machine a late redraw of the page can drop the probe, or change the page's
    # height while axe runs: the probe is put back, and audited again, until the page held still
    # with the probe on it for the whole audit.)
    for _ in range(10):
        page.evaluate(f"() => document.querySelector('#faint-probe') || ({FAINT_TEXT_BELOW})()")
        height = content_height(page)
        violations = audit(page)
        if page.locator("#faint-probe").count() and content_height(page) == height:
            break
    contrast = [n for v in violations if v["id"] == "color-contrast" for n in v["nodes"]]
    assert any("#faint-probe" in str(n["target"]) for n in contrast), contrast
    assert page.viewport_size == {"width": 1400, "height": 1000}


def test_the_apps_own_address_opens_the_first_page(page, app_url):
    open_page(page, f"{app_url}/?a=Linked+text.")
    page.get_by_role("heading", name="What is an embedding?").wait_for(state="visible", timeout=30_000)
    sync_api.expect(page.get_by_label("Sentence A", exact=True)).to_have_value("Linked text.", timeout=30_000)
    assert "/concepts" in page.url and "a=Linked" in page.url


def test_tokens_page_shows_pieces_of_the_typed_sentence(app_url, page):
    """Typing a sentence in the sidebar shows its word pieces on the Tokens page."""
    open_page(page, f"{app_url}/tokens")
    area = page.get_by_label("Sentence A", exact=True)
    area.fill("Unbelievable tokenization")
    area.press("Control+Enter")
    page.get_by_text("##ization").first.wait_for(state="visible", timeout=30_000)
    page.wait_for_selector(APP_IDLE)
    assert page.locator("[data-testid='stException']").count() == 0


def test_bad_input_shows_a_message_in_the_browser(app_url, page):
    """Sentence B without sentence A shows a message, and the page keeps working."""
    open_page(page, f"{app_url}/embedding_layer")
    area = page.get_by_label("Sentence A", exact=True)
    area.fill("")
    area.press("Control+Enter")
    page.get_by_text("sentence A is empty").wait_for(state="visible", timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0
    area.fill("Back to normal.")
    area.press("Control+Enter")
    page.get_by_text("Passed: within 1e-05").wait_for(state="visible", timeout=30_000)


# Where a point of a Plotly chart is on the screen: the chart's own axes convert data to pixels.
POINT_ON_SCREEN = """([chartIndex, traceName, point]) => {
    const chart = document.querySelectorAll('.js-plotly-plot')[chartIndex];
    const trace = chart._fullData.find(t => t.name === traceName);
    const {xaxis, yaxis} = chart._fullLayout;
    const box = chart.getBoundingClientRect();
    return {x: box.left + xaxis._offset + xaxis.l2p(trace.x[point]),
            y: box.top + yaxis._offset + yaxis.l2p(trace.y[point]), text: trace.hovertext[point]};
}"""
# The pieces of every point drawn within a few pixels of a spot (where a click may land).
PIECES_NEAR = """([chartIndex, x, y, radius]) => {
    const chart = document.querySelectorAll('.js-plotly-plot')[chartIndex];
    const {xaxis, yaxis} = chart._fullLayout;
    const box = chart.getBoundingClientRect();
    const found = [];
    for (const trace of chart._fullData) {
        for (let i = 0; i < trace.x.length; i++) {
            const px = box.left + xaxis._offset + xaxis.l2p(trace.x[i]);
            const py = box.top + yaxis._offset + yaxis.l2p(trace.y[i]);
            if (Math.hypot(px - x, py - y) <= radius) found.push(trace.hovertext[i]);
        }
    }
    return found;
}"""


# The trace names of a chart, and how many points of its line traces are drawn (not gaps).
TRACES_DRAWN = """([chartIndex]) => {
    const chart = document.querySelectorAll('.js-plotly-plot')[chartIndex];
    return chart._fullData.map(t => [t.name, t.mode,
        Array.from(t.x || []).filter(v => v !== null && Number.isFinite(Number(v))).length]);
}"""


# Whether the first chart has drawn the marks of a clicked piece.
MARKS_DRAWN = """() => {
    const chart = document.querySelectorAll('.js-plotly-plot')[0];
    return Boolean(chart && chart._fullData && chart._fullData.some(t => t.name.startsWith('clicked: ')));
}"""


def test_the_tsne_map_draws_with_webgl_and_a_click_marks_its_neighbours(
    app_url, app_cache, page, monkeypatch
):
    """The t-SNE map a host made beforehand (the core's, as `python -m bert_embeddings map` makes
    it, few iterations here) is found by the server and drawn with WebGL, with its regions
    labelled; a click on one of the sentence's pieces marks it with lines to its 10 nearest pieces
    by cosine, and says the overlap; a button then searches it on Neighbours. (The progress shown
    while the server computes a map itself: tests/maps/test_maps_page.py.)"""
    from bert_embeddings import api

    monkeypatch.setenv(config.CACHE, str(app_cache))
    monkeypatch.setenv(config.MAP_ITERATIONS, MAP_ITERATIONS)
    api.finished_map(api.load("bundled"), compute=True)
    prepared = sorted(folder.name for folder in (app_cache / "maps").iterdir())
    open_page(page, f"{app_url}/maps?method=tsne&colour=kept&a=Volcanoes+erupt.&b=")
    page.get_by_text("Faithfulness: neighbour recall@10").wait_for(state="visible", timeout=60_000)
    page.wait_for_selector(APP_IDLE)
    chart = page.locator("[data-testid='stPlotlyChart']").first
    chart.locator("canvas").first.wait_for(state="attached", timeout=30_000)  # WebGL
    chart.scroll_into_view_if_needed()
    charts_drawn(page)
    assert "regions" in [name for name, _, _ in page.evaluate(TRACES_DRAWN, [0])]
    where = page.evaluate(POINT_ON_SCREEN, [0, "your sentence", 1])
    # Plotly picks the closest point of any trace: another piece may lie on the same spot.
    candidates = page.evaluate(PIECES_NEAR, [0, where["x"], where["y"], 4])
    assert where["text"] in candidates
    page.mouse.click(where["x"], where["y"])
    said = page.get_by_text(re.compile(r"of the 10 nearest pieces to .+ by cosine are among"))
    said.wait_for(state="visible", timeout=30_000)
    page.wait_for_selector(APP_IDLE)
    page.wait_for_function(MARKS_DRAWN, timeout=30_000)
    drawn = {name: (mode, points) for name, mode, points in page.evaluate(TRACES_DRAWN, [0])}
    assert drawn["lines to its nearest by cosine"] == ("lines", 20)  # from it to each of 10
    assert drawn["its 10 nearest by cosine (joined)"][1] == 10
    assert drawn["its 10 nearest points here"][1] == 10
    clicked = next(name for name in drawn if name.startswith("clicked: "))
    assert clicked.removeprefix("clicked: ") in candidates
    screenshot_whole_page(page, ARTIFACTS / "tsne-clicked.png")
    page.get_by_role("button", name=re.compile(r"^Search .+ on the Neighbours page$")).click()
    page.wait_for_url(re.compile(r"/neighbours\?.*q="), timeout=30_000)
    page.wait_for_selector(APP_IDLE)
    assert page.get_by_label("Word or piece").input_value() in candidates
    # Back: the t-SNE map as it was left, its colouring and the clicked piece's marks (they
    # were gone, the map back on PCA)
    back_to(page, "maps")
    page.wait_for_url(re.compile(r"/maps\?(?=.*method=tsne)(?=.*colour=kept)"), timeout=60_000)
    page.get_by_text("Faithfulness: neighbour recall@10").wait_for(state="visible", timeout=60_000)
    page.wait_for_selector(APP_IDLE)
    page.wait_for_function(MARKS_DRAWN, timeout=30_000)
    drawn = {name: (mode, points) for name, mode, points in page.evaluate(TRACES_DRAWN, [0])}
    assert drawn["its 10 nearest by cosine (joined)"][1] == 10 and clicked in drawn
    # the map shown was the one prepared: the server made none of its own
    assert sorted(folder.name for folder in (app_cache / "maps").iterdir()) == prepared


def test_a_rerun_redraws_only_the_chart_it_changes(app_url, page):
    """On Positions, another second position changes only the pair's chart: the cosine maps and
    the lengths stay the very charts they were, holding the very data they were given (Streamlit
    gave Plotly nothing new to draw), while the pair's chart shows the new position. (Looked at
    from a first change on, once the page's first drawing has settled.)"""
    open_page(page, f"{app_url}/positions")
    field = page.get_by_label("Second position")

    def second_position(value: int) -> None:
        field.fill(str(value))
        field.press("Enter")
        pair = page.locator("[data-testid='stPlotlyChart']").get_by_text(f"Learned rows 5 and {value}")
        pair.wait_for(timeout=30_000)
        page.wait_for_selector(APP_IDLE)
        charts_drawn(page)

    second_position(8)
    page.evaluate(
        """() => { window.before = [...document.querySelectorAll('.js-plotly-plot')];
        window.data = window.before.map(chart => chart.data); }"""
    )
    second_position(9)
    kept = page.evaluate(
        """() => { const now = [...document.querySelectorAll('.js-plotly-plot')];
        return window.before.map((chart, n) => now.includes(chart) && chart.data === window.data[n]); }"""
    )
    assert kept == [True, True, True, False]


def test_neighbour_query_and_click(app_url, page):
    """Typing a word lists its neighbours; clicking one searches from it next."""
    open_page(page, f"{app_url}/neighbours")
    field = page.get_by_label("Word or piece")
    field.fill("dogs")
    field.press("Enter")
    chart_title = page.locator("[data-testid='stPlotlyChart']").get_by_text("Closest to dogs")
    chart_title.wait_for(state="visible", timeout=30_000)
    page.wait_for_selector(APP_IDLE)
    pills = page.locator("[data-testid='stButtonGroup']").filter(has_text="Search a neighbour next")
    pills.locator("button").filter(has_text=re.compile(r"^dog$")).click()
    page.locator("[data-testid='stPlotlyChart']").get_by_text("Closest to dog", exact=True).wait_for(
        state="visible", timeout=30_000
    )
    page.wait_for_selector(APP_IDLE)
    assert page.get_by_label("Word or piece").input_value() == "dog"
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot_whole_page(page, ARTIFACTS / "neighbours-after-click.png")


def test_pca_maps_draw_webgl_scatters(app_url, page):
    """The PCA page draws its maps with WebGL, in each tab; the open tab is in the link."""
    open_page(page, f"{app_url}/maps")
    vocabulary = page.locator("[data-testid='stPlotlyChart']").filter(has_text="The whole vocabulary")
    vocabulary.wait_for(state="visible", timeout=30_000)
    vocabulary.locator("canvas").first.wait_for(state="attached", timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot_whole_page(page, ARTIFACTS / "pca-vocabulary.png")
    for tab, title in (
        ("Sentence journey", "Your sentence, stage by stage"),
        ("Positions", "position embeddings"),
    ):
        page.get_by_role("tab", name=tab).click()
        figure = page.locator("[data-testid='stPlotlyChart']").filter(has_text=title)
        figure.wait_for(state="visible", timeout=30_000)
        figure.locator("canvas").first.wait_for(state="attached", timeout=30_000)
        assert page.locator("[data-testid='stPlotlyChart']").count() == 1  # only the open tab's
        page.wait_for_url(f"**tab={tab.split()[-1].lower()}**")
        screenshot_whole_page(page, ARTIFACTS / f"pca-{tab.split()[-1].lower()}.png")


def test_one_leader_and_two_followers(browser, app_url):
    """A leader opens a room; two followers join by the link and by the code; each change the
    leader makes (page, word) reaches both within seconds, without a reload."""
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(3)]
    leader, by_link, by_code = (c.new_page() for c in contexts)
    open_page(leader, f"{app_url}/tokens")
    open_expander(leader, "Workshop room")
    # A page on a busy machine can lose a click or answer it late (the other test process
    # computing): the click is made again only while its button is still there.
    join = leader.locator("[data-testid='stCode']").first
    click_until(leader, leader.get_by_role("button", name="Lead a new room"), join)
    link = join.inner_text().strip()
    code = link.rsplit("=", 1)[1]
    open_page(by_link, f"{app_url}/?follow={code}")
    open_page(by_code, f"{app_url}/concepts")
    open_expander(by_code, "Workshop room")
    by_code.get_by_label("Room code").fill(code.lower())
    by_code.get_by_label("Room code").press("Enter")
    tokens = by_code.get_by_role("heading", name="Tokens", exact=True)
    click_until(by_code, by_code.get_by_role("button", name="Join"), tokens)
    by_link.get_by_role("heading", name="Tokens", exact=True).wait_for(timeout=30_000)
    leader.locator("[data-testid='stSidebarNav']").get_by_text("Neighbours", exact=True).click()
    field = leader.get_by_label("Word or piece")
    field.fill("bank")
    field.press("Enter")
    for follower in (by_link, by_code):
        sync_api.expect(follower.get_by_label("Word or piece")).to_have_value("bank", timeout=15_000)
        assert follower.locator("[data-testid='stException']").count() == 0
        assert "/neighbours" in follower.url
    for context in contexts:
        context.close()


def test_a_shared_link_on_a_fresh_server_opens_the_same_view_in_the_whole_app(page, tmp_path):
    """A copied link to a page, opened as the first visit to a fresh server, shows the whole app
    (the sidebar and its navigation, not a bare page) and the link's sentence, query and k; a
    change on the page then shows up in the address bar."""
    link = "/neighbours?a=Dogs+chase+cars.&b=&q=dogs&k=7&sim=centred"
    with streamlit_server(log=tmp_path / "fresh.log") as (base, _process):
        open_page(page, base + link)
        page.locator("[data-testid='stPlotlyChart']").get_by_text("Closest to dogs").wait_for(
            state="visible", timeout=30_000
        )
        page.wait_for_selector(APP_IDLE)
        nav = page.locator("[data-testid='stSidebarNav']").inner_text()
        assert all(title in nav for title in PAGES.values()), nav
        assert page.get_by_role("heading", name="Nearest neighbours in the vocabulary").is_visible()
        assert page.get_by_label("Sentence A", exact=True).input_value() == "Dogs chase cars."
        assert page.get_by_label("Sentence B (optional)", exact=True).input_value() == ""
        assert page.get_by_label("Word or piece").input_value() == "dogs"
        assert page.get_by_label("How many neighbours (k)", exact=True).input_value() == "7"
        # An earlier link's sim=centred is today's centred geometry, said so in the address bar.
        geometry = page.get_by_role("radiogroup", name="Geometry")
        assert (
            geometry.get_by_role("radio", name="centred", exact=True).get_attribute("aria-checked") == "true"
        )
        assert "geometry=centred" in page.url and "sim=" not in page.url
        bars = page.locator("[data-testid='stPlotlyChart']").filter(has_text="Closest to dogs")
        assert bars.locator("g.point").count() == 7
        assert page.locator("[data-testid='stException']").count() == 0
        screenshot_whole_page(page, ARTIFACTS / "shared-link.png")

        field = page.get_by_label("Word or piece")
        field.fill("cats")
        field.press("Enter")
        page.wait_for_url(re.compile(r"[?&]q=cats(&|$)"), timeout=30_000)
        assert "k=7" in page.url and "a=Dogs" in page.url


def test_a_new_geometry_redraws_the_sentence_grid_too(app_url, page):
    """A query reruns only the search part of the page; a geometry change reaches the grid."""
    open_page(page, f"{app_url}/neighbours")
    page.get_by_text("Top 5 of each token by cosine in the raw geometry").wait_for(
        state="visible", timeout=30_000
    )
    page.get_by_role("radiogroup", name="Geometry").get_by_role(
        "radio", name="standardised", exact=True
    ).click()
    page.get_by_text("Top 5 of each token by cosine in the standardised geometry").wait_for(
        state="visible", timeout=30_000
    )
    page.get_by_text("of the 10 nearest change from raw cosine").wait_for(state="visible", timeout=30_000)
    page.wait_for_selector(APP_IDLE)
    assert "geometry=standardised" in page.url
    assert page.locator("[data-testid='stException']").count() == 0


def test_a_catastrophic_pattern_link_does_not_freeze_anyone_else(app_url, browser):
    """While one person opens links with catastrophic patterns, another person's page still
    answers, and so does the health endpoint. A backtracking engine would hang on these for ever;
    the generous minute allowed only catches such a freeze, never a slow machine."""
    import urllib.request

    other = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    hostile = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    open_page(other, f"{app_url}/tokens")
    for link in ("/neighbours?only=((.*)*)*!", "/maps?highlight=((.*)*)*!", "/neighbours?not=(.*){1,20}!"):
        hostile.goto(f"{app_url}{link}", wait_until="commit")
        with urllib.request.urlopen(f"{app_url}/_stcore/health", timeout=60) as response:
            assert response.read().decode().strip() == "ok"
        area = other.get_by_label("Sentence A", exact=True)
        area.fill(f"Still served {len(link)}")
        area.press("Control+Enter")
        other.get_by_text(f"{len(link)}", exact=True).first.wait_for(state="visible", timeout=60_000)
        hostile.wait_for_selector(APP_IDLE, timeout=60_000)
        assert hostile.locator("[data-testid='stException']").count() == 0
    # The linked pattern is shown as text, and the page has no link to anywhere outside the app.
    hostile.goto(f"{app_url}/neighbours?k=[Sign in again](https://evil.example)", wait_until="commit")
    hostile.wait_for_selector(APP_IDLE, timeout=60_000)
    hostile.get_by_text("could not be used").wait_for(state="visible", timeout=30_000)
    assert hostile.locator("a[href*='evil.example']").count() == 0
    notice = hostile.locator("[data-testid='stAlert']").first.inner_text().replace("\u2060", "")
    assert "[Sign in again](https://evil.example)" in notice  # as typed, with no link made of it
    other.context.close()
    hostile.context.close()


def test_your_own_axes_is_a_page_a_reader_can_move_through(app_url, page):
    """Your own axes with two axes was 8,300 px tall, its furthest words 6,100 px down: now the
    axes, the cards, WEAT and the furthest words are tabs, each card's details folded, and the
    tallest tab is a few screens; every tab is one click from the top, and the link keeps the
    settings whatever the tab."""
    open_page(page, f"{app_url}/axes?x_from=he&x_to=she&y_from=small&y_to=big")
    heights = {}
    for label in ("Words on the axes", "Can you trust each axis?", "WEAT", "Furthest along each axis"):
        page.get_by_role("tab", name=label).click()
        page.wait_for_selector(APP_IDLE)
        charts_drawn(page)
        heights[label] = content_height(page)
        assert "x_from=he" in page.url and "y_to=big" in page.url
    assert max(heights.values()) < 4_000, heights


def test_a_card_with_one_word_at_each_end_says_what_it_cannot_assess(app_url, page):
    """/axes with one word at each end: the card says what it cannot assess and gives no verdict;
    no NaN anywhere on the page."""
    open_page(page, f"{app_url}/axes?x_from=small&x_to=big&y_from=&y_to=")
    page.get_by_role("tab", name="Can you trust each axis?").click()
    page.wait_for_selector(APP_IDLE)
    said = page.get_by_text(re.compile("no verdict \\(one word at each end")).first
    said.wait_for(timeout=60_000)
    text = page.inner_text("[data-testid='stMain']")
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)
    verdicts = [line for line in text.splitlines() if line.startswith("Axis x")]
    assert verdicts and not any("chance" in line or "separates" in line for line in verdicts), verdicts
    assert "Not assessed" in text


def test_a_cards_details_stay_unfolded_while_the_reader_looks_at_another_tab(app_url, page):
    """A folded part is drawn only while unfolded, and only the open tab is drawn: Streamlit forgets
    the state of an expander a run does not draw, and the page gives it back (widgets.fold)."""
    details = "Axis x: the words' intervals, the other geometry, the files"
    open_page(page, f"{app_url}/axes?x_from=he&x_to=she&y_from=small&y_to=big")
    page.get_by_role("tab", name="Can you trust each axis?").click()
    page.get_by_text(details, exact=True).wait_for(timeout=60_000)
    page.wait_for_selector(APP_IDLE)
    open_expander(page, details)
    figures = page.get_by_text("The card's figures", exact=True).first
    figures.wait_for(timeout=60_000)  # (drawn once unfolded)
    page.get_by_role("tab", name="WEAT").click()
    figures.wait_for(state="detached", timeout=60_000)
    page.wait_for_selector(APP_IDLE)
    page.get_by_role("tab", name="Can you trust each axis?").click()
    figures.wait_for(timeout=60_000)
    page.wait_for_selector(APP_IDLE)
    folded = page.locator("[data-testid='stExpander']").filter(has=page.get_by_text(details, exact=True))
    assert folded.first.locator("details[open]").count() == 1


# The root <svg> of a downloaded chart: its size, and its first rectangle (the paper, the
# chart's background).
SVG_SIZE = re.compile(r'<svg[^>]*\bwidth="(\d+(?:\.\d+)?)"[^>]*\bheight="(\d+(?:\.\d+)?)"')
SVG_PAPER = re.compile(r'<rect[^>]*style="fill: ?(rgb\([^)]*\))')


def _closest_to_dogs_hovered(browser, app_url: str, scheme: str):
    """Neighbours' "Closest to dogs" chart, drawn, with the mouse over it (its toolbar shown):
    the browser context, the page and the chart."""
    context = browser.new_context(viewport=VIEWPORT, color_scheme=scheme)
    page = context.new_page()
    open_page(page, f"{app_url}/neighbours?q=dogs")
    chart = page.locator("[data-testid='stPlotlyChart']").filter(has_text="Closest to dogs")
    chart.wait_for(state="visible", timeout=30_000)
    charts_drawn(page)
    chart.hover()
    return context, page, chart


def test_a_charts_toolbar_downloads_it_as_an_svg_at_its_size_and_theme(browser, app_url):
    """In dark mode, the camera of a chart's toolbar (the one every chart has, charts.CHART_CONFIG)
    says it downloads an SVG, and does: a vector file named after the chart's title, at the
    chart's size on screen, on the dark theme's background, with the chart's own text in it."""
    from bert_embeddings.figures import charts

    context, page, chart = _closest_to_dogs_hovered(browser, app_url, "dark")
    camera = chart.get_by_role("button", name=charts.DOWNLOAD_TITLE, exact=True)
    with page.expect_download(timeout=30_000) as download:
        camera.click()
    saved = download.value
    assert saved.suggested_filename == "closest-to-dogs.svg", saved.suggested_filename
    svg = open(saved.path(), encoding="utf-8").read()
    assert svg.lstrip().startswith("<svg") and "data:image/png" not in svg
    width, height = (float(n) for n in SVG_SIZE.search(svg).groups())
    shown = chart.locator(".main-svg").first.bounding_box()
    assert abs(width - shown["width"]) < 1 and abs(height - shown["height"]) < 1, (width, height, shown)
    paper = SVG_PAPER.search(svg).group(1)
    assert sum(int(n) for n in re.findall(r"\d+", paper)[:3]) < 150, paper  # the dark theme's
    background = page.locator("[data-testid='stApp']").evaluate("e => getComputedStyle(e).backgroundColor")
    assert paper.replace(" ", "") == background.replace(" ", ""), (paper, background)
    assert "Closest to dogs" in svg and "cosine similarity" in svg
    context.close()


def test_a_charts_toolbar_downloads_it_as_a_png_beside_the_svg(browser, app_url):
    """Beside the camera, every chart's toolbar has a PNG button (figures/toolbar.py): a picture
    named after the chart's title, at the chart's size on screen; the camera still gives the SVG
    after it (the button lends the camera its format for one click only)."""
    import struct

    from bert_embeddings.figures import charts, toolbar

    context, page, chart = _closest_to_dogs_hovered(browser, app_url, "light")
    png = chart.get_by_role("button", name=toolbar.PNG_TITLE, exact=True)
    png.wait_for(timeout=30_000)
    with page.expect_download(timeout=30_000) as download:
        png.click()
    saved = download.value
    assert saved.suggested_filename == "closest-to-dogs.png", saved.suggested_filename
    data = open(saved.path(), "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    shown = chart.locator(".main-svg").first.bounding_box()
    assert abs(width - shown["width"]) <= 1 and abs(height - shown["height"]) <= 1, (width, height, shown)
    with page.expect_download(timeout=30_000) as download:
        chart.get_by_role("button", name=charts.DOWNLOAD_TITLE, exact=True).click()
    assert download.value.suggested_filename == "closest-to-dogs.svg"
    context.close()
