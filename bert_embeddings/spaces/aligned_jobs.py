"""Aligned maps of two spaces (bert_embeddings.spaces.aligned), computed once in the background
and kept on disk for every session and replica, beside the spaces they are made of.

A pair's folder is ``spaces/pairs/<name>/``, the name a digest of both spaces' model keys, stages,
geometry, shared rows and the t-SNE settings. It holds ``maps.npy`` ((3, n, 2) float32: A's
map, B's aligned map, B's own map) and ``recalls.npy`` (their recall@10), each vouched for by its
checksum as space_jobs keeps arrays. Both sides' neighbour lists must be on disk first (the page
asks for them before it offers the maps).

The job runs ``python -m bert_embeddings.spaces.aligned_jobs PAIR_FOLDER JOB_FOLDER SPEC`` through
map_jobs' launcher (lowest priority, one heavy job at a time); its input, both sides' shared row
numbers, is removed on every way out.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bert_embeddings import config
from bert_embeddings.jobs import backend, files, worker
from bert_embeddings.maps import neighbour_map
from bert_embeddings.spaces import aligned, compare, space_jobs

WHAT = "The aligned maps"
MAPS, RECALLS = "maps", "recalls"


@dataclass(frozen=True)
class PairSpec:
    """Both sides (their model keys and stage specs) and the geometry they are compared in."""

    key_a: str
    a: space_jobs.Spec
    key_b: str
    b: space_jobs.Spec

    def name(self) -> str:
        text = "|".join(
            (
                self.key_a,
                space_jobs.lists_name(self.a.stage, self.a.shape, self.a.rows),
                self.key_b,
                space_jobs.lists_name(self.b.stage, self.b.shape, self.b.rows),
                neighbour_map.Settings().name(),
            )
        )
        return hashlib.blake2b(text.encode(), digest_size=10).hexdigest()

    def as_json(self) -> str:
        return json.dumps(
            {"key_a": self.key_a, "a": self.a.as_json(), "key_b": self.key_b, "b": self.b.as_json()}
        )

    @classmethod
    def from_json(cls, text: str) -> PairSpec:
        data = json.loads(text)
        spec = space_jobs.Spec.from_json
        return cls(data["key_a"], spec(data["a"]), data["key_b"], spec(data["b"]))


def folder_for(spec: PairSpec) -> Path:
    return config.explorer_cache_dir() / "spaces" / "pairs" / spec.name()


def finished(folder: Path) -> aligned.AlignedMaps | None:
    """The pair's maps if they are on disk whole; else None."""
    recalls = files.load_array(folder, RECALLS, np.float64)
    maps = files.load_array(folder, MAPS, np.float32) if recalls is not None else None
    if maps is None or recalls is None or maps.shape[0] != 3 or recalls.shape != (3,):
        return None
    return aligned.AlignedMaps(maps[0], maps[1], maps[2], *(float(r) for r in recalls))


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
    found = aligned.aligned_maps((table_a, table_b), (lists_a, lists_b), threads=threads, progress=report)
    maps = np.stack([found.a, found.b, found.b_alone])
    files.save_array(folder, MAPS, maps, np.float32)
    recalls = np.array([found.recall_a, found.recall_b, found.recall_b_alone])
    files.save_array(folder, RECALLS, recalls, np.float64)


def main(folder: Path, job_folder: Path, spec_json: str) -> int:
    spec = PairSpec.from_json(spec_json)
    return worker.run(job_folder, lambda: work(folder, job_folder, spec), WHAT)


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
