"""What the pages beyond one input's tables show of a view (the embedding layer stage by stage, a
word in context, two models side by side), composed once, for the
page and for a lesson's handout, as bert_embeddings.figures.input_pages composes the pages about
one input: each composer is a function of the view's values and the model's ``Sources`` and
returns the page's parts by name, in the page's order (handout_parts). The page keeps its widgets,
headings and columns, and draws the parts where its layout puts them.

A problem that leaves the page nothing to show is raised as an ExplorerError; one the page shows
after what it has already drawn (a word a sentence lacks, after the sentence's notices) is a
Note of kind ERROR, after which the page stops.
"""

from __future__ import annotations

import numpy as np

from bert_embeddings.figures import page_figures, settings
from bert_embeddings.figures.handout_parts import (
    ERROR,
    INFO,
    SUCCESS,
    Chart,
    Download,
    Metric,
    Note,
    Parts,
    named_notices,
    within,
)
from bert_embeddings.views import link_text
from bert_embeddings.views.sources import Sources

# --- Embedding layer -----------------------------------------------------------------------------


def layer_stages(values: dict, sources: Sources) -> dict[str, page_figures.Stage]:
    """Every stage of the view's sentence by its code, in order (the page's stage control offers them)."""
    return page_figures.layer_stages(sources.model, sources.breakdown(sources.encoding(values)))


def embedding_layer_page(values: dict, sources: Sources, proof: bool = True) -> Parts:
    """The stages as heatmaps, LayerNorm's statistics and parameters, and (with ``proof``) the
    check against transformers' own module, which the page's box at the top holds: the page
    composes it apart (embedding_layer_proof), last, as it takes seconds on a cold start."""
    model, encoding = sources.model, sources.encoding(values)
    parts, labels = sources.breakdown(encoding), encoding.labels
    stages = page_figures.layer_stages(model, parts)
    stage = stages[within(values[settings.LAYER_STAGE], stages, next(iter(stages)))]
    every = page_figures.every_dimension(model)
    first, last = within(values[settings.DIMENSIONS], link_text.Span(*every), every)
    dims = range(first, last + 1)
    found = named_notices(encoding) | (embedding_layer_proof(values, sources) if proof else {})
    if parts.segment is None:
        found["no_segment"] = Note(
            f"{model.family.label} has no segment (token type) table: nothing is added for segments.", INFO
        )
    found |= {
        "stage_overview": Chart("stage_overview", page_figures.stage_overview(stages, labels)),
        "stage_overview_caption": Note(
            "Every stage side by side, each on its own colour scale (blue below zero, red above); wide "
            "tables and long inputs show every second (or n-th) dimension. Choose a stage below to see all "
            "of its dimensions and values."
        ),
        "stage_detail": Chart(
            "stage_detail",
            page_figures.stage_detail(stage, labels, page_figures.shown_dimensions(stage, model, dims)),
        ),
        "stage_detail_caption": Note(stage.caption + " Hover a cell for its exact value.", markup=True),
    }
    for code, each in stages.items():
        width = page_figures.shown_dimensions(each, model, dims)
        found[f"stage_download {code}"] = Download(
            f"{model.name} {each.title}", each.values[:, width], labels, width, "token"
        )
    return found | _inside_layer_norm(model, parts, labels, dims)


def _inside_layer_norm(model, parts, labels, dims: range) -> Parts:
    """Each token's mean and standard deviation, then LayerNorm's gamma and beta."""
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
        "layer_norm_params": Chart("layer_norm_params", page_figures.layer_norm_parameters(model, dims)),
        "layer_norm_params_caption": Note(
            "Then every dimension is scaled by its learned gamma and shifted by its learned beta."
        ),
        "layer_norm_params_download": Download(
            f"{model.name} LayerNorm gamma and beta",
            np.stack(gamma_beta, axis=1),
            dims,
            ["gamma", "beta"],
            "dim",
        ),
    }


def embedding_layer_proof(values: dict, sources: Sources) -> Parts:
    """The largest difference from transformers' own embedding module, and the verdict."""
    model, encoding, check = sources.model, sources.encoding(values), sources.checked(values)
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
    return {
        "proof_error": Metric("max |shown − module output|", f"{check.max_abs_error:.2e}"),
        "proof_verdict": verdict,
        "proof_caption": Note(
            "A residual around 1e-7 to 1e-6 is float32 rounding, not a bug: the module and this page add "
            "and average the same numbers in a slightly different order, and the last binary digit can "
            "differ."
        ),
    }


COMPOSERS = {
    "embedding_layer": embedding_layer_page,
}
