"""The geometry switch, one setting for the pages that compare vectors in it (Geometry,
Neighbours, Your own axes), and what those pages say about it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from bert_embeddings.analysis import geometry, geometry_lab
from bert_embeddings.figures import views
from bert_embeddings.jobs import backend
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import compare, stages
from bert_embeddings.views import settings
from components.caches import model_caches
from components.parts import echo, exports, job_panel, widgets
from components.sections import space_view
from components.view_state import links, persistence

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
    for the others). The same keys on every page that shows it, held
    from page to page (components/view_state/persistence.py)."""
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
            help=f"About the width / 100 is the usual choice: {default} for this model.",
        )
    return name, int(removed)


described = views.described  # 'standardised' or 'all-but-the-top 7', for titles and captions


LISTED = 5  # the leading dimensions listed beside LayerNorm's parameters


def finding(model_name: str, lab: geometry_lab.Lab) -> str:
    """The page's first sentence: how alike the layer's outputs are, and who makes them so."""
    tokens, output = (lab.stats[name]["raw"] for name in geometry_lab.TABLES)
    top, share = geometry_lab.shares(output)
    pairs = output.rows * (output.rows - 1) // 2
    return (
        f"In {model_name}, two different vocabulary pieces leave the embedding layer with a mean cosine of "
        f"{output.mean_cosine:.3f} over all {pairs:,} pairs (their token rows: {tokens.mean_cosine:.3f}), "
        f"and {len(top)} dimensions ({', '.join(str(d) for d in top)}) give {share:.0%} of it."
    )


def _column(name: str, removed: int) -> str:
    return described((name, removed))


def cosine_table(lab: geometry_lab.Lab, sentence: dict[str, dict[str, float]]) -> pd.DataFrame:
    """Rows: the two tables, then the sentence's stages; columns: the geometries."""
    rows = {
        "token rows (every piece)": {n: s.mean_cosine for n, s in lab.stats[geometry_lab.TABLES[0]].items()},
        "layer output (every piece)": {
            n: s.mean_cosine for n, s in lab.stats[geometry_lab.TABLES[1]].items()
        },
        **{f"your sentence: {stage}": values for stage, values in sentence.items()},
    }
    frame = pd.DataFrame.from_dict(rows, orient="index").reindex(columns=list(geometry.GEOMETRIES))
    return frame.rename(columns=lambda n: _column(n, lab.removed))


def problems(lab: geometry_lab.Lab) -> list[str]:
    """Each geometry that could not be fitted to a table, with why, for the page to say (its
    cells in the table are left empty)."""
    return [
        f"Not measured in the {_column(name, lab.removed)} geometry for the {table}: {reason}"
        for table, found in lab.problems.items()
        for name, reason in found.items()
    ]


def cosine_columns(frame: pd.DataFrame) -> dict:
    return {c: st.column_config.NumberColumn(format="%.4f") for c in frame.columns}


OVERLAP_COLUMN = "of the 10 nearest by raw cosine, kept"


def overlaps(model: LoadedModel, lab: geometry_lab.Lab) -> None:
    """Each geometry's mean overlap@10 with raw cosine over the whole vocabulary, read from the
    token stage's neighbour lists (stage-space jobs, kept on disk for every page and session:
    What moved reads the same lists). A figure is shown once raw's lists and its geometry's are
    there; meanwhile one job panel, for the job computing (or a failed one, with Try again)."""
    removed, unfit = lab.removed, lab.problems[geometry_lab.TABLES[0]]
    geometry_keys = {name: geometry.key(name, removed) for name in geometry.GEOMETRIES if name not in unfit}
    side = space_view.Side(model, stages.TOKEN, None)
    table = st.container()  # the figures go above the panel, drawn once the lists are read
    found, labels = {}, []

    def find(start: bool) -> list:
        # Every geometry's lists or the job making them (local jobs compute one at a time, the
        # others wait until asked again); the panel is given the failed jobs, else the one
        # computing, and ``labels`` (which wait_for reads after this call) is filled to match,
        # counting what is left.
        found.update(
            (name, space_view.lists(side, geometry_key, start))
            for name, geometry_key in geometry_keys.items()
        )
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
    raw = found.get("raw")
    rows = [
        {"geometry": described(geometry_keys[name]), OVERLAP_COLUMN: overlap_with_raw(raw, lists)}
        for name, lists in found.items()
        if name != "raw" and isinstance(raw, np.ndarray) and isinstance(lists, np.ndarray)
    ]
    if rows:
        with table:
            exports.dataframe(
                f"{model.name} mean overlap with raw cosine by geometry (D {removed})",
                pd.DataFrame(rows),
                hide_index=True,
                column_config={OVERLAP_COLUMN: st.column_config.ProgressColumn(
                    format="percent", min_value=0.0, max_value=1.0
                )},
            )  # fmt: skip
    for name, reason in unfit.items():
        st.warning(
            echo.plain(f"Could not compare {_column(name, removed)}: {reason}"), icon=":material/error:"
        )


def overlap_with_raw(raw: np.ndarray, lists: np.ndarray) -> float:
    """The mean over rows of overlap@10 (the first 10 of each row's list, fewer for a table of
    10 rows or less) of a geometry's neighbour lists with raw cosine's."""
    k = min(compare.WHOLE_K, raw.shape[1], lists.shape[1])
    return float(compare.overlap(raw, lists, k).mean())


def rogue_sentence(lab: geometry_lab.Lab, name: str) -> str:
    """Which dimensions lead in each table, and their share, in geometry ``name`` (or, where
    the mean is near 0, their parts themselves: a share of almost nothing says little)."""
    parts = []
    for table in geometry_lab.TABLES:
        stats = lab.stats[table][name]
        top, share = geometry_lab.shares(stats)
        dims = ", ".join(str(d) for d in top)
        if abs(stats.mean_cosine) < geometry_lab.NEAR_ZERO:
            together = float(stats.contributions[top].sum())
            parts.append(
                f"in the {table}, the mean is {stats.mean_cosine:.4f}, near 0, so no dimension can "
                f"dominate it; the largest parts, dimensions {dims}, add up to {together:.4f}"
            )
        else:
            parts.append(f"in the {table}, dimensions {dims} give {share:.0%}")
    return f"Of the mean cosine in the {_column(name, lab.removed)} geometry: " + "; ".join(parts) + "."


def output_described(model) -> str:
    """What the 'layer output' table is, for this model's family."""
    place = model.position_offset + 1
    said = f"every vocabulary piece alone as the first piece after the start token (position row {place})"
    if model.tables.token_type_embeddings is not None:
        said += ", in segment A"
    if model.tables.projection_weight is not None:
        said += ", at LayerNorm's width, before the projection to the hidden width"
    return said


def gamma_table(lab: geometry_lab.Lab, tables, name: str) -> pd.DataFrame:
    """The layer output's leading dimensions with their share and LayerNorm's γ and β there."""
    stats = lab.stats[geometry_lab.TABLES[1]][name]
    top = stats.top(LISTED)
    gamma, beta = tables.layer_norm_weight, tables.layer_norm_bias
    median = float(np.median(np.abs(gamma))) or float("nan")  # all γ 0: no ratio to give
    return pd.DataFrame(
        {
            "dimension": top,
            "part of the layer output's mean cosine": stats.contributions[top],
            "γ (LayerNorm scale)": gamma[top],
            "β (LayerNorm shift)": beta[top],
            "|γ| / median |γ|": np.abs(gamma[top]) / median,
        }
    )


def lengths_sentence(lab: geometry_lab.Lab, pieces: tuple[str, ...]) -> str:
    """What the lengths do along the whole words' ids, as measured on this table."""
    rho = lab.whole_word_spearman
    words = int((lab.layout == geometry_lab.WHOLE_WORD).sum())
    if not (lab.layout == geometry_lab.CONTINUATION).any():
        return (
            "This vocabulary does not mark the pieces inside a word with ##, as BERT's WordPiece does, so "
            "the layout above tells apart only [unused] rows, specials and single characters; no trend of "
            "length along the words' ids is stated."
        )
    if not np.isfinite(rho):
        return f"Only {words} whole words: too few to measure how length runs along their ids."
    trend = "longer" if rho > 0 else "shorter"
    said = (
        f"Among the {words:,} whole words, a later id goes with a {trend} row: the Spearman rank correlation "
        f"of length with id is {rho:+.2f}."
    )
    if _bert_uncased_layout(pieces):
        said += (
            " This model uses bert-base-uncased's vocabulary, whose whole words come roughly in order of "
            f"frequency, so here rarer words tend to have {trend} rows."
        )
    return said


def _bert_uncased_layout(pieces: tuple[str, ...]) -> bool:
    """Whether the vocabulary is laid out as bert-base-uncased's (its landmarks at their ids)."""
    landmarks = {0: "[PAD]", 100: "[UNK]", 101: "[CLS]", 102: "[SEP]", 103: "[MASK]", 1996: "the", 2003: "is"}
    return len(pieces) == 30522 and all(pieces[i] == piece for i, piece in landmarks.items())


TRIES = (
    ("standardised", "the", "the most common word: its raw neighbours are other frequent words"),
    ("all-but-the-top", "king", "a word with clear neighbours: see which of them stay"),
    ("centred", "1990", "a year: years and other numbers crowd together"),
)


def _prepare_try(name: str, word: str) -> None:
    st.session_state[settings.GEOMETRY] = name
    st.session_state[settings.NB_MODE] = "word"
    st.session_state[settings.NB_WORD] = word
    persistence.forget(settings.NB_PIECE)


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
