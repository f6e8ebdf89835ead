"""The geometry switch, one setting for the pages that compare vectors in it (Geometry,
Neighbours, Your own axes), and what those pages say about it."""

from __future__ import annotations

import streamlit as st

from bert_embeddings.analysis import geometry, geometry_lab
from bert_embeddings.figures import geometry_page, settings, views
from bert_embeddings.figures.handout_parts import Table
from bert_embeddings.jobs import backend
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import stages
from components.caches import model_caches
from components.parts import job_panel, widgets
from components.sections import space_view
from components.view_state import links

# What each geometry does, in a line each, for the switch's help and the Geometry page.
MEANINGS = {
    "raw": "cosine of the vectors as they are",
    "centred": "the vocabulary's mean row subtracted first",
    "all-but-the-top": "centred, then the top D principal directions removed (Mu and Viswanath, 2018)",
    "standardised": "each dimension scaled to zero mean and unit variance (Timkey and van Schijndel, 2021)",
}
HELP = "  \n".join(f"**{name}**: {meaning}." for name, meaning in MEANINGS.items())


def switch(hidden: int) -> tuple[str, int]:
    """The geometry chosen and D (all-but-the-top's directions removed; the model's default
    for the others). The same keys on every page that shows it, so the choice carries from page
    to page (its widgets keep their values for the session: ``persist_state``)."""
    default = geometry.default_removed(hidden)
    links.keep_within(
        settings.GEOMETRY_REMOVED, range(1, geometry.MOST_REMOVED + 1), default, "D", by_model=True
    )
    left, right = st.columns([3, 2])
    name = left.segmented_control(
        "Geometry", settings.GEOMETRIES, **widgets.seeded(settings.GEOMETRY, "default"), help=HELP
    )
    name = name or settings.GEOMETRIES[0]  # a segmented control can be left with nothing chosen
    # D stays as it was set while another geometry is looked at (and its slider is not drawn).
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


described = views.described  # 'standardised' or 'all-but-the-top 7', for titles and captions


def cosine_columns(table: Table) -> dict:
    """The cosine table's figures to four places (its rows' names are its index)."""
    shown = [name for name in table.columns if name != geometry_page.ROW_NAMES]
    return {c: st.column_config.NumberColumn(format="%.4f") for c in shown}


def overlaps_panel(model: LoadedModel, lab: geometry_lab.Lab) -> None:
    """The job panel of the geometries' neighbour lists (stage-space jobs of the token rows, kept
    on disk for every page and session: What moved reads the same lists), while raw's or a
    geometry's are not there: for the job computing, or a failed one, with Try again."""
    removed, unfit = lab.removed, lab.problems[geometry_lab.TABLES[0]]
    geometry_keys = {name: geometry.key(name, removed) for name in geometry.GEOMETRIES if name not in unfit}
    side = space_view.Side(model, stages.TOKEN, None)
    labels = []

    def find(start: bool) -> list:
        # Every geometry's lists or the job making them (local jobs compute one at a time, the
        # others wait until asked again); the panel is given the failed jobs, else the one
        # computing, and ``labels`` (which wait_for reads after this call) is filled to match,
        # counting what is left.
        found = {name: space_view.lists(side, shape, start) for name, shape in geometry_keys.items()}
        jobs = {name: item for name, item in found.items() if backend.is_job(item)}
        failed = [name for name, job in jobs.items() if job.failure()]
        computing = [name for name, job in jobs.items() if not job.waiting()]
        shown = failed or (computing or list(jobs))[:1]
        labels[:] = [
            f"Neighbours in the {described(geometry_keys[name])} geometry "
            f"({len(jobs)} of {len(geometry_keys)} geometries still to compute)"
            for name in shown
        ]
        return [jobs[name] for name in shown]

    note = (
        f"Every piece's nearest pieces over all {model.vocab_size:,}, computed in the background one "
        "geometry after another at the lowest priority, and kept for everyone. This part fills in by "
        "itself; the rest of the app is free meanwhile."
    )
    with model_caches.friendly_errors(stop=False):
        job_panel.wait_for("geo_overlaps", find, labels, None, note)


OVERLAP_COLUMNS = {geometry_page.OVERLAP_COLUMN: st.column_config.ProgressColumn(
    format="percent", min_value=0.0, max_value=1.0
)}  # fmt: skip


TRIES = (
    ("standardised", "the", "the most common word: its raw neighbours are other frequent words"),
    ("all-but-the-top", "king", "a word with clear neighbours: see which of them stay"),
    ("centred", "1990", "a year: years and other numbers crowd together"),
)


def _prepare_try(name: str, word: str) -> None:
    st.session_state[settings.GEOMETRY] = name
    st.session_state[settings.NB_MODE] = "word"
    st.session_state[settings.NB_WORD] = word
    widgets.forget(settings.NB_PIECE)


def tries() -> None:
    """Buttons that open Neighbours with a geometry and a word, and what each shows."""
    for name, word, why in TRIES:
        left, right = st.columns([2, 3], vertical_alignment="center")
        if left.button(
            f"Neighbours of “{word}”, {name}", on_click=_prepare_try, args=(name, word), key=f"try_{name}"
        ):
            st.switch_page("pages/neighbours.py")
        said = f"{why[:1].upper()}{why[1:]}. The page says how many of the 10 nearest change from raw."
        right.caption(said)


SOURCES = "\n".join(
    (
        "- **Ethayarajh (2019)**, *How Contextual are Contextualized Word Representations?*: the average "
        "cosine between random words' vectors at bert-base's embedding output is 0.105.",
        "- **Mu and Viswanath (2018)**, *All-but-the-Top*: subtracting the mean and then the top few "
        "principal directions (about the width / 100) spreads word vectors more evenly over every direction "
        "and makes them better at word-similarity tasks.",
        "- **Timkey and van Schijndel (2021)**, *All Bark and No Bite*: one to three rogue dimensions "
        "dominate cosine similarity in transformer models; standardising each dimension removes their hold.",
        "- **Kovaleva et al. (2021)**, *BERT Busters*: LayerNorm has outlier dimensions (308 and 381 in "
        "bert-base) with large scale factors, and the model depends on them.",
    )
)
