"""The Geometry page in the core: its settings (the geometry and the sidebar's sentences, which it
shares) and what it shows of them, composed once for the page and a lesson's handout: how alike
the vectors are in each geometry, which dimensions make them so, the rows' lengths, and each
geometry's overlap with raw cosine once a background job has computed its neighbour lists."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import (
    decompose,
    geometry,
    geometry_lab,
)
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import job_results, lab_charts, views
from bert_embeddings.figures.handout_parts import (
    BLOCKED,
    ERROR,
    INFO,
    TEXT,
    WARNING,
    Chart,
    Composed,
    Download,
    Note,
    Table,
    geometry_of,
)
from bert_embeddings.spaces import compare, stages
from bert_embeddings.views import fields
from bert_embeddings.views.fields import shared
from bert_embeddings.views.sources import Sources


@dataclass(frozen=True)
class Settings(fields.WithSentences):
    PAGE = "geometry"
    PREFIX = "geometry_"

    geometry: str = shared(fields.GEOMETRY)
    geometry_removed: int | None = shared(fields.GEOMETRY_REMOVED)


@dataclass(frozen=True)
class Overlaps(Composed):
    """Each geometry's overlap@10 with raw cosine, once its neighbour lists are computed."""

    table: Table | None = None
    waiting: Note | None = None  # the page's job panel says it; a handout writes it
    unfit: tuple[Note, ...] = ()  # a geometry that could not be fitted


@dataclass(frozen=True)
class Dimensions(Composed):
    """The geometry's largest parts of the mean cosine, by dimension, with LayerNorm's γ and β."""

    missing: Note | None = None  # the geometry could not be fitted
    shares: Chart | None = None
    rogue: Note | None = None
    gamma: Table | None = None
    gamma_caption: Note | None = None
    download: Download | None = None


@dataclass(frozen=True)
class Lengths(Composed):
    chart: Chart
    download: Download  # one row per id, in id order
    said: Note


@dataclass(frozen=True)
class Page(Composed):
    finding: Note
    sentence_problem: Note | None  # the tables are measured all the same
    cosines: Table
    problems: tuple[Note, ...]
    one_piece: Note | None
    cosines_caption: Note
    overlaps: Overlaps
    dimensions: Dimensions
    lengths: Lengths


def compose(s: Settings, sources: Sources) -> Page:
    """How alike the vectors are in each geometry, which dimensions make them so, and the rows'
    lengths; each geometry's overlap with raw cosine once its neighbour lists are computed."""
    model, index = sources.model, sources.index()
    shape = geometry_of(s.values(), index.table.shape[1])
    lab = sources.lab(shape[1])
    encoding, sentence_problem, sentence = None, None, {}
    try:
        encoding = sources.encoding(s.values())
    except ExplorerError as problem:
        sentence_problem = Note(str(problem), ERROR)
    if encoding is not None:
        sentence = geometry_lab.sentence_cosines(
            lab, decompose.stage_vectors(sources.breakdown(encoding)), decompose.STAGES[-1]
        )
    one_piece = None
    if encoding is not None and len(encoding) < 2:
        one_piece = Note(
            f"Your sentence is {len(encoding)} piece here, and a mean over pairs needs two or more, so the "
            "table has no rows for it. Type a longer sentence, or turn the special tokens on.",
            INFO,
        )
    return Page(
        finding=Note(finding(model.name, lab), TEXT),
        sentence_problem=sentence_problem,
        cosines=Table(cosine_table(lab, sentence), f"{model.name} mean cosine by geometry (D {shape[1]})"),
        problems=tuple(Note(said, WARNING, icon=BLOCKED) for said in problems(lab)),
        one_piece=one_piece,
        cosines_caption=Note(
            "Each whole table is measured under the geometries fitted to itself. Your sentence's vectors "
            "are measured under the token table's geometries up to the sum, and the layer output's after "
            f"LayerNorm. The layer output is {output_described(model)}, computed exactly."
        ),
        overlaps=overlaps(sources, lab),
        dimensions=dimensions(model, lab, shape),
        lengths=lengths(model, lab, index.pieces),
    )


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


ROW_NAMES = "index"  # the cosine table's column of row names (the page shows them as its index)


def cosine_table(lab: geometry_lab.Lab, sentence: dict[str, dict[str, float]]) -> dict[str, list]:
    """Rows: the two tables, then the sentence's stages; columns: the geometries (a geometry not
    fitted to a table: NaN)."""
    rows = {
        "token rows (every piece)": {n: s.mean_cosine for n, s in lab.stats[geometry_lab.TABLES[0]].items()},
        "layer output (every piece)": {
            n: s.mean_cosine for n, s in lab.stats[geometry_lab.TABLES[1]].items()
        },
        **{f"your sentence: {stage}": found for stage, found in sentence.items()},
    }
    columns = {ROW_NAMES: list(rows)}
    for name in geometry.GEOMETRIES:
        columns[views.described((name, lab.removed))] = [row.get(name, np.nan) for row in rows.values()]
    return columns


def problems(lab: geometry_lab.Lab) -> list[str]:
    """Each geometry that could not be fitted to a table, with why (its cells are left empty)."""
    return [
        f"Not measured in the {views.described((name, lab.removed))} geometry for the {table}: {reason}"
        for table, found in lab.problems.items()
        for name, reason in found.items()
    ]


def output_described(model) -> str:
    """What the 'layer output' table is, for this model's family."""
    place = model.position_offset + 1
    said = f"every vocabulary piece alone as the first piece after the start token (position row {place})"
    if model.tables.token_type_embeddings is not None:
        said += ", in segment A"
    if model.tables.projection_weight is not None:
        said += ", at LayerNorm's width, before the projection to the hidden width"
    return said


OVERLAP_COLUMN = "of the 10 nearest by raw cosine, kept"


def overlaps(sources: Sources, lab: geometry_lab.Lab) -> Overlaps:
    """Each geometry's mean overlap@10 with raw cosine over the whole vocabulary, from the token
    stage's neighbour lists (stage-space jobs, kept on disk: What moved reads the same lists),
    for each geometry whose lists and raw's are there."""
    removed, unfit = lab.removed, lab.problems[geometry_lab.TABLES[0]]
    shapes = {name: geometry.key(name, removed) for name in geometry.GEOMETRIES if name not in unfit}
    found = {name: job_results.stage_lists(sources, stages.TOKEN, shape) for name, shape in shapes.items()}
    raw, table, waiting = found.get("raw"), None, None
    rows = {
        views.described(shapes[name]): overlap_with_raw(raw, lists)
        for name, lists in found.items()
        if name != "raw" and raw is not None and lists is not None
    }
    if rows:
        table = Table(
            {"geometry": list(rows), OVERLAP_COLUMN: list(rows.values())},
            f"{sources.model.name} mean overlap with raw cosine by geometry (D {removed})",
        )
    if any(lists is None for lists in found.values()):
        waiting = Note(
            "How many of each piece's 10 nearest stay in each geometry is computed in the background, "
            "once, from every piece's nearest pieces: "
            + ("some geometries are not computed yet." if rows else "not computed yet.")
        )
    said = tuple(
        Note(
            f"Could not compare {views.described((name, removed))}: {reason}",
            WARNING,
            icon=":material/error:",
        )
        for name, reason in unfit.items()
    )
    return Overlaps(table, waiting, said)


def overlap_with_raw(raw: np.ndarray, lists: np.ndarray) -> float:
    """The mean over rows of overlap@10 (the first 10 of each row's list, fewer for a table of
    10 rows or less) of a geometry's neighbour lists with raw cosine's."""
    k = min(compare.WHOLE_K, raw.shape[1], lists.shape[1])
    return float(compare.overlap(raw, lists, k).mean())


LISTED = 5  # the leading dimensions listed beside LayerNorm's parameters


def dimensions(model, lab: geometry_lab.Lab, shape: tuple[str, int]) -> Dimensions:
    """The geometry's largest parts of the mean cosine, by dimension, with LayerNorm's γ and β there."""
    choice = views.described(shape)
    contributions = views.dimension_parts(lab, shape[0])
    if contributions is None:
        said = f"The {choice} geometry could not be fitted here (see above): pick another."
        return Dimensions(missing=Note(said, INFO, icon=BLOCKED))
    return Dimensions(
        shares=Chart("geo_shares", views.dimension_shares(contributions, shape)),
        rogue=Note(rogue_sentence(lab, shape[0]), TEXT),
        gamma=Table(
            gamma_table(lab, model.tables, shape[0]),
            f"{model.name} LayerNorm gamma and beta of the leading dimensions ({choice})",
        ),
        gamma_caption=Note(
            "γ and β are LayerNorm's scale and shift for each dimension. A dimension that LayerNorm scales "
            "up far beyond the median |γ| can come to decide most of every cosine after it."
        ),
        download=Download(
            f"{model.name} parts of the mean cosine ({choice})",
            np.column_stack(list(contributions.values())),
            columns=list(contributions),
            corner="dim",
        ),
    )


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
    described = views.described((name, lab.removed))
    return f"Of the mean cosine in the {described} geometry: " + "; ".join(parts) + "."


def gamma_table(lab: geometry_lab.Lab, tables, name: str) -> dict[str, np.ndarray]:
    """The layer output's leading dimensions with their share and LayerNorm's γ and β there."""
    stats = lab.stats[geometry_lab.TABLES[1]][name]
    top = stats.top(LISTED)
    gamma, beta = tables.layer_norm_weight, tables.layer_norm_bias
    median = float(np.median(np.abs(gamma))) or float("nan")  # all γ 0: no ratio to give
    return {
        "dimension": top,
        "part of the layer output's mean cosine": stats.contributions[top],
        "γ (LayerNorm scale)": gamma[top],
        "β (LayerNorm shift)": beta[top],
        "|γ| / median |γ|": np.abs(gamma[top]) / median,
    }


def lengths(model, lab: geometry_lab.Lab, pieces: tuple[str, ...]) -> Lengths:
    return Lengths(
        Chart("geo_lengths", views.row_lengths(lab)),
        Download(f"{model.name} token row lengths", lab.lengths, pieces, ["length"], "piece"),
        Note(
            f"Along the ids, in {lab_charts.STRETCHES} equal stretches: the median length of each part's "
            "rows there, and a band from the 10th to the 90th percentile (hover for the figures); the "
            "download holds every row's length. " + lengths_sentence(lab, pieces),
            TEXT,
        ),
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
