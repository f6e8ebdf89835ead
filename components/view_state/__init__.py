"""What a person sets, on the Streamlit side: the address bar both ways (links), the session's own
values, one entry per concern (session_entries), the sidebar's values as one value (inputs), the
last search (memory). The table of settings itself is the core's (bert_embeddings.figures.settings):
links, rooms and lessons all read it."""
