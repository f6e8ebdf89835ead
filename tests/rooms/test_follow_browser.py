"""Workshop rooms in real headless Chromium, against a real ``streamlit run`` with its push route.

The first test is the one that found why followers were lost (see components/rooms/follow.py): a
leader racing through pages while a room of followers keeps up. On the code before the fix it
lost followers in every run here (a page left half drawn, or a follower who silently stopped
following); each follower must now end on the leader's page, still following.
"""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.request

import pytest

from bert_embeddings.config import ROOM_TRACE, TRUSTED_PROXIES
from testkit.browser import (
    APP_IDLE,
    HEADINGS,
    NO_WEBGL,
    ROOT,
    lead_room,
    nav,
    new_page,
    open_page,
    streamlit_server,
)
from testkit.pytest_chromium import playwright_api

sync_api = playwright_api()

# One test process runs this file: its tests share what it starts (make test runs two).
pytestmark = [pytest.mark.xdist_group("follow-browser"), pytest.mark.browser]


FOLLOWERS = 8
RACE = ("Tokens", "Neighbours", "Maps", "Positions", "Segments", "Overview")


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory):
    """The server's room trace (BERT_EXPLORER_ROOM_TRACE): which run applied which view."""
    return tmp_path_factory.mktemp("trace") / "rooms.trace"


@pytest.fixture(scope="module")
def server(tmp_path_factory, trace_file):
    folder = tmp_path_factory.mktemp("rooms")
    # Each page stands in for a machine of its own (new_page's X-Forwarded-For, believed from
    # 127.0.0.1): the tests here open more rooms than one address may.
    env = {ROOM_TRACE: str(trace_file), TRUSTED_PROXIES: "127.0.0.1"}
    with streamlit_server(env=env, log=folder / "server.log") as (base, _process):
        yield base


@pytest.fixture(scope="module")
def chromium_args():
    """Without WebGL: each page stands in for a person's own machine, nine of them on two cores
    (the rooms' tests read pages and headings, never a drawn map)."""
    return NO_WEBGL


# Followers on desktops and on phones, whose pages lay out otherwise and each ask for a rerun as a
# chart comes into view (components/parts/on_view.py), which may meet the room's move to another page.
PHONE = {"width": 390, "height": 844}
SCREENS = {"desktop": None, "phone": PHONE}


@pytest.mark.parametrize("screen", SCREENS)
def test_followers_keep_up_with_a_leader_racing_through_pages(browser, server, screen):
    leader = new_page(browser)
    code = lead_room(leader, server)
    followers = [new_page(browser, viewport=SCREENS[screen]) for _ in range(FOLLOWERS)]
    for follower in followers:
        follower.goto(f"{server}/?follow={code}", wait_until="domcontentloaded")
    for follower in followers:
        follower.get_by_role("heading", name="What is an embedding?").wait_for(timeout=120_000)
    for title in RACE:
        nav(leader, title)
        time.sleep(0.3)
    nav(leader, "Neighbours")
    for number, follower in enumerate(followers):
        heading = follower.get_by_role("heading", name=HEADINGS["Neighbours"], exact=True)
        try:
            heading.wait_for(timeout=30_000)
        except sync_api.TimeoutError:
            follower.screenshot(path=str(ROOT / "test-artifacts" / "lost-follower.png"))
            pytest.fail(f"follower {number} lost after racing to Neighbours: at {follower.url}")
        assert f"follow={code}" in follower.url, f"follower {number} stopped following"
    for follower in followers:
        follower.context.close()
    leader.context.close()


DOM_HOOKS = """() => [
    document.querySelector("[data-testid='stApp']")?.getAttribute("data-test-script-state"),
    Boolean(document.querySelector("[data-testid='stMain'] h1")),
]"""


def room_versions(trace_file, code: str) -> list[int]:
    """The distinct versions the room ``code`` was shown (by a leader's run), in order."""
    versions = []
    for line in trace_file.read_text().splitlines():
        event, room, version, *_ = line.split()
        if event == "shown" and room == code and int(version) not in versions:
            versions.append(int(version))
    return versions


def first_lines(url: str, count: int) -> list[str]:
    with urllib.request.urlopen(url, timeout=10) as stream:
        return [stream.readline().decode().strip() for _ in range(count)]


def test_the_push_route_streams_a_rooms_versions_and_refuses_what_is_not_a_room(browser, server):
    leader = new_page(browser)
    code = lead_room(leader, server)
    # what the room's component reads of Streamlit's page (components/rooms/room_watch.py): an
    # upgrade that renames either would make it wake at the wrong time, so it fails here
    leader.wait_for_selector(APP_IDLE)
    assert leader.evaluate(DOM_HOOKS) == ["notRunning", True]
    retry, data = first_lines(f"{server}/rooms/{code}/events", 2)
    assert retry.startswith("retry: ") and data.startswith("data: ") and int(data[6:]) >= 1
    # behind a path prefix (a host's proxy) the same route answers
    assert first_lines(f"{server}/some/prefix/rooms/{code.lower()}/events", 2)[1].startswith("data: ")
    for wrong in ("ZZZZZZ", "not-a-code", "A" * 300):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{server}/rooms/{wrong}/events", timeout=10)
        assert refused.value.code == 404
    leader.context.close()


def test_a_leader_who_reloads_keeps_leading_and_followers_hear_the_close(browser, server, trace_file):
    """A leader who reloads keeps leading and takes the room's view back from the store, with a
    sentence too long for the address (over 2,000 characters), so that no follower is switched to
    the default sentence (it once was, for the whole room); another tab of the leader's browser is
    offered the room and does not take it; the room's closing reaches the follower."""
    expect = sync_api.expect
    leader = new_page(browser)
    code = lead_room(leader, server)
    follower = new_page(browser)
    open_page(follower, f"{server}/?follow={code}")
    follower.get_by_role("heading", name="What is an embedding?").wait_for(timeout=60_000)
    assert code not in "".join(c["value"] for c in follower.context.cookies())  # no secret leaks
    long_text = ("The river bank flooded after the storm and the town stayed dry. " * 60)[:3100].strip()
    nav(leader, "Tokens")
    follower.get_by_role("heading", name="Tokens", exact=True).wait_for(timeout=30_000)
    area = leader.get_by_label("Sentence A", exact=True)
    area.fill(long_text)
    area.press("Control+Enter")
    expect(follower.get_by_label("Sentence A", exact=True)).to_have_value(long_text, timeout=60_000)

    leader.reload(wait_until="domcontentloaded")
    leader.wait_for_selector(APP_IDLE, timeout=60_000)
    leader.get_by_text(f"You lead room {code} again.").wait_for(timeout=30_000)
    expect(leader.get_by_label("Sentence A", exact=True)).to_have_value(long_text, timeout=30_000)
    # another tab of the leader's browser (a preview) is offered the room, and does not take it
    shown_before = room_versions(trace_file, code)
    preview = leader.context.new_page()
    open_page(preview, f"{server}/overview")
    preview.get_by_role("button", name=f"Lead room {code} again").wait_for(timeout=30_000)
    assert preview.get_by_text(f"You lead room {code}").count() == 0
    # The sign that the room went on without the preview: the leader's next view (published with
    # the sentence it holds) reaches the follower, and it is the only view the room was shown
    # since the preview opened.
    nav(leader, "Segments")
    follower.get_by_role("heading", name="Segments: sentence A or sentence B").wait_for(timeout=60_000)
    follower.wait_for_selector(APP_IDLE, timeout=60_000)
    assert "/segments" in follower.url and f"follow={code}" in follower.url
    expect(follower.get_by_label("Sentence A", exact=True)).to_have_value(long_text, timeout=30_000)
    shown_since = room_versions(trace_file, code)[len(shown_before) :]
    assert shown_since == [max(shown_before) + 1], f"the preview showed a view: {shown_since}"
    preview.close()

    leader.get_by_role("button", name="Close the room").click()
    follower.get_by_text(f"Room {code} was closed by its leader.").wait_for(timeout=30_000)
    leader.reload(wait_until="domcontentloaded")
    leader.wait_for_selector(APP_IDLE, timeout=60_000)
    leader.get_by_text("Workshop room").click()
    leader.get_by_role("button", name="Lead a new room").wait_for(timeout=30_000)  # the cookie went
    follower.context.close()
    leader.context.close()


def test_a_follower_who_loses_the_connection_keeps_following(browser, server):
    """Conference Wi-Fi drops a follower for a few seconds while the leader moves on: once
    back, the follower's page catches up, still following (the browser reruns the page it still
    shows, which the server has left for the room's next one)."""
    leader = new_page(browser)
    code = lead_room(leader, server)
    follower = new_page(browser)
    open_page(follower, f"{server}/?follow={code}")
    follower.get_by_role("heading", name="What is an embedding?").wait_for(timeout=60_000)
    follower.context.set_offline(True)
    nav(leader, "Tokens")
    leader.get_by_role("heading", name="Tokens", exact=True).wait_for(timeout=30_000)
    time.sleep(4)
    follower.context.set_offline(False)
    follower.get_by_role("heading", name="Tokens", exact=True).wait_for(timeout=60_000)
    assert f"follow={code}" in follower.url
    nav(leader, "Segments")
    follower.get_by_role("heading", name="Segments: sentence A or sentence B").wait_for(timeout=30_000)
    # A page the follower picks in the navigation is their own step, though the page they leave has
    # an address that follows the room (a rerun from such an address is not: components/rooms/follow.py).
    follower.wait_for_selector(APP_IDLE, timeout=60_000)
    nav(follower, "Positions")
    follower.get_by_text(f"You stepped away from room {code}").wait_for(timeout=60_000)
    assert f"follow={code}" not in follower.url
    follower.context.close()
    leader.context.close()


def test_the_server_reruns_its_followers_itself_without_their_push(browser, server, trace_file):
    """The leader's change reruns each follower's session on the server at once: here the
    follower's push route is blocked (as on a host that does not pass it through), and the run
    that applies the leader's new view is not one the follower's browser asked for (its room
    section never fetched that view)."""
    leader = new_page(browser)
    code = lead_room(leader, server)
    follower = new_page(browser)
    follower.route("**/rooms/*/events", lambda route: route.abort())
    open_page(follower, f"{server}/?follow={code}")
    follower.get_by_role("heading", name="What is an embedding?").wait_for(timeout=60_000)
    conclusive = 0
    for title, heading in (("Tokens", "Tokens"), ("Segments", "Segments: sentence A or sentence B")):
        follower.wait_for_selector(APP_IDLE, timeout=60_000)
        since = time.time()
        nav(leader, title)
        follower.get_by_role("heading", name=heading, exact=True).wait_for(timeout=30_000)
        lines = [line.split() for line in trace_file.read_text().splitlines()]
        lines = [(e, int(v), float(t), s) for e, c, v, t, s in lines if c == code and float(t) > since]
        applied = [(v, t, s) for e, v, t, s in lines if e == "applied"]
        assert applied, "the follower's runs applied no new view"
        for version, when, session in applied:
            # the browser's slow check may by chance have woken it in the same moment: inconclusive
            if any(e == "woken" and s == session and t <= when for e, _, t, s in lines):
                continue
            conclusive += 1
            assert ("fetched", version, session) not in {(e, v, s) for e, v, _, s in lines}
    assert conclusive
    follower.context.close()
    leader.context.close()


def step_shown(page, number: int) -> None:
    """The lesson bar shows step ``number`` of the first lesson, and the run is over."""
    said = re.compile(rf"The many embeddings of BERT:\u2060? step {number} of \d+$")
    page.get_by_text(said).wait_for(timeout=120_000)
    page.wait_for_selector(APP_IDLE, timeout=120_000)


def told_on_the_page(page, text: str):
    """``text`` in the page's main area (not the sidebar, folded away on a phone), on the screen."""
    shown = page.locator("[data-testid='stMain']").get_by_text(re.compile(re.escape(text)))
    shown.wait_for(timeout=60_000)
    assert shown.is_visible() and shown.bounding_box()["y"] < PHONE["height"], text
    return shown


def test_a_follower_on_a_phone_always_knows_whether_they_follow(browser, server):
    """At 390x844, with the sidebar folded: the follower reads on the page itself that they
    follow the room's lesson and step; their own Next steps away and says so, with "Follow again"
    one tap away, which brings the room's current step; a change of their own, then "Back to this
    step's view", also brings the room's current step; the room's closing is said there too."""
    leader = new_page(browser)
    code = lead_room(leader, server)
    follower = new_page(browser, PHONE)
    open_page(follower, f"{server}/?follow={code}")
    leader.get_by_role("button", name="Start the lesson").click()
    step_shown(follower, 1)
    told_on_the_page(follower, f"Following room {code}'s lesson, step 1")

    follower.get_by_role("button", name="Next", exact=True).click()  # the follower's own step
    step_shown(follower, 2)
    told_on_the_page(follower, f"You stepped away from room {code}")
    assert f"follow={code}" not in follower.url
    for number in (2, 3):
        leader.get_by_role("button", name="Next", exact=True).click()
        step_shown(leader, number)
    follow_again = follower.locator("[data-testid='stMain']").get_by_role("button", name="Follow again")
    follow_again.click()
    step_shown(follower, 3)  # the room's step now, not the one the follower left
    told_on_the_page(follower, f"Following room {code}'s lesson, step 3")
    assert f"follow={code}" in follower.url

    leader.get_by_role("button", name="Next", exact=True).click()  # positions: p1=5
    step_shown(follower, 4)
    first = follower.get_by_label("First position")
    first.fill("9")
    first.press("Enter")
    told_on_the_page(follower, f"You stepped away from room {code}")
    leader.get_by_role("button", name="Next", exact=True).click()
    step_shown(leader, 5)
    follower.get_by_role("button", name="Back to this step's view").click()
    step_shown(follower, 5)
    told_on_the_page(follower, f"Following room {code}'s lesson, step 5")
    assert "/segments" in follower.url and f"follow={code}" in follower.url

    leader.get_by_role("button", name="Close the room").click()
    told_on_the_page(follower, f"Room {code} was closed by its leader.")
    follower.context.close()
    leader.context.close()
