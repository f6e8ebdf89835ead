"""Embedding layer: every stage as a heatmap, and proof that it equals transformers."""

import numpy as np
import streamlit as st

from bert_embeddings.figures import page_figures
from bert_embeddings.views import settings
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, exports, widgets
from components.view_state import links

routing.through_app()
st.title("The embedding layer, stage by stage")
model = model_caches.require_model()
segment_term = r" + \text{segment}[s_i]" if model.family.has_segments else ""
st.latex(
    rf"\text{{output}}_i = \mathrm{{LayerNorm}}\big(\text{{token}}[x_i]{segment_term}"
    r" + \text{position}[p_i]\big)"
)
encoding = model_caches.require_encoding()
# The check needs torch and transformers, which take seconds to import on a cold start, so
# its panel is placed here but filled at the end, after the heatmaps are drawn.
proof = st.container(border=True)

parts = model_caches.breakdown(model, encoding)
labels = encoding.labels
stages = page_figures.layer_stages(model, parts)
if parts.segment is None:
    st.info(
        f"{model.family.label} has no segment (token type) table: nothing is added for segments.",
        icon=":material/info:",
    )

# Every stage at a glance, as colours only; then one stage in full, every value exact on hover.
draw.chart(page_figures.stage_overview(stages, labels), key="stage_overview")
st.caption(
    "Every stage side by side, each on its own colour scale (blue below zero, red above); wide tables and "
    "long inputs show every second (or n-th) dimension. Choose a stage below to see all of its "
    "dimensions and values."
)
links.keep_within(settings.LAYER_STAGE, list(stages), next(iter(stages)), "Stage")
code = st.segmented_control(
    "Stage in full",
    list(stages),
    format_func=lambda c: stages[c].title,
    key=settings.LAYER_STAGE,
    persist_state="session",
)
stage = stages[code or next(iter(stages))]  # a second click on the chosen stage clears it: keep showing it
every = page_figures.every_dimension(model)
links.keep_within(
    settings.DIMENSIONS,
    links.Span(*every),
    every,
    "Dimensions",
    name=lambda span: f"the range of dimensions {span[0]}-{span[1]}",
    by_model=True,
)
dims = widgets.dimension_range(model.hidden_size)
shown = page_figures.shown_dimensions(stage, model, dims)
draw.chart(page_figures.stage_detail(stage, labels, shown), key="stage_detail")
st.caption(stage.caption + " Hover a cell for its exact value.")
with st.popover("Download every stage", icon=":material/download:"):
    for each in stages.values():
        width = page_figures.shown_dimensions(each, model, dims)
        st.markdown(each.title)
        exports.matrix(f"{model.name} {each.title}", each.values[:, width], labels, width, "token")

st.header("Inside LayerNorm")
draw.chart(page_figures.token_statistics(parts, labels), key="token_stats")
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
draw.chart(page_figures.layer_norm_parameters(model, dims), key="layer_norm_params")
st.caption("Then every dimension is scaled by its learned gamma and shifted by its learned beta.")
gamma_beta = (model.tables.layer_norm_weight[dims], model.tables.layer_norm_bias[dims])
exports.matrix(
    f"{model.name} LayerNorm gamma and beta", np.stack(gamma_beta, axis=1), dims, ["gamma", "beta"], "dim"
)

with proof:
    st.markdown("**Proof: this page's output equals the model's own embedding module**")
    with st.spinner("Running the same input through transformers' own embedding module..."):
        check = model_caches.verification()
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
