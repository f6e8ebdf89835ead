"""Your own axes' report cards and WEAT on the page, through Streamlit's AppTest, on the bundled
model: the page shows what the notebook API computes, a classic test fills the groups, the
groups travel in links, and bad groups get messages while the page keeps working."""

from __future__ import annotations

import pytest

from bert_embeddings import api
from bert_embeddings.analysis import word_tests
from components import settings
from testkit.apptest import messages, open_link, run_page, shown

pytestmark = [pytest.mark.usefixtures("offline"), pytest.mark.xdist_group("axes_card")]


@pytest.fixture(autouse=True)
def bundled(monkeypatch):
    monkeypatch.setenv("BERT_EXPLORER_MODEL", "bundled")


def metrics(at) -> list[tuple[str, str]]:
    return [(m.label, m.value) for m in at.metric]


def test_each_axis_card_and_weat_are_the_apis():
    at = run_page("pages/axes.py")
    assert not at.exception and not at.error, messages(at)
    model = api.load()
    card = api.axis_card(
        model,
        "he, him, man",
        "she, her, woman",
        ", ".join(w.strip() for w in settings.default(settings.AX_WORDS).split(",")),
    )
    said = " ".join(shown(m.value) for m in [*at.success, *at.warning])
    assert f"Axis x: {card.card.verdict()}." in said
    shown_metrics = metrics(at)
    assert ("Held out on their own side", f"{card.card.held_out} of {card.card.held_total}") in shown_metrics
    assert ("Beats random axes", f"{card.card.beats:.1%}") in shown_metrics
    found = api.weat(model, *word_tests.FLOWERS_INSECTS.values())
    assert ("Effect size d", f"{found.effect_size:.3f}") in shown_metrics
    assert ("p-value (one-sided)", f"{found.p_value:.4g}") in shown_metrics
    captions = " ".join(shown(c.value) for c in at.caption)
    assert "exact, over all 12,870 partitions" in captions and "tulip" in captions  # split words named


def test_a_classic_test_fills_the_groups_and_they_travel_in_the_link():
    at = run_page("pages/axes.py")
    pills = next(b for b in at.get("button_group") if b.key == settings.AX_WEAT_CLASSIC)
    pills.set_value("career and family").run()
    for group, text in word_tests.CAREER_FAMILY.items():
        assert at.text_area(key=settings.AX_WEAT[group]).value == text
    assert at.query_params.get("weat_a") == word_tests.CAREER_FAMILY["A"]
    linked = open_link({"weat_x": "rose, tulip", "weat_y": "ant, bee"}, "pages/axes.py")
    assert linked.text_area(key=settings.AX_WEAT["X"]).value == "rose, tulip"
    assert not linked.exception


@pytest.mark.parametrize(
    ("group", "text", "said"),
    [
        ("X", "rose", "Group X has 1 word(s): WEAT needs at least 2"),
        ("Y", "ant, rose", "rose in both Group X and Group Y"),
        ("A", "love, qzxqzxqzx\u2603", "Group A"),
    ],
)
def test_bad_groups_get_a_message_and_the_page_keeps_working(group, text, said):
    at = run_page("pages/axes.py")
    at.text_area(key=settings.AX_WEAT[group]).set_value(text).run()
    assert not at.exception and said in messages(at)
    assert any(label == "Beats random axes" for label, _ in metrics(at))  # the cards still show


def test_no_placeable_word_still_gives_each_axis_its_card():
    at = run_page("pages/axes.py")
    at.text_area(key=settings.AX_WORDS).set_value("\U0001f99c").run()
    assert not at.exception and not at.error, messages(at)
    assert any(label == "Beats random axes" for label, _ in metrics(at))
