"""What moved, through the layers: for the sidebar's model, each stage against its token rows (the
mean overlap@10 with the token rows' neighbours) and each stage's anisotropy (its mean cosine
over every pair of pieces), one point per stage, once every stage's lists are on disk."""

from __future__ import annotations

import numpy as np
import streamlit as st

from bert_embeddings.figures import space_charts
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import compare, stages
from components import echo, exports, space_view, widgets

ASKED = "_mv_layers_asked"


def _ask() -> None:
    st.session_state[ASKED] = True


@st.cache_resource(max_entries=4, show_spinner=False)
def _figures(folder: str, stage: str, shape: tuple[str, int], _token, _lists, _space) -> tuple[float, float]:
    """(mean overlap@10 with the token rows, mean cosine) of one stage: small, kept per process."""
    overlap = compare.overlap(_token, _lists, compare.WHOLE_K).mean()
    return float(overlap), compare.mean_cosine(compare.in_geometry(_space.vectors, *shape))


def through_the_layers(model: LoadedModel, shape: tuple[str, int], described: str) -> None:
    names = stages.stage_names(model)
    sides = [space_view.Side(model, stage, None) for stage in names]
    asked = bool(st.session_state.pop(ASKED, False))
    found = [space_view.lists(side, shape, start=asked) for side in sides]
    if any(f is None for f in found):
        st.caption(
            echo.plain(
                f"Every stage of {model.name} against its token rows, one point per stage: it needs each "
                "stage's neighbour lists, computed once in the background like the two above."
            )
        )
        st.button("Compute every stage", icon=":material/play_arrow:", key="mv_layers", on_click=_ask)
        return
    jobs = [
        (stages.stage_label(s.stage), f)
        for s, f in zip(sides, found, strict=True)
        if not isinstance(f, np.ndarray)
    ]
    if jobs:
        why = space_view.failure(jobs)
        if why:
            st.error(echo.plain(why), icon=":material/error:")
            return
        space_view.progress(jobs)
        return
    rows = []
    for stage, lists in zip(names, found, strict=True):
        space = space_view.space(model, stage)
        rows.append(_figures(str(model.folder), stage, shape, found[0], lists, space))
    labels = [stages.stage_label(s) for s in names]
    series = {
        "mean overlap@10 with the token rows": [r[0] for r in rows],
        "mean cosine (anisotropy)": [r[1] for r in rows],
    }
    title = f"{model.name}, stage by stage ({described})"
    widgets.chart(space_charts.through_the_stages(labels, series, title), key="mv_layers_chart")
    exports.matrix(f"through the layers, {title}", np.array(rows), labels, list(series), "stage")
    st.caption(
        "Mean cosine is the average over every pair of different pieces, exactly: ‖Σ uᵢ‖² − Σ ‖uᵢ‖² over "
        "n(n − 1), with uᵢ each piece's vector scaled to length 1. For BERT, Ethayarajh (2019) found that it "
        "stays low in the embedding layer and rises in the last layers; set your model's line beside that."
    )
