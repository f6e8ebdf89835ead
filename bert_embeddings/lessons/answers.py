"""A question that takes an answer: its key, as a lesson file gives it, the truth the key holds for
the model on screen, an answer read as a person typed or chose it, and the verdict.

A key is one of three kinds, each a table ``[step.key]`` under its step:

    choices = ["meaning", "spelling", "both"]      # one of the lesson's choices
    right = "both"                                  # (or several: right = ["a", "b"])

    pieces = "{{neighbours word=dog k=10}}"         # a piece of the vocabulary: right if it is in
                                                    # this list, and told its place in it

    number = "{{stage_cosine stage=last}}"          # a number: right within ``within`` of it
    within = 0.05

A right answer may be written as it is or as a figure (lessons.figures), computed for the model
on screen, so that a key holds for any model; a figure this model cannot give leaves the question
without a key there (the answer shows on request, as for a question without one). Nothing here
touches Streamlit or a store: the bar, a room's tally and the handout read the same verdicts.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bert_embeddings import limits
from bert_embeddings.errors import ExplorerError
from bert_embeddings.lessons import expressions, figure_kit, figures, text

CHOICE, PIECE, NUMBER = "choice", "piece", "number"
KEY_FIELDS = ("choices", "right", "pieces", "number", "within")
MOST_CHOICES = 8
MOST_CHOICE_LENGTH = 100  # characters: a choice is a button
MOST_NUMBER_LENGTH = 40  # characters of a number typed
# A number with a decimal point: digits with an optional point and exponent, a sign before. The
# patterns below run on at most MOST_NUMBER_LENGTH characters, each in one pass.
_EXPONENT = r"(?:[eE][+-]?[0-9]{1,3})?"
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)" + _EXPONENT)
# Commas between groups of three, as in 1,234,567.5: the first group never starts with 0.
_GROUPED = re.compile(r"[+-]?[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]*)?" + _EXPONENT)
# One decimal comma, as half the world writes: 0,63 and 6,0 and ,5.
_DECIMAL_COMMA = re.compile(r"[+-]?(?:[0-9]+,[0-9]*|,[0-9]+)" + _EXPONENT)
_SAY_NUMBER = "The question takes a number, such as 0.25, 12 or -3.5 (a decimal comma, 0,25, is fine too)."


class AnswerError(ExplorerError):
    """An answer that cannot be taken: the message says what the question takes."""


@dataclass(frozen=True)
class Key:
    """A question's key as the lesson file gives it (its right answers as written, figures
    unread)."""

    kind: str  # CHOICE, PIECE or NUMBER
    choices: tuple[str, ...] = ()
    right: tuple[str, ...] = ()  # CHOICE: the right choices; PIECE, NUMBER: one text
    within: float = 0.0  # NUMBER: how far from the truth an answer is still right

    def as_table(self) -> dict[str, object]:
        """The key as the file writes it (lesson.write)."""
        if self.kind == CHOICE:
            right = self.right[0] if len(self.right) == 1 else list(self.right)
            return {"choices": list(self.choices), "right": right}
        if self.kind == PIECE:
            return {"pieces": self.right[0]}
        return {"number": self.right[0], "within": self.within}


@dataclass(frozen=True)
class Truth:
    """A key for the model on screen: the right choices, the pieces nearest first, or the number."""

    kind: str
    right: tuple[str, ...] = ()
    number: float = 0.0
    within: float = 0.0


@dataclass(frozen=True)
class Verdict:
    right: bool
    said: str  # one sentence: right or not, and by how much


# --- the key, read from a lesson file -----------------------------------------------------------


def read_key(where: str, found: object, problems: list[str]) -> Key | None:
    """A step's ``key`` table, checked; each problem named with ``where``; None if it is wrong."""
    if not isinstance(found, dict):
        problems.append(f"{where}: a table of choices and right, pieces, or number and within")
        return None
    before = len(problems)
    for name in found:
        if name not in KEY_FIELDS:
            problems.append(f"{where}: '{str(name)[:40]}' is not part of a key ({', '.join(KEY_FIELDS)})")
    kinds = [name for name in ("choices", "pieces", "number") if name in found]
    if len(kinds) != 1:
        problems.append(f"{where}: a key has one of choices, pieces or number ({len(kinds)} given)")
        return None
    kind = {"choices": CHOICE, "pieces": PIECE, "number": NUMBER}[kinds[0]]
    key = {CHOICE: _choice_key, PIECE: _piece_key, NUMBER: _number_key}[kind](where, found, problems)
    return key if len(problems) == before else None


def _texts(where: str, value: object, problems: list[str], most: int) -> tuple[str, ...]:
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, str) and v.strip() for v in values):
        problems.append(f"{where} must be text, or a list of texts, none empty")
        return ()
    for v in values:
        if len(v) > most:
            problems.append(f"{where}: {len(v):,} characters; at most {most:,}")
        problems.extend(f"{where}: {problem}" for problem in figures.problems(v))
    return tuple(values)


def _choice_key(where: str, found: dict, problems: list[str]) -> Key:
    choices = _texts(f"{where}, choices", found["choices"], problems, MOST_CHOICE_LENGTH)
    if not isinstance(found["choices"], list):
        problems.append(f"{where}, choices: a list of the choices")
    if len(choices) > MOST_CHOICES:
        problems.append(f"{where}, choices: {len(choices)} given; at most {MOST_CHOICES}")
    if len({c.strip().casefold() for c in choices}) != len(choices):
        problems.append(f"{where}, choices: two choices are the same")
    if "right" not in found:
        problems.append(f"{where}: the choices have no right one (right = ...)")
        return Key(CHOICE, choices)
    right = _texts(f"{where}, right", found["right"], problems, MOST_CHOICE_LENGTH)
    for given in right:
        if expressions.OPEN not in given and _choice_of(given, choices) is None:
            problems.append(f"{where}, right: '{given[:40]}' is not one of the choices")
    return Key(CHOICE, choices, right)


def _piece_key(where: str, found: dict, problems: list[str]) -> Key:
    if "right" in found or "within" in found:
        problems.append(f"{where}: pieces takes no right or within (the list is the right answers)")
    right = _texts(f"{where}, pieces", found["pieces"], problems, limits.LESSON_TEXT.most)
    if len(right) != 1:
        problems.append(f"{where}, pieces: one text, a figure that lists pieces or the pieces as `code`")
    return Key(PIECE, right=right[:1])


def _number_key(where: str, found: dict, problems: list[str]) -> Key:
    if "right" in found or "choices" in found:
        problems.append(f"{where}: number takes within, not right or choices")
    given = found["number"]
    if isinstance(given, bool) or not isinstance(given, int | float | str):
        problems.append(f"{where}, number: a number, or a figure that gives one")
        return Key(NUMBER, right=("0",))
    given = as_text(given)
    if expressions.OPEN not in given and _number_in(given) is None:
        problems.append(f"{where}, number: '{given[:40]}' is not a number")
    problems.extend(f"{where}, number: {problem}" for problem in figures.problems(given))
    within = found.get("within", 0)
    if isinstance(within, bool) or not isinstance(within, int | float) or not 0 <= within < math.inf:
        problems.append(f"{where}, within: a number, 0 or more (how far from it an answer is still right)")
        within = 0
    return Key(NUMBER, right=(given,), within=float(within))


def as_text(given: str | float) -> str:
    """An answer or a key's number as text: a choice's or piece's own, a number in full."""
    if isinstance(given, str):
        return given
    return str(int(given)) if isinstance(given, int) else repr(float(given))


# --- the truth for the model on screen ---------------------------------------------------------


def truth(key: Key, render: Callable[[str], figures.Rendered]) -> Truth | figures.Missing:
    """The key's right answers for the model ``render`` computes figures for (figures.render of a
    text); Missing, with the figure's reason, where this model cannot give them."""
    shown = [_spans(render(given)) for given in key.right]
    for spans in shown:
        if missing := _missing(spans):
            return missing
    if key.kind == CHOICE:
        right = []
        for spans in shown:
            found = _choice_of("".join(span.text for span in spans), key.choices)
            if found is None:
                said = "".join(span.text for span in spans)[:60]
                return figures.Missing(
                    f"the right choice comes out as “{said}”, which is not one of the choices"
                )
            right.append(found)
        return Truth(CHOICE, tuple(dict.fromkeys(right)))
    (spans,) = shown
    if key.kind == PIECE:
        pieces = tuple(span.text for span in spans if span.kind == text.CODE)
        if not pieces:
            return figures.Missing("the key lists no pieces here")
        return Truth(PIECE, pieces)
    value = _number_in("".join(span.text for span in spans))
    if value is None:
        return figures.Missing("the key gives no number here")
    return Truth(NUMBER, number=value, within=key.within)


def _spans(found: figures.Rendered) -> list[text.Span]:
    return [span for paragraph in found.paragraphs for span in paragraph]


def _missing(spans: Sequence[text.Span]) -> figures.Missing | None:
    """A figure that could not be given shows as its reason in italics and parentheses."""
    for span in spans:
        if span.kind == text.ITALIC and span.text.startswith("(") and span.text.endswith(")"):
            pending = span.text == f"({figure_kit.PENDING})"
            return figures.Missing(span.text[1:-1], pending)
    return None


def _choice_of(given: str, choices: Sequence[str]) -> str | None:
    wanted = given.strip().strip("`").strip().casefold()
    return next((choice for choice in choices if choice.strip().casefold() == wanted), None)


def _number_in(written: str) -> float | None:
    """The number a figure's text is, as lessons.figures writes one (commas between thousands,
    and a trailing % read as the number before it); None for any other text."""
    if len(written) > 2 * MOST_NUMBER_LENGTH:  # (checked before any work on the text)
        return None
    bare = written.strip().replace(",", "").removesuffix("%").strip()
    if len(bare) > MOST_NUMBER_LENGTH or not _NUMBER.fullmatch(bare):
        return None
    value = float(bare)
    return value if math.isfinite(value) else None


def typed_number(written: str) -> float:
    """The number a person typed, read as they meant it or refused with the reason (AnswerError).

    A point is a decimal point; so is a single comma (0,63 is 0.63, 6,0 is 6), unless the comma
    could as well separate thousands (1,234: 1234 or 1.234?), which is refused as ambiguous.
    Commas between every group of three are thousands when a point follows or there are several
    (1,234.5; 1,234,567). A percent sign is refused: whether 45% means 45 or 0.45 depends on the
    question, so the person writes the number the question asks for."""
    bare = written.strip()
    if len(bare) > MOST_NUMBER_LENGTH:  # (checked before any work on the text)
        raise AnswerError(f"A number has at most {MOST_NUMBER_LENGTH} characters. {_SAY_NUMBER}")
    shown = f"“{bare}”"
    if "%" in bare:
        raise AnswerError(
            f"{shown}: type the number alone, without the % sign (0.45 for a share, or 45 if the "
            "question counts in percent)."
        )
    grouped, decimal = _GROUPED.fullmatch(bare), _DECIMAL_COMMA.fullmatch(bare)
    if grouped and decimal:
        whole, _, tail = bare.partition(",")
        raise AnswerError(
            f"{shown} could be {whole}{tail} or {whole}.{tail}: type it without the comma, or "
            f"with a point ({whole}.{tail})."
        )
    if grouped:
        bare = bare.replace(",", "")
    elif decimal:
        bare = bare.replace(",", ".")
    if not _NUMBER.fullmatch(bare):
        raise AnswerError(_SAY_NUMBER)
    value = float(bare)
    if not math.isfinite(value):
        raise AnswerError(f"{shown} is too large a number. {_SAY_NUMBER}")
    return value


# --- an answer, and its verdict -----------------------------------------------------------------


def read_answer(key: Key, given: object, is_piece: Callable[[str], str | None] | None = None) -> str | float:
    """What a person gave, as the question takes it: one of its choices, a piece of the vocabulary
    (``is_piece`` gives the piece a text names, or None), or a finite number. AnswerError says
    why not; nothing else is ever kept or shown."""
    if not isinstance(given, str | int | float) or isinstance(given, bool):
        raise AnswerError("An answer is a choice, a piece or a number.")
    given = as_text(given)
    if key.kind == CHOICE:
        found = _choice_of(given, key.choices) if len(given) <= MOST_CHOICE_LENGTH else None
        if found is None:
            raise AnswerError("That is not one of the question's choices.")
        return found
    if key.kind == NUMBER:
        return typed_number(given)
    limits.WORD.check_text("A piece", given)
    piece = is_piece(given.strip()) if is_piece is not None and given.strip() else None
    if piece is None:
        raise AnswerError(f"“{given.strip()[:40]}” is not one piece of this model's vocabulary.")
    return piece


def verdict(found: Truth, answer: str | float) -> Verdict:
    """Whether ``answer`` is right, and by how much: a number's distance, a piece's place in the
    list nearest first."""
    if found.kind == CHOICE:
        if answer in found.right:
            return Verdict(True, "Right.")
        return Verdict(False, f"Not this time: the answer is {figure_kit.listed(list(found.right))}.")
    if found.kind == PIECE:
        if answer in found.right:
            place = found.right.index(answer) + 1
            return Verdict(True, f"Right: {answer} is number {place} of the {len(found.right)}.")
        return Verdict(False, f"Not this time: {answer} is not among the {len(found.right)}.")
    away = abs(float(answer) - found.number)
    right = away <= found.within
    shown = written_number(found.number)
    if away == 0:
        return Verdict(True, f"Right: exactly {shown}.")
    tolerance = f", within {written_number(found.within)}" if right else ""
    head = "Right" if right else "Not this time"
    return Verdict(right, f"{head}: the answer is {shown}, {written_number(away)} away{tolerance}.")


def score_said(right: int, answered: int, keyed: int) -> str:
    """A learner's score: how many right of how many answered, of the lesson's ``keyed``
    questions that take an answer."""
    takes = "question in this lesson takes" if keyed == 1 else "questions in this lesson take"
    return f"Your answers: {right} right of {answered} answered ({keyed} {takes} one)."


def typed_text(value: float) -> str:
    """A person's number as they can recognise it: a whole one with its digits grouped (6,
    1,234), any other with the digits it was typed with (5.5, 0.63), not rounded to a figure's."""
    value = float(value)
    return written_number(value) if value.is_integer() else repr(value)


def written_number(value: float) -> str:
    """A number as the bar writes it: a whole one with its digits grouped (6, 1,234), any other as
    a lesson writes a figure (figure_kit.number)."""
    value = float(value)
    return f"{int(value):,}" if value.is_integer() and abs(value) < 1e15 else figure_kit.number(value)


# --- a learner's answers, kept by their browser -------------------------------------------------

KEPT_MOST = 3000  # characters: the text a browser keeps of a learner's answers (a cookie holds 4 kB)
_KEPT_NAME = re.compile(r"[a-z0-9_-]{1,40}")  # a built-in lesson's name, or file-<digest>
_KEPT_PART = re.compile(r"([0-9]{1,3})(?:-|:([A-Za-z0-9_-]{1,300}))")


def kept_text(name: str, given: dict[int, str | None]) -> str:
    """A learner's answers to lesson ``name`` (step from 0 -> the answer as text, None: skipped),
    as one line a cookie can hold: ``name.0:<base64>.3-``; as many steps as fit."""
    parts = [name]
    for number, answer in sorted(given.items()):
        coded = (
            "-" if answer is None else ":" + base64.urlsafe_b64encode(answer.encode()).decode().rstrip("=")
        )
        if sum(len(p) + 1 for p in parts) + len(coded) + 4 > KEPT_MOST:
            break
        parts.append(f"{number}{coded}")
    return ".".join(parts)


def read_kept(kept: str) -> tuple[str, dict[int, str | None]] | None:
    """The lesson name and answers ``kept_text`` wrote; None for any other text. What a browser
    sends is untrusted: its size is checked first, and each answer is read again as its question
    takes it before it counts (read_answer)."""
    if not kept or len(kept) > KEPT_MOST:
        return None
    name, *parts = kept.split(".")
    if not _KEPT_NAME.fullmatch(name):
        return None
    given: dict[int, str | None] = {}
    for part in parts:
        if (found := _KEPT_PART.fullmatch(part)) is None:
            return None
        coded = found.group(2)
        if coded is None:
            given[int(found.group(1))] = None
            continue
        try:
            given[int(found.group(1))] = base64.urlsafe_b64decode(coded + "=" * (-len(coded) % 4)).decode()
        except (binascii.Error, UnicodeDecodeError):
            return None
    return name, given
