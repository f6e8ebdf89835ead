"""Bytes to the browser and the time a reader waits, measured in Chromium.

One local server with the bert-base-shaped stand-in model (30,522 x 768, 512 positions) and
one headless Chromium. Bytes are what the server sends to the browser, counted on the wire by
a relay between the two (Streamlit's websocket messages, figures included, and any HTTP the
page fetches), from the action to the finished run:

- positions_mb: a visit to Positions by the sidebar, from another page;
- long_embedding_mb: the Embedding layer page after a sentence of more than 512 pieces;
- sentence_change_mb: the Embedding layer page after a change to a short sentence.

Times run from the key press to the moment the new results are drawn in the page (polled
every animation frame), the median over several inputs:

- neighbours_p50_s: Enter in the Neighbours word box until the bars show the new word;
- embedding_p50_s: Ctrl+Enter in sentence A until every figure that shows the pieces shows
  the new sentence's.

    .venv/bin/python -m bench.wire

With BENCH_QUICK=1: a small random checkpoint, no warm-up but the first page, one input for
each time instead of six and nine, and a shorter wait for a run's last messages (see
bench/__init__.py).

Last line: wire positions_mb=P long_embedding_mb=L sentence_change_mb=S neighbours_p50_s=N
embedding_p50_s=E. Targets: P <= 1, L <= 3, S <= 0.3, N <= 0.25, E <= 0.5.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench import full_or_quick
from bench.memory import bert_base_shaped
from bench.relay import Counter
from testkit.browser import APP_IDLE, launch_chromium, open_page, streamlit_server

WORDS = ("river", "queen", "music", "doctor", "winter", "garden", "travel", "silver", "planet")
SENTENCES = tuple(f"The {w} appeared near the old bridge yesterday." for w in WORDS)
LONG = " ".join(f"word{n % 50} and" for n in range(400))  # well over 512 pieces
# How many inputs each median is taken over (new sentences from the fourth on, and words), and
# how long a finished run is given for its last messages to arrive.
SENTENCES_TIMED, WORDS_TIMED = full_or_quick((len(WORDS) - 3, len(WORDS)), (1, 1))
LAST_MESSAGES_MS = full_or_quick(1500, 100)
# The pages opened first to warm every cache; a quick run opens only the last, where it starts.
WARM_UP = full_or_quick(("positions", "neighbours", "embedding_layer", "tokens"), ("tokens",))


def settle(page) -> None:
    """The run has finished and its last messages have arrived."""
    page.wait_for_selector(APP_IDLE, timeout=120_000)
    page.wait_for_timeout(LAST_MESSAGES_MS)


# A chart shows a word when its data or its title holds it: not its drawn text, where Plotly
# leaves out tick labels that would overlap on a crowded or not yet widened axis.
SHOWING = """(word) => [...document.querySelectorAll('.js-plotly-plot')].filter(c => {
    const title = (c.layout || {}).title;
    const texts = (c.data || []).flatMap(t => ['x', 'y', 'text', 'hovertext']
        .map(k => t[k]).filter(Array.isArray).flat().filter(v => typeof v === 'string'));
    texts.push(typeof title === 'string' ? title : (title || {}).text || '');
    return texts.some(text => text.includes(word));
})"""


def charts_show(page, word: str, instead_of: str | None, timeout_ms: int = 180_000) -> None:
    """Wait until a chart shows ``word`` and none shows ``instead_of`` any more: every figure that
    showed the old input shows the new one. (Counting the figures once and waiting for that many
    again hung a quick run for 180 s: a count taken while a page switch's charts were still in
    the page was higher than the page ever drew again.) If it never comes, say what is shown."""
    try:
        page.wait_for_function(
            f"([word, old]) => ({SHOWING})(word).length >= 1"
            f" && (old === null || ({SHOWING})(old).length === 0)",
            arg=[word, instead_of],
            polling="raf",
            timeout=timeout_ms,
        )
    except Exception as problem:
        titles = page.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot')]"
            ".map(c => JSON.stringify(((c.layout || {}).title || {}).text))"
        )
        state = page.evaluate(
            "() => document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state')"
        )
        raise RuntimeError(
            f"waited for charts to show {word!r} instead of {instead_of!r}: "
            f"{count_charts_showing(page, word)} and {count_charts_showing(page, instead_of or word)} do; "
            f"at {page.url}, script {state}, chart titles {titles}"
        ) from problem


def count_charts_showing(page, word: str) -> int:
    return page.evaluate(f"(word) => ({SHOWING})(word).length", word)


def type_sentence(page, text: str) -> None:
    area = page.get_by_label("Sentence A", exact=True)
    area.fill(text)
    area.press("Control+Enter")


def embedding_times(page) -> list[float]:
    """Ctrl+Enter in sentence A until every figure that showed the pieces shows the new sentence's."""
    seconds = []
    for number in range(3, 3 + SENTENCES_TIMED):  # (the third sentence is on the page)
        start = time.perf_counter()
        type_sentence(page, SENTENCES[number])
        charts_show(page, WORDS[number], instead_of=WORDS[number - 1])
        seconds.append(time.perf_counter() - start)
        settle(page)
    return seconds


def neighbours_times(page) -> list[float]:
    """Open Neighbours; then Enter in its word box until the bars show the new word."""
    page.locator("[data-testid='stSidebarNav']").get_by_text("Neighbours", exact=True).click()
    settle(page)
    box = page.get_by_label("Word or piece")
    seconds = []
    previous = None
    for word in WORDS[:WORDS_TIMED]:
        box.fill(word)
        start = time.perf_counter()
        box.press("Enter")
        charts_show(page, f"Closest to {word}", instead_of=previous)
        previous = f"Closest to {word}"
        seconds.append(time.perf_counter() - start)
        settle(page)
    return seconds


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        checkpoint = bert_base_shaped(Path(folder) / "bert-base-shaped")
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        with streamlit_server(env={"BERT_EXPLORER_MODEL": str(checkpoint)}) as (server, _process):
            counter = Counter(int(server.rsplit(":", 1)[1]))
            base = f"http://127.0.0.1:{counter.port}"
            for path in WARM_UP:
                open_page(page, f"{base}/{path}")
                settle(page)

            counter.take()
            page.locator("[data-testid='stSidebarNav']").get_by_text("Positions", exact=True).click()
            page.get_by_role("heading", name="Positions: learned, not a formula").wait_for(timeout=60_000)
            settle(page)
            positions_mb = counter.take()
            print(f"positions visit: {positions_mb:.2f} MB")

            page.locator("[data-testid='stSidebarNav']").get_by_text("Embedding layer", exact=True).click()
            settle(page)
            type_sentence(page, SENTENCES[0])
            charts_show(page, WORDS[0], instead_of=None)
            settle(page)
            counter.take()
            type_sentence(page, LONG)
            settle(page)
            long_mb = counter.take()
            print(f"embedding layer, a {len(LONG):,}-character sentence (512 pieces): {long_mb:.2f} MB")
            type_sentence(page, SENTENCES[1])
            charts_show(page, WORDS[1], instead_of=None)
            settle(page)
            counter.take()
            type_sentence(page, SENTENCES[2])
            charts_show(page, WORDS[2], instead_of=WORDS[1])
            settle(page)
            change_mb = counter.take()
            drawn = count_charts_showing(page, WORDS[2])
            print(
                f"embedding layer, a new short sentence: {change_mb:.2f} MB ({drawn} figures show the pieces)"
            )

            embedding_s = embedding_times(page)
            print("embedding layer, sentence to drawn (s):", " ".join(f"{s:.2f}" for s in embedding_s))

            neighbours_s = neighbours_times(page)
            print("neighbours, Enter to drawn (s):", " ".join(f"{s:.2f}" for s in neighbours_s))

            # Last, as its overlap figures go on in a background thread once the page is opened.
            counter.take()
            page.locator("[data-testid='stSidebarNav']").get_by_text("Geometry", exact=True).click()
            page.get_by_role("heading", name="Where this comes from").wait_for(timeout=180_000)
            settle(page)
            print(f"geometry visit (its figures, charts and tables): {counter.take():.2f} MB")
        browser.close()
    print(
        f"wire positions_mb={positions_mb:.2f} long_embedding_mb={long_mb:.2f} "
        f"sentence_change_mb={change_mb:.2f} neighbours_p50_s={statistics.median(neighbours_s):.2f} "
        f"embedding_p50_s={statistics.median(embedding_s):.2f}"
    )


if __name__ == "__main__":
    main()
