"""The few things that can go wrong with a user's input or a model, as named exceptions.

Every message is written for the person using the explorer: pages show ``str(error)``
as it is, so it says what happened and what to do next, without a stack trace.
"""


class ExplorerError(Exception):
    """Base class: a problem the page can explain to the user."""


class EmptyInputError(ExplorerError):
    """The sentence is empty, or nothing in it survives BERT's text clean-up."""


class NotTextError(ExplorerError):
    """Something that is not text where text goes (a sentence, a word list)."""


class InputTooLongError(ExplorerError):
    """The raw text is so long that tokenizing it would burden a shared server."""


class MissingSentenceAError(ExplorerError):
    """Sentence B was given without sentence A."""


class InvalidModelIdError(ExplorerError):
    """The model field holds neither a Hub id nor an existing folder."""


class ModelNotFoundError(ExplorerError):
    """The Hub answered that no such (public) model exists."""


class HubDownloadError(ExplorerError):
    """The Hub was reachable but a file could not be fetched."""


class NotBertLikeError(ExplorerError):
    """The checkpoint is of a family whose embedding layer the explorer does not handle."""


class NotACheckpointError(ExplorerError):
    """The folder lacks a config, a tokenizer or the embedding tensors."""


class ChecksumMismatchError(ExplorerError):
    """The bundled model's weights are not the file we expect: damaged or replaced."""


class BundledModelMissingError(ExplorerError):
    """The package that carries the offline model is not installed."""


class EmptyQueryError(ExplorerError):
    """The neighbour query is empty."""


class UnknownWordError(ExplorerError):
    """A query word has characters the vocabulary cannot represent (they become [UNK])."""


class QuerySyntaxError(ExplorerError):
    """Vector arithmetic that does not parse, such as 'king - - man' or 'king +'."""


class InvalidRegexError(ExplorerError):
    """An include or exclude filter that is not a valid regular expression."""


class OutOfRangeError(ExplorerError):
    """A number outside what it may be: k, a token id, a component index."""


class NothingLeftError(ExplorerError):
    """The filters leave no vocabulary row to search."""


class ZeroVectorError(ExplorerError):
    """The query vector is all zeros (e.g. 'king - king'), so it has no direction."""


class WordNotFoundError(ExplorerError):
    """The word to compare does not occur in one of the sentences."""


class ToySpaceError(ExplorerError):
    """A toy item that cannot be read: a missing name, a non-numeric or missing value."""


class DownloadTooLargeError(ExplorerError):
    """The checkpoint is larger than this server is set to download."""


class HubUnreachableError(ExplorerError):
    """A model that is not listed cannot be fetched: the Hub does not answer (or may not be asked)."""


class MapStorageError(ExplorerError):
    """The cache folder cannot hold a map: it is a file, read-only, or the disk is full."""


class JobQueueError(ExplorerError):
    """The job queue (BERT_EXPLORER_JOBS) does not answer: background work cannot start now."""


class LessonError(ExplorerError):
    """A lesson file the explorer cannot use: every problem it found, each naming its step and
    field, in one message (nothing of the lesson is loaded)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        shown = problems[:12] + ([f"and {len(problems) - 12} more"] if len(problems) > 12 else [])
        super().__init__("This lesson cannot be opened: " + "; ".join(shown) + ".")
