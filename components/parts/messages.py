"""Messages on a page: a problem shown as a message, never a traceback; what is worth knowing
about an input. Every page reaches them through components/caches/model_caches.py, which stops a
page's run with them."""

from __future__ import annotations

import logging
from contextlib import contextmanager

import streamlit as st

from bert_embeddings.errors import ExplorerError
from bert_embeddings.models import tokenize
from components.parts import echo

log = logging.getLogger("bert_explorer")


@contextmanager
def friendly_errors(stop: bool = True):
    """Show a problem as a message, never a traceback; then stop this page's run, or with
    ``stop=False`` skip the rest of the block and carry on with the page."""
    try:
        yield
    except ExplorerError as exc:
        st.error(echo.plain(exc), icon=":material/error:")
        if stop:
            st.stop()
    except Exception as exc:  # anything unforeseen: log it for us, explain it to the user
        log.exception("Unexpected error while rendering a page")
        st.error(
            echo.plain(
                f"Something unexpected went wrong ({type(exc).__name__}: {str(exc)[:300]}). "
                "The rest of the explorer keeps working: try another input or model."
            ),
            icon=":material/error:",
        )
        if stop:
            st.stop()


def show_notices(encoding: tokenize.Encoding, about: str = "") -> None:
    """What is worth knowing about an input (``about`` names it): a warning when truncation
    dropped pieces, information otherwise."""
    for note in encoding.notices:
        text = echo.plain(f"{about}: {note}" if about else note)
        if note.kind == tokenize.Notice.TRUNCATED:  # truncation loses input: a warning
            st.warning(text, icon=":material/content_cut:")
        else:
            st.info(text, icon=":material/info:")
