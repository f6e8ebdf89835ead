"""A model's stage spaces and their neighbour lists, computed once in the background and kept on
disk for every session and replica.

Everything of one model sits in ``spaces/<key>/`` under the cache folder, the key naming the
model's token rows and every byte of its weight files (``model_key``: the output and layer
stages depend on more than the token rows, so a fine-tune with frozen embeddings is another key):

- ``stage-<stage>.npy``: the stage's table, (vocab, width) float32 (bert_embeddings.spaces.stages);
- ``lists-<stage>-<geometry>-<rows>.npy``: every row's exact nearest others by cosine in that
  geometry, ``MAX_K`` of them (fewer for a tiny table), int32 - over the whole vocabulary
  (``rows`` = ``all``) or over the rows another model shares with it (``rows`` the fingerprint of
  those row numbers, which are then the lists' rows and what they index);
- beside each, its record ``<name>.json`` (jobs.records: the array's checksum, dtype and shape),
  written after it: an array whose bytes do not match is removed and computed again, never used.
  A stage's table is a result of its own, shared by every job that needs that stage; a job's
  result is its lists.

The computation runs as ``python -m bert_embeddings.spaces.space_worker``, wherever the host runs
background jobs (jobs.backend: one heavy job at a time per server process, maps and spaces alike,
or a queue's workers), in a folder of its own under ``jobs/`` for its progress and log; its life
is jobs.worker.run's. A layer's table needs the whole model, run once over every piece; that one
pass keeps every layer's table.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bert_embeddings import config
from bert_embeddings.analysis import geometry
from bert_embeddings.jobs import backend, files, records
from bert_embeddings.spaces import compare, stages

ALL = "all"  # the lists of the whole vocabulary
WHAT = "The stage spaces"  # for the storage message


def folder_for(key: str) -> Path:
    return config.explorer_cache_dir() / "spaces" / key


def model_key(model) -> str:
    """The model's token rows' fingerprint and a digest of its weight files' bytes (read a MB at
    a time): what every stage space of it depends on."""
    digest = hashlib.blake2b(digest_size=8)
    for name in stages.WEIGHT_FILES:
        path = Path(model.folder) / name
        if path.is_file():
            with open(path, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
    return f"{files.fingerprint(model.tables.word_embeddings)}-{digest.hexdigest()}"


def rows_name(rows: np.ndarray | None) -> str:
    """``ALL`` for the whole vocabulary, else a short name for exactly these row numbers."""
    return ALL if rows is None else files.fingerprint(np.asarray(rows, dtype=np.int64))


def lists_name(stage: str, shape: tuple[str, int], rows: str = ALL) -> str:
    name, removed = geometry.key(*shape)
    code = {"all-but-the-top": f"abtt{removed}"}.get(name, name)
    return f"lists-{stage}-{code}-{rows}"


def stage_name(stage: str) -> str:
    return f"stage-{stage}"


@dataclass(frozen=True)
class Spec:
    """One job: a stage of the model in ``model_folder``, its lists in a geometry over ``rows``."""

    model_folder: str
    stage: str
    shape: tuple[str, int]
    rows: str = ALL

    def as_json(self) -> str:
        fields = {"model_folder": self.model_folder, "stage": self.stage, "rows": self.rows}
        return json.dumps({**fields, "shape": list(self.shape)})

    @classmethod
    def from_json(cls, text: str) -> Spec:
        data = json.loads(text)
        return cls(data["model_folder"], data["stage"], tuple(data["shape"]), data["rows"])


def lists_for(folder: Path, spec: Spec) -> np.ndarray | None:
    return records.load_array(folder, lists_name(spec.stage, spec.shape, spec.rows), np.int32)


def save_lists(folder: Path, spec: Spec, lists: np.ndarray) -> None:
    """The job's result: its lists and their record."""
    records.save_array(folder, lists_name(spec.stage, spec.shape, spec.rows), lists, np.int32)


def start(key: str, spec: Spec, rows: np.ndarray | None = None) -> np.ndarray | backend.Job:
    """The neighbour lists ``spec`` names if they are on disk; else the job computing them (and
    the stage's table first if it is not there), joined if this process already runs it, or
    waiting while another map or space is computed. ``rows``: the shared row numbers, for lists
    over a subset (``spec.rows`` then names them)."""
    folder = folder_for(key)
    name = lists_name(spec.stage, spec.shape, spec.rows)
    job_folder = folder / "jobs" / name

    def inputs() -> None:
        files.sweep(folder, "*.part")
        if rows is not None:  # the worker's input, removed on its every way out
            files.write_atomically(job_folder / files.TABLE, files.npy_bytes(rows, np.int64))

    worker = ["bert_embeddings.spaces.space_worker", str(folder), str(job_folder), spec.as_json()]
    return backend.start(job_folder, lambda: lists_for(folder, spec), inputs, worker, WHAT)


def table_in(folder: Path, stage: str) -> np.ndarray | None:
    """A stage's table if it is on disk (the token and output stages are cheap; the page may
    compute them itself)."""
    return records.load_array(folder, stage_name(stage), np.float32)


def lists_of(table: np.ndarray, shape: tuple[str, int], threads: int = 2, progress=None) -> np.ndarray:
    """What a job computes from a stage's table (its rows already chosen): the lists in the
    geometry fitted to those rows."""
    return compare.neighbour_lists(compare.in_geometry(table, *shape), compare.MAX_K, threads, progress)


def make_stage(folder: Path, model, stage: str, report=lambda step, done: None) -> np.ndarray:
    """The stage's table, made and saved in ``folder`` (a layer stage: every layer's, from one
    pass of the whole model, written to files mapped into memory as it goes), then read back."""
    if stage in (stages.TOKEN, stages.OUTPUT):
        report(f"the {stages.stage_label(stage)}", 0.0)
        table = stages.token_table(model) if stage == stages.TOKEN else stages.output_table(model)
        records.save_array(folder, stage_name(stage), table, np.float32)
        return table
    shape = (model.vocab_size, stages.layer_width(model))
    layers = range(1, stages.layer_count(model) + 1)
    parts = [folder / f"layer-{layer}.{os.getpid()}.part" for layer in layers]
    out = [np.lib.format.open_memmap(part, mode="w+", dtype=np.float32, shape=shape) for part in parts]
    try:
        stages.layer_tables(model, progress=lambda fraction: report("every layer", fraction), out=out)
        for layer, table in enumerate(out, start=1):
            records.save_array(folder, stage_name(str(layer)), table, np.float32)
    finally:
        for part in parts:
            part.unlink(missing_ok=True)
    return table_in(folder, stage)
