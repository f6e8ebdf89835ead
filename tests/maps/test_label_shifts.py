"""A map's labels of points, placed so that none lies over another on a phone: checked against
each label's box in pixels, worked out here from the map's extent and the phone's plot."""

from __future__ import annotations

import numpy as np

from bert_embeddings.figures import map_marks


def pixels(points, cloud):
    """Points on a phone's plot, in pixels from its bottom left corner."""
    low, high = cloud.min(axis=0), cloud.max(axis=0)
    return (points - low) / ((high - low) * map_marks.PADDED) * np.array(map_marks.PHONE_PLOT_PX)


def boxes(points, texts, cloud, found):
    """Each shown label's box (left, right, bottom, top) in a phone's pixels."""
    shown = []
    for (x, y), text, shift in zip(pixels(points, cloud), texts, found, strict=True):
        if shift is not None:
            width, height = len(text) * map_marks.CHAR_PX, map_marks.LINE_PX
            cx, cy = x + shift[0], y + shift[1]
            shown.append((cx - width / 2, cx + width / 2, cy - height / 2, cy + height / 2))
    return shown


def test_crowded_labels_move_aside_or_are_left_out_and_none_overlaps_a_label_or_a_point():
    rng = np.random.default_rng(0)
    cloud = rng.normal(size=(2000, 2))
    points = rng.normal(scale=0.6, size=(30, 2))  # thirty pieces in the middle of the map
    texts = [f"piece{n}" for n in range(30)]
    found = map_marks.label_shifts(points, texts, cloud)
    drawn = boxes(points, texts, cloud, found)
    assert 5 < len(drawn) < 30
    assert {shift for shift in found if shift is not None} > {(0, map_marks.GAP_PX)}  # some moved
    marks = [(x - 5, x + 5, y - 5, y + 5) for x, y in pixels(points, cloud)]
    for i, a in enumerate(drawn):
        assert not any(a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3] for b in marks)
        for b in drawn[i + 1 :]:
            assert not (a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]), (a, b)


def test_labels_far_apart_all_sit_above_their_points_and_a_repeat_is_shown_once():
    cloud = np.array([[0.0, 0.0], [10.0, 10.0]])
    points = np.array([[1.0, 1.0], [9.0, 9.0], [1.0, 9.0], [1.0, 1.0]])
    found = map_marks.label_shifts(points, ["bank", "river", "the", "bank"], cloud)
    assert found == [(0, map_marks.GAP_PX)] * 3 + [None]


def test_a_point_that_is_not_a_number_gets_no_label_and_the_others_keep_theirs():
    cloud = np.array([[0.0, 0.0], [10.0, 10.0], [np.nan, 1.0]])
    points = np.array([[np.nan, 1.0], [9.0, 9.0]])
    assert map_marks.label_shifts(points, ["nan", "river"], cloud) == [None, (0, map_marks.GAP_PX)]
