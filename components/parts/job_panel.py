"""One panel for every background job a page waits on (a t-SNE map, a stage's neighbour lists,
aligned maps): the offer to start it, its progress with the time left, its failure with the
reason, and "Try again", which starts it again.

It shows what the rule every job follows promises (bert_embeddings.jobs, whichever backend runs
it): a failure is seen at once, by whoever watches, and in any new tab; and "Try again" forgets
the failure and asks for the job in the same click, so the next run starts it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import streamlit as st

from bert_embeddings.errors import JobQueueError
from bert_embeddings.jobs import backend, progress
from components.parts import echo
from components.view_state import session_entries


@dataclass(frozen=True)
class Offer:
    """What the page says before a job starts, and the button that starts it."""

    button: str  # the button's label
    note: str = ""  # a caption under the button: what it costs, who it is for
    before: Callable[[], None] | None = None  # draws what is said above the button, if anything


def _asked() -> dict:
    """The job panels whose button was clicked, by key, until a run starts their jobs."""
    return session_entries.entry(session_entries.JOBS)


def _ask(key: str) -> None:
    """on_click of the offer's button: remembered until a run reaches the point where the job starts."""
    _asked()[key] = True


def _again(key: str, folders: tuple) -> None:
    """on_click of "Try again": the failed jobs are forgotten and asked for again in one click."""
    try:
        for folder in folders:
            backend.retry(folder)
    except JobQueueError:
        pass  # the run this click starts says that the queue does not answer
    _ask(key)


def wait_for(
    key: str,
    find: Callable[[bool], Sequence[object]],
    labels: Sequence[str],
    offer: Offer | None,
    note: str,
) -> list | None:
    """Every result ``find`` returns, once none is a job; meanwhile the panel, and None.

    ``find(start)`` returns, for each label, its result, or the job making it (joined if it runs,
    started when ``start``; a job this process knows of is always returned), or None: not on disk
    and not asked for. ``offer``: the button that asks; None starts the jobs at once."""
    asked = offer is None or bool(_asked().pop(key, False))
    try:
        return _panel(key, list(find(asked)), labels, offer, note)
    except JobQueueError as problem:  # the queue does not answer: what is on disk was already shown
        st.error(echo.plain(problem), icon=":material/cloud_off:")
        st.button("Try again", icon=":material/refresh:", key=f"{key}_queue", on_click=_ask, args=(key,))
        return None


def _panel(key: str, found: list, labels: Sequence[str], offer: Offer | None, note: str) -> list | None:
    """The panel for what ``find`` returned (wait_for)."""
    if any(item is None for item in found):
        if offer.before is not None:
            offer.before()
        st.button(offer.button, icon=":material/play_arrow:", key=key, on_click=_ask, args=(key,))
        if offer.note:
            st.caption(offer.note)
        return None
    jobs = [(label, item) for label, item in zip(labels, found, strict=True) if backend.is_job(item)]
    if not jobs:
        return found
    failed = [(label, why) for label, job in jobs if (why := job.failure())]
    if failed:
        for label, why in failed:
            st.error(echo.plain(f"{label} could not be computed: {why}."), icon=":material/error:")
        folders = tuple(job.folder for _, job in jobs if job.failure())
        st.button(
            "Try again", icon=":material/refresh:", key=f"{key}_again", on_click=_again, args=(key, folders)
        )
        return None
    _watch(jobs, note)
    return None


def _left_in_words(left) -> str:
    """The time left as the bar says it: a range until the forecast knows the layout's pace."""
    if left is None:
        return ""
    if left.high - left.low > max(5.0, 0.2 * left.high):
        return f", {left.low:.0f} to {left.high:.0f} s left"
    return f", about {(left.low + left.high) / 2:.0f} s left"


@st.fragment(run_every=1.0)
def _watch(jobs: list[tuple[str, backend.Job]], note: str) -> None:
    """While jobs run: each one's step, how far along and the time left, and ``note``. Only this
    part of the page reruns, once a second; the whole page reruns when a job stops, so that its
    result, or its failure, is shown at once."""
    try:
        _bars(jobs, note)
    except JobQueueError:  # the whole page then says so, and shows what is on disk
        st.rerun(scope="app")


def _bars(jobs: list[tuple[str, backend.Job]], note: str) -> None:
    if not any(job.running() for _, job in jobs):
        st.rerun(scope="app")
    for label, job in jobs:
        if job.waiting():
            st.info(echo.plain(f"{label}: {job.waits_for()}."), icon=":material/hourglass_top:")
            continue
        report = job.report()
        done, left = progress.time_left(report)
        step = (report or {}).get("stage", "starting")
        since = time.time() - job.started
        text = f"{label}: {step}, {done:.0%}{_left_in_words(left)} ({since:.0f} s so far)."
        st.progress(done, text=echo.plain(text))
    st.caption(note)
