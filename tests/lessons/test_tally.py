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
    given = ["6", "5.6", "1,000.0", "7", "nan", "1e999", "six"]
    counted = tally.count(NUMBER, given, answers.Truth(answers.NUMBER, number=6.0, within=0.5))
    assert counted.numbers == (5.6, 6.0, 7.0, 1000.0)
    assert counted.answered == 4 and counted.right == 2
    assert tally.count(NUMBER, given).right is None  # no truth here: nothing judged


# --- the tally as a chart (bert_embeddings.lessons.tally_chart) ----------------------------------


def _bars(figure):
    bar = figure.data[0]
    return list(bar.y), [int(n) for n in bar.x], list(bar.marker.pattern.shape)


def test_the_chart_keeps_the_right_answer_secret_until_it_is_revealed():
    from bert_embeddings.lessons import tally_chart

    given = ["the jet", "the helicopter", "the jet"]
    hidden = tally_chart.chart(tally.count(CHOICE, given), None, "#111111")
    assert _bars(hidden) == (["the bee", "the jet", "the helicopter"], [0, 2, 1], ["", "", ""])
    assert hidden.layout.title.text == "The room's 3 answers"
    truth = answers.Truth(answers.CHOICE, ("the helicopter",))
    shown = tally_chart.chart(tally.count(CHOICE, given, truth), truth, "#111111")
    assert _bars(shown) == (["the bee", "the jet", "the helicopter (right)"], [0, 2, 1], ["", "", "/"])
    assert shown.data[0].marker.color[2] == tally_chart.RIGHT_COLOUR
    assert tally_chart.chart(tally.count(CHOICE, []), truth, "#111111") is None  # said in words instead


def test_pieces_are_shown_literally_and_numbers_as_a_histogram_with_the_answer_marked():
    from bert_embeddings.lessons import tally_chart

    labels, counts, _ = _bars(tally_chart.chart(tally.count(PIECE, ["<b>", "<b>", "$x$"]), None, "#111111"))
    assert labels == ["&lt;b&gt;", "&#36;x&#36;"] and counts == [2, 1]
    truth = answers.Truth(answers.NUMBER, number=6.0, within=0.5)
    figure = tally_chart.chart(tally.count(NUMBER, ["6", "5.5", "9", "6"], truth), truth, "#f0f0f0")
    assert list(figure.data[0].x) == [5.5, 6.0, 9.0] and list(figure.data[0].y) == [1, 2, 1]
    assert list(figure.data[0].marker.pattern.shape) == ["/", "/", ""]  # within 0.5 of 6: right
    assert figure.layout.shapes[0].x0 == 6.0 and "the answer, 6" in figure.layout.xaxis.title.text
    assert tally_chart.chart(tally.count(NUMBER, ["6"]), None, "#111111").layout.shapes == ()
    many = [str(n) for n in range(tally_chart.MOST_NUMBER_BARS + 1)]
    assert tally_chart.chart(tally.count(NUMBER, many), None, "#111111").data[0].type == "histogram"


def test_a_number_s_bar_is_never_too_thin_to_see_nor_wider_than_its_neighbours_allow():
    from bert_embeddings.lessons import tally_chart

    def width(given):
        return tally_chart.chart(tally.count(NUMBER, given), None, "#111111").data[0].width

    assert width(["0.25"]) == 0.2  # one number alone: a fifth of its size, at least 0.2
    assert width(["600"]) == 120.0
    assert width(["1", "2", "4"]) == 0.8  # 0.8 of the closest two apart
    assert width(["0.25", "0.2500001", "10"]) == (10 - 0.25) / 40  # all but equal: still seen
