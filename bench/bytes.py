"""What each page and each step of the first lesson sends a browser: the bytes a shared Wi-Fi carries.

One local server with the bert-base-shaped stand-in model and one headless Chromium at 1440 x 900.
Bytes are those of Streamlit's websocket as they travel (compressed where the browser and the
server agree to: .streamlit/config.toml), counted by a relay between the two (bench/relay.py),
from the click until the page has settled: its run over and no frame for a second. Beside them,
the messages' own size (figures, tables, texts), from Chromium's record of the socket. The page's
code and styles are left out: the browser has them from the first page on.

- every page at its first view, in the navigation's order: the first by its address (its frames
  carry the app around it too), each other by its link in the sidebar; its kB, and over the pages
  their median, their largest and which page that is;
- each Next of the first built-in lesson, opened by its link: each step's kB, and the largest.

    .venv/bin/python -m bench.bytes

With BENCH_QUICK=1: a small random checkpoint, three pages (the first, Tokens and Positions) and
the lesson's first Next.

Last line (kB on the wire): bytes pages=N median_kb=A max_kb=B max_page=NAME lesson_max_kb=C.
Targets: B <= 150 and C <= 150, the map of the whole vocabulary (Maps) <= 400."""

from __future__ import annotations

import base64
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench import full_or_quick
from bench.memory import bert_base_shaped
from bench.relay import Counter
from bert_embeddings.lessons import builtin
from bert_embeddings.views import pages as registry
from testkit.browser import APP_IDLE, launch_chromium, nav, open_page, streamlit_server

LESSON_NAME = builtin.NAMES[0]  # the first lesson, as the first page offers it
LESSON = builtin.load(LESSON_NAME)
# A quick run: the first page, Tokens and Positions (the heaviest, which a quick run names too).
PAGES = full_or_quick(
    registry.PAGES, tuple(registry.BY_URL[url] for url in ("concepts", "tokens", "positions"))
)
NEXTS = full_or_quick(len(LESSON.steps) - 1, 1)
QUIET_S = full_or_quick(1.0, 0.3)  # no frame for this long after the run: the page has settled
MOST_S = 120.0  # a page that has not settled by then is measured as it stands, and said so


class Frames:
    """The payload bytes of the websocket frames the page receives, as Chromium records them."""

    def __init__(self, page) -> None:
        self.received, self.last = 0, time.monotonic()
        session = page.context.new_cdp_session(page)
        session.on("Network.webSocketFrameReceived", self._frame)
        session.send("Network.enable")

    def _frame(self, event: dict) -> None:
        response = event["response"]
        payload = response["payloadData"]
        # Binary frames (opcode 2, Streamlit's protobuf messages) are given in base64.
        self.received += len(base64.b64decode(payload)) if response["opcode"] == 2 else len(payload.encode())
        self.last = time.monotonic()

    def take(self) -> float:
        kilobytes, self.received = self.received / 1000, 0
        return kilobytes


def settle(page, frames: Frames, what: str) -> None:
    """The run is over and no frame has come for QUIET_S."""
    page.wait_for_selector(APP_IDLE, timeout=MOST_S * 1000)
    started = time.monotonic()
    while time.monotonic() - frames.last < QUIET_S or page.locator(APP_IDLE).count() == 0:
        if time.monotonic() - started > MOST_S:
            print(f"{what}: frames still coming after {MOST_S:.0f} s; measured as it stands")
            return
        page.wait_for_timeout(100)


class Sent:
    """What the server has sent since the last take: kB on the wire, and kB of messages."""

    def __init__(self, page, wire: Counter) -> None:
        self.frames, self.wire = Frames(page), wire

    def take(self) -> tuple[float, float]:
        return self.wire.take() * 1000, self.frames.take()


def arrive(page, sent: Sent, shown: registry.Page) -> tuple[float, float]:
    """Click ``shown``'s link in the sidebar; the kB until its page has settled."""
    sent.take()
    nav(page, shown.title)
    path = f"/{shown.url}"
    page.wait_for_url(
        lambda url: url.split("?")[0].endswith(path), wait_until="commit", timeout=MOST_S * 1000
    )
    settle(page, sent.frames, shown.title)
    return sent.take()


def step_shown(page, number: int) -> None:
    text = f"step {number} of {len(LESSON.steps)}"
    page.locator("[data-testid='stProgress']").filter(has_text=text).wait_for(timeout=MOST_S * 1000)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        checkpoint = bert_base_shaped(Path(folder) / "bert-base-shaped")
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        with streamlit_server(env={"BERT_EXPLORER_MODEL": str(checkpoint)}) as (server, _process):
            wire = Counter(int(server.rsplit(":", 1)[1]), only=b"GET /_stcore/stream")
            base, sent = f"http://127.0.0.1:{wire.port}", Sent(page, wire)
            sent.take()
            open_page(page, f"{base}/{PAGES[0].url}")  # its frames: the page, and the app around it
            settle(page, sent.frames, PAGES[0].title)
            sizes = {PAGES[0].title: sent.take()}
            for shown in PAGES[1:]:
                sizes[shown.title] = arrive(page, sent, shown)
            for shown in PAGES:
                on_wire, messages = sizes[shown.title]
                print(f"page {shown.url}: {on_wire:.1f} kB ({messages:.1f} kB of messages)")

            open_page(page, f"{base}/?lesson={LESSON_NAME}")
            step_shown(page, 1)
            settle(page, sent.frames, "the lesson's first step")
            sent.take()
            steps = []
            for number in range(2, NEXTS + 2):
                page.get_by_role("button", name="Next", exact=True).click()
                step_shown(page, number)
                settle(page, sent.frames, f"step {number}")
                steps.append(sent.take())
                (on_wire, messages), page_of = steps[-1], LESSON.steps[number - 1].page
                print(f"lesson step {number} ({page_of}): {on_wire:.1f} kB ({messages:.1f} kB of messages)")
        browser.close()
    kb = {title: on_wire for title, (on_wire, _) in sizes.items()}
    largest = max(kb, key=kb.get)
    print(
        f"bytes pages={len(kb)} median_kb={statistics.median(kb.values()):.0f} "
        f"max_kb={kb[largest]:.0f} max_page={largest.replace(' ', '_')} "
        f"lesson_max_kb={max(on_wire for on_wire, _ in steps):.0f}"
    )


if __name__ == "__main__":
    main()
