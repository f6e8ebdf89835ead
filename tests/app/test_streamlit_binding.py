"""What Streamlit 1.67's own ``bind="query-params"`` does with a setting that several pages show, in
a bare two-page app: the reasons the explorer's settings still go through its own links layer
(components/view_state/links.py) and widgets.arrive. Should Streamlit change either, these fail,
and the layer can hand the setting over to ``bind``."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

FRAME = """
import streamlit as st
st.navigation([st.Page("shown/a.py", url_path="a"), st.Page("shown/b.py", url_path="b")]).run()
"""
PAGE = """
import streamlit as st
st.markdown("value: " + st.segmented_control(
    "Geometry", ("raw", "centred", "all-but-the-top"), default="raw", key="geometry",
    bind="query-params", persist_state="session", format_func=str.upper))
"""


def _bare_app(folder) -> AppTest:
    # (not a pages/ folder: beside one, Streamlit runs a page alone on a first visit)
    (folder / "shown").mkdir()
    for name in ("a", "b"):
        (folder / "shown" / f"{name}.py").write_text(PAGE, encoding="utf-8")
    (folder / "app.py").write_text(FRAME, encoding="utf-8")
    return AppTest.from_file(str(folder / "app.py"), default_timeout=30)


def _shown(at: AppTest) -> str:
    return at.markdown[-1].value


def test_a_value_from_the_address_does_not_reach_the_same_setting_on_the_next_page(tmp_path):
    """Opened with ?geometry=CENTRED, the first page shows centred; the second page's widget of the
    same key starts at its default, though the address still says centred. widgets.arrive sets
    each setting to its own value on arriving at a page, which closes this gap."""
    at = _bare_app(tmp_path)
    at.query_params["geometry"] = "CENTRED"
    at.run()
    assert not at.exception and _shown(at) == "value: centred"
    at.switch_page("shown/b.py").run()
    assert not at.exception and at.query_params.get("geometry") == "CENTRED"
    assert _shown(at) == "value: raw"


def test_a_bound_setting_is_written_as_its_label_and_a_code_is_dropped(tmp_path):
    """The address holds the label a person reads (format_func's), and text that is not one is
    dropped without a word: today's links write codes (geometry=abtt) and name what they could
    not use, so an old link read by ``bind`` would lose its geometry silently."""
    at = _bare_app(tmp_path)
    at.query_params["geometry"] = "all-but-the-top"  # the option itself, not its label
    at.run()
    assert not at.exception and _shown(at) == "value: raw"
    assert "geometry" not in at.query_params and not at.warning and not at.error
