"""Words into the two tests of an axis: the report card (bert_embeddings.analysis.axis_card) and
WEAT (bert_embeddings.analysis.weat), from the words people type.

A word's vector is its token row, or the mean of its pieces' rows when the tokenizer splits it
(as Your own axes places words); the geometry, if any, transforms every vector alike (it is
affine, so a split word's transform is the mean of its pieces' transforms). The random groups
of the card are drawn from the vocabulary's whole words. Each result names the words that were
split, since the test then measures their pieces' mean.

Words are the same when the model reads them as the same pieces ('ROSE' and 'rose' for an
uncased tokenizer), as an axis' ends are checked (axes.same_pieces): a word twice in a group,
or in both groups of a pair, is an error, never one vector counted twice. A word that cannot be
placed is an error naming every such word (axes.unplaced).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from tokenizers import Tokenizer

from bert_embeddings import limits
from bert_embeddings.analysis import axes, axis_card, geometry, vocab_search, weat
from bert_embeddings.errors import EmptyQueryError, ExplorerError

WEAT_GROUPS = ("X", "Y", "A", "B")
# Caliskan et al. (2017)'s first test, a subset: flowers and insects against pleasant and unpleasant.
FLOWERS_INSECTS = {
    "X": "rose, tulip, lily, daisy, orchid, violet, iris, lilac",
    "Y": "ant, flea, spider, moth, wasp, fly, mosquito, bee",
    "A": "love, peace, friend, heaven, gentle, happy, loyal, honest",
    "B": "abuse, crash, filth, murder, sickness, accident, death, poison",
}
# Their career / family test, with their attribute words and common names for the targets.
CAREER_FAMILY = {
    "X": "john, paul, mike, kevin, steve, greg, jeff, bill",
    "Y": "amy, joan, lisa, sarah, diana, kate, ann, donna",
    "A": "executive, management, professional, corporation, salary, office, business, career",
    "B": "home, parents, children, family, cousins, marriage, wedding, relatives",
}
CLASSIC = {"flowers and insects": FLOWERS_INSECTS, "career and family": CAREER_FAMILY}


@dataclass(frozen=True)
class Vectors:
    words: tuple[str, ...]
    vectors: np.ndarray  # (words, hidden) float64, in the geometry
    split: tuple[str, ...]  # the words made of more than one piece


def words_of(
    index: vocab_search.VocabIndex, tokenizer: Tokenizer, words: tuple[str, ...], label: str
) -> tuple[axes.Word, ...]:
    """Each word as it is placed (its row, or its pieces' mean); words that cannot be placed are
    an error naming every one of them."""
    found, problems = [], []
    for text in words:
        try:
            found.append(axes.word(index, tokenizer, text))
        except ExplorerError as problem:
            problems.append(str(problem))
    if problems:
        raise axes.unplaced(problems, label)
    return tuple(found)


def vectors_of(found: tuple[axes.Word, ...], hidden: int, space=None) -> Vectors:
    """The words' vectors in ``space``."""
    table = np.array([w.vector for w in found]) if found else np.empty((0, hidden))
    if space is not None and space.name != "raw" and len(found):
        table = space.transform(table)
    return Vectors(tuple(w.text for w in found), table, tuple(w.text for w in found if len(w.ids) > 1))


def _rows(index: vocab_search.VocabIndex, space) -> axis_card.Rows:
    def rows(ids: np.ndarray) -> np.ndarray:
        picked = np.asarray(index.table[ids.ravel()], dtype=np.float64)
        if space is not None and space.name != "raw":
            picked = space.transform(picked)
        return picked.reshape(*ids.shape, -1)

    return rows


def whole_words(index: vocab_search.VocabIndex) -> np.ndarray:
    return np.flatnonzero(index.kinds == vocab_search.WHOLE_WORD)


@dataclass(frozen=True)
class CardResult:
    card: axis_card.Card
    words: tuple[str, ...]  # the listed words, in the card's order (card.coordinates: their places)
    split: tuple[str, ...]


def card_for(
    index: vocab_search.VocabIndex,
    tokenizer: Tokenizer,
    start_text: axes.Words,
    end_text: axes.Words,
    words_text: axes.Words,
    space: geometry.Geometry | None = None,
    seed: int = axis_card.SEED,
) -> CardResult:
    """The report card of the axis from ``start_text``'s words to ``end_text``'s (commas between
    words, or lists of words), with ``words_text``'s words placed; the axis is checked as Your own
    axes checks it, and every word must be placed (axes.placeable; the page passes only those it
    can place, and names the others)."""
    axis = axes.build_axis(index, tokenizer, "x", start_text, end_text)  # its messages: empty ends, ...
    if axis is None:
        raise EmptyQueryError("The axis has no words: give at least one word at each of its ends.")
    placed, problems = axes.words_to_place(index, tokenizer, words_text)  # (none at all is a card too)
    if problems:
        raise axes.unplaced(problems)
    hidden = index.table.shape[1]
    start, end, listed = (vectors_of(tuple(w), hidden, space) for w in (axis.start, axis.end, placed))
    found = axis_card.card(
        start.vectors, end.vectors, listed.vectors, _rows(index, space), whole_words(index), seed
    )
    split = tuple(dict.fromkeys((*start.split, *end.split, *listed.split)))
    return CardResult(found, listed.words, split)


@dataclass(frozen=True)
class WeatResult:
    test: weat.Weat
    groups: dict[str, tuple[str, ...]]
    split: tuple[str, ...]


def check_distinct(found: dict[str, tuple[axes.Word, ...]]) -> None:
    """No word twice in a group, nor in both targets or both attributes, the words compared by
    their pieces (axes.same_pieces, as an axis' ends are)."""
    for name, words in found.items():
        if pair := axes.same_pieces(words):
            raise weat.WeatInputError(f"Group {name} has {axes.named(pair)} twice: each word counts once.")
    for first, second in (("X", "Y"), ("A", "B")):
        if pair := axes.same_pieces(found[first], found[second]):
            raise weat.WeatInputError(
                f"{axes.named(pair)} in both Group {first} and Group {second}: a word can be in only "
                "one of them."
            )


def weat_for(
    index: vocab_search.VocabIndex,
    tokenizer: Tokenizer,
    texts: dict[str, axes.Words],
    space: geometry.Geometry | None = None,
    permutations: int = weat.PERMUTATIONS,
    seed: int = 0,
) -> WeatResult:
    """WEAT of the four groups typed (``texts`` by X, Y, A, B; commas between words, or lists of
    words)."""
    groups = {
        name: axes.split_words(texts.get(name, ""), f"Group {name}", limits.WEAT_WORDS)
        for name in WEAT_GROUPS
    }
    weat.check_groups({f"Group {name}": list(words) for name, words in groups.items()})
    words = {name: words_of(index, tokenizer, group, f"Group {name}") for name, group in groups.items()}
    check_distinct(words)
    hidden = index.table.shape[1]
    found = {name: vectors_of(words[name], hidden, space) for name in WEAT_GROUPS}
    test = weat.weat(*(found[name].vectors for name in WEAT_GROUPS), permutations=permutations, seed=seed)
    split = tuple(dict.fromkeys(w for v in found.values() for w in v.split))
    return WeatResult(test, groups, split)
