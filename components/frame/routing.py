"""Making sure every page runs inside app.py's frame (sidebar and navigation).

Streamlit 1.67 starts a server in its legacy multipage mode whenever a ``pages/`` folder
sits beside the main script, and leaves it only when a run of app.py calls
``st.navigation``. Until then, a first visit straight to a page's URL (a shared link, a
bookmark, a hosted app waking up) runs that page file alone: no sidebar, no model picker.
The flag is process-wide, so clearing it once and rerunning lets app.py route the same
URL; a page's id is the hash of its url_path in both modes, so the rerun lands on the
same page. Known upstream: streamlit/streamlit pull request 10276 discusses it.

The flag is read when a run starts, so on a fresh process (a replica restarted, with every
browser reconnecting at once) a session's run can start in the legacy mode while another's clears
the flag: such a run is told apart by its session, whose frame never ran (``FRAMED``, in its
session's frame entry).
"""

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from components.view_state import session_entries

FRAMED = "framed"  # in the session's frame entry: app.py's frame ran in this session


def framed() -> None:
    """Called first by app.py's frame, in every run."""
    session_entries.entry(session_entries.FRAME)[FRAMED] = True


def through_app() -> None:
    """Call first in every page: rerun through app.py if the legacy router ran the page."""
    if PagesManager.uses_pages_directory or not session_entries.entry(session_entries.FRAME).get(FRAMED):
        PagesManager.uses_pages_directory = False
        st.rerun()
