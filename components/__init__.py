"""Streamlit and Plotly glue shared by the pages: charts (pure figures), widgets, state."""
