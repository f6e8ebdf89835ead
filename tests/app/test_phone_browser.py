"""Every page on a phone (390 x 844, a phone's browser as the server sees it, so that the sidebar
folds away as on a real one), on a tablet (768 x 1024) and on a desktop (1440 x 900), in real
headless Chromium: nothing runs past the screen's width (a formula neither), and on every chart
the title is whole, the legend and the toolbar are clear of it, the panels' titles are clear of
each other, and so are a map's labels of points; and on a phone and a tablet axe-core finds
nothing serious, in the light theme and in the dark."""

from __future__ import annotations

import re

import pytest

from bert_embeddings.views import pages as registry
from testkit.axe import audit, serious
from testkit.browser import (
    APP_IDLE,
    CHART_OR_WAITING,
    CHARTS_SHOWN,
    charts_drawn,
    open_page,
    streamlit_server,
)
from testkit.pytest_chromium import playwright_api

sync_api = playwright_api()

pytestmark = [pytest.mark.xdist_group("phone-browser"), pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
TABLET = {"width": 768, "height": 1024}
DESKTOP = {"width": 1440, "height": 900}
PHONE_AGENT = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.0 Mobile/15E148 Safari/604.1"
)

# What overlaps or runs off, as the browser lays it out: the page wider than the screen (a tab
# strip scrolls by itself, as Streamlit draws it); on a phone, a table too close to what is above
# it for its toolbar, and a chart's legend beside its plot (taking its width); a chart's toolbar
# over its titles (shown on hover or a tap); a chart's title past its chart's edges; its legend
# over its title; two of its titles (a figure's, and each panel's above its plot) over each
# other; two labels of points on a map over each other.
FOUND = """async () => {
  await document.fonts.ready;  // (a formula measured in a fallback font is wider)
  const found = [], box = e => e.getBoundingClientRect();
  const meets = (a, b) =>
    a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const wide = document.documentElement.scrollWidth;
  if (wide > innerWidth) { found.push(`the page is ${wide} px wide`); }
  document.querySelectorAll(".katex-display .katex-html").forEach(formula => {
    const drawn = box(formula);
    if (drawn.width && (drawn.left < -1 || drawn.right > innerWidth + 1)) {
      found.push(`a formula runs past the screen`);
    }
  });
  if (innerWidth <= 640) {  // a tap shows a table's toolbar (44 px) above its right end
    document.querySelectorAll("[data-testid='stDataFrame']").forEach((table, n) => {
      const above = table.closest("[data-testid='stElementContainer']").previousElementSibling;
      const shown = e => e.getClientRects().length > 0;  // (not in a tab that is not open)
      if (above && shown(table) && shown(above) && box(table).top - box(above).bottom < 44) {
        found.push(`table ${n}: its toolbar would lie over what is above it`);
      }
    });
  }
  document.querySelectorAll("[data-testid='stPlotlyChart']").forEach((chart, n) => {
    const edges = box(chart), plot = chart.querySelector(".nsewdrag");
    const title = chart.querySelector(".gtitle"), top = plot ? box(plot).top : edges.bottom;
    const titles = [...chart.querySelectorAll(".annotation")]
      .filter(a => box(a).bottom <= top + 2 && a.textContent.trim());
    if (title && title.textContent.trim()) {
      const t = box(title), legend = chart.querySelector(".legend");
      if (t.left < edges.left - 1 || t.right > edges.right + 1) {
        found.push(`chart ${n}: its title is cut: ${title.textContent}`);
      }
      if (legend && meets(box(legend), t)) { found.push(`chart ${n}: its legend lies over its title`); }
      titles.push(title);
    }
    const toolbar = chart.querySelector(".modebar");  // (shown on hover, or on a tap)
    if (toolbar) {
      titles.filter(t => meets(box(toolbar), box(t)))
        .forEach(t => found.push(`chart ${n}: its toolbar would lie over '${t.textContent}'`));
      if ((__COVERED__)(chart)) { found.push(`chart ${n}: its toolbar is hidden or covered`); }
    }
    const legend = chart.querySelector(".legend");
    if (innerWidth <= 640 && legend && plot && box(legend).left >= box(plot).right - 1
        && box(legend).top < box(plot).bottom && box(legend).bottom > box(plot).top) {
      found.push(`chart ${n}: its legend is beside its plot`);
    }
    const labels = [...chart.querySelectorAll(".annotation")]
      .filter(a => box(a).top > top + 2 && a.textContent.trim());
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        if (meets(box(labels[i]), box(labels[j]))) {
          found.push(`chart ${n}: label '${labels[i].textContent}' over '${labels[j].textContent}'`);
        }
      }
    }
    for (let i = 0; i < titles.length; i++) {
      for (let j = i + 1; j < titles.length; j++) {
        if (meets(box(titles[i]), box(titles[j]))) {
          found.push(`chart ${n}: '${titles[i].textContent}' over '${titles[j].textContent}'`);
        }
      }
    }
  });
  return found;
}"""
# Whether a chart's toolbar, where it is on the screen, is hidden (clipped) or under something
# else: a click on its first button would not reach it.
COVERED = """chart => {
  const toolbar = chart.querySelector(".modebar"), button = toolbar && toolbar.querySelector(".modebar-btn");
  const b = button && button.getBoundingClientRect();
  if (!b || !b.width || b.top < 0 || b.bottom > innerHeight) { return false; }  // (off the screen)
  const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
  return !hit || !toolbar.contains(hit);
}"""
FOUND = FOUND.replace("__COVERED__", COVERED)
# Every toolbar reachable: waited for (a moment of a rerun may lie over one), then looked at again.
TOOLBARS_REACHABLE = f"""() => ![...document.querySelectorAll("[data-testid='stPlotlyChart']")]
    .some({COVERED})"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with streamlit_server(log=tmp_path_factory.mktemp("phone") / "server.log") as (base, _process):
        yield base


BACKGROUND = "() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor"


# A displayed formula's two forms (components/parts/draw.formula): the page's style shows one for
# the screen's width. A rerun can redraw that style a moment after the formulas, so the page is
# looked at once it has.
ONE_FORMULA_SHOWN = """() => [...document.querySelectorAll('.st-key-formula-wide, .st-key-formula-narrow')]
    .filter(form => form.checkVisibility()).length <= 1"""


# A chart draws its annotations (a map's labels, its panels' titles) a moment after its traces.
ANNOTATIONS_DRAWN = """() => [...document.querySelectorAll('.js-plotly-plot')].every(chart =>
    ((chart.layout || {}).annotations || []).length <= chart.querySelectorAll('.annotation').length)"""


def opened(page, url: str) -> None:
    open_page(page, url)
    # (the charts come a moment after the run: a look before they have is a look at half a page;
    # at least: What moved shows its maps once another test has computed its lists)
    shown = CHARTS_SHOWN[url.rsplit("/", 1)[1]]
    page.wait_for_function(f"() => document.querySelectorAll(`{CHART_OR_WAITING}`).length >= {shown}")
    charts_drawn(page)
    page.wait_for_selector(APP_IDLE)
    page.wait_for_function(ONE_FORMULA_SHOWN)
    page.wait_for_function(ANNOTATIONS_DRAWN)
    try:
        page.wait_for_function(TOOLBARS_REACHABLE, timeout=10_000)
    except sync_api.TimeoutError:
        pass  # FOUND says which


def looked_at(browser, server, url: str, viewport: dict, phone: bool) -> tuple[list[str], dict]:
    """What overlaps or runs off on the page (FOUND), and the serious axe-core findings on it in
    the light and the dark theme."""
    context = browser.new_context(
        viewport=viewport, user_agent=PHONE_AGENT if phone else None, is_mobile=phone, has_touch=phone
    )
    page = context.new_page()
    try:
        opened(page, f"{server}/{url}")
        if phone:  # (the sidebar folded away, off the screen: the page is the screen's)
            sidebar = page.locator("[data-testid='stSidebar']").bounding_box()
            assert sidebar is None or sidebar["x"] + sidebar["width"] <= 1, sidebar
        found, problems = page.evaluate(FOUND), {"light": serious(audit(page))}
        page.emulate_media(color_scheme="dark")  # (the app follows the system's theme)
        opened(page, f"{server}/{url}")
        background = page.evaluate(BACKGROUND)
        assert sum(int(n) for n in re.findall(r"\d+", background)[:3]) < 200, background  # dark
        problems["dark"] = serious(audit(page))
        return found, problems
    finally:
        context.close()


@pytest.mark.parametrize("url", [page.url for page in registry.PAGES])
def test_every_page_fits_a_phone(browser, server, url):
    assert looked_at(browser, server, url, PHONE, phone=True) == ([], {"light": [], "dark": []})


@pytest.mark.parametrize("url", [page.url for page in registry.PAGES])
def test_every_page_fits_a_tablet(browser, server, url):
    assert looked_at(browser, server, url, TABLET, phone=False) == ([], {"light": [], "dark": []})


@pytest.mark.parametrize("url", [page.url for page in registry.PAGES])
def test_nothing_lies_over_anything_else_on_a_desktop(browser, server, url):
    """At 1440 x 900, with a mouse: a chart's toolbar (shown on hover) clear of its titles,
    among the rest."""
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        opened(page, f"{server}/{url}")
        assert page.evaluate(FOUND) == []
    finally:
        context.close()
