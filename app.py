"""BERT Embedding Explorer: the frame. Page config, shared sidebar, navigation, the link.

``streamlit run app.py`` first reads this file as a module (``__name__`` is then "app") and
finds ``app``: it serves the pages with the room's push route beside them
(components/rooms/room_stream.py). Each run of the pages runs this file as ``__main__``.
"""

import streamlit as st

from bert_embeddings.rooms import RoomError
from bert_embeddings.views import pages as registry
from components.caches import map_state
from components.frame import routing, runs, sidebar
from components.lessons import maker, opening, player
from components.parts import chart_png, on_view, widgets
from components.rooms import asking, follow, lead, room_section, room_wake
from components.view_state import inputs, links

APP_NAME = "BERT Embedding Explorer"


def _pages() -> tuple[list[st.Page], list[st.Page]]:
    """(the pages that only lead on: the bare address and the old ones; every page, in the
    sidebar's order), from the one table of pages (bert_embeddings/views/pages.py)."""
    pages = [st.Page(p.file, title=p.title, icon=p.icon, url_path=p.url) for p in registry.PAGES]
    by_url = {page.url_path: page for page in pages}

    def leading_to(target: st.Page):
        def lead_on() -> None:
            """Streamlit serves its default page at / only, so the first page proper is not the
            default (it then opens at /concepts too); this one, and each old address, sends a
            visitor on. The link's settings were read before, and the next run writes them back."""
            st.switch_page(target)

        return lead_on

    first = st.Page(
        leading_to(by_url[registry.FIRST.url]),
        title=APP_NAME,
        url_path="start",
        default=True,
        visibility="hidden",
    )
    old = [
        st.Page(leading_to(by_url[new]), title=by_url[new].title, url_path=url, visibility="hidden")
        for url, new in registry.OLD_URLS.items()
    ]
    return [first, *old], [first, *old, *pages]


def main() -> None:
    routing.framed()
    woken = room_wake.begun()  # first: whether the server started this run for a room's new view
    leading, pages = _pages()
    navigation = st.navigation(pages, expanded=True)  # every page listed, none behind 'View more'
    # Each browser tab names its page, so that a reader with many tabs (or a screen reader) knows which.
    title = APP_NAME if navigation.title == APP_NAME else f"{navigation.title} · {APP_NAME}"
    st.set_page_config(page_title=title, page_icon=":material/grid_on:", layout="wide")
    addressed = player.addressed_step()  # (the address as the browser sent it: nothing wrote it yet)
    # First: the page's widgets start at the session's values; on another page, no chart seen yet.
    on_view.arrive(widgets.arrive(navigation.url_path))
    if links.restore():  # a session's first run: a shared link's settings, a room to follow or lead
        if code := links.taken().get(links.FOLLOW):
            try:
                follow.join_from_link(code)
            except RoomError as problem:
                links.add_unused(f"follow={code[:20]!r} ({problem})")
        lead.resume_leading()
        opening.from_link(links.taken())
    target = follow.apply_pending(navigation.url_path, woken is not None)
    room_wake.settled(woken)
    if not follow.follows():
        player.sent_earlier(addressed, runs.from_the_history())
    target = player.apply_pending(navigation.url_path) or target  # a lesson's step just opened
    if target is not None:  # the room shows another page
        st.switch_page(next(p for p in pages if p.url_path == registry.current(target)))
    if navigation.url_path in {page.url_path for page in leading}:
        navigation.run()  # it moves on to its page at once: notices and sidebar are drawn there
    links.show_unused()
    sidebar.host_settings()
    inputs.use(sidebar.sidebar())
    room_section.sidebar()
    maker.section(navigation.url_path)
    links.share_hint()
    with st.sidebar:
        chart_png.mount()  # (every chart's toolbar: a PNG beside the camera's SVG)
        on_view.mount()  # (whether the screen is narrow: a phone draws charts as they come into view)
    follow.publish(navigation.url_path)
    follow.notice()
    player.bar(
        navigation.url_path, leading=follow.leading(), room=follow.way_back(), room_answers=asking.part()
    )
    map_state.precompute_default_map()  # once per server process, if the host asked for it
    runs.run_to_the_end(navigation.run, _drawn, _replaced)


def _drawn() -> None:
    follow.drawn()
    player.drawn()


def _replaced() -> None:
    follow.replaced()
    player.replaced()


if __name__ == "__main__":
    main()
else:  # read as a module by `streamlit run`: the server, with the room's push route
    from components.rooms.room_stream import ROUTES

    app = st.App(__file__, routes=ROUTES)
