"""What moved, through the layers, in the page: the job panel that asks for every stage's
neighbour lists of the sidebar's model, then what bert_embeddings.figures.moved_whole composes of
them (one point per stage: its mean overlap@10 with the token rows and its anisotropy)."""

from __future__ import annotations

import streamlit as st

from bert_embeddings.figures import moved_whole
from bert_embeddings.spaces import stages
from bert_embeddings.views.sources import Sources
from components.caches import model_caches
from components.parts import draw, echo, job_panel
from components.sections import space_view


def through_the_layers(shape: tuple[str, int], sources: Sources) -> None:
    """The sidebar's model stage by stage, in geometry ``shape``."""
    model = sources.model
    names = stages.stage_names(model)
    if len(names) > 2 and not stages.has_whole_model(model):
        draw.shown(moved_whole.through_the_layers(shape, sources))
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
        draw.shown(moved_whole.through_the_layers(shape, sources))
