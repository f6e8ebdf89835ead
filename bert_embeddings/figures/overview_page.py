"""The Overview page in the core: the first pieces and dimensions of each stage of the sidebar's
sentence, composed once for the page and a lesson's handout (it has no settings of its own).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings.figures import views
from bert_embeddings.figures.handout_parts import Chart, Composed, Download, Note, notices
from bert_embeddings.views import fields
from bert_embeddings.views.sources import Sources


@dataclass(frozen=True)
class Settings(fields.WithSentences):
    PAGE = "overview"
    PREFIX = "overview_"


@dataclass(frozen=True)
class Page(Composed):
    notices: tuple[Note, ...]
    overview: Chart
    download: Download
    caption: Note


def compose(s: Settings, sources: Sources) -> Page:
    model, encoding = sources.model, sources.encoding(s.values())
    stages = views.overview_panels(sources.breakdown(encoding), encoding.labels)
    n, d = stages[0][1].shape
    return Page(
        notices=notices(encoding),
        overview=Chart("overview", views.overview(stages, encoding.labels)),
        download=Download(
            f"{model.name} overview panels",
            np.concatenate([panel for _, panel in stages]),
            [f"{stage} | {label}" for stage, _ in stages for label in encoding.labels[:n]],
            range(d),
            "panel | token",
        ),
        caption=Note(
            f"The first {n} pieces of your input and the first {d} of {model.hidden_size} dimensions of "
            f"{model.name}. Each panel has its own colour scale (blue below zero, red above): the "
            "raw rows are small numbers, LayerNorm's output is much larger.",
            bold=model.name,
        ),
    )
