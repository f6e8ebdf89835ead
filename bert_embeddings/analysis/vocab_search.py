"""Exact nearest neighbours over the whole token-embedding table, by cosine similarity.

Every row is scored, nothing is sampled. The table itself is never copied: cosine is
computed as ``(W @ q) / (|W_i| |q|)`` with the row norms computed once per model. Under
another geometry (bert_embeddings.analysis.geometry: centred, all-but-the-top, standardised) it is
still one product with the raw table, corrected by a scalar and the transformed rows' norms.
One query is one matrix-vector product, bound by reading the table once; many queries (the
all-tokens grid) are one matrix product. Ties are broken by the lower id, as a brute-force
sort would.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from tokenizers import Tokenizer

from bert_embeddings import limits
from bert_embeddings.analysis import geometry, patterns
from bert_embeddings.errors import (
    EmptyQueryError,
    NothingLeftError,
    OutOfRangeError,
    QuerySyntaxError,
    UnknownWordError,
    ZeroVectorError,
)
from bert_embeddings.models import glyphs
from bert_embeddings.models.tokenize import readable_pieces

MAX_K = limits.NEIGHBOURS.most
# [CLS], [SEP], [PAD], [MASK], [UNK], [unused0] ... and RoBERTa's <s>, </s>, <pad>, <mask>
_SPECIAL = re.compile(r"^\[[^\]]+\]$|^<[^<>\s]+>$")
_TERM = re.compile(r"\s*([+-])?\s*([^\s+-]+|[+-])")
# Kinds of vocabulary piece, for colouring maps; VocabIndex.kinds holds an index into this.
KINDS = ("whole word", "## continuation", "special / unused", "number", "punctuation")
WHOLE_WORD, CONTINUATION, SPECIAL, NUMBER, PUNCTUATION = range(len(KINDS))


def piece_kind(piece: str) -> int:
    if _SPECIAL.match(piece):
        return SPECIAL
    body = piece[2:] if piece.startswith("##") else piece
    if body and all(unicodedata.category(c)[0] == "N" for c in body):
        return NUMBER
    if body and all(unicodedata.category(c)[0] in "PS" for c in body):
        return PUNCTUATION
    return CONTINUATION if piece.startswith("##") else WHOLE_WORD


@dataclass(frozen=True)
class VocabIndex:
    """What an exact search needs besides the table: computed once per model, read-only."""

    table: np.ndarray  # (vocab, hidden) the model's word_embeddings, shared, never copied
    norms: np.ndarray  # (vocab,) |W_i|
    mean: np.ndarray  # (hidden,) the vocabulary's mean row m
    pieces: tuple[str, ...]  # id -> piece
    continuation: np.ndarray  # (vocab,) bool: '##' pieces
    special: np.ndarray  # (vocab,) bool: [CLS], [SEP], [unusedN] and the like
    kinds: np.ndarray  # (vocab,) int8 index into KINDS

    @property
    def size(self) -> int:
        return int(self.table.shape[0])


@dataclass(frozen=True)
class Filters:
    """Which rows may appear in the results."""

    hide_continuation: bool = False
    hide_special: bool = True
    include: str = ""  # pattern (RE2) a piece must match (anywhere in it), if given
    exclude: str = ""  # pattern (RE2) a piece must not match, if given
    exclude_ids: tuple[int, ...] = ()  # e.g. the query's own pieces


@dataclass(frozen=True)
class Neighbours:
    ids: np.ndarray  # (k,) int64, best first
    pieces: tuple[str, ...]
    scores: np.ndarray  # (k,) float32 cosine similarities


@dataclass(frozen=True)
class Query:
    """A query vector and the vocabulary ids it was made from (for 'leave out its pieces')."""

    vector: np.ndarray  # (hidden,)
    ids: tuple[int, ...]
    description: str  # for people: pieces as glyphs.legible shows them
    weight: float = 1.0  # the sum of its terms' signs: how often a geometry's mean counts in it


def build_index(table: np.ndarray, tokenizer: Tokenizer) -> VocabIndex:
    """Norms, mean and piece kinds for a token table; the table is referenced, not copied."""
    vocab = tokenizer.get_vocab()
    pieces = [""] * table.shape[0]
    for piece, piece_id in vocab.items():
        if piece_id < len(pieces):
            pieces[piece_id] = piece
    pieces = list(readable_pieces(tokenizer, range(len(pieces)), pieces))
    mean = table.mean(axis=0, dtype=np.float64).astype(np.float32)  # (hidden,)
    arrays = {
        "norms": np.linalg.norm(table, axis=1).astype(np.float32),
        "mean": mean,
        "continuation": np.array([p.startswith("##") for p in pieces]),
        "special": np.array([bool(_SPECIAL.match(p)) for p in pieces]),
        "kinds": np.array([piece_kind(p) for p in pieces], dtype=np.int8),
    }
    for array in arrays.values():
        array.flags.writeable = False
    return VocabIndex(table=table, pieces=tuple(pieces), **arrays)


# --- queries -----------------------------------------------------------------------------


def word_ids(index: VocabIndex, tokenizer: Tokenizer, word: str) -> tuple[int, ...]:
    """The vocabulary ids of a word or piece: a piece as written if the vocabulary has it
    ('##ing', '[MASK]'), otherwise the pieces the tokenizer splits the word into."""
    word = limits.WORD.check_text("The word", word).strip()
    if not word:
        raise EmptyQueryError("Type a word or a piece to search for.")
    if any(c.isspace() for c in word):
        raise QuerySyntaxError(f"'{word[:40]}' has spaces: search for one word or piece at a time.")
    exact = tokenizer.token_to_id(word)
    if exact is not None and exact < index.size:
        return (exact,)
    encoding = tokenizer.encode(word, add_special_tokens=False)
    unk = tokenizer.token_to_id("[UNK]")
    if not encoding.ids:
        raise UnknownWordError(f"'{word[:40]}' has no characters the tokenizer keeps.")
    if unk is not None and unk in encoding.ids:
        raise UnknownWordError(
            f"'{word[:40]}' is outside the vocabulary: the tokenizer turns it (or part of it) into "
            "[UNK], so there is no row to start from."
        )
    return tuple(encoding.ids)


def id_query(index: VocabIndex, token_id: float) -> Query:
    token_id = limits.whole_number(token_id, "A token id", 0, index.size - 1)
    piece = glyphs.legible(index.pieces[token_id])
    return Query(index.table[token_id], (token_id,), f"id {token_id} ({piece})")


def word_query(index: VocabIndex, tokenizer: Tokenizer, word: str, piece: int | None = None) -> Query:
    """A word's row; for a word of several pieces, one piece (by position) or their mean."""
    ids = word_ids(index, tokenizer, word)
    if piece is not None and len(ids) > 1:
        if not 0 <= piece < len(ids):
            raise OutOfRangeError(f"'{word}' has {len(ids)} pieces; piece {piece} does not exist.")
        return Query(index.table[ids[piece]], (ids[piece],), glyphs.legible(index.pieces[ids[piece]]))
    vector = index.table[list(ids)].mean(axis=0)
    shown = [glyphs.legible(index.pieces[i]) for i in ids]
    label = shown[0] if len(ids) == 1 else "mean of " + " ".join(shown)
    return Query(vector, ids, label)


def parse_arithmetic(expression: str) -> list[tuple[int, str]]:
    """'king - man + woman' -> [(1, 'king'), (-1, 'man'), (1, 'woman')]."""
    text = limits.ARITHMETIC.check_text("The expression", expression).strip()
    if not text:
        raise EmptyQueryError("Type an expression such as: king - man + woman")
    terms, position = [], 0
    while position < len(text):
        match = _TERM.match(text, position)
        if match is None or match.end() == position:
            break
        sign, word = match.groups()
        if word in "+-" or (sign is None and terms):
            raise QuerySyntaxError(
                f"'{text[:60]}' does not parse: write words joined by + or -, such as king - man + woman."
            )
        terms.append((-1 if sign == "-" else 1, word))
        limits.ARITHMETIC_TERMS.check("The expression", len(terms))
        position = match.end()
    if not terms or text[position:].strip():
        raise QuerySyntaxError(f"'{text[:60]}' does not parse: write words joined by + or -.")
    return terms


def arithmetic_query(index: VocabIndex, tokenizer: Tokenizer, expression: str) -> Query:
    """The signed sum of word rows (a word of several pieces counts as their mean)."""
    terms = parse_arithmetic(expression)
    vector = np.zeros(index.table.shape[1], dtype=np.float32)
    ids: list[int] = []
    for sign, word in terms:
        term = word_query(index, tokenizer, word)
        vector += sign * term.vector
        ids.extend(term.ids)
    described = " ".join(f"{'-' if s < 0 else '+'} {w}" for s, w in terms)
    return Query(vector, tuple(dict.fromkeys(ids)), described, float(sum(s for s, _ in terms)))


# --- search ------------------------------------------------------------------------------


def matching_rows(index: VocabIndex, pattern: str, label: str = "The pattern") -> np.ndarray:
    """(vocab,) bool: the pieces a pattern finds (anywhere in the piece), on RE2.

    One scan takes about 40 ms (RE2's Python binding costs more per piece than ``re``), so
    the app passes ``match=`` a version that keeps each pattern's rows per model."""
    return np.array(patterns.matches(pattern, index.pieces, label), dtype=bool)


Matcher = Callable[[VocabIndex, str, str], np.ndarray]  # matching_rows, or a caching stand-in


def allowed_rows(index: VocabIndex, filters: Filters, match: Matcher = matching_rows) -> np.ndarray:
    """(vocab,) bool: the rows the filters let through."""
    allowed = np.ones(index.size, dtype=bool)
    if filters.hide_continuation:
        allowed &= ~index.continuation
    if filters.hide_special:
        allowed &= ~index.special
    for pattern, keep, label in ((filters.include, True, "Only"), (filters.exclude, False, "Leave out")):
        if pattern:
            found = match(index, pattern, f"The '{label}' filter")
            allowed &= found if keep else ~found
    if filters.exclude_ids:
        allowed[[i for i in filters.exclude_ids if 0 <= i < index.size]] = False
    if not allowed.any():
        raise NothingLeftError("The filters leave no piece of the vocabulary to search: loosen one.")
    return allowed


def check_k(k: float) -> int:
    return limits.whole_number(k, "k", 1, MAX_K)


def similarities(
    index: VocabIndex, queries: np.ndarray, space: geometry.Geometry | None = None, weight: float = 1.0
) -> np.ndarray:
    """Cosine of every row with every query: (queries, hidden) -> (queries, vocab); under
    ``space`` (a geometry fitted to this table), the cosine of the transformed vectors (a
    query's ``weight`` as Query has it)."""
    queries = np.atleast_2d(np.asarray(queries, dtype=np.float32))
    if space is not None and space.name != "raw":
        return geometry.scores(index.table, space, queries, weight).astype(np.float32)
    query_norms = np.linalg.norm(queries, axis=1)  # (queries,)
    if not np.all(query_norms > 0):
        raise ZeroVectorError("The query vector is all zeros (e.g. 'king - king'): it has no direction.")
    scores = queries @ index.table.T  # (queries, vocab): reads the table once for all queries
    with np.errstate(divide="ignore", invalid="ignore"):
        scores /= index.norms[None, :]
        scores /= query_norms[:, None]
    scores[:, index.norms == 0] = 0.0  # an all-zero row (e.g. an untrained [PAD]) has no direction
    return scores


def top(scores: np.ndarray, allowed: np.ndarray, k: int, pieces: tuple[str, ...]) -> Neighbours:
    """The k best allowed rows of one score vector, ties broken by the lower id."""
    candidates = np.flatnonzero(allowed)
    values = scores[candidates]
    k = min(k, candidates.size)
    if k < candidates.size:
        # Everything tied with the k-th best stays in, so that the tie-break below is exact.
        kth = np.partition(values, candidates.size - k)[candidates.size - k]
        keep = values >= kth
        candidates, values = candidates[keep], values[keep]
    order = np.lexsort((candidates, -values))[:k]
    ids = candidates[order]
    return Neighbours(ids.astype(np.int64), tuple(pieces[i] for i in ids), values[order].astype(np.float32))


def nearest(
    index: VocabIndex,
    query: np.ndarray,
    k: int = 10,
    space: geometry.Geometry | None = None,
    filters: Filters = Filters(),
    match: Matcher = matching_rows,
    weight: float = 1.0,
) -> Neighbours:
    """The k rows of the token table most cosine-similar to one query vector (``weight``: the
    sum of its terms' signs, as Query has it)."""
    k = check_k(k)
    allowed = allowed_rows(index, filters, match)
    return top(similarities(index, query, space, weight)[0], allowed, k, index.pieces)


def nearest_for_each(
    index: VocabIndex,
    queries: np.ndarray,
    k: int = 5,
    space: geometry.Geometry | None = None,
    filters: Filters = Filters(),
    chunk: int = 64,
    match: Matcher = matching_rows,
) -> list[Neighbours]:
    """Top k for many query vectors, one matrix product per ``chunk`` of them."""
    k = check_k(k)
    allowed = allowed_rows(index, filters, match)
    results = []
    for start in range(0, len(queries), chunk):
        scores = similarities(index, queries[start : start + chunk], space)
        results.extend(top(row, allowed, k, index.pieces) for row in scores)
    return results
