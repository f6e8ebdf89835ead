"""Threads for a server that many sessions share: one per numeric call, by default.

One Streamlit process serves every session, each script run in its own thread. By
default a torch call, and numpy's BLAS (OpenBLAS), spread over every core, and their idle
workers keep spinning for a while after each call. When sessions overlap on a 2-core host,
those pools compete with each other and with the other sessions' runs. One thread per call
(BERT_EXPLORER_THREADS to change it) lets concurrent sessions use the cores side by side.

The app's pages call ``for_shared_server`` once; the core's functions and the benchmarks
keep numpy's own defaults unless they call it too.

Background work runs at its own priority, the lowest by default (bert_embeddings.jobs.priority).
"""

from __future__ import annotations

import contextlib
import os
import threading

from bert_embeddings import config

_lock = threading.Lock()
_blas_limits = None


def thread_count() -> int:
    return config.threads()


def torch_module():
    """Import torch, its thread count held to ``thread_count()`` for the call about to be made.

    Checked on every call, not once: another library in the process may set the OpenMP threads
    torch's sums are shared by (threadpoolctl restoring a count, for one), and a forward pass's
    last bits depend on that count, so a lesson's handout would no longer give the page's numbers."""
    import torch

    wanted = thread_count()
    if torch.get_num_threads() != wanted:
        with _lock:
            torch.set_num_threads(wanted)
    return torch


def for_shared_server() -> None:
    """Hold numpy's BLAS to ``thread_count()`` threads for the rest of the process."""
    global _blas_limits
    from threadpoolctl import threadpool_limits

    with _lock:
        if _blas_limits is None:
            # A BLAS loaded later (scipy bundles its own OpenBLAS) reads this when it starts.
            os.environ["OPENBLAS_NUM_THREADS"] = str(thread_count())
            _blas_limits = threadpool_limits(limits=thread_count(), user_api="blas")


@contextlib.contextmanager
def as_on_the_server():
    """Numpy's BLAS held to ``thread_count()`` threads for a while, as the app's pages compute:
    a matrix product's last bits can depend on how many threads share its sums, so work that must
    give the page's very numbers (a lesson's handout) computes with the server's threads."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=thread_count(), user_api="blas"):
        yield
