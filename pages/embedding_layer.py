"""Embedding layer: every stage as a heatmap, and proof that it equals transformers."""

import numpy as np
import streamlit as st

from bert_embeddings.figures import charts
from bert_embeddings.views import settings
from components.caches import state
from components.frame import routing
from components.parts import draw, exports, widgets
from components.settings import links

routing.through_app()
st.title("The embedding layer, stage by stage")
model = state.require_model()
segment_term = r" + \text{segment}[s_i]" if model.family.has_segments else ""
st.latex(
    rf"\text{{output}}_i = \mathrm{{LayerNorm}}\big(\text{{token}}[x_i]{segment_term}"
    r" + \text{position}[p_i]\big)"
)
encoding = state.require_encoding()
# The check needs torch and transformers, which take seconds to import on a cold start, so
# its panel is placed here but filled at the end, after the heatmaps are drawn.
proof = st.container(border=True)

parts = state.breakdown(model, encoding)
labels = encoding.labels
family = model.family
stages = {
    "token": (
        "Token rows",
        parts.token,
        "Row `id` of `word_embeddings`: the same piece always gets the same row.",
    ),
    "position": (
        "Position rows",
        parts.position,
        "Row `i` of `position_embeddings`: learned, one per position.",
    ),
}
if parts.segment is not None:
    stages["segment"] = (
        "Segment rows",
        parts.segment,
        "Row 0 or 1 of `token_type_embeddings`: sentence A or B.",
    )
else:
    st.info(
        f"{family.label} has no segment (token type) table: nothing is added for segments.",
        icon=":material/info:",
    )
stages["sum"] = ("Sum (before LayerNorm)", parts.summed, "token + segment + position, element by element.")
stages["output"] = (
    "LayerNorm output",
    parts.output,
    "What the embedding module returns (dropout is off at inference)"
    + (
        "; the projection below comes next."
        if parts.projected is not None
        else ": the first encoder layer's input."
    ),
)
if parts.projected is not None:
    stages["projected"] = (
        f"Projected to the hidden size ({parts.projected.shape[1]})",
        parts.projected,
        f"{family.label}'s tables are {model.hidden_size} wide; a learned projection maps the output "
        f"to the hidden size {family.projection_place}.",
    )

# Every stage at a glance, as colours only (one byte a cell, at most 256 columns a panel and
# 200,000 cells in all); then one stage in full, every value exact on hover. For 512 pieces of
# bert-base that is under 3 MB to the browser, where every stage in full was 13 MB.
overview = [(title, values) for title, values, _ in stages.values()]
columns = min(256, 200_000 // (len(labels) * len(overview)))
draw.chart(charts.layer_overview(overview, labels, exact=False, max_columns=columns), key="stage_overview")
st.caption(
    "Every stage side by side, each on its own colour scale (blue below zero, red above); wide tables and "
    "long inputs show every second (or n-th) dimension. Choose a stage below to see all of its "
    "dimensions and values."
)
links.keep_within(settings.LAYER_STAGE, list(stages), next(iter(stages)), "Stage")
code = st.segmented_control(
    "Stage in full",
    list(stages),
    format_func=lambda c: stages[c][0],
    key=settings.LAYER_STAGE,
)
code = code or next(iter(stages))  # a second click on the chosen stage clears it: keep showing it
title, values, caption = stages[code]
every = (0, model.hidden_size - 1)  # the default: every dimension of the model in use
links.keep_within(
    settings.DIMENSIONS,
    links.Span(*every),
    every,
    "Dimensions",
    name=lambda span: f"the range of dimensions {span[0]}-{span[1]}",
    by_model=True,
)
dims = widgets.dimension_range(model.hidden_size)
shown = dims if values.shape[1] == model.hidden_size else range(values.shape[1])  # the projection is wider
draw.chart(charts.stage_heatmap(values, labels, shown, title), key="stage_detail")
st.caption(caption + " Hover a cell for its exact value.")
with st.popover("Download every stage", icon=":material/download:"):
    for stage_title, stage_values, _ in stages.values():
        width = shown if stage_values.shape[1] == model.hidden_size else range(stage_values.shape[1])
        st.markdown(stage_title)
        exports.matrix(f"{model.name} {stage_title}", stage_values[:, width], labels, width, "token")

st.header("Inside LayerNorm")
draw.chart(charts.token_statistics(labels, parts.mean, parts.std), key="token_stats")
exports.matrix(
    f"{model.name} LayerNorm mean and std",
    np.stack([parts.mean.ravel(), parts.std.ravel()], axis=1),
    labels,
    ["mean", "std"],
    "token",
)
st.caption(
    "LayerNorm works on each token separately: it subtracts that token's mean over all "
    f"{model.hidden_size} dimensions and divides by its standard deviation (with eps = "
    f"{model.tables.layer_norm_eps:g} inside the square root)."
)
draw.chart(
    charts.layer_norm_parameters(model.tables.layer_norm_weight, model.tables.layer_norm_bias, dims),
    key="layer_norm_params",
)
st.caption("Then every dimension is scaled by its learned gamma and shifted by its learned beta.")
gamma_beta = (model.tables.layer_norm_weight[dims], model.tables.layer_norm_bias[dims])
exports.matrix(
    f"{model.name} LayerNorm gamma and beta", np.stack(gamma_beta, axis=1), dims, ["gamma", "beta"], "dim"
)

with proof:
    st.markdown("**Proof: this page's output equals the model's own embedding module**")
    with st.spinner("Running the same input through transformers' own embedding module..."):
        check = state.verification()
    left, right = st.columns([1, 2])
    left.metric("max |shown − module output|", f"{check.max_abs_error:.2e}")
    if check.passed:
        right.success(
            f"Passed: within {check.tolerance:g} of transformers' `{check.module_name}` (eval mode) "
            f"for all {len(encoding)} × {model.hidden_size} numbers.",
            icon=":material/check_circle:",
        )
    else:
        right.error(
            f"Failed: the recomputation differs from `{check.module_name}` by more than {check.tolerance:g}.",
            icon=":material/error:",
        )
    right.caption(
        "A residual around 1e-7 to 1e-6 is float32 rounding, not a bug: the module and this page add "
        "and average the same numbers in a slightly different order, and the last binary digit can differ."
    )
