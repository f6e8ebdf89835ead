"""Whether Your own axes can be trusted, composed once for the page and a lesson's handout (through
axes_page): each axis' report card, and WEAT of the four groups typed. Both come from ``Sources``
(computed once per model, texts and geometry)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import geometry
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import views
from bert_embeddings.figures.handout_parts import (
    BLOCKED,
    ERROR,
    INFO,
    SUCCESS,
    WARNING,
    Chart,
    Composed,
    Metric,
    Note,
    Table,
)
from bert_embeddings.views.sources import Sources


@dataclass(frozen=True)
class Card(Composed):
    """One axis' report card: its verdict and figures, then what is folded under them; or why
    there is none."""

    problem: Note | None = None
    other_problem: Note | None = None  # the card in the other geometry could not be made
    verdict: Note | None = None
    figures: tuple[Metric, ...] = ()
    missing: Note | None = None
    coherence: Note | None = None
    split: Note | None = None
    other: Note | None = None
    intervals: Chart | None = None


@dataclass(frozen=True)
class Weat(Composed):
    problem: Note | None = None
    figures: tuple[Metric, ...] = ()
    how: Note | None = None
    missing: Note | None = None
    split: Note | None = None
    associations: Table | None = None


def other_shape(shape: tuple[str, int], hidden: int) -> tuple[str, int]:
    """The geometry an axis' card is set beside: all-but-the-top (raw when that is the one shown)."""
    if shape[0] == "all-but-the-top":
        return ("raw", 0)
    return geometry.key("all-but-the-top", geometry.default_removed(hidden))


def _split(words: list[str]) -> Note | None:
    return Note(f"Split into pieces (each counts as their mean): {', '.join(words)}.") if words else None


def card(sources: Sources, name: str, texts: tuple[str, str, str], shape) -> Card:
    """Axis ``name``'s card: the verdict and its figures, then the words' intervals and the same
    card in the other geometry. ``texts``: the ends and the words placed."""
    try:
        found = sources.card(texts, shape)
    except ExplorerError as problem:
        return Card(problem=Note(str(problem), ERROR))
    second = other_shape(shape, sources.index().table.shape[1])
    other_problem = None
    try:
        other = sources.card(texts, second)
    except ExplorerError as problem:
        other, other_problem = None, Note(str(problem), ERROR)
    c = found.card
    said = f"Axis {name}: {c.verdict()}."
    if not c.assessed:
        verdict = Note(said, INFO, icon=BLOCKED)
    else:
        kind = SUCCESS if "this axis separates its poles" in c.verdict() else WARNING
        verdict = Note(said, kind, icon=":material/fact_check:")
    missing = coherence = None
    if c.missing:
        missing = Note(f"Not assessed: {'; '.join(f'{m.figure}, {m.reason}' for m in c.missing)}.")
    if c.random_coherence is not None and len(c.random_coherence):
        coherence = Note(
            f"Random pairs of whole words: first component {np.mean(c.random_coherence):.1%} on average."
        )
    figure = views.card_intervals(name, found)
    return Card(
        other_problem=other_problem,
        verdict=verdict,
        figures=tuple(Metric(label, value) for label, value in views.card_figures(c).items()),
        missing=missing,
        coherence=coherence,
        split=_split(found.split),
        other=Note(
            f"The same card in the {views.described(second)} geometry (rogue dimensions can make any axis "
            f"look strong): {other.card.verdict() if other else 'cannot be computed'}."
        ),
        intervals=None if figure is None else Chart(f"ax_card_{name}", figure),
    )


def weat(texts: tuple[str, ...], sources: Sources) -> Weat:
    """WEAT of the four groups ``texts`` (X, Y, A, B)."""
    try:
        found = sources.weat(texts)
    except ExplorerError as problem:
        return Weat(problem=Note(str(problem), ERROR))
    w = found.test
    how = (
        f"exact, over all {w.partitions:,} partitions"
        if w.exact
        else f"{w.partitions:,} random partitions (seed 0): over 100,000 of them, too many to count in time"
    )
    figures = {
        "Effect size d": views.NOT_GIVEN if w.effect_size is None else f"{w.effect_size:.3f}",
        "d's 95 % interval (bootstrap)": (
            views.NOT_GIVEN if w.interval is None else f"{w.interval[0]:.2f} – {w.interval[1]:.2f}"
        ),
        "p-value (one-sided)": f"{w.p_value:.4g}",
        "Statistic S": f"{w.statistic:.4f}",
    }
    missing = None
    if w.missing:
        missing = Note(f"Not assessed: {'; '.join(dict.fromkeys(m.reason for m in w.missing))}.")
    words = [*found.groups["X"], *found.groups["Y"]]
    groups = ["X"] * len(found.groups["X"]) + ["Y"] * len(found.groups["Y"])
    return Weat(
        figures=tuple(Metric(label, value) for label, value in figures.items()),
        how=Note(f"p-value {how}."),
        missing=missing,
        split=_split(found.split),
        associations=Table(
            {"word": words, "group": groups, "s(w, A, B)": w.s}, f"{sources.model.name} WEAT associations"
        ),
    )
