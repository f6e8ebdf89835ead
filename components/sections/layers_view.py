"""What moved, through the layers: for the sidebar's model, each stage against its token rows (the
mean overlap@10 with the token rows' neighbours) and each stage's anisotropy (its mean cosine
over every pair of pieces), one point per stage, once every stage's lists are on disk."""

from __future__ import annotations

import streamlit as st

from bert_embeddings.figures import space_charts
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import stages
from components.caches import model_caches, spaces
from components.parts import draw, echo, exports, job_panel
from components.sections import space_view


def through_the_layers(model: LoadedModel, shape: tuple[str, int], described: str) -> None:
    names = stages.stage_names(model)
    if len(names) > 2 and not stages.has_whole_model(model):
        st.caption(echo.plain(stages.only_embeddings(model)))
        return
    sides = [space_view.Side(model, stage, None) for stage in names]
    offer = job_panel.Offer(
        "Compute every stage",
        before=lambda: st.caption(
            echo.plain(
                f"Every stage of {model.name} against its token rows, one point per stage: it needs each "
                "stage's neighbour lists, computed once in the background like the two above. "
                + space_view.layer_cost(model)
            )
        ),
    )
    found = None
    with model_caches.friendly_errors(stop=False):
        found = job_panel.wait_for(
            "mv_layers",
            lambda start: [space_view.lists(side, shape, start) for side in sides],
            [stages.stage_label(side.stage) for side in sides],
            offer,
            space_view.LISTS_NOTE,
        )
    if found is None:  # (the panel, or a message, is shown)
        return
    with model_caches.friendly_errors(stop=False):
        rows = spaces.through_the_stages(sides[0].key, shape, model, tuple(found))
        labels = [stages.stage_label(s) for s in names]
        series = {"mean overlap@10 with the token rows": rows[:, 0], "mean cosine (anisotropy)": rows[:, 1]}
        title = f"{model.name}, stage by stage ({described})"
        draw.chart(space_charts.through_the_stages(labels, series, title), key="mv_layers_chart")
        exports.matrix(f"through the layers, {title}", rows, labels, list(series), "stage")
        st.caption(
            "Mean cosine is the average over every pair of different pieces, exactly: ‖Σ uᵢ‖² − Σ ‖uᵢ‖² "
            "over n(n − 1), with uᵢ each piece's vector scaled to length 1. For BERT, Ethayarajh (2019) "
            "found "
            "that it stays low in the embedding layer and rises in the last layers; set your model's line "
            "beside that."
        )
