"""Axes: words placed along directions the reader chooses, such as he -> she or small -> big."""

import streamlit as st

from bert_embeddings import limits
from bert_embeddings.analysis import axes, axis_card
from bert_embeddings.figures import axes_page, settings
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, echo, exports, filters, widgets
from components.sections import card_view, geometry_view
from components.view_state import links

routing.through_app()
st.title("Your own axes")
st.markdown(
    "An **axis** runs from one group of words to another, for instance from *he, him, man* to "
    "*she, her, woman*. Each word is then placed by how far its token row reaches along that "
    "direction. Directions like this carry meaning, and they show where a model has picked up "
    "a bias from its training text."
)

model = model_caches.require_model()
index = model_caches.vocab_index()

st.header("Axes and words")
for name in axes.NAMES:
    left, right = st.columns(2)
    start_key, end_key = settings.AX_ENDS[name]
    optional = " (optional)" if name != "x" else ""
    end_help = (
        f"Words separated by commas, up to {limits.AXIS_END_WORDS.most}. A word split into several "
        "pieces counts as their mean; the end is the mean of its words."
    )
    left.text_input(f"Axis {name}{optional}: from", **widgets.seeded(start_key), help=end_help)
    right.text_input(f"Axis {name}{optional}: to", **widgets.seeded(end_key), help=end_help)
st.text_area(
    "Words to place",
    **widgets.seeded(settings.AX_WORDS),
    height=90,
    help=f"Separated by commas or new lines, up to {limits.AXIS_WORDS.most} words.",
)
shape = geometry_view.switch(index.table.shape[1])
# The sentence is read only when its pieces are asked for.
choices = axes_page.sentence_stages(model)
links.keep_within(settings.AX_STAGE, choices, settings.NO_SENTENCE, "Stage")
st.selectbox(
    "Add your sentence's pieces",
    choices,
    key=settings.AX_STAGE,
    persist_state="session",
    format_func=lambda s: "no" if s == settings.NO_SENTENCE else f"yes, taken at: {s}",
)
st.caption(
    "A word's coordinate on an axis is its token row (the mean of its rows if the tokenizer splits it) "
    "projected on the axis' unit direction, which points from the mean of the 'from' words to the mean "
    "of the 'to' words. **Raw** measures from zero; **centred** from the average row, so that 0 is where "
    "a typical piece lies, with every distance along an axis the same. **All-but-the-top** and "
    "**standardised** transform the words and the axes' ends alike first, which can turn the axes too."
)

# The four parts of the page, each a tab, and only the open one composed and drawn: the cards
# draw 1,000 random axes, WEAT counts up to 100,000 splits, the furthest pieces score every row.
# Every widget in them is drawn on every run (so every setting stays in the link), and the open
# tab is in the link too. WEAT's groups and the furthest pieces' filters are read before the page
# is composed; an axis that cannot be built leaves only its message.
notes, tabs = st.container(), st.empty()
with tabs.container():
    chart_tab, cards_tab, weat_tab, furthest_tab = widgets.tabs(settings.AX_TABS, settings.AX_TAB)
with weat_tab:
    st.markdown(
        "The Word Embedding Association Test (Caliskan et al. 2017) asks whether targets X lean towards "
        "attributes A, and targets Y towards B, more than the other way round. For each target word, "
        "s(w) = mean cos(w, A) − mean cos(w, B); the statistic S = Σₓ s(x) − Σᵧ s(y); the effect size "
        "d = (mean s over X − mean s over Y) / standard deviation of s over X and Y (n − 1); the p-value "
        "is the share of the ways to split X ∪ Y into groups of the same sizes, the actual one included, "
        "whose statistic is at least S, counted exactly up to 100,000 ways. Here it measures the model's "
        "**token rows** (a split word: its pieces' mean), not the model reading the word in a sentence. "
        "Words are the same when their pieces are (ROSE and rose): each may be in one group, once."
    )
    card_view.weat_boxes()
with furthest_tab:
    st.markdown(
        f"The {axes.EXTREMES} rows of the token table that reach furthest towards each end of each axis, "
        "every row scored."
    )
    valid = filters.filter_boxes(axes_page.Settings.key, "Leave out the pieces of the axes' own words")
chosen = widgets.chosen(axes_page.Settings)
shown = None
working = {
    axes_page.WORDS_TAB: "Placing the words...",
    axes_page.CARDS_TAB: "Drawing 1,000 random axes...",
    axes_page.WEAT_TAB: "Counting WEAT's partitions...",
    axes_page.FURTHEST_TAB: "Scoring every row of the token table...",
}[chosen.tab]
with notes, model_caches.friendly_errors(stop=False), st.spinner(working):
    shown = axes_page.compose(chosen, model_caches.sources())
if shown is None:
    tabs.empty()
    st.stop()
with notes:
    draw.shown(shown.left_off, shown.parallel)
described = geometry_view.described(shape)


def words_section() -> None:
    words = shown.words
    draw.shown(words.sentence_problem, words.notices, words.chart, words.caption, words.download)
    left, right = st.columns([1, 3])
    with left:
        draw.shown(words.between_title)
        between = words.between
        exports.matrix_dataframe(
            between.name,
            between.values,
            between.rows,
            between.columns,
            column_config={n: st.column_config.NumberColumn(format="%.3f") for n in between.columns},
        )
        draw.shown(words.between_caption)
    with right:
        draw.shown(words.words_cosine, words.words_cosine_download)


def cards_section() -> None:
    st.markdown(
        "Any two groups of words make an axis, so each one gets a report card, computed exactly with "
        f"fixed seeds. The verdict: it separates its poles if it beats {axis_card.BEATS:.0%} of random "
        f"axes and at least {axis_card.HELD:.0%} of its held-out words land on their own side."
    )
    with st.expander("How each axis is tested"):
        st.markdown(
            "**Held out**: each pole word left out in turn and the axis built from the rest, does it land "
            "on its own side of the middle. **Stability**: the pole words resampled with replacement 1,000 "
            "times, the resampled direction's cosine with the whole axis and each word's interval. "
            "**Against chance**: 1,000 axes between random whole words of the same group sizes, and the "
            "share this one separates its two ends better than (separation: the gap between the ends' mean "
            "coordinates over their pooled standard deviation). **Coherence**, for ends of equal size read "
            "as pairs (he-she, him-her): how much of the pairs' variance one direction holds, beside random "
            "pairs. An end of one word can be neither held out nor resampled, and one word at each end "
            "leaves no spread to compare with chance: the card then says so and gives no verdict."
        )
    placeable = axes_page.placeable(chosen, model_caches.sources())
    for name, card in zip(axes.NAMES, shown.cards, strict=True):
        stem = f"{model.name} axis {name} report card ({described})"
        card_view.card(card, name, (*chosen.ends(name), placeable), shape, stem)


def weat_section() -> None:
    card_view.weat_section(shown.weat, chosen.groups(), model.name)


def furthest_section() -> None:
    for furthest in shown.furthest if valid else ():
        if furthest is None:
            continue
        st.subheader(echo.plain(furthest.title.text))
        draw.shown(furthest.problem)
        for column, end in zip(st.columns(2), furthest.ends, strict=False):
            with column:
                draw.shown(end.title)
                draw.table(
                    end.table,
                    column_config={"coordinate": st.column_config.NumberColumn(format="%.4f")},
                    height=36 * (len(end.table.columns["id"]) + 1),  # all twenty rows, without a scroll bar
                )


for tab, section in zip(
    (chart_tab, cards_tab, weat_tab, furthest_tab),
    (words_section, cards_section, weat_section, furthest_section),
    strict=True,
):
    if tab.open:
        with tab:
            section()
