"""This server's pace: how long its last t-SNE map took, against the forecast's reference.

The estimate a person sees before starting a big map is the forecast's cost model
(bert_embeddings.maps.forecast), scaled by this pace: a server that took twice the reference
machine's time for its last map is expected to take twice as long again. Each map's worker
records it when the map is saved, beside the maps in the cache folder, so every session and
replica that shares the folder reads the same figure.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from bert_embeddings.jobs import files
from bert_embeddings.maps import forecast

PACE = "pace.json"
# A pace outside this range is a worker that waited on something else (a suspended laptop, a
# full machine): not kept.
SLOWEST, FASTEST = 8.0, 0.125


def record(maps_folder: Path, shape: forecast.Shape, seconds: float) -> None:
    """Keep how ``seconds`` for a map of ``shape`` compares with the reference machine."""
    pace = forecast.pace(shape, seconds)
    if FASTEST <= pace <= SLOWEST:
        try:
            files.write_atomically(maps_folder / PACE, json.dumps({"pace": round(pace, 3)}).encode())
        except OSError:  # the map itself is saved; the next estimate goes without this figure
            pass


def read(maps_folder: Path) -> float | None:
    """This server's pace, or None before its first map (or if the file is unreadable)."""
    try:
        pace = float(json.loads((maps_folder / PACE).read_text())["pace"])
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return pace if math.isfinite(pace) and FASTEST <= pace <= SLOWEST else None
