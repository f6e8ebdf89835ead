"""Fetching a Hub model's embedding layer through huggingface_hub: only the bytes it needs.

huggingface_hub does all the talking to the Hub, with its own settings: the address
(HF_ENDPOINT), the token (HF_TOKEN, or the login ``hf auth login`` saved under HF_HOME), offline
mode (HF_HUB_OFFLINE) and its retries. From a safetensors checkpoint only the embedding tensors
are fetched (about 95 MB of bert-base-uncased's 440 MB): ``parse_safetensors_file_metadata``
reads the header (each tensor's dtype, shape and byte offsets, from one ranged request), and
``HfFileSystem`` reads the span that holds the embedding tensors, a piece at a time so that
progress can be shown. ``safetensors`` writes them as a smaller checkpoint of their own. Small
files, and pickled checkpoints (which cannot be cut), come whole through ``hf_hub_download``.

A file appears under its name only once it is complete (a temporary file renamed into place:
hf_hub_download's own, and for the cut checkpoint bert_embeddings.jobs' ``write_atomically``),
so a transfer that stops early leaves nothing to be mistaken for a model. Every failure is a
named error with a sentence for the person using the explorer. ``fetch_checkpoint`` puts the
pieces together for one model: its size checked against the host's limit first, then config and
tokenizer, then the embedding tensors.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from bert_embeddings import config
from bert_embeddings.errors import (
    DownloadTooLargeError,
    ExplorerError,
    HubDownloadError,
    NotACheckpointError,
)
from bert_embeddings.jobs import files
from bert_embeddings.models import hub
from bert_embeddings.models.architectures import family_of
from bert_embeddings.models.folders import WEIGHT_FILES, read_config, wanted_keys

Progress = Callable[[int, int], None]  # (bytes so far, bytes expected)
Choose = Callable[[list[str]], dict[str, str]]  # the file's tensor names -> ours: name in the file
PIECE = 16 << 20  # bytes per ranged read: a progress step, and what a retry fetches again
# The dtypes an embedding table may be stored in, as the safetensors header names them.
FLOATS = {"F16": np.dtype("<f2"), "F32": np.dtype("<f4"), "F64": np.dtype("<f8")}


def fetch_checkpoint(
    repo_id: str, revision: str, sizes: dict[str, int], progress: Progress | None = None, hub_id: str = ""
) -> Path:
    """Fetch config, tokenizer and the embedding tensors into the explorer's cache folder.

    ``sizes`` are the Hub's file sizes (from the model-info answer) and ``hub_id`` the id the Hub
    answered with (a renamed repo's new id). The checkpoint's size is checked against the limit
    before anything is fetched.
    """
    weights = next((f for f in WEIGHT_FILES if f in sizes), None)
    if weights is None or "config.json" not in sizes:
        raise NotACheckpointError(f"{repo_id} on the Hub has no config.json and model weights.")
    limit = config.max_download_bytes()
    if sizes[weights] > limit:
        raise DownloadTooLargeError(
            f"{repo_id}'s {weights} is {sizes[weights] / 1e9:.2f} GB, more than this server downloads "
            f"({limit / 1e9:.2f} GB, set by {config.MAX_DOWNLOAD_MB})."
        )
    folder = hub.explorer_folder(repo_id, revision)
    small = ["config.json", *(f for f in ("tokenizer.json", "tokenizer_config.json") if f in sizes)]
    if "tokenizer.json" not in sizes:
        small.append("vocab.txt")
    for name in small:
        fetch_file(repo_id, revision, name, folder)
    model_config = read_config(folder / "config.json", f"{repo_id}'s config.json")
    family = family_of(model_config, repo_id)  # refuse an unsupported family before the big download
    if weights.endswith(".safetensors"):
        choose = lambda keys: wanted_keys(keys, Path(weights), family)  # noqa: E731
        fetch_embedding_tensors(hub_id or repo_id, revision, weights, folder / weights, choose, progress)
    else:
        fetch_file(repo_id, revision, weights, folder, progress)
    return folder


def fetch_file(
    repo_id: str, revision: str, name: str, folder: Path, progress: Progress | None = None
) -> Path:
    """One whole file of the repo, into ``folder`` (huggingface_hub's ``hf_hub_download``, which
    writes it in a temporary file first and resumes a transfer that stopped)."""
    from huggingface_hub import hf_hub_download

    with _speaking_for_the_hub(repo_id, name):
        path = hf_hub_download(
            repo_id, name, revision=revision, local_dir=folder, tqdm_class=_progress_bar(progress)
        )
    return Path(path)


def fetch_embedding_tensors(
    repo_id: str, revision: str, weights: str, destination: Path, choose: Choose, progress: Progress | None
) -> None:
    """The tensors ``choose`` picks from a safetensors file on the Hub, written to ``destination``.

    The data section of a safetensors file runs from the end of its header to the end of the
    file, with no gap (the safetensors library refuses any other file), so it begins at the file's
    size less the largest end offset: the header's bytes themselves are never read here.
    """
    from huggingface_hub import HfApi, HfFileSystem

    if "/" not in repo_id:
        # HfFileSystem names repos "namespace/name" only; an id without a namespace (one the Hub
        # has not moved to an organisation) is fetched whole, and cut here.
        return _cut_from_whole_file(repo_id, revision, weights, destination, choose, progress)
    with _speaking_for_the_hub(repo_id, weights):
        file_system = HfFileSystem(skip_instance_cache=True)  # no listing kept from an earlier try
        with file_system.open(
            f"{repo_id}/{weights}", "rb", revision=revision, cache_type="none", block_size=PIECE
        ) as remote:
            first = remote.read(1)
            if len(first) == remote.size > 1:
                # A server that ignores byte ranges answers the first one with the whole file.
                return _cut_from_file_bytes(first, destination, choose, progress)
            header = HfApi().parse_safetensors_file_metadata(repo_id, weights, revision=revision)
            tensors = {key: header.tensors[key] for key in choose(list(header.tensors)).values()}
            dtypes = _check_dtypes(repo_id, weights, tensors)
            data_start = remote.size - max(t.data_offsets[1] for t in header.tensors.values())
            if data_start < 8:
                raise NotACheckpointError(f"{repo_id}'s {weights} is shorter than its header says.")
            start = min(t.data_offsets[0] for t in tensors.values())
            end = max(t.data_offsets[1] for t in tensors.values())
            data = _read_span(remote, data_start + start, data_start + end, progress)
    _write_tensors(_arrays(f"{repo_id}'s {weights}", tensors, dtypes, data, start), destination)


def _arrays(where: str, tensors: dict, dtypes: dict, data: bytearray, start: int) -> dict[str, np.ndarray]:
    """Each tensor's array, read from ``data`` (the file's data section from offset ``start`` on);
    a tensor whose bytes do not match its shape is refused."""
    arrays = {}
    for key, tensor in tensors.items():
        count = math.prod(tensor.shape)
        if tensor.data_offsets[1] - tensor.data_offsets[0] != count * dtypes[key].itemsize:
            raise NotACheckpointError(f"{where}: {key} does not take the bytes its shape needs.")
        offset = tensor.data_offsets[0] - start
        arrays[key] = np.frombuffer(data, dtype=dtypes[key], count=count, offset=offset).reshape(tensor.shape)
    return arrays


def _read_span(remote, start: int, end: int, progress: Progress | None) -> bytearray:
    """Bytes ``start`` to ``end`` of an open Hub file, a piece (one ranged request) at a time."""
    data = bytearray(end - start)
    view, done = memoryview(data), 0
    remote.seek(start)
    while done < len(data):
        asked = min(PIECE, len(data) - done)
        piece = remote.read(asked)
        if len(piece) != asked:
            raise HubDownloadError(
                f"The Hub sent {len(piece):,} bytes where {asked:,} were asked for, after "
                f"{done / 1e6:.1f} of {len(data) / 1e6:.1f} MB. Try again."
            )
        view[done : done + asked] = piece
        done += asked
        if progress:
            progress(done, len(data))
    return data


def _check_dtypes(repo_id: str, weights: str, tensors: dict) -> dict[str, np.dtype]:
    """Each tensor's numpy dtype, checked before the tensors are fetched."""
    for key, tensor in tensors.items():
        if tensor.dtype not in FLOATS:
            raise NotACheckpointError(
                f"{repo_id}'s {weights} stores {key} as {tensor.dtype}; the explorer reads embedding "
                "tables stored as 16-, 32- or 64-bit floats."
            )
    return {key: FLOATS[tensor.dtype] for key, tensor in tensors.items()}


def _cut_from_whole_file(
    repo_id: str, revision: str, weights: str, destination: Path, choose: Choose, progress: Progress | None
) -> None:
    destination.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=destination.parent, prefix=".whole-") as scratch:
        whole = fetch_file(repo_id, revision, weights, Path(scratch), progress)
        _cut_from_local_file(whole, destination, choose)


def _cut_from_file_bytes(data: bytes, destination: Path, choose: Choose, progress: Progress | None) -> None:
    if progress:
        progress(len(data), len(data))
    destination.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=destination.parent, prefix=".whole-") as scratch:
        whole = Path(scratch) / destination.name
        whole.write_bytes(data)
        del data
        _cut_from_local_file(whole, destination, choose)


def _cut_from_local_file(whole: Path, destination: Path, choose: Choose) -> None:
    """The chosen tensors of a whole safetensors file on this machine, written to ``destination``."""
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(whole), framework="numpy") as handle:
            wanted = choose(list(handle.keys()))
            arrays = {key: handle.get_tensor(key) for key in wanted.values()}
    except SafetensorError as exc:
        raise NotACheckpointError(
            f"The weights fetched for {destination.name} cannot be read: {exc}"
        ) from None
    _write_tensors(arrays, destination)


def _write_tensors(arrays: dict[str, np.ndarray], destination: Path) -> None:
    """safetensors makes the file's bytes, and the jobs' atomic write puts them under their name
    only once complete (the temporary name is the writing process's own: replicas that share the
    cache folder may both write it)."""
    from safetensors.numpy import save

    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        files.write_atomically(destination, save(arrays))
    except OSError as exc:
        files.temporary(destination).unlink(missing_ok=True)
        raise HubDownloadError(
            f"The fetched tensors cannot be written to {destination.parent}: {exc}"
        ) from None


def _progress_bar(progress: Progress | None):
    """A progress-bar class for hf_hub_download that reports to ``progress`` and draws nothing
    (the page draws its own bar; the server's log stays quiet)."""
    from huggingface_hub.utils import tqdm

    class Reporting(tqdm):
        def __init__(self, *args, **kwargs):
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)
            self.reported = int(kwargs.get("initial") or 0)

        def update(self, n=1):
            self.reported += int(n or 0)
            if progress:
                progress(self.reported, int(self.total or self.reported))

    return Reporting


@contextmanager
def _speaking_for_the_hub(repo_id: str, name: str) -> Iterator[None]:
    """Whatever huggingface_hub raises while fetching ``name`` becomes a HubDownloadError whose
    message says what happened and what to do, never a raw exception."""
    try:
        yield
    except ExplorerError:
        raise
    except Exception as exc:  # the library's own errors, its HTTP client's, the disk's
        raise HubDownloadError(_reason(repo_id, name, exc)) from None


def _reason(repo_id: str, name: str, exc: Exception) -> str:
    import httpx2
    from huggingface_hub import errors

    if isinstance(exc, FileNotFoundError) and isinstance(exc.__cause__, errors.HfHubHTTPError):
        exc = exc.__cause__  # HfFileSystem's way of saying what the Hub answered
    token = "set HF_TOKEN, or run `hf auth login` on this server"
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(exc, errors.GatedRepoError):
        return (
            f"{repo_id} is a gated model: its {name} needs the Hugging Face token of an account that "
            f"was granted access ({token})."
        )
    if isinstance(exc, errors.RepositoryNotFoundError):
        return (
            f"The Hub refused {repo_id}'s {name} (HTTP {status}): a private model needs a Hugging Face "
            f"token ({token})."
        )
    if isinstance(exc, errors.RevisionNotFoundError):
        return f"The Hub has no such revision of {repo_id}."
    if isinstance(exc, errors.EntryNotFoundError | FileNotFoundError) and not isinstance(
        exc, errors.LocalEntryNotFoundError
    ):
        return f"The Hub has no {name} for {repo_id}."
    if isinstance(exc, errors.OfflineModeIsEnabled):
        return f"HF_HUB_OFFLINE is set, so {repo_id}'s {name} cannot be fetched."
    cut_off = isinstance(exc, httpx2.RemoteProtocolError | httpx2.ReadError)
    if cut_off or "Consistency check failed" in str(exc):  # (hf_hub_download: fewer bytes than announced)
        return f"The download of {repo_id}'s {name} was cut off, even after retrying. Try again."
    if isinstance(exc, errors.LocalEntryNotFoundError | httpx2.TransportError):
        return f"{repo_id}'s {name} could not be fetched: the Hub did not answer. Try again."
    if isinstance(exc, errors.SafetensorsParsingError):
        return f"{repo_id}'s {name} is not a safetensors file the explorer can read."
    if isinstance(exc, errors.HfHubHTTPError):
        return f"Fetching {repo_id}'s {name} failed (HTTP {status}). Try again."
    if isinstance(exc, OSError):
        return f"{repo_id}'s {name} could not be kept on this server: {exc}"
    return f"Fetching {repo_id}'s {name} failed: {type(exc).__name__}: {str(exc)[:200]}"
