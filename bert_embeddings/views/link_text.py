"""How a link's text becomes a setting's value, and back: the readers each setting in
bert_embeddings/figures/settings.py names (raising ValueError with the reason a link is refused) and their
writers. Every reader checks a size limit before any work."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bert_embeddings import limits
from bert_embeddings.analysis import geometry, patterns
from bert_embeddings.errors import ExplorerError, OutOfRangeError
from bert_embeddings.models import checkpoints

MOST_DIMENSIONS = 99_999  # far above any model's width; the page checks the model's own


def whole_number(low: int, high: int | None, label: str) -> Callable[[str], float]:
    """A whole number in a link, as the float its number box holds: read by the very check the
    notebook API and the command line use (limits.whole_number), with its message."""

    def read(text: str) -> float:
        try:
            return float(limits.whole_number(text, label, low, high))
        except OutOfRangeError as problem:
            raise ValueError(str(problem)) from None

    read.within = (low, high)  # what it accepts, for the tests of every such setting
    return read


def integer(low: int, high: int | None, label: str) -> Callable[[str], int]:
    """A whole number for a select box, a radio or a slider, which hold ints."""
    whole = whole_number(low, high, label)

    def read(text: str) -> int:
        return int(whole(text))

    read.within = whole.within
    return read


def removed(text: str) -> int:
    """D, by the check the notebook API and the command line's --d use."""
    try:
        return geometry.check_d(text)
    except OutOfRangeError as problem:
        raise ValueError(str(problem)) from None


def whole_text(value: object) -> str:
    return str(int(value))


def one_of(codes: dict[str, object]) -> Callable[[str], object]:
    def read(text: str) -> object:
        if text not in codes:
            raise ValueError("one of " + ", ".join(codes))
        return codes[text]

    read.codes = codes  # what it accepts, for the tests of every such setting
    return read


def code_of(codes: dict[str, object]) -> Callable[[object], str]:
    names = {value: code for code, value in codes.items()}
    return lambda value: names[value]


def several_of(codes: dict[str, object], what: str) -> Callable[[str], list]:
    """Some of ``codes``' values by code, separated by commas ("" for none), each at most once;
    ``what``: one value, as the reason names it."""
    one = one_of(codes)

    def read(text: str) -> list:
        if len(text) > len(",".join(codes)):
            raise ValueError(f"longer than every {what} once")
        values = [one(code) for code in text.split(",")] if text else []
        if len(set(values)) < len(values):
            raise ValueError(f"a {what} is named twice")
        return values

    return read


def codes_of(codes: dict[str, object]) -> Callable[[list], str]:
    names = {value: code for code, value in codes.items()}
    return lambda values: ",".join(names[value] for value in values)


def text_of(limit: limits.Limit) -> Callable[[str], str]:
    def read(text: str) -> str:
        if len(text) > limit.most:
            raise ValueError(f"longer than {limit.most:,} characters")
        return text

    return read


def span(text: str) -> tuple[int, int]:
    """A range of dimensions, "first-last" in the digits 0-9 (a range slider's two ends)."""
    if len(text) > 2 * len(str(MOST_DIMENSIONS)) + 1:
        raise ValueError("not a range of dimensions written as first-last, e.g. 0-383")
    first, dash, last = text.partition("-")
    if not dash:
        raise ValueError("not a range of dimensions written as first-last, e.g. 0-383")
    span = (limits.whole_number_text(first), limits.whole_number_text(last))
    if span[0] > span[1]:
        raise ValueError("the first dimension is after the last")
    if span[1] > MOST_DIMENSIONS:
        raise ValueError(f"beyond dimension {MOST_DIMENSIONS:,}")
    return span


def span_text(span: tuple[int, int]) -> str:
    return f"{int(span[0])}-{int(span[1])}"


@dataclass(frozen=True)
class Span:
    """The (first, last) pairs a range slider from ``low`` to ``high`` offers: whether a span read
    from a link fits the model in use."""

    low: int
    high: int

    def __contains__(self, value: object) -> bool:
        return (
            isinstance(value, tuple)
            and len(value) == 2
            and all(isinstance(end, int) for end in value)
            and self.low <= value[0] <= value[1] <= self.high
        )


def listed_model(text: str) -> str:
    """A model the app lists by name (never any other name, nor a folder a host did not list)."""
    text_of(limits.MODEL_ID)(text)
    if text not in checkpoints.listed_specs():
        raise ValueError("not one of the models this app lists")
    return text


def listed_model_or(word: str) -> Callable[[str], str]:
    """A listed model, or ``word`` (a picker's option that names no model of its own)."""
    return lambda text: text if text == word else listed_model(text)


def hub_id(text: str) -> str:
    """A Hugging Face Hub id, never a folder on the server ("" for none)."""
    text_of(limits.MODEL_ID)(text)
    if text and not checkpoints.is_hub_id(text):
        raise ValueError("not a Hugging Face Hub id (a link never names a folder on the server)")
    return text


def pattern(text: str) -> str:
    try:
        patterns.compile_pattern(text)
    except ExplorerError as problem:
        raise ValueError(str(problem)) from None
    return text


MOST_LAYERS = 999  # far above any model's depth; the page checks the model's own


LAST_LAYER = "last"  # a stage a view names for any model: whichever model's last layer


def stage(text: str) -> str:
    """A model's stage: ``token``, ``output``, a layer number (the page checks the model has it), or
    ``last``, the model's last layer whichever model it is (a lesson's view names it so)."""
    if len(text) > len("output"):
        raise ValueError("not a stage: token, output, last or a layer number")
    if text in ("token", "output", LAST_LAYER):
        return text
    try:  # a layer as a link writes it: by the one check of whole numbers, and no leading 0
        if str(limits.whole_number(text, "A layer", 1, MOST_LAYERS)) == text:
            return text
    except OutOfRangeError:
        pass
    raise ValueError("not a stage: token, output, last or a layer number")
