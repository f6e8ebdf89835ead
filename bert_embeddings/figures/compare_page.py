"""The Compare models page in the core: its settings, declared once
(bert_embeddings/views/fields.py), and what it shows of them, composed once for the page and a
lesson's handout: one word's nearest neighbours in two models' vocabularies, what they share, and
the sentence as each tokenizer splits it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bert_embeddings import limits
from bert_embeddings.analysis import vocab_search
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import export
from bert_embeddings.figures.handout_parts import ERROR, TEXT, Composed, Metric, Note, Table, ranked
from bert_embeddings.models import checkpoints, glyphs
from bert_embeddings.views import fields, link_text
from bert_embeddings.views.fields import linked
from bert_embeddings.views.sources import Sources


@dataclass(frozen=True)
class Settings(fields.WithSentences):
    PAGE = "compare"
    PREFIX = "cmp_"

    model: str = linked("cmp", checkpoints.BUNDLED, "the model to compare with", link_text.listed_model)
    # A Hub id, only where the host allows any model.
    custom: str = linked("cmp_id", "", "the other model to compare with", link_text.hub_id)
    word: str = linked("cmp_word", "bank", "the word to compare", link_text.text_of(limits.WORD))
    k: float = linked(
        "cmp_k", 10.0, "k", link_text.whole_number(1, vocab_search.MAX_K, "k"), link_text.whole_text
    )


@dataclass(frozen=True)
class Side(Composed):
    """One model's neighbours of the word."""

    model: Note
    problem: Note | None = None
    neighbours: Table | None = None


@dataclass(frozen=True)
class Split(Composed):
    """The sentence as one model's tokenizer splits it."""

    problem: Note | None = None
    count: Note | None = None
    pieces: Table | None = None


@dataclass(frozen=True)
class Page(Composed):
    sides: tuple[Side, ...]
    alone: Note | None = None  # no second model: what the page would add
    shared: Metric | None = None
    shared_caption: Note | None = None
    splits: tuple[Split, ...] = ()


def _side(name: str, s: Settings, sources: Sources) -> tuple[Side, vocab_search.Neighbours | None]:
    model, index = sources.model, sources.index()
    label = Note(
        f"{model.name} ({model.family.label}, {model.vocab_size:,} x {model.hidden_size})", TEXT, model.name
    )
    try:
        query = vocab_search.word_query(index, model.tokenizer, s.word)
        result = vocab_search.nearest(
            index, query.vector, s.k, filters=vocab_search.Filters(exclude_ids=query.ids)
        )
    except ExplorerError as problem:  # the other side is drawn all the same
        return Side(label, problem=Note(str(problem), ERROR)), None
    title = (f"{name} {model.name} neighbours of", export.Verbatim(s.word), f"(k {len(result.pieces)})")
    return Side(label, neighbours=ranked(title, result)), result


def _split(name: str, s: Settings, sources: Sources) -> Split:
    model = sources.model
    try:
        encoding = sources.encoding(s.values())
    except ExplorerError as problem:
        return Split(problem=Note(str(problem), ERROR))
    columns = {"piece": encoding.pieces, "id": encoding.ids, "segment": encoding.segment_ids}
    legible = {**columns, "piece": [glyphs.legible(piece) for piece in encoding.pieces]}
    return Split(
        count=Note(f"{model.name}: {len(encoding)} pieces", TEXT, model.name),
        pieces=Table(columns, f"{name} {model.name} pieces", legible),
    )


def compose(s: Settings, sources: Sources, other: Sources | None = None) -> Page:
    """The word's neighbours in the sidebar's model and in ``other``, what they share, and the
    sentence as each tokenizer splits it. Without ``other`` (one model's files, or a handout,
    which loads no second model), the sidebar model's neighbours, and a note saying so."""
    named = [("left", sources)] + ([("right", other)] if other is not None else [])
    sides, results = zip(*(_side(name, s, each) for name, each in named), strict=True)
    if other is None:
        note = (
            "Compare models loads a second model beside this one: open the page to see the two side by side."
        )
        return Page(sides, alone=Note(note))
    shared_metric = shared_caption = None
    if all(result is not None for result in results):
        together = [piece for piece in results[0].pieces if piece in set(results[1].pieces)]
        n = len(results[0].pieces)
        shared_metric = Metric(f"Neighbours in common at k = {n}", f"{len(together)} of {n}")
        shared_caption = Note("Shared: " + (", ".join(map(glyphs.legible, together)) if together else "none"))
    splits = tuple(_split(name, s, each) for name, each in named)
    return Page(sides, shared=shared_metric, shared_caption=shared_caption, splits=splits)
