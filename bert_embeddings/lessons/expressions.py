"""Figures inside a lesson's text: ``{{name arg=value arg="a value with spaces"}}``.

A lesson that states a model's figure in its prose is true for one model only. So a step names
the figure instead, and it is computed for the model on screen when the step is shown
(bert_embeddings.lessons.figures holds the named figures and computes them):

    With this model, `dog`'s nearest pieces are {{neighbours word=dog k=3}}.

The syntax is small on purpose: a name from a fixed list and its named arguments, each a bare
value (no spaces, quotes or braces) or a value in double quotes (no double quote inside). There is
no code, no nesting and no arithmetic. The reader is one pass over the text, linear in its length;
a text holds at most ``MOST_PER_TEXT`` figures of at most ``MOST_LENGTH`` characters each.
"""

from __future__ import annotations

from dataclasses import dataclass

OPEN, CLOSE = "{{", "}}"
MOST_PER_TEXT = 40
MOST_LENGTH = 300
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz_")
_ARG_CHARS = _NAME_CHARS | frozenset("0123456789")


@dataclass(frozen=True)
class Expression:
    name: str
    args: tuple[tuple[str, str], ...]  # (argument, value) in the order written
    source: str  # as typed, braces included: what a problem quotes

    def arg(self, name: str, default: str | None = None) -> str | None:
        return dict(self.args).get(name, default)


class ExpressionError(ValueError):
    """A figure written so that it cannot be read: the message says where and why."""


def split(text: str) -> list[str | Expression]:
    """The text as literal parts and expressions, in order; ExpressionError for the first figure
    that cannot be read."""
    parts: list[str | Expression] = []
    at = found = 0
    while (start := text.find(OPEN, at)) != -1:
        end = text.find(CLOSE, start + len(OPEN))
        if end == -1:
            raise ExpressionError(
                f"{_quote(text[start:])} opens a figure with {{{{ but never closes it with }}}}"
            )
        if (found := found + 1) > MOST_PER_TEXT:
            raise ExpressionError(f"the text names more than {MOST_PER_TEXT} figures")
        source = text[start : end + len(CLOSE)]
        if len(source) > MOST_LENGTH:
            raise ExpressionError(
                f"{_quote(source)} is {len(source):,} characters; a figure has at most {MOST_LENGTH}"
            )
        parts.append(text[at:start])
        parts.append(_read(source))
        at = end + len(CLOSE)
    parts.append(text[at:])
    return [part for part in parts if part != ""]


def _read(source: str) -> Expression:
    inner = source[len(OPEN) : -len(CLOSE)]
    words = _words(inner, source)
    if not words or "=" in words[0][0] or words[0][1]:
        raise ExpressionError(f"{_quote(source)} does not start with a figure's name")
    name = words[0][0]
    if not set(name) <= _NAME_CHARS:
        raise ExpressionError(f"{_quote(source)}: a figure's name is lower-case letters and _")
    args: list[tuple[str, str]] = []
    for word, quoted in words[1:]:
        key, equals, value = word.partition("=")
        if quoted:  # a quoted value stands right after its name=
            key, equals, value = quoted
        if not equals or not key or not set(key) <= _ARG_CHARS:
            raise ExpressionError(
                f"{_quote(source)}: {_quote(word or value)} is not an argument (name=value)"
            )
        if key in dict(args):
            raise ExpressionError(f"{_quote(source)} gives {key} twice")
        args.append((key, value))
    return Expression(name, tuple(args), source)


def _words(inner: str, source: str) -> list[tuple[str, tuple[str, str, str] | None]]:
    """The expression's words: each either bare (``name`` or ``key=value``), or ``key="value"``
    read as (key, "=", value)."""
    words: list[tuple[str, tuple[str, str, str] | None]] = []
    at, n = 0, len(inner)
    while at < n:
        if inner[at].isspace():
            at += 1
            continue
        end = at
        while end < n and not inner[end].isspace() and inner[end] != '"':
            end += 1
        word = inner[at:end]
        if end < n and inner[end] == '"':
            close = inner.find('"', end + 1)
            if close == -1 or not word.endswith("="):
                raise ExpressionError(f'{_quote(source)}: a quoted value follows name= and ends with "')
            words.append(("", (word[:-1], "=", inner[end + 1 : close])))
            at = close + 1
            if at < n and not inner[at].isspace():
                raise ExpressionError(f"{_quote(source)}: put a space after a quoted value")
            continue
        if "{" in word or "}" in word:
            raise ExpressionError(f"{_quote(source)}: a figure holds no other braces")
        words.append((word, None))
        at = end
    return words


def _quote(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def expressions(text: str) -> list[Expression]:
    """Only the expressions of ``text`` (ExpressionError as ``split``)."""
    return [part for part in split(text) if isinstance(part, Expression)]
