"""Aligned maps of two spaces (bert_embeddings.spaces.aligned), computed once in the background
and kept on disk for every session and replica, beside the spaces they are made of.

A pair's folder is ``spaces/pairs/<name>/``, the name a digest of both spaces' model keys, stages,
geometry, shared rows and the t-SNE settings: the maps' own (map_jobs.default_settings, whose
iterations a host may set), carried by the spec to the worker. It holds ``maps.npy`` ((3, n, 2)
float32: A's map, B's aligned map, B's own map), ``recalls.npy`` (their recall@10) and their one
record, ``aligned.json`` (jobs.records). Both sides' neighbour lists must be on disk first (the
page asks for them before it offers the maps).

The job runs ``python -m bert_embeddings.spaces.aligned_jobs PAIR_FOLDER JOB_FOLDER SPEC``
wherever the host runs background jobs (jobs.backend); its life is jobs.worker.run's, and its
input, both sides' shared row numbers, is removed on every way out.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bert_embeddings import config
from bert_embeddings.jobs import backend, files, records, worker
from bert_embeddings.maps import map_jobs, neighbour_map
from bert_embeddings.spaces import aligned, compare, space_jobs

WHAT = "The aligned maps"
MAPS, RECALLS, RECORD = "maps.npy", "recalls.npy", "aligned"  # (the record: aligned.json)
ARRAYS = {MAPS: np.float32, RECALLS: np.float64}


@dataclass(frozen=True)
class PairSpec:
    """Both sides (their model keys and stage specs, which name the geometry they are compared
    in) and the t-SNE settings of their maps."""

    key_a: str
    a: space_jobs.Spec
    key_b: str
    b: space_jobs.Spec
    settings: neighbour_map.Settings = field(default_factory=map_jobs.default_settings)

    def name(self) -> str:
        text = "|".join(
            (
                self.key_a,
                space_jobs.lists_name(self.a.stage, self.a.shape, self.a.rows),
                self.key_b,
                space_jobs.lists_name(self.b.stage, self.b.shape, self.b.rows),
                self.settings.name(),
            )
        )
        return hashlib.blake2b(text.encode(), digest_size=10).hexdigest()

    def as_json(self) -> str:
        sides = {"key_a": self.key_a, "a": self.a.as_json(), "key_b": self.key_b, "b": self.b.as_json()}
        return json.dumps({**sides, "settings": self.settings.as_dict()})

    @classmethod
    def from_json(cls, text: str) -> PairSpec:
        data = json.loads(text)
        spec = space_jobs.Spec.from_json
        settings = neighbour_map.Settings(**data["settings"])
        return cls(data["key_a"], spec(data["a"]), data["key_b"], spec(data["b"]), settings)


def folder_for(spec: PairSpec) -> Path:
    return config.explorer_cache_dir() / "spaces" / "pairs" / spec.name()


def finished(folder: Path) -> aligned.AlignedMaps | None:
    """The pair's maps if they are on disk whole; else None (jobs.records.read)."""

    def checked(record: records.Record) -> aligned.AlignedMaps:
        maps, recalls = record.arrays[MAPS], record.arrays[RECALLS]
        if maps.ndim != 3 or maps.shape[0] != 3 or maps.shape[2] != 2 or recalls.shape != (3,):
            raise ValueError("shape")
        return aligned.AlignedMaps(maps[0], maps[1], maps[2], *(float(r) for r in recalls))

    return records.read(folder, RECORD, ARRAYS, checked)


def save(folder: Path, found: aligned.AlignedMaps) -> None:
    """The job's result: the three maps and their recalls, then their record."""
    maps = np.stack([found.a, found.b, found.b_alone])
    recalls = np.array([found.recall_a, found.recall_b, found.recall_b_alone])
    records.write(folder, RECORD, {MAPS: (maps, ARRAYS[MAPS]), RECALLS: (recalls, ARRAYS[RECALLS])})


def start(spec: PairSpec, rows: tuple[np.ndarray, np.ndarray]) -> aligned.AlignedMaps | backend.Job:
    """The maps if they are on disk; else the job computing them (joined if it runs here, or
    waiting while another map or space is computed). ``rows``: each side's shared row numbers."""
    folder = folder_for(spec)
    job_folder = folder / "jobs" / "maps"

    def inputs() -> None:
        both = np.stack([np.asarray(r, dtype=np.int64) for r in rows])
        files.write_atomically(job_folder / files.TABLE, files.npy_bytes(both, np.int64))

    worker = ["bert_embeddings.spaces.aligned_jobs", str(folder), str(job_folder), spec.as_json()]
    return backend.start(job_folder, lambda: finished(folder), inputs, worker, WHAT)


def side_input(key: str, spec: space_jobs.Spec, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One side's shared rows in the geometry and its neighbour lists over them, from its folder."""
    folder = space_jobs.folder_for(key)
    table = space_jobs.table_in(folder, spec.stage)
    lists = space_jobs.lists_for(folder, spec)
    if table is None or lists is None:
        raise FileNotFoundError(f"the {spec.stage} space or its lists are no longer in {folder}")
    return compare.in_geometry(table[rows], *spec.shape), lists


def work(folder: Path, job_folder: Path, spec: PairSpec, threads: int = 2) -> None:
    report = worker.reporter(job_folder)

    report(aligned.STEPS[0], 0.0)
    rows = np.load(job_folder / files.TABLE, allow_pickle=False)
    (table_a, lists_a), (table_b, lists_b) = (
        side_input(spec.key_a, spec.a, rows[0]),
        side_input(spec.key_b, spec.b, rows[1]),
    )
    found = aligned.aligned_maps(
        (table_a, table_b), (lists_a, lists_b), spec.settings, threads=threads, progress=report
    )
    save(folder, found)


def main(folder: Path, job_folder: Path, spec_json: str) -> int:
    spec = PairSpec.from_json(spec_json)
    return worker.run(job_folder, lambda: work(folder, job_folder, spec), WHAT)


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
