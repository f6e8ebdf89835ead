"""A lesson taken alone and in a room, and its handout.

One local server with the bert-base-shaped stand-in model. First one learner in headless
Chromium takes the first built-in lesson twice; the second pass is timed: each Next, from the
click to the new step's bar shown, the page's run over and every figure in view drawn (a phone
sends a chart below the fold as a placeholder, drawn as it comes into view: one in view is
waited for; the median over the steps is step_p50_s). Then a room: a leader and FOLLOWERS
followers (bench/follow.py's room and followers, in one Chromium at the lowest priority and
without WebGL), the leader taking the same lesson; for each Next, the server's trace gives the
time until each follower's session began the run for the new step on the server (the wake,
follower_step_p95_s at p95), and each follower's screen showing the step is printed for
information (on two cores it measures thirty Chromiums). Before the first Next, the room answers
the first step's question: each follower in turn picks a choice and sends it, and the leader's
screen is read until its tally counts that answer (tally_p95_s, the p95 from the click on "Send
my answer"); answers is how many of them the leader's tally counted in the end. Last, the first
lesson's handout is written cold, in a fresh process, with the model the app uses (handout_s),
and its size is handout_mb.
The learner's window is 1440 x 900. On a phone: the learner's steps again at 390 x 844 with the
CPU slowed 4x (Chromium's own throttling, Emulation.setCPUThrottlingRate), warm in the same way
(phone_step_p50_s, and the slowest, phone_step_max_s).
And the floors, on a bare Streamlit app (bench/lesson_floor_app.py), one page per step: with
only each step's progress bar and Next button, the framework's own page switch
(floor_empty_p50_s at 1440 x 900, phone_floor_empty_p50_s on the slowed phone); and with the
step's figures too, the explorer's own as its pages compose them for the step's view, on the
desktop and on the slowed phone, whose p50s and the explorer's ratios to them are printed before
the last line.

    .venv/bin/python -m bench.lesson

With BENCH_QUICK=1: a small random checkpoint, one follower, the lesson's first two steps
(one Next, from a page to another), the learner's pass timed cold (no pass before it).

Last line: lesson steps=N step_p50_s=S floor_empty_p50_s=E phone_step_p50_s=P phone_step_max_s=X
phone_floor_empty_p50_s=G follower_step_p95_s=F answers=C tally_p95_s=T handout_s=H handout_mb=M.
Targets: S <= 2E, P <= 2G, X <= 3G, F <= 0.5, C = FOLLOWERS, T <= 1, H <= 15, M <= 8.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.async_api import async_playwright

from bench import full_or_quick
from bench.follow import crowd_browser, join, open_room, percentile_95, wake_times
from bench.follow_replicas import servers
from bench.hostile import idle
from bench.memory import bert_base_shaped
from bert_embeddings.config import ROOM_TRACE
from bert_embeddings.lessons import builtin
from testkit.browser import CHARTS_DRAWN, streamlit_server

FOLLOWERS = int(os.environ.get("BENCH_FOLLOWERS", full_or_quick(30, 1)))
LESSON = builtin.load("embeddings")
CHOICES = LESSON.steps[0].key.choices  # the first step's question: the followers' answers
STEPS = full_or_quick(len(LESSON.steps), 2)
# The learner's passes through the lesson: the first warms the caches, the second is timed.
PASSES = full_or_quick((False, True), (True,))
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}  # tall: Streamlit scrolls inside its main block
PHONE_SLOWDOWN = 4  # Chromium's CPU throttling on the phone


def bar_text(number: int) -> str:
    """The bar's progress line for step ``number`` (from 1), as Playwright reads it."""
    return f"step {number} of {len(LESSON.steps)}"


async def on_step(page, number: int, drawn: bool = True) -> None:
    await (
        page.locator("[data-testid='stProgress']").filter(has_text=bar_text(number)).wait_for(timeout=120_000)
    )
    await idle(page)
    if drawn:
        await page.wait_for_function(CHARTS_DRAWN, polling="raf", timeout=120_000)


async def alone(base: str, browser, start: str = "/?lesson=embeddings", phone: bool = False) -> list[float]:
    """One learner, warm: the lesson once through, then each Next timed to its figures drawn
    (PASSES: a quick run times its only pass); on a desktop, or on a phone with its CPU slowed."""
    page = await (await browser.new_context(viewport=PHONE if phone else DESKTOP)).new_page()
    if phone:
        cdp = await page.context.new_cdp_session(page)
        await cdp.send("Emulation.setCPUThrottlingRate", {"rate": PHONE_SLOWDOWN})
    seconds = []
    for timed in PASSES:
        await page.goto(f"{base}{start}", wait_until="domcontentloaded")
        await on_step(page, 1)
        for number in range(2, STEPS + 1):
            started = time.perf_counter()
            await page.get_by_role("button", name="Next", exact=True).click()
            await on_step(page, number)
            if timed:
                seconds.append(time.perf_counter() - started)
    await page.context.close()
    return seconds


# How many answers the leader's tally counts, as its screen says ("The room: 30 follow now; 12
# answered."; echo.plain puts invisible joiners after its punctuation).
COUNTED = """() => {
  const said = document.querySelector(".st-key-lesson_bar")?.innerText.replace(/\u2060/g, "") || "";
  const found = said.match(/([0-9][0-9,]*) answered/);
  return found ? parseInt(found[1].replace(/,/g, ""), 10) : 0;
}"""


async def answered(leader, followers: list) -> tuple[int, list[float]]:
    """Each follower in turn answers the step's question; the seconds from their click on "Send my
    answer" until the leader's screen counts it. Returns the leader's count in the end too."""
    seconds = []
    for number, follower in enumerate(followers, 1):
        bar = follower.locator(".st-key-lesson_bar")
        await bar.get_by_text(CHOICES[number % len(CHOICES)], exact=True).click()
        started = time.perf_counter()
        await bar.get_by_role("button", name="Send my answer").click()
        await leader.wait_for_function(f"() => ({COUNTED})() >= {number}", polling=50, timeout=120_000)
        seconds.append(time.perf_counter() - started)
    return await leader.evaluate(f"({COUNTED})()"), seconds


async def in_a_room(base: str, browser, trace: Path) -> tuple[list[float], list[float], int, list[float]]:
    """The room answering the first step's question (how many the leader's tally counted, and how
    soon), then the leader's Next to each follower's run for the new step (server), and to their
    screens."""
    leader = await (await browser.new_context(viewport={"width": 1280, "height": 900})).new_page()
    code = await open_room(leader, base)
    followers = [await (await browser.new_context()).new_page() for _ in range(FOLLOWERS)]
    await join(followers, f"{base}/?follow={code}")
    await leader.get_by_role("button", name="Start the lesson").click()
    await on_step(leader, 1, drawn=False)
    await asyncio.gather(*(on_step(f, 1, drawn=False) for f in followers))
    counted, tally = await answered(leader, followers)
    since, shown = time.time(), []
    for number in range(2, STEPS + 1):
        started = time.perf_counter()
        await leader.get_by_role("button", name="Next", exact=True).click()

        await asyncio.gather(
            on_step(leader, number, drawn=False), *(seen(f, number, started, shown) for f in followers)
        )
        await asyncio.sleep(full_or_quick(2, 0.5))
    return wake_times(trace.read_text(), code, since), shown, counted, tally


async def seen(follower, number: int, started: float, shown: list[float]) -> None:
    """A follower's screen shows step ``number``: the seconds since ``started`` go in ``shown``."""
    await on_step(follower, number, drawn=False)
    shown.append(time.perf_counter() - started)


def floor_figures(checkpoint: Path, folder: Path, empty: bool = False) -> None:
    """Each step's figures as the explorer's page composes them for the step's view, as Plotly
    JSON in ``folder``, for the bare app (bench/lesson_floor_app.py); none with ``empty``."""
    from bert_embeddings import api
    from bert_embeddings.figures import check, handout_pages
    from bert_embeddings.figures.handout_parts import Chart
    from bert_embeddings.views import pages
    from bert_embeddings.views.sources import Sources

    sources = Sources(api.load(str(checkpoint)))
    for number, step in enumerate(LESSON.steps[:STEPS], 1):
        parts = handout_pages.shown(pages.current(step.page), check.values(dict(step.view)), sources)
        charts = [] if empty else [part.figure.to_json() for part in parts if isinstance(part, Chart)]
        (folder / f"step-{number}.json").write_text(json.dumps(charts))


async def floor(checkpoint: Path, empty: bool = False) -> dict[str, list[float]]:
    """The learner's steps on the bare app, on a desktop and on the slowed phone: the same figures
    drawn, nothing else; with ``empty``, no figure at all."""
    folder = checkpoint.parent / ("floor-empty" if empty else "floor")
    folder.mkdir()
    floor_figures(checkpoint, folder, empty)
    app = Path(__file__).with_name("lesson_floor_app.py")
    with streamlit_server(
        app, env={"BENCH_FLOOR_FIGURES": str(folder), "BENCH_FLOOR_OF": str(len(LESSON.steps))}
    ) as (base, _):
        async with async_playwright() as playwright:
            browser = await crowd_browser(playwright, checkpoint.parent)
            steps = {"desktop": await alone(base, browser, start="/")}
            steps["phone"] = await alone(base, browser, start="/", phone=True)
            await browser.close()
    return steps


def handout_cold(checkpoint: Path, out: Path) -> float:
    """The first lesson's handout, written by a fresh process (imports included): seconds."""
    env = {**os.environ, "BERT_EXPLORER_MODEL": str(checkpoint)}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bert_embeddings", "lesson", "embeddings", "--handout", str(out)],
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


async def run(checkpoint: Path) -> tuple:
    trace = checkpoint.parent / "rooms.trace"
    env = {"BERT_EXPLORER_MODEL": str(checkpoint), ROOM_TRACE: str(trace)}
    with servers(checkpoint.parent, env) as served:
        async with async_playwright() as playwright:
            browser = await crowd_browser(playwright, checkpoint.parent)
            steps = await alone(served.base, browser)
            phone = await alone(served.base, browser, phone=True)
            room = await in_a_room(served.base, browser, trace)
            await browser.close()
    return steps, phone, *room


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        checkpoint = bert_base_shaped(Path(folder) / "bert-base-shaped")
        steps, phone, wakes, shown, counted, tally = asyncio.run(run(checkpoint))
        bare_both = asyncio.run(floor(checkpoint))
        bare = bare_both["desktop"]
        empty = asyncio.run(floor(checkpoint, empty=True))
        out = Path(folder) / "handout.html"
        handout_s = handout_cold(checkpoint, out)
        handout_mb = out.stat().st_size / 1e6
    print("Next to the step drawn, warm (s):", " ".join(f"{s:.2f}" for s in steps))
    floor_p50 = statistics.median(bare)
    print("the same figures on a bare app (the floor, s):", " ".join(f"{s:.2f}" for s in bare))
    ratio = statistics.median(steps) / floor_p50
    print(f"floor_p50_s={floor_p50:.2f}: the explorer's step takes {ratio:.2f}x it")
    print("on a phone, CPU slowed 4x (s):", " ".join(f"{s:.2f}" for s in phone))
    print("... the same figures on the bare app (s):", " ".join(f"{s:.2f}" for s in bare_both["phone"]))
    phone_floor, phone_floor_max = statistics.median(bare_both["phone"]), max(bare_both["phone"])
    print(
        f"phone_floor_p50_s={phone_floor:.2f}: the explorer's phone step takes "
        f"{statistics.median(phone) / phone_floor:.2f}x it, its slowest {max(phone) / phone_floor_max:.2f}x"
        " the bare app's slowest"
    )
    empty_p50, phone_empty_p50 = statistics.median(empty["desktop"]), statistics.median(empty["phone"])
    print("the bare app's page switch, no figure (s):", " ".join(f"{s:.2f}" for s in empty["desktop"]))
    print("... on the phone (s):", " ".join(f"{s:.2f}" for s in empty["phone"]))
    print(
        f"ratios: step {statistics.median(steps) / empty_p50:.2f}x floor_empty (target 2), phone step "
        f"{statistics.median(phone) / phone_empty_p50:.2f}x and slowest {max(phone) / phone_empty_p50:.2f}x "
        "phone_floor_empty (targets 2 and 3)"
    )
    wake_p95, shown_p95 = percentile_95(wakes), percentile_95(shown)
    print(f"the leader's Next to each follower's run on the server: {len(wakes)} runs, p95 {wake_p95:.3f} s")
    print(f"... to each follower's screen showing the step (for information): p95 {shown_p95:.2f} s")
    print("a follower's answer to the leader's tally counting it (s):", " ".join(f"{s:.2f}" for s in tally))
    print(f"handout: {handout_s:.1f} s cold, {handout_mb:.2f} MB")
    print(
        f"lesson steps={STEPS} step_p50_s={statistics.median(steps):.2f} floor_empty_p50_s={empty_p50:.2f} "
        f"phone_step_p50_s={statistics.median(phone):.2f} phone_step_max_s={max(phone):.2f} "
        f"phone_floor_empty_p50_s={phone_empty_p50:.2f} follower_step_p95_s={wake_p95:.2f} "
        f"answers={counted} tally_p95_s={percentile_95(tally):.2f} "
        f"handout_s={handout_s:.1f} handout_mb={handout_mb:.2f}"
    )


if __name__ == "__main__":
    main()
