"""Axes: words placed along directions the reader chooses, such as he -> she or small -> big."""

import numpy as np
import streamlit as st

from bert_embeddings import limits
from bert_embeddings.analysis import axes, axis_card, decompose
from bert_embeddings.figures import views
from bert_embeddings.views import settings
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
ends = {}
for name in axes.NAMES:
    left, right = st.columns(2)
    start_key, end_key = settings.AX_ENDS[name]
    optional = " (optional)" if name != "x" else ""
    end_help = (
        f"Words separated by commas, up to {limits.AXIS_END_WORDS.most}. A word split into several "
        "pieces counts as their mean; the end is the mean of its words."
    )
    ends[name] = (
        left.text_input(f"Axis {name}{optional}: from", **widgets.seeded(start_key), help=end_help),
        right.text_input(f"Axis {name}{optional}: to", **widgets.seeded(end_key), help=end_help),
    )
text = st.text_area(
    "Words to place",
    **widgets.seeded(settings.AX_WORDS),
    height=90,
    help=f"Separated by commas or new lines, up to {limits.AXIS_WORDS.most} words.",
)
shape = geometry_view.switch(index.table.shape[1])
# The sentence is read only when its pieces are asked for; a family without segment rows
# has no "+ segment" stage.
choices = [settings.NO_SENTENCE, *decompose.STAGES]
if model.tables.token_type_embeddings is None:
    choices.remove(decompose.STAGES[2])
links.keep_within(settings.AX_STAGE, choices, settings.NO_SENTENCE, "Stage")
stage = st.selectbox(
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

with model_caches.friendly_errors():
    space = model_caches.space(*shape)
    chosen = axes.in_space(axes.build_axes(index, model.tokenizer, ends), space)
    placed, problems = axes.words_to_place(index, model.tokenizer, text)
if problems:
    shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
    st.warning(echo.plain(f"Left off the chart: {shown}"), icon=":material/visibility_off:")
for first, second, value in axes.nearly_parallel(chosen):
    st.warning(
        f"Axes {first} and {second} are nearly parallel (cosine {value:+.2f}): a point's two coordinates "
        "largely repeat one another. Try ends that differ in another way.",
        icon=":material/call_merge:",
    )

# The four parts of the page, each a tab: every widget in them is drawn on every run (so every
# setting stays in the link), and the reader moves between them without scrolling past the rest.
chart_tab, cards_tab, weat_tab, furthest_tab = st.tabs(
    ["Words on the axes", "Can you trust each axis?", "WEAT", "Furthest along each axis"]
)
described = geometry_view.described(shape)

with chart_tab:
    sentence = None
    if stage != settings.NO_SENTENCE and (encoding := model_caches.require_encoding(stop=False)) is not None:
        sentence = (encoding.labels, decompose.stage_vectors(model_caches.breakdown(model, encoding))[stage])
    placed_groups = views.axis_groups(chosen, placed, space, sentence)
    draw.chart(views.words_on_axes(chosen, placed_groups, model.name), key="ax_chart")
    st.caption(
        "Each group has its own colour and marker shape: circles for the words placed, diamonds for the "
        "words that define the axes, squares for your sentence's pieces. The axes are drawn at right "
        "angles even when their directions are not; the cosine between them is below."
    )
    rows = [f"{name}: {label}" for name, labels, _ in placed_groups for label in labels]
    exports.matrix(
        f"{model.name} coordinates on your axes ({described})",
        np.concatenate([c for _, _, c in placed_groups]),
        rows,
        [a.name for a in chosen],
        "point",
    )
    left, right = st.columns([1, 3])
    with left:
        between = axes.between(chosen)
        names = [a.name for a in chosen]
        st.markdown("**Cosine between the axes**")
        exports.matrix_dataframe(
            f"{model.name} cosine between your axes ({described})",
            between,
            names,
            names,
            column_config={n: st.column_config.NumberColumn(format="%.3f") for n in names},
        )
        st.caption("1 or -1: the same direction; 0: at right angles, as the chart draws them.")
    with right:
        if placed:
            similarity = views.placed_cosine(placed, space)
            words = [w.text for w in placed]
            draw.chart(views.placed_cosine_chart(similarity, placed, shape), key="ax_words_cosine")
            name = f"{model.name} cosine between the words placed ({described})"
            exports.matrix(name, similarity, words, words)

with cards_tab:
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
    placeable = ", ".join(w.text for w in placed)  # the card places the words the chart places
    for axis in chosen:
        card_view.card(axis.name, (*ends[axis.name], placeable), shape, described, model.name)

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
    card_view.weat_section(model.name)

with furthest_tab:
    st.markdown(
        f"The {axes.EXTREMES} rows of the token table that reach furthest towards each end of each axis, "
        "every row scored."
    )
    kept = filters.filter_boxes(settings.AX_FILTERS, "Leave out the pieces of the axes' own words")
    for axis in chosen if kept.valid else []:
        st.subheader(echo.plain(f"Axis {axis.name}: {axis.label}"))
        found = None
        with model_caches.friendly_errors(stop=False):
            found = axes.extremes(index, axis, space, kept.filters(axis.ids), match=model_caches.pattern_rows)
        if found is None:
            continue
        for column, end_words, result in zip(st.columns(2), (axis.end, axis.start), found, strict=True):
            with column:
                towards = ", ".join(w.text for w in end_words)
                st.markdown(echo.plain(f"Towards {towards}"))
                exports.ranked(
                    f"{model.name} axis {axis.name} towards {towards} ({described})",
                    result,
                    "coordinate",
                    height=36 * (len(result.ids) + 1),  # all twenty rows, without a scroll bar
                )
