"""BERT Embedding Explorer: the frame. Page config, shared sidebar, navigation, the link."""

import streamlit as st

from bert_embeddings.rooms import RoomError
from components import follow, inputs, links, state, widgets

APP_NAME = "BERT Embedding Explorer"
CONCEPTS = st.Page("pages/concepts.py", title="Concepts", icon=":material/lightbulb:", url_path="concepts")


def opening() -> None:
    """The app's address without a page: Streamlit serves its default page at / only, so the
    first page proper is not the default (it then opens at /concepts too); this one sends a
    visitor on to it. The link's settings were read before, and the next run writes them back."""
    st.switch_page(CONCEPTS)


OPENING = st.Page(opening, title=APP_NAME, url_path="start", default=True, visibility="hidden")
pages = [
    OPENING,
    CONCEPTS,
    st.Page("pages/home.py", title="Overview", icon=":material/home:", url_path="home"),
    st.Page("pages/tokens.py", title="Tokens", icon=":material/segment:", url_path="tokens"),
    st.Page(
        "pages/embedding_layer.py",
        title="Embedding layer",
        icon=":material/stacks:",
        url_path="embedding_layer",
    ),
    st.Page("pages/positions.py", title="Positions", icon=":material/timeline:", url_path="positions"),
    st.Page("pages/segments.py", title="Segments", icon=":material/call_split:", url_path="segments"),
    st.Page("pages/neighbours.py", title="Neighbours", icon=":material/hub:", url_path="neighbours"),
    st.Page("pages/pca.py", title="Maps", icon=":material/scatter_plot:", url_path="pca"),
    st.Page("pages/axes.py", title="Your own axes", icon=":material/straighten:", url_path="axes"),
    st.Page("pages/compare.py", title="Compare models", icon=":material/compare:", url_path="compare"),
    st.Page("pages/context.py", title="Context", icon=":material/layers:", url_path="context"),
]
navigation = st.navigation(pages)
# Each browser tab names its page, so that a reader with many tabs (or a screen reader) knows which.
title = APP_NAME if navigation.title == APP_NAME else f"{navigation.title} · {APP_NAME}"
st.set_page_config(page_title=title, page_icon=":material/grid_on:", layout="wide")
if links.restore() and (code := st.query_params.get(links.FOLLOW)):  # a shared link's settings
    try:
        follow.join_from_link(code)
    except RoomError as problem:
        links.add_unused(f"follow={code[:20]!r} ({problem})")
if (target := follow.apply_pending(navigation.url_path)) is not None:  # the room shows another page
    st.switch_page(next(p for p in pages if p.url_path == target))
if navigation.url_path == OPENING.url_path:
    navigation.run()  # it moves on to the first page at once: notices and sidebar are drawn there
links.show_unused()
inputs.use(widgets.sidebar())
follow.sidebar()
links.share_hint()
follow.publish(navigation.url_path)
state.precompute_default_map()  # once per server process, if the host asked for it
navigation.run()
