"""The Your own axes page in the core: its settings, declared once (bert_embeddings/views/fields.py),
and what it shows of them, composed once for the page and a lesson's handout: the words on the
axes, each axis' report card and WEAT (axes_checks), and the pieces furthest along each axis."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings import limits
from bert_embeddings.analysis import axes, decompose, word_tests
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import axes_checks, views
from bert_embeddings.figures.handout_parts import (
    ERROR,
    TEXT,
    WARNING,
    Chart,
    Composed,
    Download,
    Note,
    Table,
    geometry_of,
    notices,
    within,
)
from bert_embeddings.models import glyphs
from bert_embeddings.views import fields, link_text
from bert_embeddings.views.fields import linked, shared
from bert_embeddings.views.sources import Sources

NO_SENTENCE = "no"  # the sentence's stage when its pieces are left off the chart
# The page's four parts, each a tab, by label; composed only for the open tab.
TABS = ("Words on the axes", "Can you trust each axis?", "WEAT", "Furthest along each axis")
WORDS_TAB, CARDS_TAB, WEAT_TAB, FURTHEST_TAB = TABS
_TEXT = link_text.text_of(limits.AXIS_TEXT)
_STAGES = {
    "none": NO_SENTENCE,
    **dict(zip(("token", "position", "segment", "layernorm"), decompose.STAGES, strict=True)),
}


def _end(name: str, end: int):
    said = axes.ENDS[end]
    return linked(f"{name}_{said}", axes.DEFAULT_ENDS[name][end], f"axis {name}: {said}", _TEXT)


def _group(group: str):
    text = word_tests.FLOWERS_INSECTS[group]
    return linked(f"weat_{group.lower()}", text, f"WEAT's group {group}", _TEXT)


@dataclass(frozen=True)
class Settings(fields.WithSentences, fields.Filtered):
    PAGE = "axes"
    PREFIX = "ax_"

    x_from: str = _end("x", 0)
    x_to: str = _end("x", 1)
    y_from: str = _end("y", 0)
    y_to: str = _end("y", 1)
    z_from: str = _end("z", 0)
    z_to: str = _end("z", 1)
    words: str = linked("words", axes.DEFAULT_WORDS, "the words to place", _TEXT)
    stage: str = linked("pieces", NO_SENTENCE, "your sentence's pieces", *fields.coded(_STAGES))
    tab: str = linked(
        "ax_tab",
        WORDS_TAB,
        "the page's tab",
        *fields.coded(dict(zip(("words", "cards", "weat", "furthest"), TABS, strict=True))),
    )
    hide_continuation: bool = linked("ax_hide_pieces", False, "hide ## continuation pieces", *fields.FLAGS)
    hide_special: bool = linked("ax_hide_special", True, "hide [CLS], [SEP], [unusedN]...", *fields.FLAGS)
    leave_out: bool = linked(
        "ax_leave_out", True, "leave out the pieces of the axes' own words", *fields.FLAGS
    )
    include: str = linked("ax_only", "", "the 'Only pieces matching' pattern", link_text.pattern)
    exclude: str = linked("ax_not", "", "the 'Leave out pieces matching' pattern", link_text.pattern)
    weat_x: str = _group("X")
    weat_y: str = _group("Y")
    weat_a: str = _group("A")
    weat_b: str = _group("B")
    geometry: str = shared(fields.GEOMETRY)
    geometry_removed: int | None = shared(fields.GEOMETRY_REMOVED)

    def ends(self, name: str) -> tuple[str, str]:
        """Axis ``name``'s two ends, as typed."""
        return getattr(self, f"{name}_from"), getattr(self, f"{name}_to")

    def groups(self) -> tuple[str, ...]:
        """WEAT's four groups, X, Y, A and B, as typed."""
        return tuple(getattr(self, f"weat_{group.lower()}") for group in word_tests.WEAT_GROUPS)


@dataclass(frozen=True, kw_only=True)
class OnAxes(Composed):
    """The words on the axes, and the cosines between the axes and between the words."""

    sentence_problem: Note | None = None
    notices: tuple[Note, ...] = ()
    chart: Chart
    caption: Note
    download: Download
    between_title: Note
    between: Download
    between_caption: Note
    words_cosine: Chart | None = None
    words_cosine_download: Download | None = None


@dataclass(frozen=True)
class End(Composed):
    title: Note
    table: Table


@dataclass(frozen=True)
class Furthest(Composed):
    """The pieces furthest towards each end of one axis; or why not."""

    title: Note
    problem: Note | None = None
    ends: tuple[End, ...] = ()  # towards its "to" end, then its "from" end


@dataclass(frozen=True)
class Page(Composed):
    """The page's parts in its order; ``cards`` and ``furthest`` by axis (x, y, z), None for an
    axis left empty; a tab's parts None (or no cards, no furthest pieces) where it was not
    composed."""

    left_off: Note | None
    parallel: tuple[Note, ...]
    words: OnAxes | None
    cards: tuple[axes_checks.Card | None, ...]
    weat: axes_checks.Weat | None
    furthest: tuple[Furthest | None, ...]


def compose(s: Settings, sources: Sources) -> Page:
    """Of the words placed on the axes the view names, each axis' report card, WEAT of its four
    groups and the pieces furthest along each axis, the view's open tab's (a handout, as a page,
    shows the tab its view opens). An axis that cannot be built (a word the model lacks) is
    raised: the page shows it instead of everything else."""
    model, index = sources.model, sources.index()
    shape = geometry_of(s.values(), index.table.shape[1])
    space = sources.space(*shape)
    built = axes.build_axes(index, model.tokenizer, {name: s.ends(name) for name in axes.NAMES})
    chosen = {axis.name: axis for axis in axes.in_space(built, space)}
    placed, problems = axes.words_to_place(index, model.tokenizer, s.words)
    left_off = None
    if problems:
        said = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        left_off = Note(f"Left off the chart: {said}", WARNING, icon=":material/visibility_off:")
    parallel = tuple(
        Note(
            f"Axes {first} and {second} are nearly parallel (cosine {value:+.2f}): a point's two coordinates "
            "largely repeat one another. Try ends that differ in another way.",
            WARNING,
            icon=":material/call_merge:",
        )
        for first, second, value in axes.nearly_parallel(list(chosen.values()))
    )
    words = ", ".join(w.text for w in placed)  # the card places the words the chart places
    return Page(
        left_off,
        parallel,
        _words_on_axes(s, sources, [*chosen.values()], placed, space, shape) if s.tab == WORDS_TAB else None,
        tuple(
            axes_checks.card(sources, name, (*s.ends(name), words), shape) if name in chosen else None
            for name in (axes.NAMES if s.tab == CARDS_TAB else ())
        ),
        axes_checks.weat(s.groups(), sources) if s.tab == WEAT_TAB else None,
        tuple(
            _furthest(s, sources, chosen[name], space, shape) if name in chosen else None
            for name in (axes.NAMES if s.tab == FURTHEST_TAB else ())
        ),
    )


def sentence_stages(model) -> list[str]:
    """What the sentence's pieces may be taken at (no segment stage for a family without segment
    rows), after leaving them off."""
    choices = [NO_SENTENCE, *decompose.STAGES]
    if model.tables.token_type_embeddings is None:
        choices.remove(decompose.STAGES[2])
    return choices


def _words_on_axes(s: Settings, sources: Sources, chosen, placed, space, shape) -> OnAxes:
    model, described = sources.model, views.described(shape)
    sentence = problem = None
    said: tuple[Note, ...] = ()
    stage = within(s.stage, sentence_stages(model), NO_SENTENCE)
    if stage != NO_SENTENCE:  # the sentence is read only when its pieces are asked for
        try:
            encoding = sources.encoding(s.values())
        except ExplorerError as error:
            problem = Note(str(error), ERROR)
        else:
            said = notices(encoding)
            sentence = (encoding.labels, decompose.stage_vectors(sources.breakdown(encoding))[stage])
    groups = views.axis_groups(chosen, placed, space, sentence)
    names = [a.name for a in chosen]
    cosine = cosine_download = None
    if placed:
        similarity, words = views.placed_cosine(placed, space), [w.text for w in placed]
        cosine = Chart("ax_words_cosine", views.placed_cosine_chart(similarity, placed, shape))
        cosine_download = Download(
            f"{model.name} cosine between the words placed ({described})", similarity, words, words
        )
    return OnAxes(
        chart=Chart("ax_chart", views.words_on_axes(chosen, groups, model.name)),
        caption=Note(
            "Each group has its own colour and marker shape: circles for the words placed, diamonds for the "
            "words that define the axes, squares for your sentence's pieces. The axes are drawn at right "
            "angles even when their directions are not; the cosine between them is below."
        ),
        download=Download(
            f"{model.name} coordinates on your axes ({described})",
            np.concatenate([c for _, _, c in groups]),
            [f"{name}: {label}" for name, labels, _ in groups for label in labels],
            names,
            "point",
        ),
        between_title=Note("Cosine between the axes", TEXT, bold="Cosine between the axes"),
        between=Download(
            f"{model.name} cosine between your axes ({described})", axes.between(chosen), names, names
        ),
        between_caption=Note("1 or -1: the same direction; 0: at right angles, as the chart draws them."),
        sentence_problem=problem,
        notices=said,
        words_cosine=cosine,
        words_cosine_download=cosine_download,
    )


def placeable(s: Settings, sources: Sources) -> str:
    """The words the view places that can be placed, as an axis' card takes them."""
    placed, _ = axes.words_to_place(sources.index(), sources.model.tokenizer, s.words)
    return ", ".join(w.text for w in placed)


def _furthest(s: Settings, sources: Sources, axis, space, shape) -> Furthest:
    """The rows of the token table furthest towards each end of ``axis``, through the view's filters."""
    model, index = sources.model, sources.index()
    title = Note(f"Axis {axis.name}: {axis.label}", TEXT)
    try:
        found = axes.extremes(
            index,
            axis,
            space,
            s.filters(axis.ids),
            match=lambda _, pattern, *label: sources.pattern_rows(pattern, *label),
        )
    except ExplorerError as problem:
        return Furthest(title, Note(str(problem), ERROR))
    ends = []
    for end_words, result in zip((axis.end, axis.start), found, strict=True):
        towards = ", ".join(w.text for w in end_words)
        columns = {"rank": range(1, len(result.ids) + 1), "piece": result.pieces, "id": result.ids}
        columns["coordinate"] = result.scores
        table = Table(
            columns,
            f"{model.name} axis {axis.name} towards {towards} ({views.described(shape)})",
            {**columns, "piece": [glyphs.legible(piece) for piece in result.pieces]},
        )
        ends.append(End(Note(f"Towards {towards}", TEXT), table))
    return Furthest(title, ends=tuple(ends))
