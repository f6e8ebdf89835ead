"""The core against its references: transformers' own modules and tokenizer."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import AutoTokenizer, BertModel

from bert_embeddings import limits
from bert_embeddings.analysis import decompose
from bert_embeddings.errors import (
    EmptyInputError,
    InputTooLongError,
    MissingSentenceAError,
)
from bert_embeddings.models import checkpoints, tokenize
from testkit.random_models import write_random_bert

PAIRS = [
    ("Tokenizers split embeddings into pieces.", ""),
    ("The river bank was flooded.", "She sat on the bank of the river."),
    ("Hello", "world"),
    ("x", "a much longer second sentence with several more pieces in it"),
]


def encode(model, a, b="", special=True):
    return model.encode(a, b, add_special_tokens=special)


def transformers_embeddings(folder, enc: tokenize.Encoding) -> np.ndarray:
    """What transformers' BertModel, loaded by transformers itself, returns for this input."""
    model = BertModel.from_pretrained(str(folder)).eval()
    with torch.inference_mode():
        out = model.embeddings(
            input_ids=torch.tensor(enc.ids)[None], token_type_ids=torch.tensor(enc.segment_ids)[None]
        )
    return out[0].numpy()


@pytest.mark.parametrize("a,b", PAIRS)
@pytest.mark.parametrize("special", [True, False])
def test_bundled_output_equals_transformers(bundled, a, b, special):
    """The LayerNorm output the page shows equals BertModel.embeddings on the bundled model."""
    enc = encode(bundled, a, b, special)
    shown = decompose.decompose(bundled, enc).output
    assert shown.shape == (len(enc), 384)
    assert np.max(np.abs(shown - transformers_embeddings(bundled.folder, enc))) <= 1e-5


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tiny_random_berts_equal_transformers(tmp_path, seed):
    """On random BERTs (gamma and beta not 1 and 0) every stage adds up like transformers."""
    folder = write_random_bert(tmp_path / f"bert-{seed}", seed=seed, hidden=16 + 8 * seed)
    model = checkpoints.load_model(str(folder))
    for a, b in PAIRS:
        enc = encode(model, a, b)
        parts = decompose.decompose(model, enc)
        expected = transformers_embeddings(folder, enc)
        assert np.max(np.abs(parts.output - expected)) <= 1e-5
        # The stages themselves are exact table rows.
        t = model.tables
        np.testing.assert_array_equal(parts.token, t.word_embeddings[enc.ids])
        np.testing.assert_array_equal(parts.segment, t.token_type_embeddings[enc.segment_ids])
        np.testing.assert_array_equal(parts.position, t.position_embeddings[np.arange(len(enc))])
        np.testing.assert_allclose(parts.normalized.mean(axis=1), 0, atol=1e-5)


def test_verification_uses_the_bert_module_and_passes(bundled):
    """The verification panel's number is the module's own output difference, and passes."""
    module = decompose.build_reference_module(bundled)
    assert type(module).__name__ == "BertEmbeddings"
    assert np.shares_memory(module.word_embeddings.weight.detach().numpy(), bundled.tables.word_embeddings)
    enc = encode(bundled, *PAIRS[1])
    parts = decompose.decompose(bundled, enc)
    result = decompose.verify(module, enc, parts)
    independent = np.max(np.abs(parts.output - transformers_embeddings(bundled.folder, enc)))
    assert result.passed and result.max_abs_error == pytest.approx(independent, abs=1e-7)


def test_verification_fails_when_the_output_is_wrong(bundled):
    """A recomputation that is off by more than the tolerance is reported as failed."""
    module = decompose.build_reference_module(bundled)
    enc = encode(bundled, "a broken check")
    parts = decompose.decompose(bundled, enc)
    broken = decompose.EmbeddingBreakdown(**{**parts.__dict__, "output": parts.output + 1e-4})
    assert not decompose.verify(module, enc, broken).passed


@pytest.mark.parametrize("variant", ["prefix", "legacy_names", "pickled"])
def test_checkpoint_key_variants_load_the_same_tables(tmp_path, variant):
    """'bert.'-prefixed keys, gamma/beta names and .bin files give the same tables."""
    plain = checkpoints.load_model(str(write_random_bert(tmp_path / "plain", seed=5)))
    other = checkpoints.load_model(str(write_random_bert(tmp_path / variant, seed=5, **{variant: True})))
    for name in ("word_embeddings", "position_embeddings", "token_type_embeddings"):
        np.testing.assert_array_equal(getattr(plain.tables, name), getattr(other.tables, name))
    np.testing.assert_array_equal(plain.tables.layer_norm_weight, other.tables.layer_norm_weight)
    np.testing.assert_array_equal(plain.tables.layer_norm_bias, other.tables.layer_norm_bias)


def test_vocab_txt_only_checkpoint_tokenizes_like_transformers(tmp_path):
    """A checkpoint with vocab.txt but no tokenizer.json gets the same pieces and ids."""
    folder = write_random_bert(
        tmp_path / "vocab-only", tokenizer_files=("vocab.txt", "tokenizer_config.json")
    )
    model = checkpoints.load_model(str(folder))
    reference = AutoTokenizer.from_pretrained(str(checkpoints.bundled_folder()))
    for a, b in PAIRS:
        enc = encode(model, a, b)
        expected = reference(a, b or None)
        assert enc.ids.tolist() == expected["input_ids"]
        assert enc.segment_ids.tolist() == expected["token_type_ids"]


@pytest.mark.parametrize("a,b", PAIRS)
def test_ids_and_segments_equal_the_transformers_tokenizer(bundled, a, b):
    """Pieces, ids and segment ids equal AutoTokenizer's, [CLS]/[SEP] included."""
    reference = AutoTokenizer.from_pretrained(str(bundled.folder))
    enc = encode(bundled, a, b)
    expected = reference(a, b or None)
    assert enc.ids.tolist() == expected["input_ids"]
    assert enc.segment_ids.tolist() == expected["token_type_ids"]
    assert enc.pieces[0] == "[CLS]" and enc.pieces[-1] == "[SEP]"
    if b:  # the second sentence and its closing [SEP] are segment 1
        first_sep = enc.pieces.index("[SEP]")
        assert set(enc.segment_ids[: first_sep + 1].tolist()) == {0}
        assert set(enc.segment_ids[first_sep + 1 :].tolist()) == {1}
    no_special = encode(bundled, a, b, special=False)
    assert no_special.ids.tolist() == reference(a, b or None, add_special_tokens=False)["input_ids"]


def test_word_pieces_of_one_word_share_a_group(bundled):
    """'embeddings' splits into several pieces that the page draws as one word."""
    enc = encode(bundled, "embeddings are fun")
    assert enc.pieces[1:5] == ("em", "##bed", "##ding", "##s")
    assert len({enc.word_groups[i] for i in range(1, 5)}) == 1
    assert enc.word_groups[5] != enc.word_groups[4]
    assert enc.word_groups[0] is None and enc.is_special[0] and enc.is_special[-1]


@pytest.mark.parametrize(
    "a,b",
    [
        ("word " * 1_900, ""),
        ("word " * 1_900, "tail end"),
        ("one " * 300, "two " * 300),
        ("short", "long " * 900),
    ],
)
def test_truncation_matches_transformers_and_counts_what_it_dropped(bundled, a, b):
    """Over-long input keeps what transformers keeps and says how many pieces were dropped."""
    reference = AutoTokenizer.from_pretrained(str(bundled.folder))
    enc = encode(bundled, a, b)
    kept = reference(a, b or None, truncation=True, max_length=512)
    untruncated = len(reference(a, b or None)["input_ids"])
    assert enc.ids.tolist() == kept["input_ids"]
    assert enc.segment_ids.tolist() == kept["token_type_ids"]
    assert len(enc) == 512 and enc.dropped == untruncated - 512
    assert any(f"{enc.dropped:,} pieces were dropped" in note for note in enc.notices)


def test_truncation_at_a_tiny_models_positions(tiny_bert_dir):
    """A model with 40 positions truncates at 40, and the output still equals transformers."""
    model = checkpoints.load_model(str(tiny_bert_dir))
    enc = encode(model, "many words " * 30, "and a second sentence")
    assert len(enc) == 40 and enc.dropped > 0
    expected = transformers_embeddings(tiny_bert_dir, enc)
    assert np.max(np.abs(decompose.decompose(model, enc).output - expected)) <= 1e-5


@pytest.mark.parametrize(
    "a,b,error",
    [
        ("", "", EmptyInputError),
        ("   \n\t ", "", EmptyInputError),
        ("\u200b\u200d\u2060", "", EmptyInputError),
        ("fine", "\u200b\u200b", EmptyInputError),
        ("", "only sentence B", MissingSentenceAError),
        ("  ", "only sentence B", MissingSentenceAError),
        ("x" * (limits.SENTENCE.most + 1), "", InputTooLongError),
    ],
)
def test_bad_text_raises_a_named_error_with_a_message(bundled, a, b, error):
    """Empty, invisible-only, B-without-A and absurdly long text raise the named error."""
    with pytest.raises(error) as raised:
        encode(bundled, a, b)
    assert len(str(raised.value)) > 20


@pytest.mark.parametrize(
    "text,expect",
    [
        ("I love 🍕 and 🎉", "[UNK]"),
        ("東京は大きい", "own"),
        ("שלום עולם", "Right-to-left"),
        ("مرحبا بالعالم", "Right-to-left"),
        ("zero\u200bwidth and bell\x07", "U+200B ZERO WIDTH SPACE"),
    ],
)
def test_unusual_characters_encode_with_a_notice(bundled, text, expect):
    """Emoji, CJK, right-to-left and invisible characters encode, and the user is told how."""
    enc = encode(bundled, text)
    assert len(enc) >= 3
    assert any(expect in note for note in enc.notices), enc.notices
    np.testing.assert_array_equal(
        decompose.decompose(bundled, enc).token, bundled.tables.word_embeddings[enc.ids]
    )


def test_emoji_notice_names_the_unknown_characters(bundled):
    """The [UNK] notice quotes the characters the vocabulary has no piece for."""
    enc = encode(bundled, "pizza 🍕", "party 🎉")
    assert enc.pieces.count("[UNK]") == 2
    note = next(n for n in enc.notices if "[UNK]" in n)
    assert "🍕" in note and "🎉" in note


def test_byte_level_bpe_pieces_are_shown_readably():
    """RoBERTa-style pieces ('Ġworld') are shown decoded, a leading space as '␣'; WordPiece is untouched."""
    from tokenizers import ByteLevelBPETokenizer

    trainer = ByteLevelBPETokenizer()
    trainer.train_from_iterator(["hello world, hello there"] * 20, vocab_size=300, min_frequency=1)
    bpe = trainer._tokenizer  # the plain Tokenizer inside, as tokenizer.json would load it
    encoding = bpe.encode("hello world")
    assert "Ġworld" in encoding.tokens
    shown = tokenize.readable_pieces(bpe, encoding.ids, encoding.tokens)
    assert "␣world" in shown and not any("Ġ" in piece for piece in shown)
    wordpiece = checkpoints.load_bundled().tokenizer
    pieces = wordpiece.encode("embeddings").tokens
    assert tokenize.readable_pieces(wordpiece, wordpiece.encode("embeddings").ids, pieces) == tuple(pieces)


def test_notices_say_their_kind_and_survive_a_cache_copy(bundled):
    """Truncation is told apart by its kind, not by its place, and a pickled copy (what
    st.cache_data hands out) keeps both the sentence and the kind."""
    import pickle

    from bert_embeddings.models.tokenize import Notice

    enc = encode(bundled, "word " * 1_900 + "مرحبا", "")
    kinds = [n.kind for n in enc.notices]
    assert Notice.TRUNCATED in kinds and Notice.RIGHT_TO_LEFT in kinds
    copy = pickle.loads(pickle.dumps(enc))
    assert copy.notices == enc.notices and [n.kind for n in copy.notices] == kinds
