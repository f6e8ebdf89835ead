"""A background job whose worker dies, in real headless Chromium: the t-SNE map, a space's
neighbour lists and the aligned maps. Whoever watches sees the failure and its reason at once,
without a click; a new tab sees it too; and "Try again" starts the job again, which then finishes
(components/parts/job_panel.py, bert_embeddings/jobs/local.job_in)."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from bert_embeddings import config
from testkit.browser import APP_IDLE, open_page, streamlit_server
from testkit.random_models import keep_first_pieces, write_random_bert

pytestmark = [pytest.mark.xdist_group("jobs-browser"), pytest.mark.browser]

MAP, SPACE, ALIGNED = (
    "bert_embeddings.maps.map_worker",
    "bert_embeddings.spaces.space_worker",
    "bert_embeddings.spaces.aligned_jobs",
)


def workers(module: str, cache: Path) -> set[int]:
    """The worker processes of ``module`` working in ``cache`` (this test's server's only)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if module in words and any(str(cache) in word for word in words):
            found.add(int(entry.name))
    return found


def a_worker(module: str, cache: Path, besides: set[int] = frozenset(), timeout: float = 120) -> int:
    """Wait until a worker of ``module`` other than ``besides`` runs; its process id."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        new = workers(module, cache) - set(besides)
        if new:
            return min(new)
        time.sleep(0.05)
    raise AssertionError(f"no {module} worker started within {timeout} s")


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# The random model keeps the first 1,500 of the vocabulary's 30,522 pieces, so that its neighbour
# lists and aligned maps are quick to compute to the end.
PIECES = 1500
THE_MAP = f"The t-SNE map of all {PIECES:,} pieces"


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    """A random 2-layer BERT, narrow and of a small vocabulary, so that its jobs are quick."""
    root = tmp_path_factory.mktemp("model")
    return keep_first_pieces(write_random_bert(root / "two-layers", layers=2, seed=5), PIECES)


def server(tmp_path_factory, model: Path, iterations: int):
    """The app on ``model``, with a cache of its own and ``iterations`` for its t-SNE maps (the
    Maps page's and the aligned maps' alike); its workers are killed when it stops."""
    root = tmp_path_factory.mktemp("jobs")
    cache = root / "cache"
    env = {
        "BERT_EXPLORER_MODEL": str(model),
        "BERT_EXPLORER_CACHE": str(cache),
        "BERT_EXPLORER_MAP_ITERATIONS": str(iterations),
        "HF_HUB_OFFLINE": "1",
    }
    with streamlit_server(env=env, log=root / "server.log") as (base, _):
        yield base, cache
    for module in (MAP, SPACE, ALIGNED):
        for pid in workers(module, cache):
            kill(pid)


@pytest.fixture(scope="module")
def long_maps(tmp_path_factory, model):
    """A server whose maps take the most t-SNE iterations a host may set: a map is never needed
    to the end here, and so long a one is surely still running when it is killed."""
    yield from server(tmp_path_factory, model, config.MAP_ITERATIONS_RANGE[1])


@pytest.fixture(scope="module")
def short_maps(tmp_path_factory, model):
    """A server whose maps take few t-SNE iterations, so that the aligned maps, which must
    finish here, are quick."""
    yield from server(tmp_path_factory, model, 100)


def failure_shown(page, what: str) -> None:
    """The page says, without being asked, that ``what`` could not be computed, and why."""
    # (echo.plain puts invisible word joiners after punctuation: the pattern skips over them)
    said = page.get_by_text(re.compile(re.escape(what) + r".* could not be computed.+exit code -9"))
    said.first.wait_for(state="visible", timeout=120_000)
    page.get_by_role("button", name="Try again").wait_for(state="visible", timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0


def try_again(page, module: str, cache: Path, killed: int) -> int:
    """Click "Try again": a new worker starts, and the failure is gone."""
    page.get_by_role("button", name="Try again").click()
    started = a_worker(module, cache, besides={killed})
    page.get_by_role("button", name="Try again").wait_for(state="detached", timeout=60_000)
    return started


def test_a_killed_map_worker_is_seen_at_once_and_try_again_starts_it_again(long_maps, browser):
    """Maps, t-SNE: the worker killed mid-way; the page and a new tab say so, Try again restarts it."""
    base, cache = long_maps
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    open_page(page, f"{base}/maps?method=tsne")
    first = a_worker(MAP, cache)
    page.locator("[data-testid='stProgress']").first.wait_for(state="visible", timeout=60_000)
    kill(first)
    failure_shown(page, THE_MAP)
    other = context.new_page()
    open_page(other, f"{base}/maps?method=tsne")
    failure_shown(other, THE_MAP)
    other.close()
    second = try_again(page, MAP, cache, first)
    page.locator("[data-testid='stProgress']").first.wait_for(state="visible", timeout=60_000)
    kill(second)  # (its map is not needed here: the restart is what is checked)
    failure_shown(page, THE_MAP)
    context.close()


def test_killed_space_and_aligned_workers_are_seen_at_once_and_try_again_finishes_them(
    short_maps, model, browser
):
    """What moved: the neighbour lists' worker and then the aligned maps' worker killed; each
    failure is shown at once, and Try again computes each to the end."""
    base, cache = short_maps
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    open_page(page, f"{base}/moved?to=1&vs={quote(str(model))}")
    page.get_by_role("button", name="Compute the neighbour lists").click()
    first = a_worker(SPACE, cache)
    kill(first)
    failure_shown(page, "token rows")
    other = context.new_page()
    open_page(other, f"{base}/moved?to=1&vs={quote(str(model))}")
    failure_shown(other, "token rows")
    other.close()
    try_again(page, SPACE, cache, first)
    page.get_by_text("Linear CKA", exact=True).wait_for(state="visible", timeout=300_000)

    page.get_by_role("button", name="Draw the aligned maps").click()
    first = a_worker(ALIGNED, cache)
    kill(first)
    failure_shown(page, "The aligned maps")
    try_again(page, ALIGNED, cache, first)
    page.get_by_text("From A's map to B's").wait_for(state="visible", timeout=600_000)
    page.wait_for_selector(APP_IDLE)
    assert page.locator("[data-testid='stException']").count() == 0
    context.close()
