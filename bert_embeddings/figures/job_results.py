"""What the background jobs left on disk, as a page's composition reads it: never started or waited
for here (a page's job panel does that), and read once per model through ``Sources``' memo.
"""

from __future__ import annotations

import numpy as np

from bert_embeddings.errors import ExplorerError
from bert_embeddings.spaces import space_jobs
from bert_embeddings.views.sources import Sources


class TableMissingError(ExplorerError):
    """A stage's table went missing after its neighbour lists were made."""

    def __init__(self) -> None:
        super().__init__(
            "A stage's table is no longer in the cache folder (removed, or found damaged): reload the page "
            "and compute its neighbour lists again."
        )


def model_key(sources: Sources) -> str:
    model = sources.model
    return sources.kept("model key", (str(model.folder),), lambda: space_jobs.model_key(model))


def stage_lists(
    sources: Sources, stage: str, shape: tuple[str, int], rows: np.ndarray | None = None
) -> np.ndarray | None:
    """A stage's neighbour lists in ``shape`` over ``rows`` (None: every row), where a job left
    them; else None."""
    key = model_key(sources)
    spec = space_jobs.Spec(str(sources.model.folder), stage, shape, space_jobs.rows_name(rows))
    name = space_jobs.lists_name(spec.stage, spec.shape, spec.rows)
    return sources.kept(
        "lists", (key, name, spec), lambda: space_jobs.lists_for(space_jobs.folder_for(key), spec)
    )
