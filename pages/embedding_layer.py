"""Embedding layer: every stage as a heatmap, and proof that it equals transformers."""

import streamlit as st

from bert_embeddings.figures import layer_pages, page_figures, settings
from bert_embeddings.views import link_text
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, widgets
from components.view_state import links

routing.through_app()
st.title("The embedding layer, stage by stage")
model = model_caches.require_model()
terms = [
    r"\text{token}[x_i]",
    *([r"\text{segment}[s_i]"] if model.family.has_segments else []),
    r"\text{position}[p_i]",
]
draw.formula(  # on a phone, the sum named, a term per line
    r"\text{output}_i = \mathrm{LayerNorm}\big(" + " + ".join(terms) + r"\big)",
    r"\begin{aligned}\text{output}_i &= \mathrm{LayerNorm}(e_i) \\ e_i &= "
    + r" \\ &\quad + ".join(terms)
    + r"\end{aligned}",
)
sources, values = model_caches.sources(), model_caches.sentence_values()
with model_caches.friendly_errors():
    stages = layer_pages.layer_stages(values, sources)  # the stage control's choices
# The check needs torch and transformers, which take seconds to import on a cold start, so
# its panel is placed here but filled at the end, after the heatmaps are drawn.
notices, proof, overview = st.container(), st.container(border=True), st.container()

# Every stage at a glance, as colours only; then one stage in full, every value exact on hover.
links.keep_within(settings.LAYER_STAGE, list(stages), next(iter(stages)), "Stage")
values[settings.LAYER_STAGE] = st.segmented_control(
    "Stage in full",
    list(stages),
    format_func=lambda c: stages[c].title,
    key=settings.LAYER_STAGE,
    persist_state="session",
)
every = page_figures.every_dimension(model)
links.keep_within(
    settings.DIMENSIONS,
    link_text.Span(*every),  # the (first, last) pairs a range slider offers
    every,
    "Dimensions",
    name=lambda span: f"the range of dimensions {span[0]}-{span[1]}",
    by_model=True,
)
dims = widgets.dimension_range(model.hidden_size)
values[settings.DIMENSIONS] = (dims[0], dims[-1])
with model_caches.friendly_errors():
    shown = layer_pages.embedding_layer_page(values, sources, proof=False)
with notices:
    for name in shown:
        if name.startswith("notice"):
            draw.part(shown[name])
with overview:
    draw.parts(shown, "no_segment", "stage_overview", "stage_overview_caption")
draw.parts(shown, "stage_detail", "stage_detail_caption")
with st.popover("Download every stage", icon=":material/download:"):
    for code, each in stages.items():
        st.markdown(each.title)
        draw.parts(shown, f"stage_download {code}")

st.header("Inside LayerNorm")
draw.parts(shown, "token_stats", "token_stats_download", "token_stats_caption")
draw.parts(shown, "layer_norm_params", "layer_norm_params_caption", "layer_norm_params_download")

with proof:
    st.markdown("**Proof: this page's output equals the model's own embedding module**")
    with st.spinner("Running the same input through transformers' own embedding module..."):
        with model_caches.friendly_errors():
            checked = layer_pages.embedding_layer_proof(values, sources)
    left, right = st.columns([1, 2])
    with left:
        draw.parts(checked, "proof_error")
    with right:
        draw.parts(checked, "proof_verdict", "proof_caption")
