"""How bert_embeddings/config.py reads each kind of value a host writes: a reader takes the text
and returns the value, or raises ValueError saying what it accepts (config.py words the rest:
the variable, what was given, what the app does instead). Pure functions of the text and of
the files a path names; nothing here reads the environment.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from pathlib import Path

from bert_embeddings import limits

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")

_TRUE = {"1", "on", "yes", "true"}
_FALSE = {"0", "off", "no", "false"}
SWITCH_WORDS = "1, on, yes or true; 0, off, no or false"
_DECIMAL = re.compile(r"[0-9]{1,9}(\.[0-9]{1,6})?")
_SQLITE_HEADER = b"SQLite format 3\x00"


def switch(text: str) -> bool:
    word = text.lower()
    if word not in _TRUE | _FALSE:
        raise ValueError(SWITCH_WORDS)
    return word in _TRUE


whole = limits.whole_number_reader  # the links' and the notebook API's check (config strips the text)


def one_of(*words: str) -> Callable[[str], str]:
    def read(text: str) -> str:
        if text.lower() not in words:
            raise ValueError(" or ".join(words))
        return text.lower()

    return read


def megabytes(text: str) -> int:
    """MB as a positive number (a decimal point allowed), as bytes."""
    if not _DECIMAL.fullmatch(text) or float(text) <= 0:
        raise ValueError("a number of megabytes above 0, such as 1500 or 0.5")
    return int(float(text) * 1e6)


def folder(text: str) -> Path:
    """A folder the explorer writes to: absolute, so that it never depends on the working folder
    (whether it can be written is found when it is used, with a message then)."""
    path = Path(text)
    if not path.is_absolute():
        raise ValueError("an absolute path to a folder (starting with /)")
    return path


def existing_folder(text: str) -> Path:
    path = folder(text)
    if not path.is_dir():
        raise ValueError("an absolute path to a folder that exists")
    return path


def file(text: str) -> Path:
    path = Path(text)
    if not path.is_absolute() or path.is_dir():
        raise ValueError("an absolute path to a file (starting with /)")
    return path


def model(text: str) -> str:
    if text.lower() == "bundled" or text.startswith("/") or limits.is_hub_id(text):
        return text
    raise ValueError("a Hub id such as bert-base-uncased, an absolute folder path, or bundled")


def revision(text: str) -> str:
    if len(text) > 200 or any(c.isspace() for c in text):
        raise ValueError("a Hub branch, tag or commit: at most 200 characters, no spaces")
    return text


def jobs(text: str) -> str:
    """``local``, or the Redis URL of a job queue."""
    if text.lower() == "local":
        return "local"
    if text.startswith(REDIS_SCHEMES):
        return text
    raise ValueError("local, or a redis://, rediss:// or unix:// URL")


def rooms(text: str) -> str:
    """A Redis URL, or an absolute path to a SQLite file: one that exists must be a database."""
    if text.startswith(REDIS_SCHEMES):
        return text
    accepts = "a redis://, rediss:// or unix:// URL, or an absolute path to a SQLite file"
    path = Path(text)
    if "://" in text or not path.is_absolute():
        raise ValueError(accepts)
    if path.is_dir():
        raise ValueError(accepts + " (this path is a folder)")
    if path.is_file():
        try:
            with open(path, "rb") as handle:
                head = handle.read(len(_SQLITE_HEADER))
        except OSError as problem:
            raise ValueError(f"{accepts} this server can read ({problem.strerror})") from None
        if head and head != _SQLITE_HEADER:
            raise ValueError(accepts + " (this file is not a SQLite database)")
    return text


def networks(text: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """Addresses or networks, separated by commas (127.0.0.1, 10.0.0.0/8, ::1)."""
    try:
        return tuple(ipaddress.ip_network(part.strip()) for part in text.split(",") if part.strip())
    except ValueError:
        raise ValueError("IP addresses or networks separated by commas, e.g. 127.0.0.1, 10.0.0.0/8") from None


def text(text: str) -> str:
    return text
