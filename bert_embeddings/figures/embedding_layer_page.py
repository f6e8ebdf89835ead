"""The Embedding layer page in the core: its settings, declared once
(bert_embeddings/views/fields.py), and what it shows of them, composed once for the page and a
lesson's handout: every stage of the sentence as a heatmap, one in full, LayerNorm's statistics
and parameters, and the check against transformers' own module.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings.figures import page_figures
from bert_embeddings.figures.handout_parts import (
    ERROR,
    INFO,
    SUCCESS,
    Chart,
    Composed,
    Download,
    Metric,
    Note,
    notices,
    within,
)
from bert_embeddings.views import fields, link_text
from bert_embeddings.views.fields import linked
from bert_embeddings.views.sources import Sources

# The stages by code; "projected" only for ALBERT and ELECTRA.
STAGES = ("token", "position", "segment", "sum", "output", "projected")


@dataclass(frozen=True)
class Settings(fields.WithSentences):
    PAGE = "embedding_layer"
    PREFIX = ""  # its keys are the fields' names

    # None: every dimension of the model in use (the page works it out, and links leave it out).
    dims: tuple[int, int] | None = linked(
        "dims", None, "the dimensions to show", link_text.span, link_text.span_text
    )
    layer_stage: str = linked(
        "detail", STAGES[0], "the stage in full", link_text.one_of({code: code for code in STAGES})
    )


@dataclass(frozen=True)
class Proof(Composed):
    """The largest difference from transformers' own embedding module, and the verdict."""

    error: Metric
    verdict: Note
    caption: Note


@dataclass(frozen=True)
class Page(Composed):
    notices: tuple[Note, ...]
    proof: Proof | None  # in the page's box at the top, composed apart (it takes seconds cold)
    no_segment: Note | None
    overview: Chart
    overview_caption: Note
    detail: Chart
    detail_caption: Note
    downloads: tuple[Download, ...]  # each stage's, in the stages' order
    token_stats: Chart
    token_stats_download: Download
    token_stats_caption: Note
    params: Chart
    params_caption: Note
    params_download: Download


def stages(s: Settings, sources: Sources) -> dict[str, page_figures.Stage]:
    """Every stage of the sentence by its code, in order (the page's stage control offers them)."""
    return page_figures.layer_stages(sources.model, sources.breakdown(sources.encoding(s.values())))


def compose(s: Settings, sources: Sources, proof: bool = True) -> Page:
    """The stages as heatmaps, LayerNorm's statistics and parameters, and (with ``proof``) the
    check against transformers' own module, which the page composes apart (``checked``), last."""
    model, encoding = sources.model, sources.encoding(s.values())
    parts, labels = sources.breakdown(encoding), encoding.labels
    every_stage = page_figures.layer_stages(model, parts)
    stage = every_stage[within(s.layer_stage, every_stage, next(iter(every_stage)))]
    every = page_figures.every_dimension(model)
    first, last = within(s.dims, link_text.Span(*every), every)
    dims = range(first, last + 1)
    no_segment = None
    if parts.segment is None:
        no_segment = Note(
            f"{model.family.label} has no segment (token type) table: nothing is added for segments.", INFO
        )
    downloads = []
    for each in every_stage.values():
        width = page_figures.shown_dimensions(each, model, dims)
        downloads.append(
            Download(f"{model.name} {each.title}", each.values[:, width], labels, width, "token")
        )
    shown = page_figures.shown_dimensions(stage, model, dims)
    step = page_figures.detail_step(shown)
    every = ""
    if step > 1:
        narrower = (
            "a narrower range of dimensions draws each one, and "
            if stage.values.shape[1] == model.hidden_size
            else ""  # (the projection is drawn whole, whatever the range)
        )
        every = (
            f" Every {page_figures.every_nth(step)} of these {len(shown)} dimensions is drawn, about as many "
            f"as a screen shows: {narrower}the downloads hold all."
        )
    return Page(
        notices=notices(encoding),
        proof=checked(s, sources) if proof else None,
        no_segment=no_segment,
        overview=Chart("stage_overview", page_figures.stage_overview(every_stage, labels)),
        overview_caption=Note(
            "Every stage side by side, each on its own colour scale (blue below zero, red above); wide "
            "tables and long inputs show every second (or n-th) dimension. Choose a stage below to see it "
            "in full, each value exact on hover."
        ),
        detail=Chart("stage_detail", page_figures.stage_detail(stage, labels, shown)),
        detail_caption=Note(stage.caption + " Hover a cell for its exact value." + every, markup=True),
        downloads=tuple(downloads),
        **_inside_layer_norm(model, parts, labels, dims),
    )


def _inside_layer_norm(model, parts, labels, dims: range) -> dict:
    """Each token's mean and standard deviation, then LayerNorm's gamma and beta (the page's fields)."""
    gamma_beta = (model.tables.layer_norm_weight[dims], model.tables.layer_norm_bias[dims])
    return {
        "token_stats": Chart("token_stats", page_figures.token_statistics(parts, labels)),
        "token_stats_download": Download(
            f"{model.name} LayerNorm mean and std",
            np.stack([parts.mean.ravel(), parts.std.ravel()], axis=1),
            labels,
            ["mean", "std"],
            "token",
        ),
        "token_stats_caption": Note(
            "LayerNorm works on each token separately: it subtracts that token's mean over all "
            f"{model.hidden_size} dimensions and divides by its standard deviation (with eps = "
            f"{model.tables.layer_norm_eps:g} inside the square root)."
        ),
        "params": Chart("layer_norm_params", page_figures.layer_norm_parameters(model, dims)),
        "params_caption": Note(
            "Then every dimension is scaled by its learned gamma and shifted by its learned beta."
        ),
        "params_download": Download(
            f"{model.name} LayerNorm gamma and beta",
            np.stack(gamma_beta, axis=1),
            dims,
            ["gamma", "beta"],
            "dim",
        ),
    }


def checked(s: Settings, sources: Sources) -> Proof:
    """The largest difference from transformers' own embedding module, and the verdict."""
    model, encoding, check = sources.model, sources.encoding(s.values()), sources.checked(s.values())
    module = f"`{check.module_name}`"  # the explorer's own Markdown (markup=True)
    if check.passed:
        verdict = Note(
            f"Passed: within {check.tolerance:g} of transformers' {module} (eval mode) for all "
            f"{len(encoding)} × {model.hidden_size} numbers.",
            SUCCESS,
            markup=True,
        )
    else:
        verdict = Note(
            f"Failed: the recomputation differs from {module} by more than {check.tolerance:g}.",
            ERROR,
            markup=True,
        )
    return Proof(
        Metric("max |shown − module output|", f"{check.max_abs_error:.2e}"),
        verdict,
        Note(
            "A residual around 1e-7 to 1e-6 is float32 rounding, not a bug: the module and this page add "
            "and average the same numbers in a slightly different order, and the last binary digit can "
            "differ."
        ),
    )
