"""A room's answers to a lesson's questions, as both stores keep them (room_sqlite.py,
room_redis.py): one answer per follower's browser (its ``voter`` id, which the app makes and the
browser keeps) per question, changeable until the room's leader reveals the question; and who is
here (the browsers that said so lately). What is kept is checked here first, so that nothing but
the app's own names, ids and short answers reaches a store shared by replicas.
"""

from __future__ import annotations

from bert_embeddings.rooms import RoomError

PRESENT_SECONDS = 90.0  # a follower whose page said it is here this recently follows now
MOST_VOTERS = 300  # answers one question counts: a flood of made-up ids is refused beyond
MOST_GIVEN = 120  # characters of an answer as kept: a choice's text, a piece, a number
_VOTER_CHARS, _QUESTION_CHARS = (
    frozenset("0123456789abcdef"),
    frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz:_-"),
)


def check_question(question: object) -> None:
    """RoomError unless ``question`` is named as the app names a lesson's question: at most 80
    letters, digits and ``:_-``."""
    if not isinstance(question, str) or not 0 < len(question) <= 80 or not set(question) <= _QUESTION_CHARS:
        raise RoomError("That is not one of this room's questions.")


def check_voter(voter: object) -> None:
    """RoomError unless ``voter`` is a browser's id as the app makes it: 32 hex digits."""
    if not isinstance(voter, str) or len(voter) != 32 or not set(voter) <= _VOTER_CHARS:
        raise RoomError("This browser's answers cannot be told apart: reload the page to answer.")


def check_answer(question: object, voter: object, given: object) -> None:
    """RoomError unless the question, the voter and the answer (a short text) are the app's."""
    check_question(question)
    check_voter(voter)
    if not isinstance(given, str) or not given.strip() or len(given) > MOST_GIVEN:
        raise RoomError(f"An answer is a choice, a piece or a number of at most {MOST_GIVEN} characters.")


def full() -> RoomError:
    return RoomError(f"This question has counted {MOST_VOTERS} answers, as many as a room counts.")


def revealed(code: str) -> RoomError:
    return RoomError(f"Room {code}'s leader has revealed this question's answer: it takes no more answers.")
