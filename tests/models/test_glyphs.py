"""Pieces a browser may draw as an empty box are printed with their code points beside them."""

from __future__ import annotations

import pytest

from bert_embeddings.figures import settings
from bert_embeddings.models.glyphs import legible
from testkit.apptest import figures, neighbours_page, shown

pytestmark = pytest.mark.usefixtures("offline")  # the default model resolves offline at once


@pytest.mark.parametrize(
    ("piece", "expected"),
    [
        # Latin, Greek, Cyrillic, and common symbols: drawn by the page's own fonts, unchanged.
        ("king", "king"),
        ("##ing", "##ing"),
        ("[CLS]", "[CLS]"),
        ("café", "café"),
        ("e\u0301", "e\u0301"),  # a combining accent on its letter
        ("##щ", "##щ"),
        ("λόγος", "λόγος"),
        ("₀", "₀"),
        ("##»", "##»"),
        ("ᵃ", "ᵃ"),
        ("€½→∞", "€½→∞"),
        ("a b", "a b"),
        # A lone combining mark: nothing to sit on (alone, after ##, or after a space).
        ("\u0301", "\u0301 (U+0301)"),
        ("##\u0301", "##\u0301 (U+0301)"),
        # Scripts the page cannot count on: the piece, then each character's code point, once.
        ("ो", "ो (U+094B)"),
        ("宀", "宀 (U+5B80)"),
        ("##め", "##め (U+3081)"),
        ("ああ", "ああ (U+3042)"),
        ("１", "１ (U+FF11)"),
        ("שלום", "שלום (U+05E9 U+05DC U+05D5 U+05DD)"),
        ("\U0001f600", "\U0001f600 (U+1F600)"),
        # No glyph of its own: replaced in place, so nothing invisible is printed.
        ("a\u200bb", "a[U+200B]b"),
        ("\u202eabc", "[U+202E]abc"),
        ("x\u00a0y", "x[U+00A0]y"),
        ("\ue000", "[U+E000]"),  # private use
        ("\u0378", "[U+0378]"),  # unassigned
        ("\x07", "[U+0007]"),
        ("\u3000め", "[U+3000]め (U+3081)"),
    ],
)
def test_legible_names_what_might_not_be_drawn(piece, expected):
    assert legible(piece) == expected


def test_every_piece_of_the_vocabulary_is_shown_whole():
    """Over the bundled vocabulary: ASCII pieces are unchanged, every piece is printed whole
    (it has no invisible characters), followed by the code points of some of its own non-ASCII
    characters, each once."""
    from bert_embeddings.models import checkpoints

    vocab = checkpoints.load_bundled().tokenizer.get_vocab()
    named = 0
    for piece in vocab:
        out = legible(piece)
        assert out.startswith(piece)
        if piece.isascii():
            assert out == piece
        if out != piece:
            named += 1
            codes = out.removeprefix(piece + " (").removesuffix(")").split(" ")
            characters = [chr(int(code.removeprefix("U+"), 16)) for code in codes]
            assert len(set(characters)) == len(characters)
            assert all(c in piece and not c.isascii() for c in characters), (piece, out)
    assert named > 500  # the CJK, kana, Indic, Arabic, ... pieces of bert-base-uncased's vocabulary


def test_the_neighbours_of_cls_show_their_code_points():
    """Searching [CLS] on the bundled model: its nearest pieces include a lone Devanagari vowel
    sign, which the table, the bars, the pills and the grid show with its code point."""
    at = neighbours_page(nb_word="[CLS]")
    assert not at.exception and not at.error
    table = list(at.dataframe[0].value["piece"])
    assert "ो (U+094B)" in table
    bars = next(f for f in figures(at) if f.layout.title.text.startswith("Closest to"))
    assert "1. ो (U+094B)" in bars.data[0].y
    assert "ो (U+094B)" in [shown(o) for o in at.pills(key=settings.NB_NEXT).options]
    # The grid's first row is [CLS] of the sentence: the same row of the token table.
    grid = at.dataframe[1].value
    assert grid.iloc[0]["token"] == "0 · [CLS]"
    assert any("(U+" in cell for cell in grid.iloc[0].tolist()[1:])
