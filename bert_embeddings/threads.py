"""torch, set up once for a server that many sessions share.

One Streamlit process serves every session, each script run in its own thread. By
default a torch call spreads over every core; when sessions overlap on a 2-core host,
those calls compete for the same cores. One thread per call (BERT_EXPLORER_TORCH_THREADS
to change it) lets concurrent sessions use the cores side by side instead.
"""

from __future__ import annotations

import os
import threading

ENV_TORCH_THREADS = "BERT_EXPLORER_TORCH_THREADS"
_lock = threading.Lock()
_configured = False


def torch_module():
    """Import torch, setting its thread count the first time."""
    global _configured
    import torch

    with _lock:
        if not _configured:
            torch.set_num_threads(max(1, int(os.environ.get(ENV_TORCH_THREADS) or 1)))
            _configured = True
    return torch
