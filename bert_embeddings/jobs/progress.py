"""How far a background job has come, and how long it has left, from the report its worker
writes (``progress.json``).

Every worker reports its step, the share of the whole job done and the seconds so far
(jobs.worker.reporter); one that can forecast its own time left says so too (``left``: a t-SNE
map's worker, from its stages' cost model, bert_embeddings.maps.forecast). Any other job's time
left is extrapolated from its pace once a tenth of it is done. The job panel shows both alike.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from bert_embeddings.jobs import files

EXTRAPOLATE_FROM = 0.1  # a job's share done before its time left is extrapolated from its pace


@dataclass(frozen=True)
class TimeLeft:
    """Seconds left: a range while the job cannot yet tell (low < high), else low == high."""

    low: float
    high: float


def read(folder: Path) -> dict | None:
    """The worker's latest report, or None (not started yet, or between two writes)."""
    try:
        report = json.loads((folder / files.PROGRESS).read_text())
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) else None


def time_left(report: dict | None) -> tuple[float, TimeLeft | None]:
    """(share of the job done, its time left or None) from a worker's report: the worker's own
    forecast where it gave one, else extrapolated from its fraction and its seconds so far, once
    EXTRAPOLATE_FROM of it is done."""
    try:
        done, elapsed = float(report["fraction"]), float(report["elapsed"])
    except (TypeError, KeyError, ValueError):
        return 0.0, None
    if not (math.isfinite(done) and math.isfinite(elapsed)):
        return 0.0, None
    done = min(max(done, 0.0), 1.0)
    forecast = report.get("left")
    if isinstance(forecast, list) and len(forecast) == 2:
        try:
            low, high = sorted(float(seconds) for seconds in forecast)
        except (TypeError, ValueError):
            return done, None
        return done, TimeLeft(max(low, 0.0), max(high, 0.0)) if math.isfinite(high) else None
    if not EXTRAPOLATE_FROM <= done < 1.0:
        return done, None
    seconds = elapsed * (1 - done) / done
    return done, TimeLeft(seconds, seconds)
