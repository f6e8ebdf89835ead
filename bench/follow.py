"""A workshop room: one leader and thirty followers on one server.

One local server with the bert-base-shaped stand-in model and one headless Chromium holding
31 contexts. The leader opens a room; thirty followers open its join link. The leader then
makes ten changes through the page, as a presenter would (pages, the sentence, the neighbour
query, k, the map's components); after each, every follower's screen is checked to show the
leader's view (the page's heading, or the changed box holding the leader's value). Times run
from the leader's change to each follower's screen showing it. A follower that does not show
it within 30 s counts as an error. Then, with everyone idle, the server's CPU time over 30 s
is what thirty followers' polling costs.

    .venv/bin/python -m bench.follow

Last line: follow followers=30 changes=10 errors=E p50_s=A p95_s=B server_cpu_pct=C (C in % of
one core). Targets: E = 0, B <= 3, C <= 10.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import async_playwright

from bench.hostile import cpu_seconds, idle
from bench.memory import bert_base_shaped
from testkit.browser import CHROMIUM_ARGS, chromium_path, streamlit_server

FOLLOWERS = int(os.environ.get("BENCH_FOLLOWERS", "30"))  # fewer, to tell load from logic
IDLE_SECONDS = 30
TIMEOUT_MS = 30_000


@dataclass(frozen=True)
class Change:
    what: str
    kind: str  # "page", "text" (a box, Enter) or "area" (a text area, Ctrl+Enter)
    target: str  # the page's sidebar title, or the box's label
    value: str  # the page's heading, or the value typed


CHANGES = (
    Change("open Tokens", "page", "Tokens", "Tokens"),
    Change("type a sentence", "area", "Sentence A", "The presenter types a new sentence."),
    Change("open Neighbours", "page", "Neighbours", "Nearest neighbours in the vocabulary"),
    Change("query bank", "text", "Word or piece", "bank"),
    Change("query river", "text", "Word or piece", "river"),
    Change("k of 5", "text", "How many neighbours (k)", "5"),
    Change("open Maps", "page", "Maps", "Maps"),
    Change("component 3 on x", "text", "Component on x", "3"),
    Change("component 4 on y", "text", "Component on y", "4"),
    Change("open Positions", "page", "Positions", "Positions: learned, not a formula"),
)


async def make_change(page, change: Change) -> None:
    if change.kind == "page":
        await page.locator("[data-testid='stSidebarNav']").get_by_text(change.target, exact=True).click()
        return
    box = page.get_by_label(change.target, exact=True)
    await box.fill(change.value)
    await box.press("Control+Enter" if change.kind == "area" else "Enter")


async def shows(page, change: Change) -> None:
    if change.kind == "page":
        await page.get_by_role("heading", name=change.value, exact=True).wait_for(timeout=TIMEOUT_MS)
        return
    box = page.get_by_label(change.target, exact=True)
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        try:
            if await box.input_value(timeout=1000) == change.value:
                return
        except Exception:  # the box is being redrawn
            pass
        await asyncio.sleep(0.05)
    raise TimeoutError(change.what)


async def timed(page, change: Change, started: float) -> float | None:
    try:
        await shows(page, change)
    except Exception:
        return None
    return time.perf_counter() - started


async def run(checkpoint: Path) -> dict:
    log = checkpoint.parent / "server.log"
    with streamlit_server(env={"BERT_EXPLORER_MODEL": str(checkpoint)}, log=log) as (base, process):
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
            )

            async def new_page():
                context = await browser.new_context(viewport={"width": 1280, "height": 900})
                return await context.new_page()

            leader = await new_page()
            await leader.goto(f"{base}/tokens", wait_until="domcontentloaded")
            await idle(leader)
            await leader.get_by_text("Workshop room").click()
            await leader.get_by_role("button", name="Lead a new room").click()
            code_box = leader.locator("[data-testid='stCode']").first
            await code_box.wait_for(timeout=60_000)
            code = (await code_box.inner_text()).strip().rsplit("=", 1)[1]
            followers = [await new_page() for _ in range(FOLLOWERS)]
            for follower in followers:  # one after another, as people arrive
                await follower.goto(f"{base}/?follow={code}", wait_until="domcontentloaded")
            await asyncio.gather(
                *(f.get_by_role("heading", name="Tokens").wait_for(timeout=120_000) for f in followers)
            )
            await asyncio.sleep(3)

            latencies, errors = [], 0
            for change in CHANGES:
                await idle(leader)
                started = time.perf_counter()
                await make_change(leader, change)
                results = await asyncio.gather(*(timed(f, change, started) for f in followers))
                missing = sum(r is None for r in results)
                errors += missing
                latencies += [r for r in results if r is not None]
                done = [r for r in results if r is not None]
                print(
                    f"{change.what}: {len(done)} of {FOLLOWERS} followers in "
                    f"{statistics.median(done) if done else float('nan'):.2f} s (median), "
                    f"slowest {max(done) if done else float('nan'):.2f} s"
                )
                await asyncio.sleep(1)

            await asyncio.sleep(5)  # every follower idle, polling
            before, started = cpu_seconds(process.pid), time.perf_counter()
            await asyncio.sleep(IDLE_SECONDS)
            cpu_pct = 100 * (cpu_seconds(process.pid) - before) / (time.perf_counter() - started)
            await browser.close()
    problems = [line for line in log.read_text().splitlines() if "Error" in line or "Traceback" in line]
    print(f"server log: {len(problems)} lines with an error")
    for line in problems[:5]:
        print(f"  {line[:200]}")
    return {"latencies": latencies, "errors": errors, "cpu_pct": cpu_pct}


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        checkpoint = bert_base_shaped(Path(folder) / "bert-base-shaped")
        result = asyncio.run(run(checkpoint))
    latencies = sorted(result["latencies"]) or [float("nan")]
    p95 = statistics.quantiles(latencies, n=20)[18] if len(latencies) >= 2 else latencies[0]
    print(
        f"follow followers={FOLLOWERS} changes={len(CHANGES)} errors={result['errors']} "
        f"p50_s={statistics.median(latencies):.2f} p95_s={p95:.2f} server_cpu_pct={result['cpu_pct']:.1f}"
    )


if __name__ == "__main__":
    main()
