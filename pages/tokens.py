"""Tokens: the word pieces of sentence A (and B), with ids, segments and positions."""

import html

import streamlit as st

from bert_embeddings.figures import charts, tokens_page
from bert_embeddings.models import glyphs
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, widgets

routing.through_app()
st.title("Tokens")
st.markdown(
    "BERT never sees words, only **pieces** of its vocabulary. A word it does not know whole is "
    "split into pieces; pieces that continue a word start with `##`. Each piece gets an **id** "
    "(its row in the token table), a **segment** (0 for sentence A, 1 for sentence B) and a "
    "**position** (its row in the position table)."
)


def pieces(encoding) -> None:
    """The pieces as chips, joined within a word and bordered by their sentence: the page's own
    drawing (a handout holds the table below)."""
    chips = []
    for i, piece in enumerate(encoding.pieces):
        group = encoding.word_groups[i]
        starts_word = i == 0 or group is None or group != encoding.word_groups[i - 1]
        ends_word = i == len(encoding) - 1 or group is None or group != encoding.word_groups[i + 1]
        colour = charts.SEGMENT_COLOURS[int(encoding.segment_ids[i]) % 2]
        style = (
            f"border:2px solid {colour};padding:4px 8px;margin:6px 0;display:inline-block;"
            f"background:{'rgba(128,128,128,0.25)' if encoding.is_special[i] else 'transparent'};"
            f"border-radius:{'8px' if starts_word else '0'} {'8px' if ends_word else '0'} "
            f"{'8px' if ends_word else '0'} {'8px' if starts_word else '0'};"
            f"margin-right:{'10px' if ends_word else '0'};"
            f"{'border-left-style:dashed;' if not starts_word else ''}"
        )
        chips.append(
            f"<span style='{style}' title='position {i} · id {int(encoding.ids[i])} · segment "
            f"{int(encoding.segment_ids[i])}'><b>{html.escape(glyphs.legible(piece))}</b><br>"
            f"<small>#{i} · id {int(encoding.ids[i])} · {'AB'[int(encoding.segment_ids[i]) % 2]}"
            "</small></span>"
        )
    st.markdown(
        "<div style='line-height:2.6;direction:ltr'>" + "".join(chips) + "</div>",
        unsafe_allow_html=True,
    )
    st.caption(
        f"{len(encoding)} pieces. Pieces of one word are joined (dashed seams). Each piece ends with its "
        "sentence: A (segment 0, blue border) or B (segment 1, orange border); special tokens have a grey "
        "background. Hover a piece for details."
    )


model_caches.require_model()
with model_caches.friendly_errors():
    shown = tokens_page.compose(widgets.chosen(tokens_page.Settings), model_caches.sources())
draw.shown(*shown.notices)
pieces(shown.pieces.encoding)
# Folded, and drawn only once unfolded: the chips above say what the table says, and a table is
# the heaviest thing a browser draws on this page.
if table := widgets.fold("The pieces as a table, and its CSV", "tokens_table"):
    with table:
        draw.shown(shown.table)
