"""A workshop room: one leader and thirty followers on one server.

One local server with the bert-base-shaped stand-in model and one headless Chromium holding
31 contexts. The leader opens a room; thirty followers open its join link. The leader then
makes ten changes through the page, as a presenter would (pages, the sentence, the neighbour
query, k, the map's components), each once every page has finished its run (a presenter
talks between changes); after each, every follower's screen is checked to show the
leader's view (the page's heading, or the changed box holding the leader's value). Times run
from the leader's change to each follower's screen showing it. A follower that does not show
it within 30 s counts as an error. The server also writes down (BERT_EXPLORER_ROOM_TRACE) when
each new view was published and when each follower's run for it began (the first line of a
run the server started for it, or else the moment a run applied it): their difference is the
wake-up, measured on the server whatever the browsers' drawing costs. Then,
with everyone idle (the browsers too, done drawing), the server's CPU time over 30 s is what
thirty waiting followers cost.

Then a control in the same run: the room closes, and the same ten changes are made by every
one of the 31 people in their own browser at the same moment, timed the same way. That is what
this machine allows thirty people at best (the server and 31 browsers on its two cores), with
no room at all. The page changes are compared (a box in the control holds what its reader
typed before the server runs anything). Each change's line also gives the CPU time it cost
the server and the browsers.

    .venv/bin/python -m bench.follow

With BENCH_QUICK=1: two followers (unless BENCH_FOLLOWERS says), the first two changes, a 1 s
idle spell and shorter pauses, on a small random checkpoint (see bench/__init__.py); before the
control it waits for every follower's page to say the room closed instead of for the browsers'
fallback check.

With BENCH_REPLICAS=2: the same on the deployment of compose.yaml (bench/follow_replicas.py):
Redis, two replicas and HAProxy; the leader on the first replica, half of the followers on the
second. After the idle spell everyone goes to the Overview page (little to draw) and the second
replica restarts; the line above the control says how soon after its return its followers showed
the leader's next change, a new sentence (target: all within 15 s). The next line says that the
leader still leads the room once its page has finished its run, with how many sessions of its tab
published to the room (2: a new session took the room back by itself); a leader who lost its
controls stops the benchmark, with what its room section shows instead (a presenter must never
take the room back by hand). The server CPU is then both replicas'.

Last line: follow followers=30 changes=10 errors=E p50_s=A p95_s=B wake_p95_s=W server_cpu_pct=C
replicas=R (C in % of one core). Targets: E = 0, W <= 0.5, C <= 10, and the page changes'
p95 following / control (printed above) <= 1.5.
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

from bench import QUICK, full_or_quick
from bench.follow_replicas import REPLICAS, Served, restart_second, servers, still_leading
from bench.hostile import cpu_seconds, idle, niced_chromium
from bench.memory import bert_base_shaped
from bert_embeddings.config import ROOM_TRACE
from components.rooms.follow import FALLBACK_SECONDS
from testkit.browser import CHROMIUM_ARGS

FOLLOWERS = int(os.environ.get("BENCH_FOLLOWERS", full_or_quick(30, 2)))  # fewer, to tell load from logic
IDLE_SECONDS = full_or_quick(30, 1)
BROWSERS_QUIET = 0.2  # of a core, all the crowd's browsers together: they have drawn what they were sent
PAUSE_SECONDS = full_or_quick(1, 0.2)  # after each change, before the next one waits for every page
FIRST_HEADING = "What is an embedding?"  # the leader's page when the room opens (Concepts)
nan = float("nan")
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
CHANGES = full_or_quick(CHANGES, CHANGES[:2])  # a quick run: one page change and one sentence
# (BENCH_REPLICAS=2) the page everyone is on when a replica restarts, and the leader's first change
# after its return (see restart_phase)
QUIET_PAGE = Change("open Overview", "page", "Overview", "BERT's embedding layer")
AFTER_RESTART = Change(
    "type after the restart", "area", "Sentence A", "Back after a restart, still following."
)


async def make_change(page, change: Change) -> None:
    if change.kind == "page":
        await page.locator("[data-testid='stSidebarNav']").get_by_text(change.target, exact=True).click()
        return
    box = page.get_by_label(change.target, exact=True)
    # (the leader's own box: on a machine this busy its page can take over 30 s to draw it; the
    # followers' times are what is measured, from the moment the change is made)
    await box.fill(change.value, timeout=4 * TIMEOUT_MS)
    await box.press("Control+Enter" if change.kind == "area" else "Enter")


# Checked inside each follower's page every 100 ms: a round trip from this process per check
# would itself load the machine the server shares (31 pages, each asked 20 times a second).
SHOWS = """([kind, target, value]) => {
    if (kind === "page") {
        return [...document.querySelectorAll("h1")].some((h) => h.textContent.trim() === value);
    }
    const boxes = document.querySelectorAll("input[aria-label], textarea[aria-label]");
    return [...boxes].some((box) => box.getAttribute("aria-label") === target && box.value === value);
}"""


async def shows(page, change: Change) -> None:
    await page.wait_for_function(
        SHOWS, arg=[change.kind, change.target, change.value], polling=100, timeout=TIMEOUT_MS
    )


async def timed(page, change: Change, started: float) -> float | None:
    try:
        await shows(page, change)
    except Exception:
        return None
    return time.perf_counter() - started


def browsers_cpu_seconds() -> float:
    """CPU time of every Chromium process on the machine (only this benchmark's run here)."""
    total = 0.0
    for comm in Path("/proc").glob("[0-9]*/comm"):
        try:
            if comm.read_text().strip() == "chromium":
                total += cpu_seconds(int(comm.parent.name))
        except (OSError, ValueError, IndexError):  # the process ended meanwhile
            continue
    return total


async def replay(leader, makers: list, watched: list, served: Served) -> dict[str, list[float | None]]:
    """The ten changes, each made in every page of ``makers`` at once: for each change, the
    time from then to each page of ``watched`` showing it (None: not within 30 s)."""
    times = {}
    for change in CHANGES:
        # Each change waits until every page has finished its run (the presenter talks
        # between changes): a wake-up then measures the push, not a run still in progress.
        await asyncio.gather(*(idle(page) for page in {leader, *watched}))
        server, browsers = served.cpu_seconds(), browsers_cpu_seconds()
        started = time.perf_counter()
        await asyncio.gather(*(make_change(page, change) for page in makers))
        times[change.what] = await asyncio.gather(*(timed(page, change, started) for page in watched))
        done = [t for t in times[change.what] if t is not None]
        print(
            f"  {change.what}: {len(done)} of {len(watched)} in {statistics.median(done or [nan]):.2f} s "
            f"(median), slowest {max(done or [nan]):.2f} s; CPU: server "
            f"{served.cpu_seconds() - server:.2f} s, browsers {browsers_cpu_seconds() - browsers:.1f} s"
        )
        await asyncio.sleep(PAUSE_SECONDS)
    return times


async def open_room(leader, base: str) -> str:
    """The leader opens the app and leads a new room; returns its code."""
    await leader.goto(f"{base}/concepts", wait_until="domcontentloaded")
    await idle(leader)
    await leader.get_by_text("Workshop room").click()
    button = leader.get_by_role("button", name="Lead a new room")
    code_box = leader.locator("[data-testid='stCode']").first
    # As testkit.browser.click_until: a busy machine can lose a click (a CI run of the suite
    # waited 3 minutes for a room never opened); it is clicked again only while still there.
    for attempt in range(3):
        if attempt == 0 or await button.is_visible():
            try:
                await button.click(timeout=10_000)
            except Exception:  # gone meanwhile: the first click was answered
                pass
        try:
            await code_box.wait_for(timeout=60_000)
            break
        except Exception:
            continue
    await code_box.wait_for(timeout=60_000)
    return (await code_box.inner_text()).strip().rsplit("=", 1)[1]


async def crowd_browser(playwright, folder: Path):
    """One Chromium for a room's people. Each person's browser draws on their own machine, not on
    the server's two cores: here all of them share those, at the lowest priority, so that they
    take only what the server leaves over (as in bench.hostile). And without WebGL: here it runs
    on the CPU (SwiftShader), and 31 pages of maps took its process to 15 GB until it died.
    Every page is still drawn, its WebGL maps as Plotly's notice in their place."""
    return await playwright.chromium.launch(
        executable_path=niced_chromium(folder),
        args=[*CHROMIUM_ARGS, "--disable-webgl", "--disable-3d-apis"],
        headless=True,
    )


async def run(checkpoint: Path) -> dict:
    trace = checkpoint.parent / "rooms.trace"
    env = {"BERT_EXPLORER_MODEL": str(checkpoint), ROOM_TRACE: str(trace)}
    with servers(checkpoint.parent, env) as served:
        async with async_playwright() as playwright:
            browser = await crowd_browser(playwright, checkpoint.parent)

            async def new_page(person: int):
                context = await browser.new_context(viewport={"width": 1280, "height": 900})
                await context.add_cookies(served.cookies(person))  # (its replica, with two)
                return await context.new_page()

            leader = await new_page(0)
            code = await open_room(leader, served.base)
            followers = [await new_page(person) for person in range(1, FOLLOWERS + 1)]
            await join(followers, f"{served.base}/?follow={code}")

            print("following the leader:")
            since = time.time()
            following = await replay(leader, [leader], followers, served)
            wakes = wake_times(trace.read_text(), code, since)
            print_who_woke(trace.read_text(), code, since)
            cpu_pct = await idle_cpu(served)
            if served.running is not None:
                print(await restart_phase(served, leader, followers))
                print(await still_leading(leader, code, trace, TIMEOUT_MS))

            # The control, in the same run: no room, each of the thirty makes the same change
            # in their own browser at the same moment. What this machine (two cores for the
            # server and 31 browsers) allows thirty people at best; the room cannot beat it.
            await leader.get_by_role("button", name="Close the room").click()
            await heard_closed(followers, code)
            print("control, each person making the change themselves:")
            control = await replay(leader, [leader, *followers], followers, served)
            await browser.close()
    problems = [
        line
        for log in served.logs
        for line in log.read_text().splitlines()
        if "Error" in line or "Traceback" in line
    ]
    print(f"server log: {len(problems)} lines with an error")
    for line in problems[:5]:
        print(f"  {line[:200]}")
    return {"following": following, "control": control, "cpu_pct": cpu_pct, "wakes": wakes}


async def heard_closed(followers: list, code: str) -> None:
    """Every follower has heard the room close: after the browsers' fallback check (a full run),
    or once each follower's page says so (a quick run)."""
    if not QUICK:
        await asyncio.sleep(FALLBACK_SECONDS + 1)
        return
    closed = f"Room {code} was closed by its leader."
    await asyncio.gather(*(f.get_by_text(closed).first.wait_for(timeout=TIMEOUT_MS) for f in followers))


async def join(followers: list, link: str) -> None:
    for follower in followers:  # one after another, as people arrive
        await follower.goto(link, wait_until="domcontentloaded")
    await asyncio.gather(
        *(f.get_by_role("heading", name=FIRST_HEADING).wait_for(timeout=120_000) for f in followers)
    )
    await asyncio.sleep(full_or_quick(3, 1))


async def restart_phase(served: Served, leader, followers: list) -> str:
    """The second replica restarts, with everyone on a page that costs little to draw (Overview),
    so that the time after its return says when its followers follow again, not how long this
    machine takes to draw thirty heavier pages; then the leader types a new sentence."""
    await make_change(leader, QUIET_PAGE)
    await asyncio.gather(*(shows(follower, QUIET_PAGE) for follower in followers))

    async def shown(page) -> None:
        await shows(page, AFTER_RESTART)

    return await restart_second(served, followers, lambda: make_change(leader, AFTER_RESTART), shown)


async def idle_cpu(served: Served) -> float:
    """With every follower idle, the servers' CPU time over IDLE_SECONDS, in % of one core. The
    browsers draw below the server, so they may still be drawing the last change (and asking the
    server for it) well after it: the window starts once they have stopped."""
    await asyncio.sleep(full_or_quick(5, 0.5))
    for _ in range(full_or_quick(30, 0)):  # at most a minute more, two seconds at a time
        before = browsers_cpu_seconds()
        await asyncio.sleep(2)
        if browsers_cpu_seconds() - before < BROWSERS_QUIET * 2:
            break
    before, browsers_before = served.cpu_seconds(), browsers_cpu_seconds()
    started = time.perf_counter()
    await asyncio.sleep(IDLE_SECONDS)
    elapsed = time.perf_counter() - started
    cpu_pct = 100 * (served.cpu_seconds() - before) / elapsed
    browsers_pct = 100 * (browsers_cpu_seconds() - browsers_before) / elapsed
    print(f"idle: server {cpu_pct:.1f} % of a core, the {FOLLOWERS + 1} browsers {browsers_pct:.0f} %")
    return cpu_pct


def print_who_woke(trace: str, code: str, since: float) -> None:
    """The time until each follower's run applied each new view, and how that run began: started
    by the server (components/rooms/room_wake.py), or asked for by the follower's browser after a push
    or a check (its room section fetched the view first)."""
    applied_after = wake_times(trace, code, since, ("applied",))
    print(
        f"the leader's change to each follower's run applying it: median "
        f"{statistics.median(applied_after or [nan]):.3f} s, p95 {percentile_95(applied_after):.3f} s"
    )
    fetched, applied = set(), set()
    for line in trace.splitlines():
        event, room, version, when, session = line.split()
        if room == code and float(when) > since:
            if event == "fetched":
                fetched.add((version, session))
            elif event == "applied":
                applied.add((version, session))
    print(
        f"new views applied: {len(applied)}, of which {len(applied - fetched)} in a run the server started "
        f"and {len(applied & fetched)} in one the follower's browser asked for"
    )


STARTS = ("begun", "applied")  # the trace's lines that mark a follower's run for a view starting


def wake_times(trace: str, code: str, since: float, starts: tuple[str, ...] = STARTS) -> list[float]:
    """From the server's trace: for each view the leader published after ``since`` (the clock
    is the machine's, shared with the server), the time until each follower's run for it began:
    the first line of a run the server started for it ("begun"), or where a run the browser asked
    for applied it ("applied"); with ``starts=("applied",)``, until the view was applied. (A
    follower that went straight to a later view skips one.)"""
    shown, started = {}, {}
    for line in trace.splitlines():
        event, room, version, when, session = line.split()
        if room != code:
            continue
        if event == "shown":
            shown.setdefault(int(version), float(when))
        elif event in starts:
            started.setdefault((int(version), session), float(when))
    return [when - shown[v] for (v, _), when in started.items() if shown.get(v, 0) > since]


def percentile_95(values: list[float]) -> float:
    values = sorted(values) or [nan]
    # (inclusive: never beyond the slowest measured, however few the values)
    return statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) >= 2 else values[0]


def summary(times: dict[str, list[float | None]], kind: str | None = None) -> tuple[list[float], int]:
    """Every time shown (of the changes of ``kind``, or all), and how many never showed."""
    chosen = [t for c in CHANGES if kind in (None, c.kind) for t in times[c.what]]
    return [t for t in chosen if t is not None], sum(t is None for t in chosen)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        checkpoint = bert_base_shaped(Path(folder) / "bert-base-shaped")
        result = asyncio.run(run(checkpoint))
    # Against the control, only the page changes: both times then end when the new page's
    # heading is drawn, after the server ran it. A box in the control holds what its own
    # reader typed at once, before the server has run anything.
    pages, _ = summary(result["following"], "page")
    control_pages, control_errors = summary(result["control"], "page")
    print(
        f"page changes: following p95_s={percentile_95(pages):.2f}, control (no room, each person "
        f"opening the page) p95_s={percentile_95(control_pages):.2f} errors={control_errors}; "
        f"following / control = {percentile_95(pages) / percentile_95(control_pages):.2f}"
    )
    latencies, errors = summary(result["following"])
    wakes = result["wakes"]
    print(
        f"wake-ups on the server: {len(wakes)}, median {statistics.median(wakes or [nan]):.3f} s, "
        f"p95 {percentile_95(wakes):.3f} s, slowest {max(wakes or [nan]):.3f} s"
    )
    print(
        f"follow followers={FOLLOWERS} changes={len(CHANGES)} errors={errors} "
        f"p50_s={statistics.median(latencies or [nan]):.2f} p95_s={percentile_95(latencies):.2f} "
        f"wake_p95_s={percentile_95(result['wakes']):.2f} server_cpu_pct={result['cpu_pct']:.1f} "
        f"replicas={REPLICAS}"
    )


if __name__ == "__main__":
    main()
