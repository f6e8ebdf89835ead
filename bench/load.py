"""Thirty people on one server: a workshop's load, driven by real browser sessions.

One local server (the bert-base-shaped stand-in model, as in bench/memory) and one headless
Chromium with a separate context (its own cookies, its own Streamlit session) per person.
First every session opens the Overview page (the app's first load, JavaScript and Plotly
included); once all are in, every session at the same time:

1. types its own sentence in the sidebar and waits for its own pieces in the figure;
2. opens the Neighbours page from the sidebar;
3. runs three word queries of its own, one after another.

Those five steps are the interactions timed, each from the key press or click to the
finished result on screen, with one 30 s limit for the whole step. After every step the
session checks that sentence A still holds its own sentence; after each query, that the
neighbour bars list exactly the pieces a direct call to the core search returns for that
word with the page's defaults (anything else is cross-talk or a wrong answer). A step over
the limit, an exception on the page, or a mismatch counts as an error.

The first load is reported apart, not as an interaction: thirty browsers compiling the app's
JavaScript at once on this machine's two cores measures the machine (a workshop's laptops
each have their own CPU). For the same reason the pages are asked for reduced motion.

A warm-up session first loads the model and its caches, and a single session is timed
alone; then come the thirty. The server's own view: a wrapper inside the server
(bench/timed_server.py) notes each script run's wall-clock time, and its CPU seconds come
from /proc, as do the browsers'. Memory growth per session is the server's resident memory
with all thirty sessions open, less its memory after the single session, over thirty.

    .venv/bin/python -m bench.load [--sessions 30]

With BENCH_QUICK=1: two sessions at once, on a small random checkpoint, and no warm-up session
(the single session loads the model) (see bench/__init__.py).

Last line: load sessions=N errors=E p50_s=A p95_s=B single_s=C server_run_ratio=R
rss_growth_mb_per_session=M. A and B are over every interaction of every session, C is the
single session's median interaction, R is the median server-side wall time per script run
under load over the same alone (the line above it gives the CPU-time ratio too).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import async_playwright

from bench import full_or_quick
from bench.memory import bert_base_shaped
from bert_embeddings.analysis import geometry, vocab_search
from bert_embeddings.figures import neighbours_page
from bert_embeddings.models import checkpoints
from bert_embeddings.models.glyphs import legible
from testkit.browser import APP_IDLE, CHROMIUM_ARGS, ROOT, chromium_path, rss_mb, streamlit_server

WAIT_LIMIT_MS = 30_000
FIRST_LOAD_LIMIT_MS = 180_000
# Whole words of bert-base-uncased's vocabulary, three queries per session.
WORDS = (
    "apple river music green teacher window garden silver ocean winter "
    "doctor bread castle dream engine forest guitar honey island jacket "
    "kitchen lemon mountain needle orange pencil queen rabbit school tiger "
    "umbrella valley wallet yellow zebra anchor bottle candle desert eagle "
    "feather glass hammer iron jungle kettle ladder marble nest oyster "
    "piano quiet rocket saddle tunnel uncle violin wheat yacht zero "
    "autumn butter cotton dragon empire fabric galaxy harbor insect jewel "
    "knight lantern meadow novel orbit palace quarter ribbon spider throne "
    "urban velvet whale crystal youth cloud bridge stone flower horse"
).split()
COLOURS = "red blue green black white brown pink gray purple golden".split()
# A session alone before the single one, loading the model and its caches; and the seconds the
# server is left to settle before its memory is read.
WARM_UP = full_or_quick(True, False)
SETTLE_SECONDS = full_or_quick(2, 0.5)


@dataclass
class Session:
    number: int
    sentence: str
    words: tuple[str, ...]
    waits: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    first_load: float = float("nan")
    context: object = None
    page: object = None


def sessions_for(count: int, offset: int = 0) -> list[Session]:
    out = []
    for n in range(offset, offset + count):
        words = tuple(WORDS[(3 * n + i) % len(WORDS)] for i in range(3))
        colour = COLOURS[n % len(COLOURS)]
        out.append(Session(n, f"The {colour} {words[0]} met {n} friends near the {words[1]}.", words))
    return out


def expected_bars(model, index, word: str) -> list[str]:
    """What the Neighbours page must list for ``word`` with its default settings."""
    options = neighbours_page.Settings()  # the page's own options, as a fresh page has them
    query = vocab_search.word_query(index, model.tokenizer, word)
    space = geometry.fit(index.table, options.geometry, 0)  # D counts only for all-but-the-top
    found = vocab_search.nearest(index, query.vector, options.k, space, options.filters(query.ids))
    return [f"{rank}. {legible(piece)}" for rank, piece in enumerate(found.pieces, start=1)]


def every_expected_bars(checkpoint: Path, sessions: list[Session]) -> dict[str, list[str]]:
    """What the Neighbours page must list for "king" and for each session's words."""
    model = checkpoints.load_model(str(checkpoint))
    index = vocab_search.build_index(model.tables.word_embeddings, model.tokenizer)
    return {w: expected_bars(model, index, w) for s in sessions for w in ("king", *s.words)}


async def timed(session: Session, what: str, action, done) -> bool:
    """Do ``action``, then wait for ``done``; note the wait, or an error past the limit."""
    started = time.perf_counter()

    async def both():
        await action()
        await done()

    try:
        await asyncio.wait_for(both(), WAIT_LIMIT_MS / 1000)  # one limit for the whole step
    except Exception as exc:  # a timeout or a vanished element: the session saw no answer
        reason = "no answer within the limit" if isinstance(exc, TimeoutError) else str(exc)
        session.errors.append(f"{what}: {type(exc).__name__}: {reason.splitlines()[0][:120]}")
        return False
    session.waits.append(time.perf_counter() - started)
    return True


async def check_own_view(page, session: Session, what: str) -> None:
    if await page.locator("[data-testid='stException']").count():
        session.errors.append(f"{what}: an exception on the page")
    sentence = await page.get_by_label("Sentence A", exact=True).input_value()
    if sentence != session.sentence:
        session.errors.append(f"{what}: sentence A shows {sentence!r}")


async def open_app(browser, base: str, session: Session) -> None:
    """Open the Tokens page in a new browser context: a new Streamlit session.

    This is not one of the timed interactions: thirty browsers starting the app's JavaScript
    at once on this machine's two cores measures the machine, not the server (a workshop's
    laptops each have their own CPU). Its time is reported apart.
    """
    # Reduced motion: thirty pages animating "running" indicators while they wait would take
    # the cores from the server; the server's work is the same either way.
    session.context = await browser.new_context(
        viewport={"width": 1280, "height": 900}, reduced_motion="reduce"
    )
    session.page = await session.context.new_page()
    session.page.set_default_timeout(WAIT_LIMIT_MS)
    started = time.perf_counter()
    try:
        await session.page.goto(
            f"{base}/overview", wait_until="domcontentloaded", timeout=FIRST_LOAD_LIMIT_MS
        )
        await session.page.wait_for_selector(APP_IDLE, timeout=FIRST_LOAD_LIMIT_MS)
        # Streamlit fetches its Plotly code only once a page has a chart: wait for that too.
        chart = session.page.locator("[data-testid='stPlotlyChart'] .main-svg").first
        await chart.wait_for(state="visible", timeout=FIRST_LOAD_LIMIT_MS)
    except Exception as exc:
        session.errors.append(f"first load: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
    session.first_load = time.perf_counter() - started


async def interact(session: Session, expected: dict[str, list[str]]) -> None:
    """The five timed steps, each checked for the session's own sentence and results."""
    page = session.page
    if session.errors:  # it never opened
        return
    area = page.get_by_label("Sentence A", exact=True)

    async def type_sentence():
        await area.fill(session.sentence)
        await area.press("Control+Enter")

    # The Overview figure labels its rows "position · piece": wait for the session's own.
    own_piece = page.locator("[data-testid='stPlotlyChart']").get_by_text(f"· {session.words[0]}")
    if not await timed(session, "sentence", type_sentence, lambda: own_piece.first.wait_for()):
        return
    await page.wait_for_selector(APP_IDLE)
    await check_own_view(page, session, "sentence")

    nav = page.locator("[data-testid='stSidebarNav']").get_by_text("Neighbours", exact=True)
    charts = page.locator("[data-testid='stPlotlyChart']")
    first_chart = charts.get_by_text("Closest to king", exact=True)
    if not await timed(session, "open neighbours", nav.click, first_chart.wait_for):
        return
    await page.wait_for_selector(APP_IDLE)
    await check_own_view(page, session, "open neighbours")

    field_ = page.get_by_label("Word or piece")
    for word in session.words:

        async def ask(word=word):
            await field_.fill(word)
            await field_.press("Enter")

        title = charts.get_by_text(f"Closest to {word}", exact=True)
        if not await timed(session, f"query {word}", ask, title.wait_for):
            shown = await charts.locator(".gtitle").all_text_contents()
            state = await page.locator("[data-testid='stApp']").get_attribute("data-test-script-state")
            n_charts = await charts.count()
            exc = await page.locator("[data-testid='stException']").all_text_contents()
            exc += await page.locator("[data-testid='stAlert']").all_text_contents()
            shot = ROOT / f"test-artifacts/load-failed-{session.number}.png"
            await page.screenshot(path=shot, full_page=True)
            late = "no"
            try:  # slow, or lost? Give it another minute to tell.
                await title.wait_for(timeout=60_000)
                late = "yes"
            except Exception:
                pass
            session.errors[-1] += (
                f" (field {await field_.input_value()!r}; titles {shown}; state {state};"
                f" charts {n_charts};"
                f" exceptions {exc}; arrived later: {late})"
            )
            return
        await page.wait_for_selector(APP_IDLE)
        await check_own_view(page, session, f"query {word}")
        bars = charts.filter(has_text=f"Closest to {word}").locator("g.ytick text")
        shown = sorted(await bars.all_text_contents(), key=lambda label: int(label.split(".")[0]))
        if shown != expected[word]:
            session.errors.append(f"query {word}: bars {shown[:3]}... not {expected[word][:3]}...")


async def run_all(browser, base: str, sessions: list[Session], expected) -> None:
    """Everyone opens the app; once all are in, everyone does their five steps at once."""
    await asyncio.gather(*(open_app(browser, base, s) for s in sessions))
    await asyncio.gather(*(interact(s, expected) for s in sessions))


def run_times(path: Path, start: int) -> tuple[list[float], int]:
    lines = path.read_text().splitlines()
    return [float(line.split()[1]) for line in lines[start:]], len(lines)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def browser_cpu_seconds() -> float:
    """CPU seconds of every Chromium process and of Playwright's driver, from /proc."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        if "chrom" in name or name == "node":
            total += cpu_seconds(int(stat.parent.name))
    return total


async def alone(browser, base: str, session: Session, expected, log: Path, pid: int):
    """One session with nobody else on the server: the times of the script runs it caused,
    and the server's CPU seconds per run."""
    _, mark = run_times(log, 0)
    cpu = cpu_seconds(pid)
    await run_all(browser, base, [session], expected)
    runs, _ = run_times(log, mark)
    cpu_per_run = (cpu_seconds(pid) - cpu) / max(1, len(runs))
    await session.context.close()
    return runs, cpu_per_run


def print_server_runs(single_runs: list[float], single_cpu: float, crowd_runs: list[float], crowd_cpu: float):
    """The server's own view of its script runs: wall-clock and CPU time, alone and under load."""
    print(
        f"server, per script run: {len(single_runs)} runs alone, median "
        f"{statistics.median(single_runs):.3f} s and {single_cpu:.3f} CPU s; "
        f"{len(crowd_runs)} runs under load, median "
        f"{statistics.median(crowd_runs):.3f} s and {crowd_cpu:.3f} CPU s "
        f"(CPU ratio {crowd_cpu / single_cpu:.2f})"
    )


async def main_async(count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        checkpoint = bert_base_shaped(Path(folder) / "bert-base-shaped")
        warm, single, *_ = sessions_for(2, offset=count)
        crowd = sessions_for(count)
        everyone = [warm, single, *crowd]
        expected = every_expected_bars(checkpoint, everyone)
        log = Path(folder) / "run-times.txt"
        log.touch()
        env = {"BERT_EXPLORER_MODEL": str(checkpoint), "BERT_EXPLORER_RUN_TIMES": str(log)}
        with streamlit_server(env=env, launcher="bench.timed_server") as (base, server):
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(
                    executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
                )
                if WARM_UP:
                    await alone(browser, base, warm, expected, log, server.pid)
                single_runs, single_cpu = await alone(browser, base, single, expected, log, server.pid)
                await asyncio.sleep(SETTLE_SECONDS)
                rss_before = rss_mb(server.pid)
                _, mark = run_times(log, 0)  # the crowd's runs are the lines from here on

                cpu, browsers_cpu = cpu_seconds(server.pid), browser_cpu_seconds()
                started = time.perf_counter()
                await run_all(browser, base, crowd, expected)
                elapsed = time.perf_counter() - started
                crowd_runs, mark = run_times(log, mark)
                server_total = cpu_seconds(server.pid) - cpu
                browsers_total = browser_cpu_seconds() - browsers_cpu
                crowd_cpu = server_total / max(1, len(crowd_runs))
                rss_after = rss_mb(server.pid)
                for s in crowd:
                    await s.context.close()
                await browser.close()

    waits = [w for s in crowd for w in s.waits]
    errors = [f"session {s.number}: {e}" for s in everyone for e in s.errors]
    for line in errors[:20]:
        print("error:", line)
    missing = sum(5 - len(s.waits) for s in crowd)
    p50 = statistics.median(waits) if waits else float("nan")
    p95 = statistics.quantiles(waits, n=20)[-1] if len(waits) >= 20 else max(waits, default=float("nan"))
    single_s = statistics.median(single.waits) if single.waits else float("nan")
    run_ratio = statistics.median(crowd_runs) / statistics.median(single_runs)
    growth = (rss_after - rss_before) / count
    print(f"{count} sessions: {len(waits)} interactions in {elapsed:.1f} s, {missing} not reached")
    loads = sorted(s.first_load for s in crowd)
    print(f"first load of the app: median {statistics.median(loads):.1f} s, slowest {loads[-1]:.1f} s")
    print(f"slowest interaction {max(waits, default=0):.2f} s (limit {WAIT_LIMIT_MS / 1000:.0f} s)")
    print_server_runs(single_runs, single_cpu, crowd_runs, crowd_cpu)
    print(
        f"CPU seconds while the {count} ran ({elapsed:.0f} s on 2 cores): server {server_total:.0f}, "
        f"browsers and their driver {browsers_total:.0f}"
    )
    print(f"server rss: {rss_before:.0f} MB after the single session, {rss_after:.0f} MB with {count} open")
    print(
        f"load sessions={count} errors={len(errors)} p50_s={p50:.2f} p95_s={p95:.2f} single_s={single_s:.2f} "
        f"server_run_ratio={run_ratio:.2f} rss_growth_mb_per_session={growth:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=full_or_quick(30, 2))
    asyncio.run(main_async(parser.parse_args().sessions))


if __name__ == "__main__":
    main()
