"""BERT Embedding Explorer: the frame. Page config, shared sidebar, navigation, the link.

``streamlit run app.py`` first reads this file as a module (``__name__`` is then "app") and
finds ``app``: it serves the pages with the room's push route beside them
(components/rooms/room_stream.py). Each run of the pages runs this file as ``__main__``.
"""

import streamlit as st

from bert_embeddings.rooms import RoomError
from components import inputs, links, map_state, persistence, routing, runs, widgets
from components.rooms import follow, lead, room_section, room_wake

APP_NAME = "BERT Embedding Explorer"


def _pages() -> tuple[st.Page, list[st.Page]]:
    """The opening page and every page, in the sidebar's order."""
    concepts = st.Page(
        "pages/concepts.py", title="Concepts", icon=":material/lightbulb:", url_path="concepts"
    )

    def opening() -> None:
        """The app's address without a page: Streamlit serves its default page at / only, so the
        first page proper is not the default (it then opens at /concepts too); this one sends a
        visitor on to it. The link's settings were read before, and the next run writes them back."""
        st.switch_page(concepts)

    first = st.Page(opening, title=APP_NAME, url_path="start", default=True, visibility="hidden")
    return first, [
        first,
        concepts,
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
        st.Page("pages/geometry.py", title="Geometry", icon=":material/blur_on:", url_path="geometry"),
        st.Page("pages/compare.py", title="Compare models", icon=":material/compare:", url_path="compare"),
        st.Page("pages/moved.py", title="What moved", icon=":material/compare_arrows:", url_path="moved"),
        st.Page("pages/context.py", title="Context", icon=":material/layers:", url_path="context"),
    ]


def main() -> None:
    routing.framed()
    woken = room_wake.begun()  # first: whether the server started this run for a room's new view
    opening, pages = _pages()
    navigation = st.navigation(pages, expanded=True)  # every page listed, none behind 'View more'
    # Each browser tab names its page, so that a reader with many tabs (or a screen reader) knows which.
    title = APP_NAME if navigation.title == APP_NAME else f"{navigation.title} · {APP_NAME}"
    st.set_page_config(page_title=title, page_icon=":material/grid_on:", layout="wide")
    persistence.hold(navigation.url_path)  # first: a setting keeps its value until it is changed
    if links.restore():  # a session's first run: a shared link's settings, a room to follow or lead
        if code := st.query_params.get(links.FOLLOW):
            try:
                follow.join_from_link(code)
            except RoomError as problem:
                links.add_unused(f"follow={code[:20]!r} ({problem})")
        lead.resume_leading()
    target = follow.apply_pending(navigation.url_path, woken is not None)
    room_wake.settled(woken)
    if target is not None:  # the room shows another page
        st.switch_page(next(p for p in pages if p.url_path == target))
    if navigation.url_path == opening.url_path:
        navigation.run()  # it moves on to the first page at once: notices and sidebar are drawn there
    links.show_unused()
    widgets.host_settings()
    inputs.use(widgets.sidebar())
    room_section.sidebar()
    links.share_hint()
    follow.publish(navigation.url_path)
    map_state.precompute_default_map()  # once per server process, if the host asked for it
    runs.run_to_the_end(navigation.run, follow.drawn, follow.replaced)


if __name__ == "__main__":
    main()
else:  # read as a module by `streamlit run`: the server, with the room's push route
    from components.rooms.room_stream import ROUTES

    app = st.App(__file__, routes=ROUTES)
