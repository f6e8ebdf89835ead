"""What a lesson's figures are made of (lessons.figures reads a text's figures with them;
model_figures and vocabulary_figures declare the figures themselves): ``Missing``, a figure a
model cannot give and why; the spans a figure gives, and numbers as a text writes them; ``Facts``,
what the pages compute, that the figures read; ``Arg``, an argument read and bounded as a link's
value is; and ``figure``, which adds a figure to ``FIGURES`` under its name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from bert_embeddings import limits
from bert_embeddings.analysis import (
    geometry,
    geometry_lab,
    vocab_search,
)
from bert_embeddings.errors import ExplorerError
from bert_embeddings.lessons.text import CODE, PLAIN, Span
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import compare, pair, space_jobs
from bert_embeddings.views.sources import Sources

# --- what a figure gives -------------------------------------------------------------------------


@dataclass(frozen=True)
class Missing:
    """A figure this model cannot give, and why, in a few words for the learner."""

    reason: str
    pending: bool = False  # True: a background job has yet to make what it needs


Shown = tuple[Span, ...]
# A figure that waits for a page's background computation; the bar says once what it waits for.
PENDING = "not computed yet"
WAITING = "Figures marked “not computed yet” appear once this page's background computation is done."


def plain(value: object) -> Shown:
    return (Span(PLAIN, str(value)),)


def listed(items: list[str]) -> str:
    """Items as a sentence lists them: "a, b and c"."""
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else "".join(items)


def pieces_list(pieces: list[str] | tuple[str, ...], last: str = "and") -> Shown:
    """Pieces as code, "a, b and c"."""
    spans: list[Span] = []
    for n, piece in enumerate(pieces):
        if n:
            spans.append(Span(PLAIN, f" {last} " if n == len(pieces) - 1 else ", "))
        spans.append(Span(CODE, piece))
    return tuple(spans)


def number(value: float) -> str:
    """A cosine, a mean or an error as a lesson writes it: three decimals, or two significant
    digits below 0.01 (0.0012), or scientific below 1e-4 (3.1e-07)."""
    value = float(value)
    if abs(value) >= 0.01 or value == 0:
        return f"{value:.3f}"
    if abs(value) >= 1e-4:
        return f"{value:.2g}"
    return f"{value:.1e}"


def percent(share: float, decimals: int = 0) -> str:
    return f"{share * 100:.{decimals}f}%"


def whole(value: int) -> str:
    return f"{int(value):,}"


RAW = ("raw", 0)  # What moved's figures in a lesson: the raw geometry, as the layers lesson shows it


@dataclass(frozen=True)
class Compared:
    """A comparison of two stages, and the pieces it is over (in the first stage's order)."""

    figures: compare.Comparison
    shared: compare.Shared


class Stages:
    """A model's stage spaces, lists and comparisons as What moved reads them: made here (``compute``,
    as the API makes them) or only read where a job left them (None while not); each space and
    comparison once (a text's figures share them: reading a space hashes the model's weights)."""

    def __init__(self, model: LoadedModel, compute: bool = True) -> None:
        self.model, self.compute, self._kept = model, compute, {}

    def space(self, stage: str) -> pair.Space | None:
        if self._kept.get(stage) is None:
            self._kept[stage] = pair.space_of(self.model, stage, compute=self.compute)
        return self._kept[stage]

    def lists(self, space: pair.Space, rows: np.ndarray | None) -> np.ndarray | None:
        """The space's neighbour lists over ``rows`` (None: every row)."""
        if self.compute:
            return pair.lists_now(space, RAW, rows, threads=2)
        return space_jobs.lists_for(space_jobs.folder_for(space.key), pair.spec(space, RAW, rows))

    def comparison(self, a: pair.Space, b: pair.Space, lists: tuple, k: int, shared) -> compare.Comparison:
        key = (a.stage, b.stage, k)
        if key not in self._kept:
            self._kept[key] = pair.compare_spaces(a, b, RAW, lists, k, shared)
        return self._kept[key]

    def mean_cosine(self, space: pair.Space) -> float:
        """The stage's mean cosine over every pair of pieces, as Through the layers computes it."""
        return compare.mean_cosine(space.vectors)


class Facts:
    """A model's figures and what they come from: ``sources``, the results the pages read, and
    ``stages`` (both computed here by default; the app's read its caches), each made once."""

    def __init__(self, sources: Sources, stages: Stages | None = None) -> None:
        self.sources, self.model = sources, sources.model
        self.stages = stages or Stages(sources.model)

    @classmethod
    def of(cls, model: LoadedModel) -> Facts:
        """Everything computed here, for ``model``, as the pages compute it."""
        return cls(Sources(model))

    def index(self) -> vocab_search.VocabIndex:
        return self.sources.index()

    def geometry(self, name: str, d: int) -> geometry.Geometry:
        return self.sources.space(name, d)

    def lab(self, d: int) -> geometry_lab.Lab:
        return self.sources.lab(d)

    def full_model(self):
        return self.sources.full_model()

    def compared(self, stage_a: str, stage_b: str, k: int) -> Compared | None:
        """Two stages of the model compared in the raw geometry over the pieces they share, as
        What moved compares them, or None while a stage or its lists are not made (``stages`` says
        whether they are made here)."""
        found = [self.stages.space(stage) for stage in (stage_a, stage_b)]
        if None in found:
            return None
        shared = compare.shared_pieces(found[0].pieces, found[1].pieces)
        rows = [pair.subset(shared, side, len(space.pieces)) for side, space in enumerate(found)]
        lists = [self.stages.lists(space, side_rows) for space, side_rows in zip(found, rows, strict=True)]
        if any(made is None for made in lists):
            return None
        return Compared(self.stages.comparison(found[0], found[1], tuple(lists), k, shared), shared)

    def width(self) -> int:
        return int(self.model.tables.word_embeddings.shape[1])

    def default_d(self) -> int:
        return geometry.default_removed(self.width())

    def layers(self) -> int:
        return int(self.model.config.get("num_hidden_layers") or self.model.config.get("n_layers") or 0)


# --- the arguments ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Arg:
    read: Callable[[str], object]  # the value, or a ValueError / ExplorerError saying why not
    default: str | None = None  # None: required
    about: str = ""


def a_sentence(text: str) -> str:
    limits.SENTENCE.check_text("A figure's sentence", text)
    if not text.strip():
        raise ValueError("an empty sentence")
    return text


def a_word(text: str) -> str:
    limits.WORD.check_text("A figure's word", text)
    if not text.strip() or any(c.isspace() for c in text.strip()):
        raise ValueError("one word or piece, without spaces")
    return text.strip()


def some_words(text: str) -> str:
    limits.AXIS_TEXT.check_text("A figure's words", text)
    if not [w for w in text.split(",") if w.strip()]:
        raise ValueError("one or more words, with commas between")
    return text


whole_in = limits.whole_number_reader  # read as a link's numbers are: digits 0-9, range checked


def one_of(*names: str) -> Callable[[str], str]:
    def read(text: str) -> str:
        if text not in names:
            raise ValueError(f"one of {', '.join(names)}")
        return text

    return read


def a_stage(text: str) -> str:
    if text in ("token", "output", "last"):
        return text
    try:
        return str(whole_in(1, 48)(text))  # as the stage is named: 05 is layer 5
    except ValueError:
        raise ValueError("token, output, last or a layer's number") from None


GEOMETRY_ARG = Arg(one_of(*geometry.GEOMETRIES), "raw", "the geometry, as on the Geometry page")
TABLE_ARG = Arg(one_of("token", "output"), None, "token (the token rows) or output (the layer output)")
SENTENCE_ARG = Arg(a_sentence, None, "a sentence")
SENTENCE_B_ARG = Arg(lambda t: t, "", "a second sentence (a pair)")
K_ARG = Arg(whole_in(1, 100), "10", "how many neighbours")


# --- the figures ---------------------------------------------------------------------------------

Result = Shown | Missing
Compute = Callable[[Facts, dict], Result]


@dataclass(frozen=True)
class Figure:
    name: str
    about: str
    args: Mapping[str, Arg]
    compute: Compute


FIGURES: dict[str, Figure] = {}


def figure(name: str, about: str, **args: Arg):
    def register(compute: Compute) -> Compute:
        FIGURES[name] = Figure(name, about, args, compute)
        return compute

    return register


def one_piece(facts: Facts, word: str) -> int | Missing:
    try:
        ids = vocab_search.word_ids(facts.index(), facts.model.tokenizer, word)
    except ExplorerError as problem:
        return Missing(str(problem).rstrip("."))
    if len(ids) != 1:
        return Missing(f"“{word}” is {len(ids)} pieces in {facts.model.name}, not one")
    return ids[0]
