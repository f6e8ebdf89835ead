"""Two app replicas sharing a job queue (BERT_EXPLORER_JOBS on a real redis-server) and one real
worker, in headless Chromium: both ask for the same t-SNE map, neither computes it, one job runs
on the worker, both pages show its progress and then the map. With Redis gone, a map not yet
made says that background work cannot start now, and the finished map is still shown."""

from __future__ import annotations

import contextlib
import os
import re
import time

import pytest

from bert_embeddings.jobs import queue
from testkit.browser import open_page, streamlit_server
from testkit.random_models import keep_first_pieces, write_random_bert
from testkit.services import RedisServer, job_worker

pytestmark = [pytest.mark.xdist_group("queue-browser"), pytest.mark.browser]

MAP_TEXT = "The t-SNE map of all 30,522 pieces"


def map_workers(cache) -> set[int]:
    """Map worker processes computing in ``cache``, whoever started them."""
    found = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                words = open(f"/proc/{entry.name}/cmdline", "rb").read().decode(errors="replace").split("\0")
            except OSError:
                continue
            if "bert_embeddings.maps.map_worker" in words and any(str(cache) in w for w in words):
                found.add(int(entry.name))
    return found


def test_two_replicas_share_one_job_on_the_worker_and_a_lost_queue_is_said_so(tmp_path, browser):
    from redis import Redis

    redis = RedisServer(appendonly=False)
    redis.start()
    # A vocabulary of 4,000 pieces: the test is of one job shared by two replicas, not of a map's
    # size (a t-SNE of 30,522 rows took minutes beside the suite's other process).
    model = keep_first_pieces(write_random_bert(tmp_path / "two-layers", layers=2, seed=5), 4000)
    cache = tmp_path / "cache"
    env = {
        "BERT_EXPLORER_MODEL": str(model),
        "BERT_EXPLORER_CACHE": str(cache),
        "BERT_EXPLORER_JOBS": redis.url,
        "BERT_EXPLORER_MAP_ITERATIONS": "500",
        "HF_HUB_OFFLINE": "1",
    }
    with contextlib.ExitStack() as stack:
        stack.callback(redis.close)
        first = stack.enter_context(streamlit_server(env=env, log=tmp_path / "app1.log"))[0]
        second = stack.enter_context(streamlit_server(env=env, log=tmp_path / "app2.log"))[0]
        contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(2)]
        for context in contexts:
            stack.callback(context.close)
        pages = [context.new_page() for context in contexts]
        for page, base in zip(pages, (first, second), strict=True):
            open_page(page, f"{base}/maps?method=tsne")
            # no worker yet: the job waits on the queue, and no replica computes it itself
            waits = re.compile("waiting for a worker.{0,2} none is running")
            page.get_by_text(waits).wait_for(timeout=60_000)
        assert not map_workers(cache)
        assert int(Redis.from_url(redis.url).get(queue.ENQUEUED)) == 1
        log = tmp_path / "worker.log"
        stack.enter_context(job_worker(redis.url, env=env, log=log))
        for page in pages:  # both follow the one job to its end
            page.locator("[data-testid='stProgress']").first.wait_for(state="visible", timeout=120_000)
        for page in pages:
            page.get_by_text(re.compile("Faithfulness.{0,2} neighbour recall@10")).wait_for(timeout=600_000)
            assert page.locator("[data-testid='stException']").count() == 0
        assert int(Redis.from_url(redis.url).get(queue.ENQUEUED)) == 1
        assert log.read_text().count("Job OK") == 1

        redis.stop()  # the queue is gone: what is on disk is shown, the rest says why it waits
        page = pages[0]
        began = time.monotonic()
        open_page(page, f"{first}/maps?method=tsne&geometry=centred")
        page.get_by_text(re.compile("Background work cannot start now")).wait_for(timeout=30_000)
        assert time.monotonic() - began < 30
        assert page.locator("[data-testid='stException']").count() == 0
        open_page(pages[1], f"{second}/maps?method=tsne")
        pages[1].get_by_text(re.compile("Faithfulness.{0,2} neighbour recall@10")).wait_for(timeout=60_000)
