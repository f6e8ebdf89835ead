"""Starting the app and a headless Chromium, shared by the browser test and the benchmarks.

Follows Streamlit's own Playwright suite: start ``streamlit run`` headless on a free port,
poll ``/_stcore/health`` until it answers ``ok``, then wait for the app's script to have
finished (``data-test-script-state='notRunning'``) instead of sleeping.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from bert_embeddings.views import pages as registry

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
APP_IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
# url path -> title in the navigation, in the app's order (bert_embeddings/views/pages.py). Context
# stays last: it is the one page that loads the whole model, and the memory benchmark reads RSS
# before it.
PAGES = {page.url: page.title for page in registry.PAGES}


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def streamlit_command(script: str | Path, port: int, launcher: str = "streamlit") -> list[str]:
    """``streamlit run script`` on 127.0.0.1:``port``, as the tests and benchmarks start it."""
    return [
        sys.executable,
        "-m",
        launcher,
        "run",
        str(script),
        "--server.headless=true",
        f"--server.port={port}",
        "--server.address=127.0.0.1",
        "--browser.gatherUsageStats=false",
        "--server.fileWatcherType=none",
    ]


@contextmanager
def streamlit_server(
    script: str | Path = "app.py",
    env: dict | None = None,
    log: Path | None = None,
    unset: tuple[str, ...] = (),
    launcher: str = "streamlit",
):
    """Run ``streamlit run script`` on a free port; yield (base URL, process).

    ``env`` adds or overrides variables of this process's environment; ``unset`` removes some.
    ``launcher`` is the module run with ``python -m`` (bench/load uses a timed wrapper).
    """
    port = free_port()
    command = streamlit_command(script, port, launcher)
    out = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 - closed below
    environment = {k: v for k, v in {**os.environ, **(env or {})}.items() if k not in unset}
    if "BERT_EXPLORER_ROOMS" not in (env or {}):  # a server of its own: rooms of its own
        environment["BERT_EXPLORER_ROOMS"] = str(Path(tempfile.mkdtemp(prefix="rooms-")) / "rooms.sqlite3")
    process = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, process)
        yield base, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        if log:
            out.close()


def wait_healthy(base: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=1) as response:
                if response.read().decode().strip() == "ok":
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"{base} did not become healthy within {timeout} s")


# Pages that stand in for many people's machines on two cores: WebGL maps drawn in software by
# every one of them would measure this machine, not the app (Plotly shows its notice instead).
NO_WEBGL = ["--disable-webgl", "--disable-3d-apis"]


def launch_chromium(playwright, extra_args: tuple[str, ...] = ()):
    """Debian's Chromium, headless, from a started Playwright (the tests' ``browser`` fixture,
    testkit/pytest_chromium.py, and the benchmarks)."""
    args = [*CHROMIUM_ARGS, *extra_args]
    return playwright.chromium.launch(executable_path=chromium_path(), args=args, headless=True)


def open_page(page, url: str, timeout_ms: int = 90_000) -> None:
    """Go to a page of the app and wait until its script has finished running."""
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector(APP_IDLE, timeout=timeout_ms)


def back_to(page, path: str, most: int = 12) -> None:
    """Browser Back until the app shows the page at ``path`` (each change of settings is a step
    of the browser's history too, so a page may be several steps back); then waits for its run.
    Fails if it is not within ``most`` steps."""
    from urllib.parse import urlsplit

    for _ in range(most):
        page.go_back()
        page.wait_for_selector(APP_IDLE)
        if urlsplit(page.url).path == f"/{path}":
            return
    raise AssertionError(f"/{path} was not within {most} steps back: at {page.url}")


def rss_mb(pid: int) -> float:
    """Resident memory of one process, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def content_height(page) -> int:
    """How tall the page's content is: the main area or the sidebar, whichever is taller.
    Streamlit scrolls inside each of them, not the document."""
    return int(
        page.evaluate(
            "() => Math.max(document.body.scrollHeight, ...[\"[data-testid='stMain']\","
            " \"[data-testid='stSidebarContent']\"].map(s => document.querySelector(s)?.scrollHeight || 0))"
        )
    )


# The charts each page shows with the default input (drawn, or waiting for the view on a phone).
# Streamlit loads its Plotly code after a page's first run: a test waits for them (test_browser,
# test_phone_browser).
CHARTS_SHOWN = {
    "concepts": 2,
    "overview": 1,
    "tokens": 0,
    "embedding_layer": 4,
    "positions": 4,
    "segments": 2,
    "neighbours": 1,
    "maps": 2,  # the open tab's: the vocabulary map and its variance (the other tabs run when opened)
    "axes": 2,  # the open tab's: the words on the axes and their cosines (the other tabs run when opened)
    "geometry": 2,
    "compare": 0,
    "moved": 0,  # (its neighbour lists are computed on a click: the server's cache folder is its own)
    "context": 2,
}

# A chart on the page, drawn or waiting for the view as a placeholder (components/parts/on_view.py).
CHART_OR_WAITING = "[data-testid='stPlotlyChart'], .drawn-on-view"
# Every Plotly chart shown on the page drawn, each at its container's width (a chart redraws
# itself after the viewport changes size), and no placeholder of a chart not drawn yet
# (components/parts/on_view.py: a phone's chart below the fold) in the view. A chart in a tab not
# open or a folded expander is not shown (it has no box on the screen) and is drawn when opened.
CHARTS_DRAWN = """() => Array.from(document.querySelectorAll("[data-testid='stPlotlyChart']")).every(box => {
    if (!box.checkVisibility()) return true;
    const chart = box.querySelector('.js-plotly-plot');
    return chart && chart._fullLayout && chart._fullData
        && Math.abs(chart._fullLayout.width - chart.getBoundingClientRect().width) < 2;
}) && Array.from(document.querySelectorAll(".drawn-on-view")).every(box => {
    const seen = box.getBoundingClientRect();
    return !box.checkVisibility() || seen.bottom <= 0 || seen.top >= window.innerHeight;
})"""


def charts_drawn(page, timeout_ms: int = 60_000) -> None:
    """Wait until every chart on the page is drawn at its size."""
    page.wait_for_function(CHARTS_DRAWN, timeout=timeout_ms)


def fit_viewport_to_content(page, max_height: int = 6000) -> dict:
    """Make the viewport as tall as the content (at least 800 px, at most ``max_height``), so
    that everything on the page is on the screen at once; returns the size it had before."""
    before = dict(page.viewport_size)
    height = 0
    # (A late redraw can make the page taller after it was measured: measured again until the
    # content fits, a few times at most.)
    for _ in range(5):
        wanted = min(max_height, max(800, content_height(page)))
        if wanted <= height:
            break
        height = wanted
        page.set_viewport_size({"width": before["width"], "height": height})
        charts_drawn(page)
    return before


def screenshot_whole_page(page, path: Path, max_height: int = 6000) -> None:
    """Save the whole page, not only the part in the viewport."""
    fit_viewport_to_content(page, max_height)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))


# --- a workshop room in the browser ------------------------------------------------------------

# Each page's heading, by its title in the navigation, for the pages a room's leader visits.
HEADINGS = {
    "Tokens": "Tokens",
    "Maps": "Maps",
    "Neighbours": "Nearest neighbours in the vocabulary",
}
_people = itertools.count(1)


def as_shown(text: str) -> str:
    """A regular expression for ``text`` as the page shows it: echo.plain puts an invisible word
    joiner after each ':', '.' and '@' (so that nothing typed becomes a link)."""
    return "".join(re.escape(c) + ("\u2060?" if c in ":.@" else "") for c in text)


def new_page(browser, viewport: dict | None = None, scheme: str = "light"):
    """A new person's page, in a browser context of its own. Its requests say they come from an
    address of their own (X-Forwarded-For, 198.18.x.y, a benchmarking range): a server that
    trusts 127.0.0.1 as its proxy counts each page as another machine (room limits per address)."""
    number = next(_people)
    address = f"198.18.{number // 250 % 250}.{number % 250 + 1}"
    context = browser.new_context(
        viewport=viewport or {"width": 1280, "height": 900},
        extra_http_headers={"X-Forwarded-For": address},
        color_scheme=scheme,
    )
    return context.new_page()


def nav(page, title: str) -> None:
    """Click a page's title in the sidebar's navigation (on a machine whose cores are busy with
    other pages, a browser can take long to take a click: a generous limit, not a wait)."""
    page.locator("[data-testid='stSidebarNav']").get_by_text(title, exact=True).click(timeout=120_000)


def click_until(page, button, shown, attempts: int = 3) -> None:
    """Click ``button`` until ``shown`` is visible, waiting up to a minute each time: on a busy
    machine a click can be lost, or answered late. It is clicked again only while the button is
    still there; a second click on a button whose first took effect reaches no widget (the run
    that answers it draws another in its place), so a late answer is never doubled."""
    for attempt in range(attempts):
        if attempt == 0 or button.is_visible():
            try:
                button.click(timeout=10_000)
            except Exception:  # gone meanwhile: the first click was answered
                pass
        try:
            shown.wait_for(state="visible", timeout=60_000)
            return
        except Exception:
            continue
    shown.wait_for(state="visible", timeout=60_000)


# The expander's own animations (its height and corners) have ended; endless ones (a spinner in it)
# do not count.
_EXPANDER_STILL = """expander => expander.getAnimations({subtree: true}).every(
    a => a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity)"""


def open_expander(page, title: str) -> None:
    """Open the expander ``title`` and wait until it has stopped growing: a click on a button in
    it while it opens can land beside the button (it moves under the pointer) or be lost."""
    named = page.get_by_text(title, exact=True)
    expander = page.locator("[data-testid='stExpander']").filter(has=named).first
    expander.get_by_text(title, exact=True).click()
    opened(page, expander)


def opened(page, expander) -> None:
    """Wait until ``expander`` (an stExpander element), just clicked, is open and still."""
    expander.locator("details[open]").wait_for(state="attached")
    page.wait_for_function(_EXPANDER_STILL, arg=expander.element_handle())


def lead_room(page, base: str) -> str:
    """Lead a new workshop room from ``page`` (on the app at ``base``); its code."""
    open_page(page, f"{base}/concepts")
    open_expander(page, "Workshop room")
    join = page.locator("[data-testid='stCode']").first
    click_until(page, page.get_by_role("button", name="Lead a new room"), join)
    return join.inner_text().strip().rsplit("=", 1)[1]
