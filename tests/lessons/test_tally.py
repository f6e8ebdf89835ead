"""A room's answers counted for its leader (bert_embeddings.lessons.tally), checked against counts
made by hand, with answers a store may hold that the question cannot take left out."""

from __future__ import annotations

from bert_embeddings.lessons import answers, tally

CHOICE = answers.Key(answers.CHOICE, ("the bee", "the jet", "the helicopter"), ("the helicopter",))
PIECE = answers.Key(answers.PIECE, right=("{{movers}}",))
NUMBER = answers.Key(answers.NUMBER, right=("6",), within=0.5)


def test_choices_are_counted_in_the_lessons_order_and_junk_is_left_out():
    given = ["the jet", "The Jet ", "the helicopter", "<b>bold</b>", "", "x" * 10_000, "the jet"]
    truth = answers.Truth(answers.CHOICE, ("the helicopter",))
    counted = tally.count(CHOICE, given, truth)
    assert counted.counts == (("the bee", 0), ("the jet", 3), ("the helicopter", 1))
    assert counted.answered == 4 and counted.right == 1


def test_pieces_given_most_often_first_at_most_ten():
    given = ["dog"] * 3 + ["##s"] * 3 + ["cat"] * 2 + [f"p{n}" for n in range(12)] + ["two words", ""]
    counted = tally.count(PIECE, given, answers.Truth(answers.PIECE, ("cat", "dog")))
    assert counted.counts[:3] == (("##s", 3), ("dog", 3), ("cat", 2))
    assert len(counted.counts) == tally.MOST_PIECES
    assert counted.answered == 20 and counted.right == 5


def test_numbers_are_read_again_sorted_and_judged_within_the_margin():
    given = ["6", "5.6", "1,000", "7", "nan", "1e999", "six"]
    counted = tally.count(NUMBER, given, answers.Truth(answers.NUMBER, number=6.0, within=0.5))
    assert counted.numbers == (5.6, 6.0, 7.0, 1000.0)
    assert counted.answered == 4 and counted.right == 2
    assert tally.count(NUMBER, given).right is None  # no truth here: nothing judged
