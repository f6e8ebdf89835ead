"""Rooms across replicas, for real: Redis, two Streamlit replicas and HAProxy with deploy/haproxy.cfg
(testkit/deployment.py, the deployment compose.yaml describes), driven by headless Chromium. A
leader on one replica leads followers on the other; each replica is restarted mid-room, and
nobody is lost: the room lives in Redis, a follower's address holds the room it follows, and a
leader's tab holds the room it leads. Replicas sharing a SQLite file instead (several processes on
one host) are the stores' own tests' (tests/rooms/test_room_stores.py, test_room_answers.py): the
store is all that differs."""

from __future__ import annotations

import os
import re
import time

import pytest

from bert_embeddings.config import ROOM_TRACE
from testkit import deployment
from testkit.browser import (
    APP_IDLE,
    HEADINGS,
    ROOT,
    as_shown,
    click_until,
    lead_room,
    nav,
    open_page,
)
from testkit.pytest_chromium import playwright_api

# One test process runs this file: its tests share what it starts (make test runs two).
pytestmark = [
    pytest.mark.xdist_group("replicas-browser"),
    pytest.mark.browser,
    pytest.mark.server("a Redis server"),
]


REASON = deployment.available()
if REASON:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {REASON}", pytrace=False)
    pytest.skip(REASON, allow_module_level=True)

sync_api = playwright_api()


# A limit, not a measure: how soon followers are back after a restart is bench.follow's
# (BENCH_REPLICAS=2), and with one core busy and the other running a test beside this one, a
# restarted replica's first pages take several times what they take on an idle machine.
BACK_WITHIN_S = 60
HEADINGS = {**HEADINGS, "Positions": "Positions: learned, not a formula"}


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """The deployment, its replicas sharing Redis, as on several hosts."""
    folder = tmp_path_factory.mktemp("deployment-redis")
    env = {ROOM_TRACE: str(folder / "rooms.trace")}
    with deployment.deployment(folder, env, store="redis") as running:
        yield running


def page_on(browser, deployed, replica: int):
    """A new person whose browser the load balancer sends to ``replica``."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_cookies([deployed.cookie(replica)])
    return context.new_page()


def all_show(pages, title: str, within_s: float) -> None:
    deadline = time.monotonic() + within_s
    for number, page in enumerate(pages):
        heading = page.get_by_role("heading", name=HEADINGS[title], exact=True)
        try:
            heading.wait_for(timeout=max(1, deadline - time.monotonic()) * 1000)
        except sync_api.TimeoutError:
            page.screenshot(path=str(ROOT / "test-artifacts" / "lost-replica-follower.png"))
            pytest.fail(f"follower {number} does not show {title} within {within_s} s: at {page.url}")


def test_a_room_spans_replicas_and_survives_a_restart_of_each(browser, deployed):
    leader = page_on(browser, deployed, 0)
    code = lead_room(leader, deployed.base)
    # three followers on the other replica, one on the leader's
    followers = [page_on(browser, deployed, replica) for replica in (1, 1, 1, 0)]
    for follower in followers:  # (all four load at once)
        follower.goto(f"{deployed.base}/?follow={code}", wait_until="domcontentloaded")
    for follower in followers:
        follower.wait_for_selector(APP_IDLE, timeout=90_000)
    for title in ("Tokens", "Neighbours"):
        nav(leader, title)
        all_show(followers, title, 30)
    for follower, replica in zip(followers, (1, 1, 1, 0), strict=True):  # each stayed on its replica
        cookie = {c["name"]: c["value"] for c in follower.context.cookies()}
        assert cookie["replica"] == deployed.replicas[replica].name

    # The followers' replica restarts while the leader moves on: they come back following.
    deployed.replicas[1].stop()
    nav(leader, "Maps")
    deployed.replicas[1].start()
    all_show(followers, "Maps", BACK_WITHIN_S)  # the restarted replica's three, and the other's one
    nav(leader, "Tokens")
    all_show(followers, "Tokens", 30)

    # The leader's replica restarts: the room is in Redis, the leader's tab takes it back.
    deployed.replicas[0].stop()
    deployed.replicas[0].start()
    # (the page still shows the room it led before the restart: only the new session's taking
    # the room back says "again")
    leader.get_by_text(f"You lead room {code} again.").wait_for(timeout=30_000)
    nav(leader, "Positions")
    all_show(followers, "Positions", 30)
    for number, follower in enumerate(followers):
        assert f"follow={code}" in follower.url, f"follower {number} stopped following"
    for page in (leader, *followers):
        page.context.close()


def test_a_restart_mid_question_loses_no_answer(browser, deployed):
    """Followers on one replica answer a lesson's question; that replica restarts before the
    reveal. Their answers are in the shared store, and each reconnected page is the same
    follower (its browser's cookie): it shows their answer, and the leader's count has them all."""
    leader = page_on(browser, deployed, 0)
    code = lead_room(leader, deployed.base)
    followers = [page_on(browser, deployed, 1) for _ in range(2)]
    for follower in followers:
        open_page(follower, f"{deployed.base}/?follow={code}")
    leader.get_by_role("button", name="Start the lesson").click()
    for follower, choice in zip(followers, ("the rocket", "the bee"), strict=True):
        bar = follower.locator(".st-key-lesson_bar")
        bar.get_by_text(choice, exact=True).click(timeout=BACK_WITHIN_S * 1000)
        bar.get_by_role("button", name="Send my answer").click()
        follower.get_by_text(re.compile(as_shown(f"Your answer: “{choice}”"))).wait_for(timeout=60_000)
    leader.get_by_text(re.compile(as_shown("2 answered"))).wait_for(timeout=30_000)

    deployed.replicas[1].stop()
    deployed.replicas[1].start()
    for follower, choice in zip(followers, ("the rocket", "the bee"), strict=True):
        follower.reload()  # (a new session of the same browser)
        said = re.compile(as_shown(f"Your answer: “{choice}”"))
        follower.get_by_text(said).wait_for(timeout=BACK_WITHIN_S * 1000)
    leader.get_by_role("button", name="Reveal the answer to the room").click()
    leader.get_by_text(re.compile(as_shown("The room: 2 answered; 1 right."))).wait_for(timeout=30_000)
    for follower, verdict in zip(followers, ("Right.", "Not this time"), strict=True):
        follower.get_by_text(re.compile(as_shown(verdict))).wait_for(timeout=BACK_WITHIN_S * 1000)
    for page in (leader, *followers):
        page.context.close()


# What is checked is the balancer's: that each person's address reaches the replicas through it.
# How a store counts one address's rooms, opened on either replica, is checked for both stores in
# tests/rooms/test_room_stores.py (test_the_limits_count_every_replicas_rooms).
def test_behind_the_balancer_each_person_has_a_room_limit_of_their_own(browser, deployed):
    """Through deploy/haproxy.cfg, one client who opens and closes rooms up to the limit is refused
    the next, and another client (another address) still leads: the limit once counted the
    balancer's address, so that one person's rooms blocked every presenter."""
    from bert_embeddings import rooms

    def client(address: str, replica: int):
        context = browser.new_context(
            viewport={"width": 1280, "height": 900}, extra_http_headers={"X-Forwarded-For": address}
        )
        context.add_cookies([deployed.cookie(replica)])
        return context.new_page()

    first, second = client("203.0.113.10", 0), client("198.51.100.20", 1)
    open_page(first, f"{deployed.base}/concepts")
    first.get_by_text("Workshop room").click()
    lead, close = (first.get_by_role("button", name=name) for name in ("Lead a new room", "Close the room"))
    for _ in range(rooms.OPENS_PER_CLIENT):  # each click once the page has shown its answer
        click_until(first, lead, first.locator("[data-testid='stCode']").first)  # the join link
        first.wait_for_selector(APP_IDLE, timeout=60_000)
        click_until(first, close, lead)
        first.wait_for_selector(APP_IDLE, timeout=60_000)
    first.get_by_role("button", name="Lead a new room").click()
    first.get_by_text("this server's limit for one address").wait_for(timeout=60_000)
    assert first.get_by_role("button", name="Close the room").count() == 0
    code = lead_room(second, deployed.base)  # another address, on either replica: not limited
    assert len(code) == rooms.CODE_LENGTH
    for page in (first, second):
        page.context.close()
