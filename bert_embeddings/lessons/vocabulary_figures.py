"""The figures of the whole vocabulary, as a lesson's text names them: the Geometry page's mean
cosines and the dimensions that make them, Your own axes' report card, and What moved's
comparison of two stages. bert_embeddings.lessons.figures reads and shows them; each is computed
as its page computes it."""

from __future__ import annotations

from bert_embeddings.analysis import axes, axis_card, geometry, geometry_lab
from bert_embeddings.errors import ExplorerError
from bert_embeddings.lessons.figure_kit import (
    GEOMETRY_ARG,
    K_ARG,
    PENDING,
    TABLE_ARG,
    Arg,
    Facts,
    Missing,
    Result,
    a_stage,
    a_word,
    figure,
    listed,
    number,
    percent,
    pieces_list,
    plain,
    some_words,
    whole,
    whole_in,
)
from bert_embeddings.lessons.text import CODE, ITALIC, Span

# The Geometry page's figures: both whole tables, in a geometry.
_TABLES = {"token": geometry_lab.TABLES[0], "output": geometry_lab.TABLES[1]}


def _stats(facts: Facts, a: dict) -> geometry.Anisotropy | Missing:
    lab = facts.lab(facts.default_d())
    table, name = _TABLES[a["table"]], a["geometry"]
    if name in lab.problems.get(table, {}):
        return Missing(lab.problems[table][name].rstrip("."))
    return lab.stats[table][name]


# All-but-the-top's D is the model's default (the width / 100, where the page's slider starts): one
# measurement of the whole vocabulary per model serves every figure, whatever a lesson names.
_LAB_ARGS = dict(table=TABLE_ARG, geometry=GEOMETRY_ARG)


@figure("mean_cosine", "a whole table's mean cosine over every pair of pieces", **_LAB_ARGS)
def _mean_cosine(facts: Facts, a: dict) -> Result:
    stats = _stats(facts, a)
    return stats if isinstance(stats, Missing) else plain(number(stats.mean_cosine))


def _shares(facts: Facts, a: dict, n: int) -> tuple[list[int], float] | Missing:
    """The ``n`` dimensions that give most of a table's mean cosine, and their share of it."""
    stats = _stats(facts, a)
    if isinstance(stats, Missing):
        return stats
    if abs(stats.mean_cosine) < geometry_lab.NEAR_ZERO:  # as the page: a share of next to nothing
        return Missing(f"the mean cosine is {number(stats.mean_cosine)}, too near 0 to share out")
    top, share = geometry_lab.shares(stats, n)
    return [int(d) for d in top], share


_N_DIMENSIONS = Arg(whole_in(1, 10), "3", "how many dimensions")


@figure(
    "top_dimensions", "the n dimensions giving most of a table's mean cosine", n=_N_DIMENSIONS, **_LAB_ARGS
)
def _top_dimensions(facts: Facts, a: dict) -> Result:
    found = _shares(facts, a, a["n"])
    return found if isinstance(found, Missing) else plain(listed([str(d) for d in found[0]]))


@figure("top_share", "the share of the mean cosine the top n dimensions give", n=_N_DIMENSIONS, **_LAB_ARGS)
def _top_share(facts: Facts, a: dict) -> Result:
    found = _shares(facts, a, a["n"])
    return found if isinstance(found, Missing) else plain(percent(found[1]))


@figure("top_multiple", "how many times an even share the top dimension gives", **_LAB_ARGS)
def _top_multiple(facts: Facts, a: dict) -> Result:
    found = _shares(facts, a, 1)
    return found if isinstance(found, Missing) else plain(whole(round(found[1] * facts.width())))


@figure("pairs", "how many pairs of distinct pieces the vocabulary has")
def _pairs(facts: Facts, _: dict) -> Result:
    n = facts.model.tables.word_embeddings.shape[0]
    return plain(whole(n * (n - 1) // 2))


@figure("default_d", "all-but-the-top's default D: the width / 100")
def _default_d(facts: Facts, _: dict) -> Result:
    return plain(whole(facts.default_d()))


# Your own axes' report card.
_AXIS_ARGS = dict(start=Arg(some_words), end=Arg(some_words), geometry=GEOMETRY_ARG)


def _card(facts: Facts, a: dict, figure_name: str | None = None) -> axis_card.Card | Missing:
    """The axis' report card as Your own axes computes it (no words placed: the card is the axis');
    Missing where the card does not give ``figure_name`` (one word at an end), with the card's why."""
    geometry_key = geometry.key(a["geometry"], facts.default_d())
    try:
        card = facts.sources.card((a["start"], a["end"], ""), geometry_key).card
    except ExplorerError as problem:
        return Missing(str(problem).rstrip("."))
    why = card.why_not(figure_name) if figure_name else None
    return Missing(why.rstrip(".")) if why else card


@figure("axis_held", "how many pole words an axis keeps on their side when held out", **_AXIS_ARGS)
def _axis_held(facts: Facts, a: dict) -> Result:
    card = _card(facts, a, axis_card.HELD_OUT)
    return card if isinstance(card, Missing) else plain(f"{card.held_out} of {card.held_total}")


@figure("axis_beats", "the share of random axes an axis beats", **_AXIS_ARGS)
def _axis_beats(facts: Facts, a: dict) -> Result:
    card = _card(facts, a, axis_card.CHANCE)
    return card if isinstance(card, Missing) else plain(percent(card.beats, 1))


@figure("axis_verdict", "an axis' verdict, in the card's words", **_AXIS_ARGS)
def _axis_verdict(facts: Facts, a: dict) -> Result:
    card = _card(facts, a)
    return card if isinstance(card, Missing) else (Span(ITALIC, card.verdict()),)


@figure(
    "axis_further",
    "which of two words lands further towards the axis' end",
    start=Arg(some_words),
    end=Arg(some_words),
    words=Arg(some_words),
)
def _axis_further(facts: Facts, a: dict) -> Result:

    words = [w.strip() for w in a["words"].split(",") if w.strip()]
    if len(words) != 2:
        return Missing("axis_further compares two words")
    try:
        placed = axes.placed_on(
            facts.index(), facts.model.tokenizer, a["start"], a["end"], words, facts.geometry("raw", 0)
        )
    except ExplorerError as problem:
        return Missing(str(problem).rstrip("."))
    return (Span(CODE, max(words, key=lambda w: (placed[w], -words.index(w)))),)


# What moved: two stages of the model compared over the whole vocabulary.
_STAGES = dict(start=Arg(a_stage, "token"), end=Arg(a_stage, "output"), k=K_ARG)


def _stage_name(facts: Facts, stage: str) -> str:
    return str(facts.layers()) if stage == "last" else stage


def _beyond(facts: Facts, stage: str) -> Missing | None:
    """Why this model has no such stage (a layer past its last; a_stage read the number)."""
    if stage not in ("token", "output") and int(stage) > facts.layers():
        return Missing(f"{facts.model.name} has {facts.layers()} layers")
    return None


def _comparison(facts: Facts, a: dict):
    start, end = _stage_name(facts, a["start"]), _stage_name(facts, a["end"])
    if beyond := _beyond(facts, start) or _beyond(facts, end):
        return beyond
    found = facts.compared(start, end, a["k"])
    if found is None:
        return Missing(PENDING, pending=True)
    return found


@figure("overlap", "the mean share of its k nearest a piece keeps from one stage to another", **_STAGES)
def _overlap(facts: Facts, a: dict) -> Result:
    found = _comparison(facts, a)
    return found if isinstance(found, Missing) else plain(number(found.figures.mean_overlap))


@figure("cka", "the linear CKA of two stages", **_STAGES)
def _cka(facts: Facts, a: dict) -> Result:
    found = _comparison(facts, a)
    return found if isinstance(found, Missing) else plain(number(found.figures.cka))


@figure(
    "kept",
    'how many of its k nearest one piece keeps from one stage to another, with k ("3 of 10")',
    piece=Arg(a_word),
    **_STAGES,
)
def _kept(facts: Facts, a: dict) -> Result:
    found = _comparison(facts, a)
    if isinstance(found, Missing):
        return found
    row = {piece: row for row, piece in enumerate(found.shared.pieces)}.get(a["piece"])
    if row is None:
        return Missing(f"“{a['piece']}” is not one piece of {facts.model.name}")
    return plain(f"{round(float(found.figures.overlap[row]) * a['k'])} of {a['k']}")


@figure(
    "movers",
    "the n pieces that keep least of their k nearest (special pieces aside)",
    n=Arg(whole_in(1, 20), "6"),
    **_STAGES,
)
def _movers(facts: Facts, a: dict) -> Result:
    found = _comparison(facts, a)
    if isinstance(found, Missing):
        return found
    special = facts.index().special[found.shared.rows_a]  # as the page hides them by default
    return pieces_list([found.shared.pieces[row] for row in found.figures.movers(~special)[: a["n"]]])


@figure("stage_cosine", "a stage's mean cosine over every pair of pieces", stage=Arg(a_stage))
def _stage_cosine(facts: Facts, a: dict) -> Result:
    stage = _stage_name(facts, a["stage"])
    if beyond := _beyond(facts, stage):
        return beyond
    space = facts.stages.space(stage)
    if space is None:
        return Missing(PENDING, pending=True)
    return plain(number(facts.stages.mean_cosine(space)))
