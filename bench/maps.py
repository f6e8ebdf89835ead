"""The t-SNE map of every vocabulary row: time, memory, faithfulness, and what it costs others.

Time and memory on the bert-base-shaped stand-in (30,522 x 768), served by one local server
to one headless Chromium with two sessions. One session opens the Maps page with t-SNE on a
cold cache: cold_s runs from that request to the map drawn (the page shows its faithfulness).
Meanwhile the other session keeps moving between five pages by the sidebar, as in
bench/hostile; its p95 page time is other_session_p95_s, and the same sessions' p95 with no
map being computed is printed above the last line as the control. The server's resident
memory and its worker process's are sampled every 0.1 s: peak_extra_mb is their peak sum
above the server's RSS before the request; what the server keeps once the map is done is
printed too. reload_s is the time a new process takes from the table in memory to the map
read back from disk and checked (what a restarted or woken app does). Faithfulness is
measured on the bundled model (30,522 x 384): recall_at_10 for t-SNE, and for the first two
principal components.

    .venv/bin/python -m bench.maps

With BENCH_QUICK=1: a small random checkpoint, no warm-up visits, a 1 s control, the other
session visiting each page once at most while the map is computed, t-SNE of 10 iterations
(for faithfulness on the bundled model's first 3,000 rows too), the map's worker at normal
priority, and shorter waits (see bench/__init__.py); the request with no other session finds
the map the first one computed in its cache folder instead of computing it again.

Last line: maps method=t-SNE cold_s=C reload_s=R recall_at_10=Q pca_recall_at_10=P
peak_extra_mb=M other_session_p95_s=S labels=L label_s=T. Targets: Q >= 0.45, C <= 60, R <= 1,
M <= 600, S <= 2 (this machine's two cores also run the browsers: see the control), and T <=
5 % of C. L is how many labelled regions the bundled model's map has (at most 30); T the
seconds they add, measured there: finding them in the job, then making their labels.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.async_api import async_playwright

from bench import full_or_quick
from bench.hostile import WARM_UP, by_page, idle, keep_visiting, p95, visit
from bench.memory import bert_base_shaped
from testkit.browser import CHROMIUM_ARGS, chromium_path, rss_mb, streamlit_server

CONTROL_SECONDS = full_or_quick(40, 1)
# A quick run asks the server (and the reloading process, which must find the same map) for the
# fewest t-SNE iterations the app allows, and measures faithfulness on the bundled table's first
# rows with as few iterations; a full run on every row with the default settings. A quick run's
# map worker runs at normal priority: the test suite keeps the machine busy, and at SCHED_IDLE
# (the default, which the full run measures) it would wait for idle cores.
QUICK_ENV = full_or_quick({}, {"BERT_EXPLORER_MAP_ITERATIONS": "10", "BERT_EXPLORER_JOB_PRIORITY": "normal"})
FAITHFULNESS_ROWS = full_or_quick(None, 3000)
FAITHFULNESS_SETTINGS = full_or_quick({}, {"iterations": 10})


def family_rss_mb(pid: int) -> float:
    """A process's resident memory plus that of its children (the map's worker)."""
    total = rss_mb(pid)
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    for child in children:
        try:
            total += rss_mb(int(child))
        except (OSError, RuntimeError):
            pass
    return total


async def sample(pid: int, stop: asyncio.Event, samples: list[float]) -> None:
    while not stop.is_set():
        samples.append(family_rss_mb(pid))
        await asyncio.sleep(0.1)


async def read_time_left(page, started: float, stop: asyncio.Event, shown: list) -> None:
    """Note (seconds since the request, least and most seconds left as the page says) every
    half second: the page shows a range until the layout's pace is known, then one figure."""
    import re

    while not stop.is_set():
        try:
            text = await page.locator("[data-testid='stProgress']").inner_text(timeout=500)
            if found := re.search(r"(\d+) to (\d+) s left|about (\d+) s left", text):
                low, high, about = found.groups()
                now = time.perf_counter() - started
                shown.append((now, float(low or about), float(high or about)))
        except Exception:  # no progress bar (yet, or any more)
            pass
        await asyncio.sleep(0.5)


def time_left_accuracy(shown: list, total: float) -> str:
    """How the time left the page showed compares with the truth, once a tenth of the run is
    done: for single figures, their ratio to the truth; for ranges, how often the truth was in."""
    late = [(t, low, high) for t, low, high in shown if 0.1 * total <= t < total - 1]
    ranges = [(low, high, total - t) for t, low, high in late if high > low]
    ratios = sorted(low / (total - t) for t, low, high in late if high == low)
    parts = []
    if ranges:
        inside = sum(low * 0.9 <= truth <= high * 1.1 for low, high, truth in ranges)
        parts.append(f"ranges: truth within 10 % of the range in {inside} of {len(ranges)} readings")
    if ratios:
        parts.append(
            f"single figures / truth over {len(ratios)} readings: median {ratios[len(ratios) // 2]:.2f}, "
            f"lowest {ratios[0]:.2f}, highest {ratios[-1]:.2f}"
        )
    return "time left shown: " + ("; ".join(parts) or "no estimate seen")


def server_env(checkpoint: Path, cache: Path) -> dict:
    return {"BERT_EXPLORER_MODEL": str(checkpoint), "BERT_EXPLORER_CACHE": str(cache), **QUICK_ENV}


async def new_page(browser):
    """A page in a context of its own: a session of its own, as another person's."""
    return await (await browser.new_context(viewport={"width": 1400, "height": 1000})).new_page()


async def launch(playwright):
    return await playwright.chromium.launch(
        executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
    )


async def time_and_memory(checkpoint: Path, cache: Path) -> dict:
    with streamlit_server(env=server_env(checkpoint, cache)) as (base, process):
        async with async_playwright() as playwright:
            browser = await launch(playwright)
            presenter, other = await new_page(browser), await new_page(browser)
            for page in (presenter, other):  # every cache warm, the map's excepted
                await page.goto(f"{base}/tokens", wait_until="domcontentloaded")
                await idle(page)
                for path in WARM_UP:
                    await visit(page, path)

            stop, control = asyncio.Event(), []
            task = asyncio.create_task(keep_visiting(other, stop, control))
            await asyncio.sleep(CONTROL_SECONDS)
            stop.set()
            await task

            before = family_rss_mb(process.pid)
            stop, times, samples, shown = asyncio.Event(), [], [], []
            started = time.perf_counter()
            background = [
                asyncio.create_task(keep_visiting(other, stop, times)),
                asyncio.create_task(sample(process.pid, stop, samples)),
                asyncio.create_task(read_time_left(presenter, started, stop, shown)),
            ]
            await presenter.goto(f"{base}/maps?method=tsne", wait_until="domcontentloaded")
            await presenter.get_by_text("Faithfulness: neighbour recall@10").wait_for(timeout=600_000)
            await idle(presenter)
            cold = time.perf_counter() - started
            stop.set()
            await asyncio.gather(*background)
            await asyncio.sleep(full_or_quick(2, 0.5))
            after = family_rss_mb(process.pid)
            await browser.close()
    return {
        "cold_s": cold,
        "peak_extra_mb": max(samples) - before,
        "kept_mb": after - before,
        "other_p95": p95(times),
        "control_p95": p95(control),
        "visits": len(times),
        "by_page": by_page(times),
        "control_by_page": by_page(control),
        "time_left": time_left_accuracy(shown, cold),
    }


async def cold_alone(checkpoint: Path, cache: Path) -> tuple[float, float]:
    """The same request on a cold cache with no other session (the map's worker has the cores),
    and then the megabytes the server sends for the map coloured by neighbours kept, with its
    labels (counted on the wire by bench.relay's Counter)."""
    from bench.relay import Counter
    from bench.wire import LAST_MESSAGES_MS

    with streamlit_server(env=server_env(checkpoint, cache)) as (server, _):
        counter = Counter(int(server.rsplit(":", 1)[1]))
        base = f"http://127.0.0.1:{counter.port}"
        async with async_playwright() as playwright:
            browser = await launch(playwright)
            page = await new_page(browser)
            await page.goto(f"{base}/tokens", wait_until="domcontentloaded")
            await idle(page)
            started = time.perf_counter()
            await page.goto(f"{base}/maps?method=tsne", wait_until="domcontentloaded")
            await page.get_by_text("Faithfulness: neighbour recall@10").wait_for(timeout=600_000)
            await idle(page)
            cold = time.perf_counter() - started
            await page.wait_for_timeout(LAST_MESSAGES_MS)
            counter.take()
            await page.get_by_text("how well its neighbours are kept", exact=True).click()
            await page.get_by_text("keep 5 or more").wait_for(timeout=60_000)
            await idle(page)
            await page.wait_for_timeout(LAST_MESSAGES_MS)
            megabytes = counter.take()
            await browser.close()
    return cold, megabytes


def worker_stages(cache: Path) -> dict:
    """The stages' seconds the worker recorded with the map (under whatever else ran)."""
    from bert_embeddings.maps import map_jobs

    for folder in (cache / "maps").glob("*/*"):
        done = map_jobs.load(folder) if folder.is_dir() else None
        if done is not None:
            return done.meta["seconds"]
    return {}


RELOAD = """
import sys, time
from bert_embeddings.models import checkpoints
from bert_embeddings.maps import map_jobs, neighbour_map
from bert_embeddings import config
model = checkpoints.load_model(sys.argv[1])
table = model.tables.word_embeddings
started = time.perf_counter()
result = map_jobs.start(table, neighbour_map.Settings(iterations=config.map_iterations()))
elapsed = time.perf_counter() - started
assert isinstance(result, map_jobs.Done), type(result)
print(elapsed)
"""


def reload_seconds(checkpoint: Path, cache: Path) -> float:
    """In a fresh process: the table in memory to the map read back from disk and checked."""
    import os

    out = subprocess.run(
        [sys.executable, "-c", RELOAD, str(checkpoint)],
        env={**os.environ, "BERT_EXPLORER_CACHE": str(cache), "HF_HUB_OFFLINE": "1", **QUICK_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.split()[-1])


def faithfulness() -> tuple[float, float, dict, int, float]:
    """On the bundled model: recall@10 of t-SNE and PCA, the stages' seconds, and the regions
    (how many, and the seconds they add: finding them in the job, then their labels' text)."""
    from bert_embeddings.analysis import vocab_search
    from bert_embeddings.maps import map_reading, neighbour_map
    from bert_embeddings.models import checkpoints, glyphs

    model = checkpoints.load_bundled()
    table = model.tables.word_embeddings[:FAITHFULNESS_ROWS]
    settings = neighbour_map.Settings(**FAITHFULNESS_SETTINGS)
    result = neighbour_map.compute(table, settings, threads=2)
    index = vocab_search.build_index(table, model.tokenizer)
    started = time.perf_counter()
    labels = map_reading.labels(result.regions, index.pieces, index.kinds, glyphs.legible)
    label_s = result.seconds["regions"] + time.perf_counter() - started
    for label in labels[:8]:
        print(f"  region: {label.short}")
    return result.recall, result.pca_recall, result.seconds, len(labels), label_s


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        checkpoint = bert_base_shaped(Path(folder) / "bert-base-shaped")
        cache = Path(folder) / "cache"
        measured = asyncio.run(time_and_memory(checkpoint, cache))
        print(
            f"bert-base-shaped: cold {measured['cold_s']:.1f} s, peak extra "
            f"{measured['peak_extra_mb']:.0f} MB (server and worker), "
            f"kept once done {measured['kept_mb']:.1f} MB"
        )
        print(
            f"other session: p95 {measured['other_p95']:.2f} s over {measured['visits']} page visits while "
            f"the map was computed; control (no map computed) p95 {measured['control_p95']:.2f} s"
        )
        print(f"  median page times while computing: {measured['by_page']}")
        print(f"  median page times, control: {measured['control_by_page']}")
        print(measured["time_left"])
        print(f"  the worker's stages meanwhile (s): {worker_stages(cache)}")
        # (a quick run: the map is computed once, above; this request reads it back)
        alone_cache = full_or_quick(Path(folder) / "cache-alone", cache)
        alone, megabytes = asyncio.run(cold_alone(checkpoint, alone_cache))
        print(f"the map coloured by neighbours kept, with its labels, to the browser: {megabytes:.2f} MB")
        print(
            f"cold with no other session: {alone:.1f} s, stages {worker_stages(alone_cache)}; "
            f"cold_s is {measured['cold_s'] / alone:.1f} x that"
        )
        reload = reload_seconds(checkpoint, cache)
        print(f"reload in a new process: {reload:.3f} s")
    recall, pca_recall, seconds, labels, label_s = faithfulness()
    print(f"bundled model: t-SNE stages {seconds}")
    print(f"regions and labels: {label_s:.2f} s, {label_s / measured['cold_s']:.1%} of cold_s")
    print(
        f"maps method=t-SNE cold_s={measured['cold_s']:.1f} reload_s={reload:.2f} recall_at_10={recall:.3f} "
        f"pca_recall_at_10={pca_recall:.4f} peak_extra_mb={measured['peak_extra_mb']:.0f} "
        f"other_session_p95_s={measured['other_p95']:.2f} labels={labels} label_s={label_s:.2f}"
    )


if __name__ == "__main__":
    main()
