"""The geometry switch, one setting for every page that compares vectors (Geometry,
Neighbours, Maps, Your own axes), and what those pages say about it."""

from __future__ import annotations

import numpy as np
import streamlit as st

from bert_embeddings import geometry, vocab_search
from components import links, settings, state, widgets

# What each geometry does, in a line each, for the switch's help and the Geometry page.
MEANINGS = {
    "raw": "cosine of the vectors as they are",
    "centred": "the vocabulary's mean row subtracted first",
    "all-but-the-top": "centred, then the top D principal directions removed (Mu and Viswanath, 2018)",
    "standardised": "each dimension scaled to zero mean and unit variance (Timkey and van Schijndel, 2021)",
}
HELP = "  \n".join(f"**{name}**: {meaning}." for name, meaning in MEANINGS.items())


def default_removed(hidden: int) -> int:
    """D for all-but-the-top: about the width / 100, as Mu and Viswanath suggest (7 for
    bert-base's 768, 3 for a 384-wide model), from 1 to 20."""
    return max(1, min(geometry.MOST_REMOVED, hidden // 100))


def switch(hidden: int) -> tuple[str, int]:
    """The geometry chosen and D (all-but-the-top's directions removed; the model's default
    for the others). The same keys on every page, kept across pages for the session."""
    default = default_removed(hidden)
    links.keep_within(
        settings.GEOMETRY_REMOVED, range(1, geometry.MOST_REMOVED + 1), default, "D", by_model=True
    )
    left, right = st.columns([3, 2])
    name = left.segmented_control(
        "Geometry",
        settings.GEOMETRIES,
        **widgets.seeded(settings.GEOMETRY, "default"),
        persist_state="session",
        help=HELP,
    )
    name = name or settings.GEOMETRIES[0]  # a segmented control can be left with nothing chosen
    removed = st.session_state[settings.GEOMETRY_REMOVED]
    if name == "all-but-the-top":
        removed = right.slider(
            "Directions removed (D)",
            1,
            geometry.MOST_REMOVED,
            key=settings.GEOMETRY_REMOVED,
            persist_state="session",
            help=f"About the width / 100 is the usual choice: {default} for this model.",
        )
    return name, int(removed)


def described(shape: tuple[str, int]) -> str:
    """'standardised' or 'all-but-the-top 7', for titles and captions."""
    name, removed = shape
    return f"{name} {removed}" if name == "all-but-the-top" else name


COMPARED = 10  # "k of the 10 nearest change from raw"


def changed_from_raw(query: np.ndarray, shape: tuple[str, int], filters: vocab_search.Filters) -> None:
    """Under any geometry but raw: how many of the query's 10 nearest (with the same filters)
    are not among its 10 nearest by raw cosine."""
    if shape[0] == settings.GEOMETRIES[0]:
        return
    raw = state.nearest(query, COMPARED, (settings.GEOMETRIES[0], 0), filters)
    here = state.nearest(query, COMPARED, shape, filters)
    changed = len(set(here.ids.tolist()) - set(raw.ids.tolist()))
    st.caption(
        f"{changed} of the {len(here.ids)} nearest change from raw cosine in the {described(shape)} geometry."
    )
