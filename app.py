"""BERT Embedding Explorer: the frame. Page config, shared sidebar, navigation."""

import streamlit as st

from components import widgets

st.set_page_config(page_title="BERT Embedding Explorer", page_icon=":material/grid_on:", layout="wide")

pages = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", url_path="home", default=True),
    st.Page("pages/tokens.py", title="Tokens", icon=":material/segment:", url_path="tokens"),
    st.Page(
        "pages/embedding_layer.py",
        title="Embedding layer",
        icon=":material/stacks:",
        url_path="embedding_layer",
    ),
    st.Page("pages/neighbours.py", title="Neighbours", icon=":material/hub:", url_path="neighbours"),
    st.Page("pages/pca.py", title="PCA maps", icon=":material/scatter_plot:", url_path="pca"),
]
navigation = st.navigation(pages)
widgets.sidebar()
navigation.run()
