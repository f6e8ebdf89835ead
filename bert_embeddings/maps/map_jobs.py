"""Neighbour maps computed once, in the background, and kept on disk.

A map is a folder named by the model's table (a fingerprint of its bytes) and the settings:
its arrays (``coords.npy``; ``neighbours.npy``, each row's exact 10 nearest cosine neighbours;
``kept.npy``, how many of them the map keeps; ``regions.npy``, each row's region) and its
record, ``map.json`` (jobs.records: each array's checksum, dtype and shape; the settings, the
faithfulness and the regions). A map whose files are missing, cut short, or do not match their
record is not a map: it is removed and computed again, never shown.

The computation is a background job, wherever the host runs them (jobs.backend): ``python -m
bert_embeddings.maps.map_worker FOLDER SETTINGS``, whose life is jobs.worker.run's; it reads the
table from ``table.npy`` in the folder, writes ``progress.json`` as it goes, and the finished map
last (``save``, through jobs.records).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bert_embeddings import config
from bert_embeddings.jobs import backend, files, records
from bert_embeddings.maps import map_reading, neighbour_map

COORDS, RECORD = "coords.npy", "map"  # (the record: map.json)
NEIGHBOURS, KEPT, REGIONS = "neighbours.npy", "kept.npy", "regions.npy"


def default_settings() -> neighbour_map.Settings:
    """The settings the app's maps use (their iterations a host may set)."""
    return neighbour_map.Settings(iterations=config.map_iterations())


def map_name(table_fingerprint: str, geometry_key: tuple[str, int]) -> str:
    """What a map is of: the table (its fingerprint) and, for any geometry but raw, the geometry
    (name and D) fitted to that table, which together name the rows mapped."""
    name, removed = geometry_key
    return table_fingerprint if name == "raw" else f"{table_fingerprint}-{name}{removed or ''}"


def folder_for(table_fingerprint: str, settings: neighbour_map.Settings) -> Path:
    return config.explorer_cache_dir() / "maps" / table_fingerprint / settings.name()


@dataclass(frozen=True)
class Done:
    coords: np.ndarray  # (n, 2) float32
    meta: dict
    neighbours: np.ndarray  # (n, 10) int32: each row's exact nearest cosine neighbours
    kept: np.ndarray  # (n,) int8: how many of them the map keeps among its 10 nearest points
    regions: map_reading.Regions

    @property
    def occurrence(self) -> np.ndarray:
        """Each row's k-occurrence: in how many rows' 10 nearest neighbours it is."""
        return map_reading.k_occurrence(self.neighbours, len(self.coords))


# The map's arrays on disk: each file's dtype and its shape for a table of n rows.
ARRAYS = {
    COORDS: (np.float32, lambda n: (n, 2)),
    NEIGHBOURS: (np.int32, lambda n: (n, neighbour_map.RECALL_K)),
    KEPT: (np.int8, lambda n: (n,)),
    REGIONS: (np.int16, lambda n: (n,)),
}


def load(folder: Path, rows: int | None = None) -> Done | None:
    """The finished map in ``folder``, each file checked against its record; None if there is
    none. A damaged or partial map is removed, so that it is computed again."""

    def checked(record: records.Record) -> Done:
        arrays, meta = record.arrays, record.meta
        n = len(arrays[COORDS])
        if rows is not None and n != rows:
            raise ValueError("rows")
        for name, (_, shape) in ARRAYS.items():
            if arrays[name].shape != shape(n):
                raise ValueError("shape")
        if not np.isfinite(arrays[COORDS]).all():
            raise ValueError("values")
        regions = _regions(meta["regions"], arrays[REGIONS], n)
        return Done(arrays[COORDS], meta, arrays[NEIGHBOURS], arrays[KEPT], regions)

    return records.read(folder, RECORD, {name: kind[0] for name, kind in ARRAYS.items()}, checked)


def _regions(kept: dict, of_row: np.ndarray, n: int) -> map_reading.Regions:
    """The regions from the map's record of them, checked against the rows."""
    central = tuple(tuple(int(i) for i in ids) for ids in kept["central"])
    sizes = tuple(int(s) for s in kept["sizes"])
    anchors = np.asarray(kept["anchors"], dtype=np.float32).reshape(-1, 2)
    if not (len(central) == len(sizes) == len(anchors)) or of_row.max(initial=-1) >= len(sizes):
        raise ValueError("regions")
    if any(not 0 <= i < n for ids in central for i in ids):
        raise ValueError("regions")
    return map_reading.Regions(of_row, central, sizes, anchors)


def save(folder: Path, result: neighbour_map.NeighbourMap, settings: neighbour_map.Settings) -> None:
    """The arrays, then the record that vouches for them (jobs.records.write)."""
    regions = result.regions
    values = {
        COORDS: result.coords,
        NEIGHBOURS: result.neighbours,
        KEPT: result.kept,
        REGIONS: regions.of_row,
    }
    meta = {
        "method": "t-SNE",
        "settings": settings.as_dict(),
        "rows": int(len(result.coords)),
        "recall_at_10": result.recall,
        "pca_recall_at_10": result.pca_recall,
        "seconds": result.seconds,
        "regions": {
            "central": [list(ids) for ids in regions.central],
            "sizes": list(regions.sizes),
            "anchors": regions.anchors.tolist(),
        },
    }
    arrays = {name: (values[name], dtype) for name, (dtype, _) in ARRAYS.items()}
    records.write(folder, RECORD, arrays, meta)


def remove(folder: Path) -> None:
    """The map in ``folder``, record and arrays, if they are there."""
    records.remove(folder, RECORD, ARRAYS)


def start(
    table: np.ndarray,
    settings: neighbour_map.Settings,
    table_fingerprint: str | None = None,
    prepare: Callable[[np.ndarray], np.ndarray] | None = None,
) -> backend.Job | Done:
    """The finished map if it is on disk; else the job computing it (started now unless this
    process already runs it: every caller then shares that one job; or waiting, if another map
    is being computed). ``prepare``: what to map instead of ``table`` itself (e.g. its rows in
    another geometry, named by ``table_fingerprint``), made only when the worker starts."""
    folder = folder_for(table_fingerprint or files.fingerprint(table), settings)

    def inputs() -> None:
        files.sweep(folder.parent.parent, f"*/*/{files.TABLE}")  # (under maps/: every table's folders)
        files.save_table(folder / files.TABLE, table if prepare is None else prepare(table))

    worker = ["bert_embeddings.maps.map_worker", str(folder), json.dumps(settings.as_dict())]
    return backend.start(folder, lambda: load(folder, len(table)), inputs, worker)
