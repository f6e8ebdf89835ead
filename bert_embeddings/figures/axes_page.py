"""What the Your own axes page shows of a view, composed once for the page and a lesson's handout
(bert_embeddings.figures.vocabulary_pages): the words on the axes, each axis' report card, WEAT
and the pieces furthest along each axis."""

from __future__ import annotations

import numpy as np

from bert_embeddings.analysis import (
    axes,
    decompose,
    geometry,
    vocab_search,
    word_tests,
)
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import settings, views
from bert_embeddings.figures.handout_parts import (
    BLOCKED,
    ERROR,
    INFO,
    SUCCESS,
    TEXT,
    WARNING,
    Chart,
    Download,
    Metric,
    Note,
    Parts,
    Table,
    geometry_of,
    named_notices,
    within,
)
from bert_embeddings.models import glyphs
from bert_embeddings.views.sources import Sources


def axes_page(values: dict, sources: Sources) -> Parts:
    """Words placed on the axes the view names, each axis' report card, WEAT of its four groups
    and the pieces furthest along each axis. An axis that cannot be built (a word the model
    lacks) is raised: the page shows it instead of everything else."""
    model, index = sources.model, sources.index()
    shape = geometry_of(values, index.table.shape[1])
    space = sources.space(*shape)
    ends = {name: tuple(values[key] for key in settings.AX_ENDS[name]) for name in axes.NAMES}
    chosen = axes.in_space(axes.build_axes(index, model.tokenizer, ends), space)
    placed, problems = axes.words_to_place(index, model.tokenizer, values[settings.AX_WORDS])
    found: Parts = {}
    if problems:
        said = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        found["left_off"] = Note(f"Left off the chart: {said}", WARNING, icon=":material/visibility_off:")
    for n, (first, second, value) in enumerate(axes.nearly_parallel(chosen)):
        found[f"parallel {n}"] = Note(
            f"Axes {first} and {second} are nearly parallel (cosine {value:+.2f}): a point's two coordinates "
            "largely repeat one another. Try ends that differ in another way.",
            WARNING,
            icon=":material/call_merge:",
        )
    found |= _words_on_axes(values, sources, chosen, placed, space, shape)
    words = ", ".join(w.text for w in placed)  # the card places the words the chart places
    for axis in chosen:
        found |= _card(sources, axis.name, (*ends[axis.name], words), shape)
    return found | _weat(values, sources) | _furthest(values, sources, chosen, space, shape)


def _words_on_axes(values, sources: Sources, chosen, placed, space, shape) -> Parts:
    model, described = sources.model, views.described(shape)
    found: Parts = {}
    sentence = None
    choices = [settings.NO_SENTENCE, *decompose.STAGES]
    if model.tables.token_type_embeddings is None:  # a family without segment rows
        choices.remove(decompose.STAGES[2])
    stage = within(values[settings.AX_STAGE], choices, settings.NO_SENTENCE)
    if stage != settings.NO_SENTENCE:  # the sentence is read only when its pieces are asked for
        try:
            encoding = sources.encoding(values)
        except ExplorerError as problem:
            found["sentence_problem"] = Note(str(problem), ERROR)
        else:
            found |= named_notices(encoding)
            sentence = (encoding.labels, decompose.stage_vectors(sources.breakdown(encoding))[stage])
    groups = views.axis_groups(chosen, placed, space, sentence)
    names = [a.name for a in chosen]
    found |= {
        "ax_chart": Chart("ax_chart", views.words_on_axes(chosen, groups, model.name)),
        "ax_chart_caption": Note(
            "Each group has its own colour and marker shape: circles for the words placed, diamonds for the "
            "words that define the axes, squares for your sentence's pieces. The axes are drawn at right "
            "angles even when their directions are not; the cosine between them is below."
        ),
        "ax_chart_download": Download(
            f"{model.name} coordinates on your axes ({described})",
            np.concatenate([c for _, _, c in groups]),
            [f"{name}: {label}" for name, labels, _ in groups for label in labels],
            names,
            "point",
        ),
        "between_title": Note("Cosine between the axes", TEXT, bold="Cosine between the axes"),
        "between": Download(
            f"{model.name} cosine between your axes ({described})", axes.between(chosen), names, names
        ),
        "between_caption": Note("1 or -1: the same direction; 0: at right angles, as the chart draws them."),
    }
    if placed:
        similarity, words = views.placed_cosine(placed, space), [w.text for w in placed]
        found |= {
            "ax_words_cosine": Chart("ax_words_cosine", views.placed_cosine_chart(similarity, placed, shape)),
            "ax_words_cosine_download": Download(
                f"{model.name} cosine between the words placed ({described})", similarity, words, words
            ),
        }
    return found


def other_shape(shape: tuple[str, int], hidden: int) -> tuple[str, int]:
    """The geometry an axis' card is set beside: all-but-the-top (raw when that is the one shown)."""
    if shape[0] == "all-but-the-top":
        return ("raw", 0)
    return geometry.key("all-but-the-top", geometry.default_removed(hidden))


def _card(sources: Sources, name: str, texts: tuple[str, str, str], shape) -> Parts:
    """Axis ``name``'s card: the verdict and its figures, then the words' intervals and the same
    card in the other geometry. ``texts``: the ends and the words placed."""
    at = f"card {name}"
    try:
        found = sources.card(texts, shape)
    except ExplorerError as problem:
        return {f"{at} problem": Note(str(problem), ERROR)}
    second = other_shape(shape, sources.index().table.shape[1])
    parts: Parts = {}
    try:
        other = sources.card(texts, second)
    except ExplorerError as problem:
        other, parts[f"{at} other problem"] = None, Note(str(problem), ERROR)
    c = found.card
    verdict = f"Axis {name}: {c.verdict()}."
    if not c.assessed:
        parts[f"{at} verdict"] = Note(verdict, INFO, icon=BLOCKED)
    else:
        kind = SUCCESS if "this axis separates its poles" in c.verdict() else WARNING
        parts[f"{at} verdict"] = Note(verdict, kind, icon=":material/fact_check:")
    for n, (label, value) in enumerate(views.card_figures(c).items()):
        parts[f"{at} figure {n}"] = Metric(label, value)
    if c.missing:
        parts[f"{at} missing"] = Note(
            f"Not assessed: {'; '.join(f'{m.figure}, {m.reason}' for m in c.missing)}."
        )
    if c.random_coherence is not None and len(c.random_coherence):
        parts[f"{at} coherence"] = Note(
            f"Random pairs of whole words: first component {np.mean(c.random_coherence):.1%} on average."
        )
    if found.split:
        parts[f"{at} split"] = Note(
            f"Split into pieces (each counts as their mean): {', '.join(found.split)}."
        )
    parts[f"{at} other"] = Note(
        f"The same card in the {views.described(second)} geometry (rogue dimensions can make any axis look "
        f"strong): {other.card.verdict() if other else 'cannot be computed'}."
    )
    if (figure := views.card_intervals(name, found)) is not None:
        parts[f"{at} intervals"] = Chart(f"ax_card_{name}", figure)
    return parts


def _weat(values: dict, sources: Sources) -> Parts:
    """WEAT of the four groups the view names."""
    texts = tuple(values[settings.AX_WEAT[g]] for g in word_tests.WEAT_GROUPS)
    try:
        found = sources.weat(texts)
    except ExplorerError as problem:
        return {"weat_problem": Note(str(problem), ERROR)}
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
    parts: Parts = {
        f"weat figure {n}": Metric(label, value) for n, (label, value) in enumerate(figures.items())
    }
    parts["weat_how"] = Note(f"p-value {how}.")
    if w.missing:
        parts["weat_missing"] = Note(
            f"Not assessed: {'; '.join(dict.fromkeys(m.reason for m in w.missing))}."
        )
    if found.split:
        parts["weat_split"] = Note(
            f"Split into pieces (each counts as their mean): {', '.join(found.split)}."
        )
    words = [*found.groups["X"], *found.groups["Y"]]
    groups = ["X"] * len(found.groups["X"]) + ["Y"] * len(found.groups["Y"])
    parts["weat_associations"] = Table(
        {"word": words, "group": groups, "s(w, A, B)": w.s}, f"{sources.model.name} WEAT associations"
    )
    return parts


FILTERS = (
    "hide_continuation",
    "hide_special",
    "leave_out",
    "include",
    "exclude",
)  # settings.FilterKeys' fields


def placeable(values: dict, sources: Sources) -> str:
    """The words the view places that can be placed, as an axis' card takes them."""
    placed, _ = axes.words_to_place(sources.index(), sources.model.tokenizer, values[settings.AX_WORDS])
    return ", ".join(w.text for w in placed)


def _furthest(values: dict, sources: Sources, chosen, space, shape) -> Parts:
    """The rows of the token table furthest towards each end of each axis, through the view's filters."""
    model, index = sources.model, sources.index()
    keys = {name: getattr(settings.AX_FILTERS, name) for name in FILTERS}
    parts: Parts = {}
    for axis in chosen:
        parts[f"furthest {axis.name}"] = Note(f"Axis {axis.name}: {axis.label}", TEXT)
        filters = vocab_search.Filters(
            hide_continuation=values[keys["hide_continuation"]],
            hide_special=values[keys["hide_special"]],
            include=values[keys["include"]],
            exclude=values[keys["exclude"]],
            exclude_ids=axis.ids if values[keys["leave_out"]] else (),
        )
        try:
            found = axes.extremes(
                index,
                axis,
                space,
                filters,
                match=lambda _, pattern, *label: sources.pattern_rows(pattern, *label),
            )
        except ExplorerError as problem:
            parts[f"furthest {axis.name} problem"] = Note(str(problem), ERROR)
            continue
        for side, end_words, result in zip(("to", "from"), (axis.end, axis.start), found, strict=True):
            towards = ", ".join(w.text for w in end_words)
            parts[f"furthest {axis.name} {side} title"] = Note(f"Towards {towards}", TEXT)
            columns = {"rank": range(1, len(result.ids) + 1), "piece": result.pieces, "id": result.ids}
            columns["coordinate"] = result.scores
            parts[f"furthest {axis.name} {side}"] = Table(
                columns,
                f"{model.name} axis {axis.name} towards {towards} ({views.described(shape)})",
                {**columns, "piece": [glyphs.legible(piece) for piece in result.pieces]},
            )
    return parts
