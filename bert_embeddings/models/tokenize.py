"""Text (sentence A, optional sentence B) to what the embedding layer is fed.

The tokenizer does the splitting; this module adds what the explorer shows about it:
which pieces form one word, which are special, how many pieces truncation dropped, and
notices about characters BERT cannot read or silently removes. Special tokens follow the
model's own template ([CLS] A [SEP] B [SEP] for BERT), segment ids come from that template,
and positions count from 0 as BERT's absolute position table expects.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np
from tokenizers import Tokenizer

from bert_embeddings import limits
from bert_embeddings.errors import EmptyInputError, MissingSentenceAError
from bert_embeddings.models import glyphs

_KEEP_WHITESPACE = {"\t", "\n", "\r"}


class Notice(str):
    """A sentence about the input for the user, with the kind of thing it says.

    It is the sentence itself (a str), so it reads and compares as one; ``kind`` lets a page
    treat, say, truncation (which loses input) differently from a note about the script."""

    TRUNCATED = "truncated"
    INVISIBLE = "invisible characters"
    UNKNOWN = "unknown pieces"
    RIGHT_TO_LEFT = "right-to-left"
    CJK = "CJK characters"
    ONE_SEGMENT = "one segment row"

    kind: str

    def __new__(cls, kind: str, text: str) -> Notice:
        notice = super().__new__(cls, text)
        notice.kind = kind
        return notice

    def __getnewargs__(self) -> tuple[str, str]:  # so that a pickled copy (st.cache_data) keeps it
        return (self.kind, str(self))


@dataclass(frozen=True)
class Encoding:
    """One input as the embedding layer sees it: one entry per piece, in order."""

    pieces: tuple[str, ...]
    ids: np.ndarray  # (tokens,) int64, rows of word_embeddings
    segment_ids: np.ndarray  # (tokens,) int64, rows of token_type_embeddings
    positions: np.ndarray  # (tokens,) int64, rows of position_embeddings
    word_groups: tuple[int | None, ...]  # pieces of one word share a number; None = special
    is_special: tuple[bool, ...]
    dropped: int  # pieces removed by truncation
    notices: tuple[Notice, ...]  # things about the input worth telling the user

    def __len__(self) -> int:
        return len(self.pieces)

    @property
    def labels(self) -> tuple[str, ...]:
        """Unique row labels for figures: index and piece ("3 · ##ing"), each piece as every
        reader can tell it (glyphs.legible)."""
        return tuple(f"{i} · {glyphs.legible(piece)}" for i, piece in enumerate(self.pieces))


def encode(
    tokenizer: Tokenizer,
    truncating_tokenizer: Tokenizer,
    text_a: str,
    text_b: str = "",
    *,
    add_special_tokens: bool = True,
    position_offset: int = 0,
) -> Encoding:
    """Tokenize sentence A (and B, if given) the way the model reads them.

    ``tokenizer`` must not truncate; ``truncating_tokenizer`` is the same tokenizer set to
    truncate at the model's number of positions (see checkpoints.LoadedModel).
    ``position_offset`` is the first token's position id (RoBERTa starts after its padding id).
    """
    text_a = limits.SENTENCE.check_text("Sentence A", text_a)
    text_b = limits.SENTENCE.check_text("Sentence B", text_b)
    has_a, has_b = bool(text_a.strip()), bool(text_b.strip())
    if has_b and not has_a:
        raise MissingSentenceAError(
            "Sentence A is empty. Type a sentence in the sidebar's Sentence A box: sentence B is "
            "only read after A, as the second half of a pair."
        )
    if not has_a:
        raise EmptyInputError("Sentence A is empty. Type a sentence to see how BERT embeds it.")

    # Each sentence alone and untruncated first: to find sentences that BERT's clean-up
    # empties, and to count what truncation drops.
    full = [tokenizer.encode(t, add_special_tokens=False) for t in (text_a, text_b) if t.strip()]
    for label, enc in zip(("Sentence A", "Sentence B"), full, strict=False):
        if not enc.ids:
            raise EmptyInputError(
                f"{label} contains only characters that BERT's text clean-up removes "
                "(invisible, control or zero-width characters). Type some visible text."
            )
    final = truncating_tokenizer.encode(
        text_a, text_b if has_b else None, add_special_tokens=add_special_tokens
    )
    n_special = sum(final.special_tokens_mask)
    dropped = sum(len(e.ids) for e in full) + n_special - len(final.ids)

    n = len(final.ids)
    unk = tokenizer.token_to_id("[UNK]")
    return Encoding(
        pieces=readable_pieces(truncating_tokenizer, final.ids, final.tokens),
        ids=np.asarray(final.ids, dtype=np.int64),
        segment_ids=np.asarray(final.type_ids, dtype=np.int64),
        positions=np.arange(position_offset, position_offset + n, dtype=np.int64),
        word_groups=_word_groups(final),
        is_special=tuple(bool(s) for s in final.special_tokens_mask),
        dropped=dropped,
        notices=_notices((text_a, text_b), final, unk, dropped, n),
    )


def _word_groups(final) -> tuple[int | None, ...]:
    """Pieces of one word share a number (counted across both sentences); special pieces: None."""
    groups: list[int | None] = []
    seen: dict[tuple[int, int], int] = {}
    for seq, word, special in zip(final.sequence_ids, final.word_ids, final.special_tokens_mask, strict=True):
        if special or seq is None or word is None:
            groups.append(None)
        else:
            groups.append(seen.setdefault((seq, word), len(seen)))
    return tuple(groups)


def readable_pieces(tokenizer: Tokenizer, ids, pieces) -> tuple[str, ...]:
    """Pieces as people can read them. WordPiece pieces are already readable; byte-level BPE
    pieces (RoBERTa's 'Ġthe') are decoded by the tokenizer, a leading space shown as '␣'."""
    if type(getattr(tokenizer, "decoder", None)).__name__ != "ByteLevel":
        return tuple(pieces)
    shown = []
    for piece_id, piece in zip(ids, pieces, strict=True):
        text = tokenizer.decode([int(piece_id)], skip_special_tokens=False) or piece
        shown.append(text.replace(" ", "␣").replace("\n", "⏎"))
    return tuple(shown)


def _notices(texts: tuple[str, str], final, unk_id: int | None, dropped: int, n: int) -> tuple[Notice, ...]:
    text = " ".join(texts)
    notes = []
    if dropped:
        notes.append(
            Notice(
                Notice.TRUNCATED,
                f"The input has {n + dropped:,} pieces but the model has only {n:,} positions: "
                f"{dropped:,} pieces were dropped from the end (of the longer sentence first).",
            )
        )
    removed = [c for c in text if unicodedata.category(c).startswith("C") and c not in _KEEP_WHITESPACE]
    if removed:
        names = sorted({f"U+{ord(c):04X} {unicodedata.name(c, 'control character')}" for c in removed})
        notes.append(
            Notice(
                Notice.INVISIBLE,
                f"BERT's text clean-up removed {len(removed)} invisible or control character(s) "
                f"before splitting: {', '.join(names[:4])}{' ...' if len(names) > 4 else ''}.",
            )
        )
    unknown = [i for i, piece_id in enumerate(final.ids) if piece_id == unk_id]
    if unknown:
        # Offsets point into the sentence each piece came from.
        sources = sorted({_source(texts, final, i) for i in unknown} - {""})
        notes.append(
            Notice(
                Notice.UNKNOWN,
                f"{len(unknown)} piece(s) became [UNK]: the vocabulary has no piece for "
                f"{', '.join(repr(s) for s in sources[:6]) or 'some characters'}. They all share "
                "the [UNK] row of the token table.",
            )
        )
    if any(unicodedata.bidirectional(c) in ("R", "AL") for c in text):
        notes.append(
            Notice(
                Notice.RIGHT_TO_LEFT,
                "Right-to-left text: pieces are listed in the order BERT reads them (the order the "
                "characters are stored), which is right to left on screen for that script.",
            )
        )
    if any(_is_cjk(c) for c in text):
        notes.append(
            Notice(
                Notice.CJK,
                "Chinese, Japanese or Korean characters: BERT's tokenizer puts each such character "
                "in a piece of its own.",
            )
        )
    return tuple(notes)


def _source(texts: tuple[str, str], final, index: int) -> str:
    """The characters of the original sentence that one piece was made from."""
    seq = final.sequence_ids[index]
    start, end = final.offsets[index]
    return "" if seq is None else texts[seq][start:end]


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )
