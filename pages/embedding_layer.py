"""Embedding layer: every stage as a heatmap, and proof that it equals transformers."""

import numpy as np
import streamlit as st

from components import charts, exports, routing, state, widgets

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

dims = widgets.dimension_range(model.hidden_size)
parts = state.breakdown(model, encoding)
labels = encoding.labels
family = model.family
stages = [
    ("Token rows", parts.token, "Row `id` of `word_embeddings`: the same piece always gets the same row."),
    ("Position rows", parts.position, "Row `i` of `position_embeddings`: learned, one per position."),
]
if parts.segment is not None:
    stages.append(("Segment rows", parts.segment, "Row 0 or 1 of `token_type_embeddings`: sentence A or B."))
else:
    st.info(
        f"{family.label} has no segment (token type) table: nothing is added for segments.",
        icon=":material/info:",
    )
stages += [
    ("Sum (before LayerNorm)", parts.summed, "token + segment + position, element by element."),
    (
        "LayerNorm output",
        parts.output,
        "What the embedding module returns (dropout is off at inference)"
        + (
            "; the projection below comes next."
            if parts.projected is not None
            else ": the first encoder layer's input."
        ),
    ),
]
if parts.projected is not None:
    stages.append(
        (
            f"Projected to the hidden size ({parts.projected.shape[1]})",
            parts.projected,
            f"{family.label}'s tables are {model.hidden_size} wide; a learned projection maps the output "
            f"to the hidden size {family.projection_place}.",
        )
    )
for number, (title, values, caption) in enumerate(stages):
    shown = (
        dims if values.shape[1] == model.hidden_size else range(values.shape[1])
    )  # the projection is wider
    widgets.chart(charts.stage_heatmap(values, labels, shown, title), key=f"stage_{number}")
    st.caption(caption)
    exports.matrix(f"{model.name} {title}", values[:, shown], labels, shown, "token")

st.subheader("Inside LayerNorm")
widgets.chart(charts.token_statistics(labels, parts.mean, parts.std), key="token_stats")
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
widgets.chart(
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
