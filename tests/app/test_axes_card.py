"""Your own axes' report cards and WEAT on the page, through Streamlit's AppTest, on the bundled
model: the page shows what the notebook API computes, a classic test fills the groups, the
groups travel in links, and bad groups get messages while the page keeps working."""

from __future__ import annotations

import pytest

from bert_embeddings import api
from bert_embeddings.analysis import word_tests
from bert_embeddings.figures import settings
from testkit.apptest import figures, messages, open_link, run_page, shown

pytestmark = [pytest.mark.usefixtures("offline"), pytest.mark.xdist_group("axes_card")]


@pytest.fixture(autouse=True)
def bundled(monkeypatch):
    monkeypatch.setenv("BERT_EXPLORER_MODEL", "bundled")


def metrics(at) -> list[tuple[str, str]]:
    return [(m.label, m.value) for m in at.metric]


CARDS, WEAT = settings.AX_TABS[1], settings.AX_TABS[2]


def on_tab(at, label: str, *unfolded: str):
    """The page again with the tab ``label`` open (only the open tab is composed and drawn), and
    the folded parts keyed ``unfolded`` unfolded (each drawn only once unfolded)."""
    at.session_state[settings.AX_TAB] = label
    for key in unfolded:
        at.session_state[key] = True
    return at.run()


def test_each_axis_card_and_weat_are_the_apis():
    at = on_tab(run_page("pages/axes.py"), CARDS)
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
    shown_metrics = metrics(on_tab(at, WEAT))
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
        ("Y", "ant, rose", "'rose' in both Group X and Group Y"),
        ("A", "love, qzxqzxqzx\u2603", "Group A"),
    ],
)
def test_bad_groups_get_a_message_and_the_page_keeps_working(group, text, said):
    at = on_tab(run_page("pages/axes.py"), WEAT)
    at.text_area(key=settings.AX_WEAT[group]).set_value(text).run()
    assert not at.exception and said in messages(at)
    assert any(
        label == "Beats random axes" for label, _ in metrics(on_tab(at, CARDS))
    )  # the cards still show


def test_no_placeable_word_still_gives_each_axis_its_card():
    at = on_tab(run_page("pages/axes.py"), CARDS)
    at.text_area(key=settings.AX_WORDS).set_value("\U0001f99c").run()
    assert not at.exception and not at.error, messages(at)
    assert any(label == "Beats random axes" for label, _ in metrics(at))


# --- a card that cannot be assessed, the same word written otherwise, the page's parts ----------


def everything_shown(at) -> str:
    """Every text a reader sees on the page: messages, captions, markdown, metrics and tables."""
    parts = [shown(e.value) for e in [*at.markdown, *at.caption, *at.success, *at.warning, *at.info]]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [d.value.to_string() for d in at.dataframe]
    return "\n".join(parts)


def test_one_word_at_each_end_gives_no_verdict_and_no_nan_on_the_page_or_in_its_files(downloads):
    """/axes?x_from=small&x_to=big once said "beats nan% of random axes: no better than chance",
    with an interval of 1.00 - 1.00; now the card says what it cannot assess, and nothing reads nan."""
    import re

    from testkit.apptest import read_csv

    at = open_link(
        {"x_from": "small", "x_to": "big", "y_from": "", "y_to": "", "ax_tab": "cards"}, "pages/axes.py"
    )
    at = on_tab(at, CARDS, "ax_card_more_x")  # (its files are in its folded part)
    assert not at.exception and not at.error, messages(at)
    said = messages(at)
    assert (
        "Axis x: no verdict (one word at each end: nothing to hold out, nothing to resample, no spread "
        "within an end to set the gap against)." in said
    )
    assert "chance" not in " ".join(shown(m.value) for m in [*at.success, *at.warning])
    assert ("Beats random axes", "—") in metrics(at) and ("Direction's cosine, 95 %", "—") in metrics(at)
    assert not re.search(r"\bnan\b", everything_shown(at), re.I)
    files = {name: make() for name, make in downloads.items() if name and "report-card" in name}
    assert files and not any(re.search(rb"\bnan\b", data, re.I) for data in files.values())
    assert not any("resampled" in name or "random-axes" in name for name in files)  # none was drawn
    figures_csv = next(data for name, data in files.items() if name.endswith("figures.csv"))
    header, labels, cells = read_csv(figures_csv)
    assert header == ["figure", "value", "not given because"]
    p_value = cells[labels.index("p against random axes")]
    assert p_value[0] == "" and p_value[1].startswith("one word at each end")


@pytest.mark.parametrize(
    ("groups", "said"),
    [
        (
            {"weat_x": "rose, tulip, lily", "weat_y": "ROSE, TULIP, LILY"},
            "'ROSE' (as 'rose', the same pieces) in both",
        ),
        ({"weat_x": "rose, Rose, lily"}, "Group X has 'Rose' (as 'rose', the same pieces) twice"),
    ],
)
def test_the_same_word_written_otherwise_gets_the_message_not_a_result(groups, said):
    """ROSE against rose once gave d 0.000, p 0.7, "exact, over all 20 partitions", as a result."""
    at = open_link({**groups, "ax_tab": "weat"}, "pages/axes.py")
    assert not at.exception and said in messages(at)
    assert not any(label == "Effect size d" for label, _ in metrics(at))
    assert any(
        label == "Beats random axes" for label, _ in metrics(on_tab(at, CARDS))
    )  # the cards still show


def test_the_page_is_four_tabs_and_each_cards_details_fold():
    """The axes, the cards, WEAT and the furthest words each have a tab, and only the open one is
    composed and drawn; each card shows its verdict and figures, with its intervals, the other
    geometry and its files folded below, drawn once unfolded."""
    at = run_page("pages/axes.py")
    assert not at.exception and not at.error, messages(at)
    assert [t.label for t in at.tabs] == [
        "Words on the axes",
        "Can you trust each axis?",
        "WEAT",
        "Furthest along each axis",
    ]
    assert any("words on your axes" in f.layout.title.text for f in figures(at.tabs[0]))
    assert not at.tabs[1].metric and not at.tabs[2].metric  # closed tabs: not composed, not drawn
    cards = on_tab(at, CARDS).tabs[1]
    assert not at.tabs[0].get("plotly_chart")
    assert len([m for m in cards.metric if m.label == "Beats random axes"]) == 2  # axes x and y
    folded = [e for e in cards.expander if e.label.startswith("Axis ")]
    assert [e.label.split(":")[0] for e in folded] == ["Axis x", "Axis y"]
    for details in folded:  # drawn only once unfolded
        assert not details.get("plotly_chart") and not details.get("download_button")
    unfolded = [e for e in on_tab(at, CARDS, "ax_card_more_x", "ax_card_more_y").tabs[1].expander]
    unfolded = [e for e in unfolded if e.label.startswith("Axis ")]
    assert len(unfolded) == 2
    for details in unfolded:
        assert len(details.get("plotly_chart")) == 1 and details.get("download_button")
    assert [m.label for m in on_tab(at, WEAT).tabs[2].metric][:1] == ["Effect size d"]
    furthest = on_tab(at, settings.AX_TABS[3]).tabs[3]
    assert len([d for d in furthest.dataframe if "coordinate" in d.value.columns]) == 4
