"""Words into the two tests of an axis: the report card (bert_embeddings.analysis.axis_card) and
WEAT (bert_embeddings.analysis.weat), from the words people type.

A word's vector is its token row, or the mean of its pieces' rows when the tokenizer splits it
(as Your own axes places words); the geometry, if any, transforms every vector alike (it is
affine, so a split word's transform is the mean of its pieces' transforms). The random groups
of the card are drawn from the vocabulary's whole words. Each result names the words that were
split, since the test then measures their pieces' mean.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from tokenizers import Tokenizer

from bert_embeddings import limits
from bert_embeddings.analysis import axes, axis_card, geometry, vocab_search, weat
from bert_embeddings.errors import ExplorerError, UnknownWordError

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


def vectors_of(
    index: vocab_search.VocabIndex, tokenizer: Tokenizer, words: tuple[str, ...], label: str, space=None
) -> Vectors:
    """Each word's vector (its row, or its pieces' mean) in ``space``; an unknown word is an error
    naming it."""
    found = []
    for text in words:
        try:
            found.append(axes.word(index, tokenizer, text))
        except ExplorerError as problem:
            raise UnknownWordError(f"{label}: {problem}") from None
    table = np.array([w.vector for w in found]) if found else np.empty((0, index.table.shape[1]))
    if space is not None and space.name != "raw" and len(found):
        table = space.transform(table)
    return Vectors(words, table, tuple(w.text for w in found if len(w.ids) > 1))


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
    start_text: str,
    end_text: str,
    words_text: str,
    space: geometry.Geometry | None = None,
    seed: int = axis_card.SEED,
) -> CardResult:
    """The report card of the axis from ``start_text``'s words to ``end_text``'s (commas between
    words), with ``words_text``'s words placed; the axis is checked as Your own axes checks it."""
    axes.build_axis(index, tokenizer, "x", start_text, end_text)  # its messages: empty ends, a word at both
    ends = [
        vectors_of(index, tokenizer, axes.split_words(text, label, limits.AXIS_END_WORDS), label, space)
        for text, label in ((start_text, "The axis' start"), (end_text, "The axis' end"))
    ]
    known, _ = axes.words_to_place(index, tokenizer, words_text)  # (the page names the unknown ones)
    placed = vectors_of(index, tokenizer, tuple(w.text for w in known), "The words", space)
    found = axis_card.card(
        ends[0].vectors, ends[1].vectors, placed.vectors, _rows(index, space), whole_words(index), seed
    )
    split = tuple(dict.fromkeys((*ends[0].split, *ends[1].split, *placed.split)))
    return CardResult(found, placed.words, split)


@dataclass(frozen=True)
class WeatResult:
    test: weat.Weat
    groups: dict[str, tuple[str, ...]]
    split: tuple[str, ...]


def weat_for(
    index: vocab_search.VocabIndex,
    tokenizer: Tokenizer,
    texts: dict[str, str],
    space: geometry.Geometry | None = None,
    permutations: int = weat.PERMUTATIONS,
    seed: int = 0,
) -> WeatResult:
    """WEAT of the four groups typed (``texts`` by X, Y, A, B; commas between words)."""
    groups = {
        name: axes.split_words(texts.get(name, ""), f"Group {name}", limits.WEAT_WORDS)
        for name in WEAT_GROUPS
    }
    weat.check_groups({f"Group {name}": list(words) for name, words in groups.items()})
    found = {
        name: vectors_of(index, tokenizer, words, f"Group {name}", space) for name, words in groups.items()
    }
    test = weat.weat(*(found[name].vectors for name in WEAT_GROUPS), permutations=permutations, seed=seed)
    split = tuple(dict.fromkeys(w for v in found.values() for w in v.split))
    return WeatResult(test, groups, split)
