"""How much of each input the explorer accepts, checked before any work starts.

One server process serves everyone on a hosted instance, so no single input may cost it more
than a moment. Every limit is listed here once; docs/configuration.md's "Limits" section shows the same
table (a test compares the two), and every check raises ``InputTooLongError`` with a message
that names the limit, so the page can say exactly what was too much. How deep a file nests is
counted here (``nesting``) and said by its reader's own error (a lesson's, a room's, a model's).
"""

from __future__ import annotations

import bisect
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass

from bert_embeddings.errors import InputTooLongError, NotTextError, OutOfRangeError


@dataclass(frozen=True)
class Limit:
    """One documented limit: what it applies to, how much, and in which unit."""

    what: str
    most: int
    unit: str

    def check(self, label: str, count: int) -> None:
        """Raise a message naming the limit when ``count`` is over it."""
        if count > self.most:
            raise InputTooLongError(
                f"{label} has {count:,} {self.unit}; the explorer accepts at most {self.most:,}."
            )

    def check_text(self, label: str, text: str | None) -> str:
        """A text (None counts as empty) checked against the limit (characters); returns it.
        Anything but text gets a message, never a TypeError from deep inside."""
        text = "" if text is None else text
        if not isinstance(text, str):
            raise NotTextError(f"{label} must be text, not {type(text).__name__} {str(text)[:40]}.")
        self.check(label, len(text))
        return text


# BERT reads at most 512 pieces (about 2,500 characters of English); four times that leaves
# room to see truncation at work, while tokenizing stays far below a millisecond per page.
SENTENCE = Limit("Sentence A, sentence B, and the Context page's two sentences", 10_000, "characters")
# A word or piece to search for, or to follow through the layers.
WORD = Limit("A word or piece (Neighbours, Compare, Context, Axes)", 100, "characters")
ARITHMETIC = Limit("Vector arithmetic, whole expression", 300, "characters")
ARITHMETIC_TERMS = Limit("Vector arithmetic, words added or subtracted", 10, "words")
# Patterns run on RE2 (linear in the text), so their length only bounds compile time and memory.
PATTERN = Limit("A pattern (Neighbours filters, map highlight)", 200, "characters")
# Hub ids are at most 96 characters per part; folder paths on a server are rarely longer.
MODEL_ID = Limit("A model: Hub id or folder", 300, "characters")
# The toy space draws one arrow and one matrix row and column per item.
TOY_ITEMS = Limit("Concepts page, items", 40, "items")
TOY_TEXT = Limit("Concepts page, whole text", 4_000, "characters")
TOY_NAME = Limit("Concepts page, one item's or dimension's name", 40, "characters")
NEIGHBOURS = Limit("Neighbours shown (k)", 100, "neighbours")
# The Axes page: each box (an axis end, the words to place) is a list of words. Every word
# is one table lookup; the words' cosine matrix and the chart grow with their square.
AXIS_TEXT = Limit("Axes page, one box (an axis end, the words to place)", 2_000, "characters")
AXIS_END_WORDS = Limit("Axes page, words at one end of an axis", 10, "words")
AXIS_WORDS = Limit("Axes page, words to place", 60, "words")
# WEAT: each group one box of words; its exact test enumerates the partitions of both targets.
WEAT_WORDS = Limit("WEAT, words in one group", 30, "words")
# A lesson may come from a stranger (an upload, a room): read whole only once it is small.
LESSON_FILE = Limit("A lesson file", 200_000, "bytes")
LESSON_STEPS = Limit("A lesson, steps", 40, "steps")
LESSON_TEXT = Limit("A lesson step's text, question, answer or notes", 3_000, "characters")
LESSON_TITLE = Limit("A lesson's or a step's title, or its summary", 200, "characters")
# Python's tomllib and json recurse once per array or table, so a few kB of '[' exhaust the
# interpreter's stack (RecursionError) inside the parser, before any check after it can speak:
# how deep a file nests is counted first (``nesting``). A lesson nests 3 levels (the steps, a
# step, its view); a room's view 1 (one object of texts); a model's config.json 2 or 3.
LESSON_DEPTH = Limit("A lesson file", 10, "levels of nesting")
MODEL_CONFIG_DEPTH = Limit("A model's config.json (from the Hub, or a folder)", 20, "levels of nesting")
# A room's view is written by the app, but read from a store others may write to (a Redis shared
# by mistake, a damaged file). The app writes a few hundred kB at most: a lesson file of
# 200,000 bytes, as JSON.
VIEW_SIZE = Limit("A room's view, as its store keeps it", 4_000_000, "characters")
VIEW_DEPTH = Limit("A room's view, as its store keeps it", 4, "levels of nesting")

ALL = (
    SENTENCE,
    WORD,
    ARITHMETIC,
    ARITHMETIC_TERMS,
    PATTERN,
    MODEL_ID,
    TOY_ITEMS,
    TOY_TEXT,
    TOY_NAME,
    NEIGHBOURS,
    AXIS_TEXT,
    AXIS_END_WORDS,
    AXIS_WORDS,
    WEAT_WORDS,
    LESSON_FILE,
    LESSON_STEPS,
    LESSON_TEXT,
    LESSON_TITLE,
    LESSON_DEPTH,
    VIEW_SIZE,
    VIEW_DEPTH,
    MODEL_CONFIG_DEPTH,
)

# Text boxes get no max_chars: Streamlit's box drops a longer paste whole and says nothing,
# where a paste over a limit must reach the server and get a message naming the limit. What
# a browser can send at all is bounded by Streamlit, which closes a connection whose widget
# state exceeds 25 MB (server.maxWidgetStateSize).


_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$")


def is_hub_id(spec: str) -> bool:
    """Whether ``spec`` is written like a Hub repository id (``name`` or ``owner/name``)."""
    return len(spec) <= MODEL_ID.most and bool(_HUB_ID.match(spec)) and ".." not in spec


# A whole number in text: ASCII digits, a minus sign before them for a negative number.
_WHOLE_NUMBER_TEXT = re.compile(r"-?[0-9]+")
MOST_DIGITS = 18  # more than any count or index the explorer has could need


class TooManyDigitsError(ValueError):
    """A whole number written correctly, with more digits than any count or index the explorer
    has: a number out of range, not a badly written one."""

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))
        self.negative = text.startswith("-")
        # Read whole only when short enough to be read at a glance (int() of a long text is slow).
        self.shown = f"{int(text):,}" if self.digits <= 30 else f"a number of {self.digits:,} digits"
        super().__init__(f"{self.shown} has more than {MOST_DIGITS} digits, more than any setting takes")


def whole_number_text(text: str) -> int:
    """A whole number written as text (in a link), as the explorer writes it: digits 0-9 only,
    with a minus sign for a negative number. Raises ValueError otherwise.

    Python's own int() is not the check: it also reads '1_0' as 10, ' 1' and '+1' as 1, and
    digits of other scripts ('１', '١') as theirs, none of which a link the explorer writes
    holds; a link with them is someone's typing, and it is named, not guessed at. '1e1' and
    '1.0' are refused too: a link writes whole numbers without exponent or decimal point.
    Plain digits, however many, are a number: more than MOST_DIGITS of them raise
    TooManyDigitsError, so that the message says the number is too big, not badly written.
    """
    if not _WHOLE_NUMBER_TEXT.fullmatch(text):
        raise ValueError("not a whole number written in the digits 0-9")
    if len(text) > MOST_DIGITS + text.startswith("-"):
        raise TooManyDigitsError(text)
    return int(text)


def whole_number(value: float | str, label: str, low: int, high: int | None) -> int:
    """A number typed in a box, given to the notebook API or read from a link or the command line,
    as an int, or a message: it must be whole and within range (``high`` None: no upper end). The
    one check for every whole number the explorer is given, so that each place says the same
    about the same value.

    Number boxes send floats, so that 1.5 arrives as 1.5 (and 1e3 as 1000) instead of being
    cut to a whole number unseen; infinities and NaN get the same message as any non-whole.
    Text is read by whole_number_text, never by float() (which reads '1_0' as 10). True, None
    and anything else that is not a number are refused, never read as 1 or 0.
    """
    span = _span(low, high)
    if isinstance(value, bool) or not isinstance(value, numbers.Real | str):
        raise OutOfRangeError(f"{label} must be a whole number {span}; {repr(value)[:40]} is not.")
    if isinstance(value, str):
        try:
            value = whole_number_text(value)
        except TooManyDigitsError as big:
            if high is None and not big.negative:
                raise OutOfRangeError(
                    f"{label} must be a whole number {span} with at most {MOST_DIGITS} digits; "
                    f"{big.shown} is beyond that."
                ) from None
            raise OutOfRangeError(f"{label} must be {span}; {big.shown} is outside.") from None
        except ValueError:
            raise OutOfRangeError(f"{label} must be {_takes(low, high)}; {value[:40]!r} is not.") from None
    if not isinstance(value, int) and not (float(value) == float(value) and float(value).is_integer()):
        raise OutOfRangeError(f"{label} must be a whole number {span}; {value:g} is not.")
    number = int(value)
    if number < low or (high is not None and number > high):
        raise OutOfRangeError(f"{label} must be {span}; {_plainly(value, number)} is outside.")
    return number


def whole_number_reader(low: int, high: int | None) -> Callable[[str], int]:
    """whole_number's check of a text, for a place that words the sentence around what it takes
    itself (a host's setting: "... but it takes <this>"; a lesson figure's argument: "k='0' is
    not <this>"): the text as an int, or ValueError saying what is taken."""

    def read(text: str) -> int:
        try:
            return whole_number(text, "", low, high)
        except OutOfRangeError:
            raise ValueError(_takes(low, high)) from None

    return read


def _span(low: int, high: int | None) -> str:
    return f"from {low:,} to {high:,}" if high is not None else f"of at least {low:,}"


def _takes(low: int, high: int | None) -> str:
    return f"a whole number {_span(low, high)}, in the digits 0-9"


def _plainly(value: float | str, number: int) -> str:
    """An out-of-range whole number in digits as it was given: 10**23 as
    100,000,000,000,000,000,000,000, never 1e+23; a float from 10**15 on as Python writes it
    (1e+23: its digits past the 17th are not the ones typed); a number too long to read whole by
    its count of digits."""
    if not isinstance(value, numbers.Integral) and abs(number) >= 10**15:
        return f"{float(value):g}"
    digits = len(str(abs(number)))
    return f"{number:,}" if digits <= 30 else f"a number of {digits:,} digits"


def nesting(text: str, syntax: str) -> int:
    """How deep ``text`` nests: arrays and tables in TOML (the file's own top table not counted),
    arrays and objects in JSON (the outermost counted). One pass, linear in the text, knowing
    just enough of each format not to be fooled: brackets inside strings and comments do not
    count, and TOML's dotted keys (``a.b.c = 1``, ``[a.b.c]``) count the tables they make. For
    text its parser refuses, the count holds up to the parser's first complaint, where the
    parser stops."""
    if syntax == "json":
        return _json_nesting(text)
    if syntax == "toml":
        return _toml_nesting(text)
    raise ValueError(f"no nesting count for {syntax!r}")


_JSON_MARKS = re.compile(r'[\[\]{}"]')
_JSON_IN_STRING = re.compile(r'\\.|"', re.DOTALL)  # an escaped character, or the string's end


def _json_nesting(text: str) -> int:
    deepest = depth = at = 0
    while mark := _JSON_MARKS.search(text, at):
        at = mark.end()
        if mark.group() == '"':
            while (inside := _JSON_IN_STRING.search(text, at)) and inside.group() != '"':
                at = inside.end()
            at = inside.end() if inside else len(text)
        elif mark.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest


_TOML_MARKS = re.compile(r"[\[\]{}\"'#.=,\n]")
# Inside each kind of TOML string: what may end it (a one-line string ends at the line's end
# too, where tomllib stops reading it), and in basic strings an escaped character.
_TOML_STRING_ENDS = {
    '"': re.compile(r'\\.|["\n]', re.DOTALL),
    '"""': re.compile(r'\\.|"""', re.DOTALL),
    "'": re.compile(r"['\n]"),
    "'''": re.compile(r"'''"),
}


def _toml_string_end(text: str, start: int) -> int:
    """Where the string that opens at ``start`` ends: after its closing quotes, at the line's end
    for a one-line string that has none (tomllib stops there), or at the text's end."""
    quote = text[start]
    close = quote * 3 if text.startswith(quote * 3, start) else quote
    at = start + len(close)
    while (end := _TOML_STRING_ENDS[close].search(text, at)) and end.group().startswith("\\"):
        at = end.end()
    if end is None or end.group() == "\n":
        return len(text) if end is None else end.start()
    at = end.end()
    if len(close) == 3:  # a multi-line string's last three quotes close it: ''''' holds ''
        for _ in range(2):
            at += text.startswith(quote, at)
    return at


def _toml_nesting(text: str) -> int:
    deepest = depth = base = at = 0
    opened: list[tuple[str, int]] = []  # each open '[' or '{' with the depth around it
    key = True  # reading a key: at a line's start, in a [header], after '{' or an inline table's ','
    header = 0  # 1 in a [table] header, 2 in an [[array of tables]] header
    # How many keys each [[array of tables]] header names. [a.b] lies in a's array only if an
    # [[a]] came before it: one more level for each shorter such header, counted without reading
    # the keys' names (so never too few, and exact when those arrays lie on its path).
    arrays: list[int] = []
    while mark := _TOML_MARKS.search(text, at):
        c, at = mark.group(), mark.end()
        if c in "\"'":
            at = _toml_string_end(text, mark.start())
        elif c == "#":  # a comment runs to the line's end
            newline = text.find("\n", at)
            at = len(text) if newline < 0 else newline
        elif c == "\n":
            if not opened:
                depth, key, header = base, True, 0
        elif c == "." and key:
            depth += 1  # a dotted key: one more table
        elif c == "=" and key and not header:
            key = False
        elif c == "[" and key and not opened and not header:
            header = 1 + text.startswith("[", at)
            at += header - 1
            depth = header  # [a] is one table; [[a]] an array, and a table in it
        elif c == "]" and header:
            keys = depth - header + 1
            shorter = bisect.bisect_left(arrays, keys)
            if header == 2 and arrays[shorter : shorter + 1] != [keys]:
                arrays.insert(shorter, keys)
            depth += shorter
            base, key, header = depth, False, 0
        elif c in "[{":
            opened.append((c, depth))
            depth, key = depth + 1, c == "{"
        elif c in "]}" and opened:
            depth, key = opened.pop()[1], False
        elif c == "," and opened and opened[-1][0] == "{":
            depth, key = opened[-1][1] + 1, True
        deepest = max(deepest, depth)
    return deepest
