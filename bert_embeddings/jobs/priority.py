"""The CPU priority of background work: a job's worker process, a host's
``python -m bert_embeddings map``.

By default the lowest there is (SCHED_IDLE): background work takes only CPU time nobody else
wants and never slows anyone's page. A host whose machine is never idle sets
BERT_EXPLORER_JOB_PRIORITY=normal, or a map at SCHED_IDLE would wait there for ever.
"""

from __future__ import annotations

import os

from bert_embeddings import config

NICENESS = 19


def background_priority() -> None:
    """The calling process at the priority a host gave background work: ``idle``, the default,
    is SCHED_IDLE (nice 19 where that policy is missing); ``normal`` leaves it as it is."""
    if config.job_priority() == "normal":
        return
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        try:
            os.setpriority(os.PRIO_PROCESS, 0, NICENESS)
        except (AttributeError, OSError):
            pass


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def background_child() -> None:
    """A queue worker's child (preexec_fn): background work's priority, and killed with its
    worker, so that a worker stopped outright leaves no computation behind to finish unseen."""
    background_priority()
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
