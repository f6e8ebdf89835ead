"""What a background job leaves on disk, and how it is trusted: written whole or not at all,
vouched for by checksums, and swept when a killed worker leaves something behind.

Every file a job writes is written under a name of the writing process's own first
(``*.<pid>.part``) and renamed into place (``write_atomically``): replicas share the cache
folder, and a reader never sees half a file. A job's result (its arrays and the record that
vouches for them with their checksums) is written and read by jobs.records. A job's input
(``table.npy``) and its progress are removed on every way out of its worker; what a worker
killed outright left is swept once it is a day old.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import time
from pathlib import Path

import numpy as np

from bert_embeddings import config
from bert_embeddings.errors import MapStorageError

TABLE, PROGRESS, LOG = "table.npy", "progress.json", "worker.log"  # a job folder's own files
LEFTOVER_SECONDS = 24 * 3600  # a worker's input this old is no running job's (replicas share folders)


def fingerprint(table: np.ndarray) -> str:
    """A short name for an array's exact contents (shape, dtype and bytes)."""
    digest = hashlib.blake2b(digest_size=12)
    digest.update(f"{table.shape}{table.dtype}".encode())
    digest.update(np.ascontiguousarray(table).data)
    return digest.hexdigest()


def temporary(path: Path) -> Path:
    """A name to write ``path`` under first, this process's own (replicas may share the folder)."""
    return path.with_name(f"{path.name}.{os.getpid()}.part")


def write_atomically(path: Path, data: bytes) -> None:
    """``data`` at ``path`` whole, or nothing there: a failure or an interruption (Ctrl-C,
    SIGTERM) while writing leaves no half-written file."""
    part = temporary(path)
    try:
        part.write_bytes(data)
        os.replace(part, path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


def npy_bytes(array: np.ndarray, dtype) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array, dtype=dtype), allow_pickle=False)
    return buffer.getvalue()


def save_table(path: Path, table: np.ndarray) -> None:
    """A worker's input, written straight from the caller's array (no copy in memory)."""
    part = temporary(path)
    with open(part, "wb") as handle:
        np.save(handle, np.ascontiguousarray(table), allow_pickle=False)
    os.replace(part, path)


def clear_inputs(folder: Path, pid: int | None = None) -> None:
    """A worker's input and progress in ``folder``, and its half-written files (``pid``'s, or
    every process's): never part of a finished result."""
    for name in (TABLE, PROGRESS):
        (folder / name).unlink(missing_ok=True)
    clear_parts(folder, pid)


def clear_parts(folder: Path, pid: int | None = None) -> None:
    """The half-written files in ``folder`` of process ``pid`` (None: of every process)."""
    for part in folder.glob(f"*.{pid if pid is not None else '*'}.part"):
        part.unlink(missing_ok=True)


def sweep(root: Path, pattern: str, now: float | None = None) -> list[Path]:
    """Every file matching ``pattern`` under ``root`` over a day old, with its folder's other
    leftovers: a worker killed outright (SIGKILL, the out-of-memory killer), in any process, left
    it behind, and no job is still writing it. The folders swept are returned."""
    now = time.time() if now is None else now
    swept = []
    for found in root.glob(pattern):
        try:
            old = now - found.stat().st_mtime > LEFTOVER_SECONDS
        except OSError:
            continue
        if old:
            if found.name == TABLE:
                clear_inputs(found.parent)
            found.unlink(missing_ok=True)
            swept.append(found.parent)
    return swept


def ensure_writable(folder: Path, what: str, on_server: bool = True) -> Path:
    """``folder``, made if need be, once a scratch file could be written there: before any work,
    so that a cache folder that cannot take the result says so at once (MapStorageError)."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        raise MapStorageError(storage_problem(error, on_server=on_server, what=what)) from None
    return folder


def storage_problem(error: OSError, on_server: bool = True, what: str = "The t-SNE map") -> str:
    """What can be done when the cache folder cannot take a job's files (the folder is the
    server's own setting, never a link's, so naming it helps the person who can fix it): on the
    page, said to a reader of the app (``on_server``); else to the host running the command or a
    notebook."""
    where = config.explorer_cache_dir()
    why = {
        errno.ENOTDIR: "part of that path is a file, not a folder",
        errno.EEXIST: "part of that path is a file, not a folder",
        errno.EACCES: "this server may not write there",
        errno.EPERM: "this server may not write there",
        errno.EROFS: "that disk is read-only",
        errno.ENOSPC: "that disk is full",
        errno.EDQUOT: "that disk is full (quota)",
    }.get(error.errno, error.strerror or type(error).__name__)
    if not on_server:
        return (
            f"{what} cannot be kept in the cache folder {where}: {why}. Point BERT_EXPLORER_CACHE "
            "at a folder you may write to, with some hundred MB free, and run it again."
        )
    return (
        f"{what} cannot be kept in the cache folder {where}: {why}. Whoever runs this server "
        "can point BERT_EXPLORER_CACHE at a folder it may write to, with some hundred MB free; "
        "then try again. Every other map and page works as before."
    )
