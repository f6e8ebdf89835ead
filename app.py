"""BERT Embedding Explorer: the frame. Page config, shared sidebar, navigation, the link."""

import streamlit as st

from components import echo, inputs, links, widgets

st.set_page_config(page_title="BERT Embedding Explorer", page_icon=":material/grid_on:", layout="wide")

pages = [
    st.Page(
        "pages/concepts.py", title="Concepts", icon=":material/lightbulb:", url_path="concepts", default=True
    ),
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
    st.Page("pages/pca.py", title="PCA maps", icon=":material/scatter_plot:", url_path="pca"),
    st.Page("pages/axes.py", title="Your own axes", icon=":material/straighten:", url_path="axes"),
    st.Page("pages/compare.py", title="Compare models", icon=":material/compare:", url_path="compare"),
    st.Page("pages/context.py", title="Context", icon=":material/layers:", url_path="context"),
]
navigation = st.navigation(pages)
if problems := links.restore():  # a shared link's settings, before any widget is drawn
    st.warning(echo.plain(links.notice(problems)), icon=":material/link_off:")
inputs.use(widgets.sidebar())
links.share_hint()
links.publish(navigation.url_path)
navigation.run()
