"""app.py's plumbing: the one table of pages (registry), the sidebar (sidebar), every page run
through app.py (routing), and the one place that touches Streamlit's private names (runs)."""
