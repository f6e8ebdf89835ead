"""Every page of the app, declared once: its file, its title in the navigation, its icon and its
address. app.py builds the navigation from this table; the AppTest helpers (testkit/apptest.py)
and the browser helpers (testkit/browser.py) read it too, so a new page is added here alone.

Old addresses keep working: a link or a room's view naming ``/pca`` or ``/home`` (the Maps and
Overview pages' addresses before their files were named as the sidebar names them) opens the
page it always meant. Plain data, no Streamlit: the test helpers import it without starting one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    file: str  # the script, from the project's root
    title: str  # as the navigation and the browser tab name it
    icon: str
    url: str  # its address, /<url>
    sentences: bool = False  # it reads the sidebar's sentences (others have inputs of their own)


# In the navigation's order. Context stays last: it is the one page that loads the whole model,
# and the memory benchmark reads the server's memory before it.
PAGES = (
    Page("pages/concepts.py", "Concepts", ":material/lightbulb:", "concepts"),
    Page("pages/overview.py", "Overview", ":material/home:", "overview", sentences=True),
    Page("pages/tokens.py", "Tokens", ":material/segment:", "tokens", sentences=True),
    Page(
        "pages/embedding_layer.py", "Embedding layer", ":material/stacks:", "embedding_layer", sentences=True
    ),
    Page("pages/positions.py", "Positions", ":material/timeline:", "positions"),
    Page("pages/segments.py", "Segments", ":material/call_split:", "segments", sentences=True),
    Page("pages/neighbours.py", "Neighbours", ":material/hub:", "neighbours", sentences=True),
    Page("pages/maps.py", "Maps", ":material/scatter_plot:", "maps", sentences=True),
    Page("pages/axes.py", "Your own axes", ":material/straighten:", "axes"),
    Page("pages/geometry.py", "Geometry", ":material/blur_on:", "geometry"),
    Page("pages/compare.py", "Compare models", ":material/compare:", "compare"),
    Page("pages/moved.py", "What moved", ":material/compare_arrows:", "moved"),
    Page("pages/context.py", "Context", ":material/layers:", "context"),
)
FIRST = PAGES[0]  # where the app's bare address leads
OLD_URLS = {"pca": "maps", "home": "overview"}  # an earlier address -> the page's address now
BY_URL = {page.url: page for page in PAGES}


def current(url: str) -> str:
    """The address a page has now, for an address a link or a room's view may hold (an old one is
    read as the page it meant; any other is returned as it is)."""
    return OLD_URLS.get(url, url)


def by_file(file: str) -> Page:
    return next(page for page in PAGES if page.file == file)
