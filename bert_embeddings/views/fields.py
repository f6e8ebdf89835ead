"""A setting declared once, where its page declares its settings: a field of the page's frozen
dataclass carries its name in a link, its default, its reader (which says why a value is refused),
its writer and its label; the field's name makes its session key (the page's prefix and the name).
The settings every page shares (sentences A and B, the special tokens, the geometry) are rows of
their own, and a page that reads one declares a field that points to it (``shared``).

bert_embeddings/figures/settings.py builds the app's table of settings from these rows, so links,
rooms, lessons and handouts read and write a new field with no other edit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar, Self

from bert_embeddings import limits
from bert_embeddings.analysis import decompose, vocab_search
from bert_embeddings.analysis.geometry import GEOMETRIES
from bert_embeddings.views import link_text

_ROW = "setting"  # a dataclass field's metadata entry: its Setting


@dataclass(frozen=True)
class Setting:
    """One setting: its session key and default, its page, and (if a link carries it) how."""

    key: str
    default: object  # None: the widget's own, which depends on the model or sentence in use
    page: str | tuple[str, ...] | None  # the url_path of its page (or pages); None for the sidebar
    url: str | None = None  # its name in a link; None: links leave it out
    read: Callable[[str], object] | None = None  # link text -> value; ValueError with the reason
    write: Callable[[object], str] = str
    mode: str | None = None  # a neighbour query's input counts only in its own query mode
    # As people read it on its page, for sentences such as "k (...)" (a linked setting's).
    label: str = ""

    def on(self, page: str) -> bool:
        """Whether this setting is part of ``page``'s view."""
        return self.page is None or page == self.page or (isinstance(self.page, tuple) and page in self.page)


def coded(codes: dict[str, object]) -> tuple[Callable[[str], object], Callable[[object], str]]:
    """A choice's reader and writer in a link, by each option's code there."""
    return link_text.one_of(codes), link_text.code_of(codes)


FLAGS = coded({"1": True, "0": False})
STAGES = coded(dict(zip(("token", "position", "segment", "layernorm"), decompose.STAGES, strict=True)))

# --- the settings pages share ---------------------------------------------------------------------

SENTENCE_A_KEY, SENTENCE_B_KEY, SPECIAL_TOKENS_KEY = "sentence_a", "sentence_b", "special_tokens"
# The geometry vectors are compared in, one setting for every page that uses it.
GEOMETRY, GEOMETRY_REMOVED = "geometry", "geometry_removed"
GEOMETRY_PAGES = ("geometry", "neighbours", "axes", "maps", "moved")  # the pages it changes (url paths)
_SENTENCE = link_text.text_of(limits.SENTENCE)
SHARED = (
    # An empty sentence A is a view like any other (the pages say what is missing), so a link
    # may hold it: the address bar shows ?a= after A is cleared, and reopening it must work.
    Setting(
        SENTENCE_A_KEY, "The river bank flooded after the storm.", None, "a", _SENTENCE, label="sentence A"
    ),
    Setting(
        SENTENCE_B_KEY, "Tokenizers split embeddings into pieces.", None, "b", _SENTENCE, label="sentence B"
    ),
    Setting(SPECIAL_TOKENS_KEY, True, None, "special", *FLAGS, label="the special tokens switch"),
)
GEOMETRY_SHARED = (
    Setting(
        GEOMETRY,
        GEOMETRIES[0],
        GEOMETRY_PAGES,
        "geometry",
        *coded(dict(zip(("raw", "centred", "abtt", "standardised"), GEOMETRIES, strict=True))),
        label="the geometry",
    ),
    # None: about the model's width / 100 (the page works it out, and links leave it out).
    Setting(
        GEOMETRY_REMOVED,
        None,
        GEOMETRY_PAGES,
        "d",
        link_text.removed,
        label="the directions all-but-the-top removes",
    ),
)
_SHARED_BY_KEY = {row.key: row for row in (*SHARED, *GEOMETRY_SHARED)}

# --- a page's own settings ---------------------------------------------------------------------


def linked(url, default, label, read, write=str, *, mode=None):
    """A field a link carries as ``url``: read by ``read``, written by ``write``, named ``label``;
    with ``mode``, it counts only in that query mode. A list default is copied for each instance."""
    row = Setting("", default, None, url, read, write, mode, label)
    if isinstance(default, list):
        return dataclasses.field(default_factory=lambda: list(default), metadata={_ROW: row})
    return dataclasses.field(default=default, metadata={_ROW: row})


def shared(key: str):
    """A field for a setting pages share (its row in SHARED or GEOMETRY_SHARED)."""
    row = _SHARED_BY_KEY[key]
    return dataclasses.field(default=row.default, metadata={_ROW: row})


@dataclass(frozen=True)
class PageSettings:
    """A page's settings. A subclass names its page (its address) and the prefix of its fields'
    session keys, and declares each field with ``linked`` or ``shared``."""

    PAGE: ClassVar[str]
    PREFIX: ClassVar[str]

    @classmethod
    def key(cls, name: str) -> str:
        """The session key of field ``name``."""
        row = _row(next(f for f in dataclasses.fields(cls) if f.name == name))
        return row.key or cls.PREFIX + name

    @classmethod
    def rows(cls) -> tuple[Setting, ...]:
        """The page's own settings as rows of the app's table (the shared ones are rows already)."""
        return tuple(
            dataclasses.replace(_row(f), key=cls.PREFIX + f.name, page=cls.PAGE)
            for f in dataclasses.fields(cls)
            if not _row(f).key
        )

    @classmethod
    def of(cls, values: Mapping[str, object]) -> Self:
        """The settings held in ``values`` by session key (a session's state, or a view read as a link
        is read: bert_embeddings.figures.check.values); a field missing there has its default."""
        found = {}
        for f in dataclasses.fields(cls):
            key = cls.key(f.name)
            if key in values:
                found[f.name] = values[key]
        return cls(**found)

    def values(self) -> dict[str, object]:
        """Every field by its session key (what the core's readers of a view take)."""
        return {type(self).key(f.name): getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class WithSentences(PageSettings):
    """The settings of a page that reads the sidebar's sentences."""

    sentence_a: str = shared(SENTENCE_A_KEY)
    sentence_b: str = shared(SENTENCE_B_KEY)
    special_tokens: bool = shared(SPECIAL_TOKENS_KEY)


class Filtered:
    """A page whose vocabulary searches are filtered: its fields ``hide_continuation``,
    ``hide_special``, ``leave_out`` (its own pieces), ``include`` and ``exclude`` (patterns)."""

    def filters(self, own_ids: tuple[int, ...] = ()) -> vocab_search.Filters:
        """The search's filters; the page's own pieces ``own_ids`` left out if asked."""
        return vocab_search.Filters(
            hide_continuation=self.hide_continuation,
            hide_special=self.hide_special,
            include=self.include,
            exclude=self.exclude,
            exclude_ids=own_ids if self.leave_out else (),
        )


def _row(field: dataclasses.Field) -> Setting:
    return field.metadata[_ROW]
