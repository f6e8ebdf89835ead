"""Patterns people type (or a shared link carries), run on RE2: time linear in the text.

Python's own ``re`` backtracks: ``((.*)*)*!`` against a vocabulary piece takes time
exponential in the piece's length, holds the interpreter for minutes, and with it every
other person on the same server. RE2 (Google's engine, through the ``google-re2`` package)
guarantees time linear in the text and bounded memory for any pattern it accepts; the
price is that it refuses the few constructs that need backtracking (back-references such
as ``\\1`` and look-around such as ``(?=...)``), which the page says. Patterns are also
limited in length (``limits.PATTERN``) before they are compiled.
"""

from __future__ import annotations

import re2

from bert_embeddings import limits
from bert_embeddings.errors import InvalidRegexError

# What the pages tell people about the syntax they may use.
SYNTAX = (
    "RE2 syntax, as in Python's re without back-references (\\1) and look-around ((?=...), (?<=...)); "
    "\\w and \\d match ASCII only (\\pL is any letter). Matched anywhere in a piece: ^ and $ anchor "
    "it, (?i) ignores case."
)
_MAX_MEMORY = 8 << 20  # bytes RE2 may use for one compiled pattern; larger ones are refused


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # the page reports the error; the server log need not
    options.never_capture = True  # only "does it match" is asked, never the groups
    options.max_mem = _MAX_MEMORY
    return options


def compile_pattern(pattern: str, label: str = "The pattern"):
    """Check a pattern's length, then compile it with RE2; a clear message if either fails."""
    limits.PATTERN.check_text(label, pattern)
    try:
        return re2.compile(pattern, _options())
    except re2.error as exc:
        reason = exc.args[0] if exc.args else "not accepted"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise InvalidRegexError(f"{label} '{pattern[:60]}' cannot be used: {reason}. {SYNTAX}") from None


def matches(pattern: str, texts: tuple[str, ...] | list[str], label: str = "The pattern") -> list[bool]:
    """For each text, whether the pattern matches anywhere in it."""
    search = compile_pattern(pattern, label).search
    return [search(text) is not None for text in texts]
