"""The figures of the pages about one input (Concepts, Tokens, Embedding layer, Positions,
Segments, Context), as functions of the core's results and the page's settings.

Each page calls these to draw its figures, and a lesson's handout calls the very same ones for a
step's view (bert_embeddings.figures.handout_pages), so that the handout's numbers are the
page's, figure for figure. Figures are returned, never shown; the caller finishes and draws
them. The pages over the whole vocabulary have theirs in bert_embeddings.figures.views.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from bert_embeddings.analysis import concepts, contextual, cosine, decompose, positions
from bert_embeddings.figures import charts, line_charts
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.models.tokenize import Encoding

# --- Concepts -----------------------------------------------------------------------------------


def toy_space(space: concepts.ToySpace) -> go.Figure:
    """The toy items as arrows from the origin, in their three named dimensions."""
    fig = go.Figure()
    for name, (x, y, z) in zip(space.names, space.vectors.tolist(), strict=True):
        fig.add_trace(
            go.Scatter3d(
                x=[0, x],
                y=[0, y],
                z=[0, z],
                mode="lines+markers+text",
                name=charts.text(name),
                text=["", *charts.gl_texts([name])],
                marker={"size": [0, 5]},
                line={"width": 5},
                hovertext=["origin", f"{charts.text(name)}<br>({x:g}, {y:g}, {z:g})"],
                hoverinfo="text",
            )
        )
    fig.update_layout(
        height=520,
        margin={"l": 0, "r": 0, "t": 30, "b": 0},
        showlegend=False,
        scene={
            f"{axis}axis": {"title": {"text": charts.text(d)}}
            for axis, d in zip("xyz", space.dimensions, strict=True)
        },
    )
    return fig


def toy_similarity(space: concepts.ToySpace, similarity: np.ndarray) -> go.Figure:
    """The toy items' cosines (``similarity``: cosine.matrix of their vectors), item by item."""
    return charts.similarity_heatmap(similarity, "Cosine similarity", space.names)


def toy_caption(space: concepts.ToySpace, similarity: np.ndarray) -> str:
    """What the cosines of the items on screen say, in plain text (names are the reader's own):
    the most and the least alike pair, each with every pair tied with it at three decimals. The
    items are whatever the table holds (a lesson's, or a reader's), so no sentence may name one."""
    opening = "Cosine compares directions, not lengths"
    if len(space.names) < 2:
        return f"{opening}: add a second item to compare it with the first."
    first, second = np.triu_indices(len(space.names), k=1)
    values = np.round(similarity[first, second].astype(np.float64), 3)
    pairs = [f"{space.names[a]} and {space.names[b]}" for a, b in zip(first, second, strict=True)]

    def pairs_at(value: float) -> str:
        tied = [pair for pair, v in zip(pairs, values, strict=True) if v == value]
        more = f", and {len(tied) - 3} more pairs" if len(tied) > 3 else ""
        return "; ".join(tied[:3]) + more + f" (cosine {value:.3f})"

    if len(values) == 1:
        return f"{opening}: {pairs_at(values[0])}."
    most, least = values.max(), values.min()
    if most == least:
        return f"{opening}: every pair here has the same cosine, {most:.3f}."
    return f"{opening}. Most alike here: {pairs_at(most)}. Least alike: {pairs_at(least)}."


# --- Tokens -------------------------------------------------------------------------------------


def pieces_table(encoding: Encoding) -> dict[str, Sequence]:
    """The Tokens page's table, column by column: each piece's position, piece, id, segment and
    word (pieces as the tokenizer gives them; a reader's copy shows them legible)."""
    return {
        "position": encoding.positions,
        "piece": encoding.pieces,
        "id": encoding.ids,
        "segment": encoding.segment_ids,
        "word": ["special" if g is None else f"word {g + 1}" for g in encoding.word_groups],
    }


# --- Embedding layer ----------------------------------------------------------------------------


# Each stage's title, by its code (settings.LAYER_STAGES): the page's choice of the stage in full.
STAGE_TITLES = {
    "token": "Token rows",
    "position": "Position rows",
    "segment": "Segment rows",
    "sum": "Sum (before LayerNorm)",
    "output": "LayerNorm output",
    "projected": "Projected to the hidden size",
}


@dataclass(frozen=True)
class Stage:
    """One stage of the embedding layer as the page shows it."""

    title: str
    values: np.ndarray  # (pieces, width)
    caption: str  # Markdown: code in backticks


def layer_stages(model: LoadedModel, parts: decompose.EmbeddingBreakdown) -> dict[str, Stage]:
    """Every stage the model's family has, by its code (settings.LAYER_STAGES), in order: token,
    position and segment rows (no segment for a family without them), their sum, LayerNorm's
    output, and the projection of ALBERT and ELECTRA."""
    stages = {
        "token": Stage(
            STAGE_TITLES["token"],
            parts.token,
            "Row `id` of `word_embeddings`: the same piece always gets the same row.",
        ),
        "position": Stage(
            STAGE_TITLES["position"],
            parts.position,
            "Row `i` of `position_embeddings`: learned, one per position.",
        ),
    }
    if parts.segment is not None:
        stages["segment"] = Stage(
            STAGE_TITLES["segment"], parts.segment, "Row 0 or 1 of `token_type_embeddings`: sentence A or B."
        )
    stages["sum"] = Stage(
        STAGE_TITLES["sum"], parts.summed, "token + segment + position, element by element."
    )
    after = (
        "; the projection below comes next."
        if parts.projected is not None
        else ": the first encoder layer's input."
    )
    stages["output"] = Stage(
        STAGE_TITLES["output"],
        parts.output,
        "What the embedding module returns (dropout is off at inference)" + after,
    )
    if parts.projected is not None:
        family = model.family
        stages["projected"] = Stage(
            f"{STAGE_TITLES['projected']} ({parts.projected.shape[1]})",
            parts.projected,
            f"{family.label}'s tables are {model.hidden_size} wide; a learned projection maps the output "
            f"to the hidden size {family.projection_place}.",
        )
    return stages


def stage_overview(stages: dict[str, Stage], labels: Sequence[str]) -> go.Figure:
    """Every stage at a glance, as colours only (one byte a cell, at most 192 columns a panel, about
    the pixels a panel of five gets on a desktop, and 200,000 cells in all): for 512 pieces of
    bert-base that is under 3 MB to the browser, where every stage in full would be 13 MB."""
    overview = [(stage.title, stage.values) for stage in stages.values()]
    columns = min(192, 200_000 // (len(labels) * len(overview)))
    return charts.layer_overview(overview, labels, exact=False, max_columns=columns)


def every_dimension(model: LoadedModel) -> tuple[int, int]:
    """The dimension range the page starts with: every dimension of the model in use."""
    return (0, model.hidden_size - 1)


def shown_dimensions(stage: Stage, model: LoadedModel, dims: range) -> range:
    """The dimensions of ``stage`` shown for the range chosen (the projection is wider: all of it)."""
    return dims if stage.values.shape[1] == model.hidden_size else range(stage.values.shape[1])


_ORDINALS = {2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth"}


def every_nth(step: int) -> str:
    """'second' for 2, 'third' for 3 ...: the word in "every third position is drawn"."""
    return _ORDINALS.get(step) or f"{step}th"


# The most dimensions a stage in full draws side by side: about the pixels a desktop gives it
# (bert-base's 768 at every second); a narrower range draws each one.
DETAIL_COLUMNS = 384


def detail_step(shown: range) -> int:
    """Every how many dimensions the stage in full draws one, over the dimensions ``shown``."""
    return charts.drawn_every(len(shown), DETAIL_COLUMNS)


def stage_detail(stage: Stage, labels: Sequence[str], shown: range) -> go.Figure:
    """One stage in full, every value exact on hover, over the dimensions ``shown`` (at most
    DETAIL_COLUMNS of them drawn, evenly)."""
    return charts.stage_heatmap(stage.values, labels, shown, stage.title, DETAIL_COLUMNS)


def token_statistics(parts: decompose.EmbeddingBreakdown, labels: Sequence[str]) -> go.Figure:
    """What LayerNorm subtracts and divides by, piece by piece."""
    return charts.token_bars(
        labels,
        {"mean": parts.mean, "standard deviation": parts.std},
        "What LayerNorm subtracts (mean) and divides by (std), per token",
    )


def layer_norm_parameters(model: LoadedModel, dims: range) -> go.Figure:
    """LayerNorm's learned scale (gamma) and shift (beta) over the dimensions chosen, each in a
    panel of its own: gamma lies about 1, beta about 0."""
    tables = model.tables
    return line_charts.line_panels(
        np.arange(dims.start, dims.stop),
        {
            "gamma (scale)": tables.layer_norm_weight[dims.start : dims.stop],
            "beta (shift)": tables.layer_norm_bias[dims.start : dims.stop],
        },
        "LayerNorm's learned gamma and beta",
        "dimension",
        "value",
    )


# --- Positions ----------------------------------------------------------------------------------


def position_tables(model: LoadedModel) -> tuple[np.ndarray, np.ndarray]:
    """The model's learned position rows and the original Transformer's sinusoid of the same
    size, each (positions, hidden)."""
    learned = model.tables.position_embeddings
    return learned, positions.sinusoid(*learned.shape)


# The most positions a cosine map draws on a side: about the pixels it gets on a screen (a square
# of some 400 px on a desktop, 330 on a phone); 512 positions are drawn at every third.
POSITION_CELLS = 176


def position_cosine_charts(
    model: LoadedModel, learned_cosine: np.ndarray, formula_cosine: np.ndarray
) -> list[tuple[str, go.Figure]]:
    """The two cosine matrices of every position with every other, learned then sinusoid, each
    with the key the page draws it under (every n-th position drawn beyond POSITION_CELLS). The keys
    do not name the model: a chart seen stays drawn when the reader picks another."""
    return [
        (key, charts.similarity_heatmap(matrix, title, max_cells=POSITION_CELLS))
        for key, matrix, title in (
            ("pos_learned", learned_cosine, f"Learned ({model.name})"),
            ("pos_sinusoid", formula_cosine, "Sinusoid (formula)"),
        )
    ]


def position_norms(learned: np.ndarray, formula: np.ndarray) -> go.Figure:
    """The length of each position's row, learned above and sinusoid below, each on its own axis:
    a sinusoid's rows are all sqrt(hidden / 2) long, several times the learned rows' lengths."""
    return line_charts.line_panels(
        np.arange(len(learned)),
        {"learned": positions.row_norms(learned), "sinusoid": positions.row_norms(formula)},
        "Length (norm) of each position's row",
        "position",
        "norm",
    )


def position_norms_caption(learned: np.ndarray, formula: np.ndarray) -> str:
    """What the chart of lengths shows, in numbers: the learned rows' range and where it is reached,
    and the sinusoid's one length."""
    norms, formula_norms = positions.row_norms(learned), positions.row_norms(formula)
    shortest, longest = int(np.argmin(norms)), int(np.argmax(norms))
    low, high = float(formula_norms.min()), float(formula_norms.max())
    formula_said = (
        f"the formula gives every position the same length, {high:.2f}"
        if high - low < 0.005
        else f"the formula's run from {low:.2f} to {high:.2f}"
    )
    return (
        "Each on its own axis. The learned rows' lengths run from "
        f"{norms[shortest]:.2f} (position {shortest}) to {norms[longest]:.2f} (position {longest}); "
        f"{formula_said}."
    )


def position_pair(learned: np.ndarray, p: int, q: int) -> go.Figure:
    """Two learned position rows (checked positions), dimension by dimension."""
    return line_charts.line_series(
        np.arange(learned.shape[1]),
        {f"position {p}": learned[p], f"position {q}": learned[q]},
        f"Learned rows {p} and {q}, dimension by dimension",
        "hidden dimension",
        "value",
    )


# --- Segments -----------------------------------------------------------------------------------


def segment_rows(rows: np.ndarray) -> go.Figure:
    """The two segment rows and their difference (``rows``: token_type_embeddings, two or more)."""
    return line_charts.line_series(
        np.arange(rows.shape[1]),
        {"segment A (row 0)": rows[0], "segment B (row 1)": rows[1], "B - A": rows[1] - rows[0]},
        "The two segment rows and their difference",
        "hidden dimension",
        "value",
    )


def segment_swap(encoding: Encoding, swap: np.ndarray) -> go.Figure:
    """Each piece's output as A against as B (``swap``: decompose.segment_swap)."""
    return charts.token_bars(
        encoding.labels,
        {"cosine(output as A, output as B)": swap},
        "Same piece, same position, other segment",
    )


# --- Context ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WordInContext:
    """One word in two sentences through the whole model, as the Context page compares it."""

    stages: list[str]  # "token row", "embeddings", "layer 1", ...
    similarity: np.ndarray  # (stages,) the cosine of the word's two vectors at each
    states: np.ndarray  # (layers + 1, pieces, hidden): sentence 1 after each layer


def word_in_context(
    model: LoadedModel,
    encodings: Sequence[Encoding],
    where: Sequence[list[int]],
    states: Sequence[np.ndarray],
) -> WordInContext:
    """The word (at the pieces ``where`` of each sentence) compared stage by stage: its token
    rows (the mean of its pieces'), then the embedding output and each encoder layer
    (``states``: each sentence's, (layers + 1, tokens, hidden), contextual.hidden_states)."""
    token_rows = [
        model.tables.word_embeddings[list(e.ids[w])].mean(axis=0)
        for e, w in zip(encodings, where, strict=True)
    ]
    token_row_cosine = float(cosine.paired(token_rows[0], token_rows[1])[0])
    by_layer = contextual.word_similarity_by_layer(states[0], where[0], states[1], where[1])
    stages = ["token row", "embeddings", *(f"layer {n}" for n in range(1, len(by_layer)))]
    return WordInContext(stages, np.concatenate([[token_row_cosine], by_layer]), states[0])


def context_similarity(found: WordInContext, word: str) -> go.Figure:
    """The cosine of the word's two vectors, stage by stage."""
    return line_charts.line_series(
        found.stages,
        {f"'{word}' in sentence 1 vs sentence 2": found.similarity},
        "Cosine similarity of the word's two vectors, layer by layer",
        "stage",
        "cosine",
        markers=True,
    )


def context_layer(found: WordInContext, labels: Sequence[str], layer: int) -> go.Figure:
    """Sentence 1's vectors after ``layer`` (0: the embedding output)."""
    values = found.states[layer]
    title = "Embeddings" if layer == 0 else f"After layer {layer}"
    return charts.stage_heatmap(values, labels, range(values.shape[1]), title)
