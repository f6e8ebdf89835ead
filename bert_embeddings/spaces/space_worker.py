"""The stage spaces' worker: ``python -m bert_embeddings.spaces.space_worker FOLDER JOB_FOLDER SPEC``,
started for bert_embeddings/spaces/space_jobs.py wherever the host runs background jobs (jobs.backend).

It loads the model from its folder, makes the stage's table unless ``FOLDER`` holds it (a layer
stage makes every layer's, in one pass of the whole model, written straight to files mapped into
memory), then the exact neighbour lists in the geometry, over the whole vocabulary or the rows in
``JOB_FOLDER/table.npy``; it reports progress in ``JOB_FOLDER/progress.json`` (jobs.worker.reporter)
and writes each array before the record that vouches for it (jobs.records). Its input is removed
on every way out (jobs.worker.run).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from bert_embeddings.jobs import files, worker
from bert_embeddings.models.folders import load_folder
from bert_embeddings.spaces import space_jobs


class ModelChangedError(RuntimeError):
    """The folder's model is no longer the one the spaces' folder is named after."""


def work(folder: Path, job_folder: Path, spec: space_jobs.Spec, threads: int = 2) -> None:
    report = worker.reporter(job_folder)

    report("loading the model", 0.0)
    source = spec.model_folder
    model = load_folder(Path(source), spec=source, name=source, source="local")
    if space_jobs.model_key(model) != folder.name:
        raise ModelChangedError(f"the model in {source} is not the one these spaces are of")
    table = space_jobs.table_in(folder, spec.stage)
    if table is None:
        table = space_jobs.make_stage(folder, model, spec.stage, report)
    if spec.rows != space_jobs.ALL:
        table = table[np.load(job_folder / files.TABLE, allow_pickle=False)]
    lists = space_jobs.lists_of(table, spec.shape, threads, lambda _, done: report("neighbours", done))
    space_jobs.save_lists(folder, spec, lists)


def main(folder: Path, job_folder: Path, spec_json: str) -> int:
    spec = space_jobs.Spec.from_json(spec_json)

    def job() -> None:
        try:
            work(folder, job_folder, spec)
        finally:
            files.clear_parts(folder, os.getpid())

    return worker.run(job_folder, job, space_jobs.WHAT)


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
