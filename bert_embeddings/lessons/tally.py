"""A room's answers to one question, counted for its leader: how many answered, the count of each
choice (in the lesson's order), the pieces given most often, or the numbers given, and how many
were right once the truth for the model on screen is known.

The answers come from a room's store, which replicas share: each is read again here as the
question takes it (lessons.answers.read_answer), and one it cannot take is left out of the counts
(never shown), whoever wrote it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from bert_embeddings.errors import ExplorerError
from bert_embeddings.lessons import answers

MOST_PIECES = 10  # the pieces given most often that a tally shows


@dataclass(frozen=True)
class Counted:
    kind: str  # answers.CHOICE, PIECE or NUMBER
    answered: int  # answers the question could take
    counts: tuple[tuple[str, int], ...] = ()  # each choice (all of them) or piece (most given first)
    numbers: tuple[float, ...] = ()  # the numbers given, smallest first
    right: int | None = None  # how many are right (None: the truth is not known here)


def count(key: answers.Key, given: Iterable[str], truth: answers.Truth | None = None) -> Counted:
    """The answers ``given`` (as a store keeps them) counted for ``key``; with ``truth``, how
    many are right."""
    taken = [found for each in given if (found := taken_as(key, each)) is not None]
    right = None if truth is None else sum(answers.verdict(truth, each).right for each in taken)
    if key.kind == answers.CHOICE:
        counted = Counter(taken)
        return Counted(key.kind, len(taken), tuple((c, counted[c]) for c in key.choices), right=right)
    if key.kind == answers.PIECE:
        ranked = Counter(taken).most_common()
        ranked.sort(key=lambda pair: (-pair[1], str(pair[0])))  # (ties in a fixed order)
        return Counted(key.kind, len(taken), tuple(ranked[:MOST_PIECES]), right=right)
    return Counted(key.kind, len(taken), numbers=tuple(sorted(float(n) for n in taken)), right=right)


def taken_as(key: answers.Key, given: str) -> str | float | None:
    """One answer as a store keeps it, read again as the question takes it; None if it cannot be."""
    try:
        return answers.read_answer(key, given, lambda piece: piece if _piece_like(piece) else None)
    except ExplorerError:
        return None


def _piece_like(text: str) -> bool:
    """A piece as a store may hold it: one piece of text without spaces (it was checked against
    the vocabulary when it was given)."""
    return bool(text) and not any(c.isspace() for c in text)
