"""A cookie this browser keeps for the app: written by a small component of the page, read back by
a later session of the same browser through ``st.context.cookies`` (a reload is a new session)."""

from __future__ import annotations

import streamlit as st

_WRITE_JS = """
export default function ({ data }) {
  if (data.cookie) { document.cookie = data.cookie; }
}
"""
_write = st.components.v2.component("cookie_keeper", js=_WRITE_JS)


def keep(name: str, value: str, seconds: int, key: str) -> None:
    """Have the browser keep ``name=value`` for ``seconds`` (``value`` must be cookie-safe text)."""
    _write(key=key, data={"cookie": f"{name}={value}; path=/; max-age={seconds}; SameSite=Strict"}, height=0)


def read(name: str) -> str:
    """The browser's cookie ``name`` as it came with this session ("" if none, or outside a browser)."""
    try:
        return str((st.context.cookies or {}).get(name) or "")
    except Exception:  # outside a browser session (AppTest)
        return ""
