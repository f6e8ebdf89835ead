"""``python -m bert_embeddings lesson FILE``: what it reads, and how it ends when interrupted.

Only as much of a path as a lesson may hold is read, and only from a regular file: a device such
as /dev/zero, a named pipe nobody writes to, or a folder is refused at once, with exit 2 and a
message as for any other lesson that cannot be used. Ctrl-C or SIGTERM while the handout is
written ends with the documented exit code, says what was cleaned up, and leaves no part of it.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest

from bert_embeddings import __main__ as command
from bert_embeddings import limits
from bert_embeddings.jobs import files
from bert_embeddings.lessons import lesson

pytestmark = pytest.mark.usefixtures("offline")  # the handout's model resolves offline at once

ROOT = Path(__file__).resolve().parents[2]

LESSON = """title = "One step"
summary = "Where each piece sits."

[[step]]
title = "Positions"
text = "Each place in the input has a row of its own."
view = { page = "positions" }
"""


def refused(path: Path | str, kind: str) -> list[str]:
    return [
        "error: this lesson cannot be used:",
        f"  - {path} is {kind}, not a file; a lesson is read from a file",
    ]


def run_command(*args: str, memory: int | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """The command in a process of its own, as a host runs it; ``memory`` caps its address space
    (bytes), so that a command reading without end fails fast instead of filling the machine."""

    def cap() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-m", "bert_embeddings", "lesson", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=cap,
    )


def test_dev_zero_is_refused_at_once_without_reading_it():
    """/dev/zero never ends: it was read whole (21.9 GB in 33 s) before the 200 kB check. Capped at
    1 GB, a command that reads it fails with a MemoryError instead of being refused."""
    done = run_command("/dev/zero", "--check", memory=1 << 30, timeout=60)
    assert done.returncode == command.WRONG_INPUT == 2, done.stderr
    assert "Traceback" not in done.stderr and not done.stdout
    assert done.stderr.splitlines() == refused("/dev/zero", "a device")


def test_a_named_pipe_with_no_writer_is_refused_without_waiting(tmp_path):
    """Opening a FIFO for reading waits for a writer: the command hung forever."""
    pipe = tmp_path / "lesson.toml"
    os.mkfifo(pipe)
    done = run_command(str(pipe), "--check", timeout=60)  # (a hang fails as TimeoutExpired)
    assert done.returncode == command.WRONG_INPUT, done.stderr
    assert "Traceback" not in done.stderr and not done.stdout
    assert done.stderr.splitlines() == refused(pipe, "a named pipe (FIFO)")


def test_a_folder_is_refused_as_not_a_file(tmp_path, capsys):
    assert command.main(["lesson", str(tmp_path), "--check"]) == command.WRONG_INPUT
    out, err = capsys.readouterr()
    assert not out and err.splitlines() == refused(tmp_path, "a folder")


def test_a_missing_file_is_still_said_as_one_that_cannot_be_read(tmp_path, capsys):
    missing = tmp_path / "nowhere.toml"
    assert command.main(["lesson", str(missing), "--check"]) == command.WRONG_INPUT
    assert capsys.readouterr().err == f"error: {missing} cannot be read: No such file or directory\n"


def padded(size: int) -> bytes:
    """LESSON, made exactly ``size`` bytes long by a TOML comment."""
    data = LESSON.encode("utf-8") + b"# "
    return data + b"x" * (size - len(data))


def test_a_file_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(tmp_path, capsys):
    most = limits.LESSON_FILE.most
    source = tmp_path / "lesson.toml"
    source.write_bytes(padded(most))
    assert source.stat().st_size == most
    assert command.main(["lesson", str(source), "--check"]) == command.DONE
    assert capsys.readouterr().out.startswith("One step: 1 steps, all checked")

    source.write_bytes(padded(most + 1))
    assert command.main(["lesson", str(source), "--check"]) == command.WRONG_INPUT
    assert capsys.readouterr().err.splitlines() == [
        "error: this lesson cannot be used:",
        f"  - the file has {most + 1:,} bytes; a lesson may have at most {most:,}",
    ]


def test_a_large_file_is_refused_without_being_read(tmp_path, capsys):
    """A 20 MB file is refused by its size: the command's memory does not grow by it."""
    source = tmp_path / "big.toml"
    source.write_bytes(b"#" * 20_000_000)
    tracemalloc.start()
    try:
        assert command.main(["lesson", str(source), "--check"]) == command.WRONG_INPUT
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000
    assert "the file has 20,000,000 bytes; a lesson may have at most 200,000" in capsys.readouterr().err


def test_a_file_that_says_it_is_empty_is_read_only_to_the_limit_and_one_byte(tmp_path, monkeypatch):
    """A file may grow after it is looked at, or say it is empty while it is not (as /proc's do):
    the read stops at one byte over the limit, whatever the file holds."""
    most = limits.LESSON_FILE.most
    source = tmp_path / "growing.toml"
    source.write_bytes(b"#" * (10 * most))
    real = os.fstat

    def says_empty(descriptor: int) -> os.stat_result:
        status = list(real(descriptor))
        status[6] = 0  # st_size
        return os.stat_result(status)

    monkeypatch.setattr(lesson.os, "fstat", says_empty)
    tracemalloc.start()
    try:
        with pytest.raises(lesson.LessonError) as raised:
            lesson.read_file(source)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert raised.value.problems == [
        f"the file has more than {most:,} bytes; a lesson may have at most {most:,}"
    ]
    assert peak < 3 * most


# --- interrupted while the handout is written ---------------------------------------------------


def test_ctrl_c_while_the_handout_is_written_exits_130_and_leaves_no_part(tmp_path, monkeypatch, capsys):
    """The interrupt's handler was the map command's and asked for its --stages: an AttributeError
    with a traceback, and the half-written handout stayed."""
    source, out = tmp_path / "lesson.toml", tmp_path / "lesson.html"
    source.write_text(LESSON, encoding="utf-8")

    class Interrupted(type(Path())):
        def write_bytes(self, data: bytes) -> int:
            super().write_bytes(data[:100])  # part of it is on the disk
            raise KeyboardInterrupt

    temporary = files.temporary
    monkeypatch.setattr(command.files, "temporary", lambda path: Interrupted(temporary(path)))
    assert command.main(["lesson", str(source), "--handout", str(out), "--model", "bundled"]) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err and "AttributeError" not in err
    assert (
        err.strip().splitlines()[-1]
        == f"stopped: no handout was written to {out}; nothing half-written is left"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["lesson.toml"]


@pytest.mark.server("the lesson command in a process of its own, stopped by SIGTERM")
def test_sigterm_while_the_handout_is_written_exits_143_and_leaves_no_part(tmp_path):
    """As a host stops it: SIGTERM while the file is being written. The figures are left out (the
    handout's contents are not what is tested), and the write waits, so that the signal lands in it."""
    source, out = tmp_path / "lesson.toml", tmp_path / "lesson.html"
    source.write_text(LESSON, encoding="utf-8")
    script = textwrap.dedent(
        """
        import pathlib, sys, time, types
        from bert_embeddings import __main__ as command
        from bert_embeddings.lessons import handout

        class Slow(type(pathlib.Path())):
            def write_bytes(self, data):
                super().write_bytes(data[:10])
                print("writing", flush=True)
                time.sleep(120)

        temporary = command.files.temporary

        handout.handout = lambda found, model: "<!DOCTYPE html>" * 100
        command.checkpoints.load_model = lambda spec, fallback: types.SimpleNamespace(notice="", name="m")
        command.files.temporary = lambda path: Slow(temporary(path))
        sys.exit(command.main(sys.argv[1:]))
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script, "lesson", str(source), "--handout", str(out), "--model", "bundled"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for line in process.stdout:
            if line.strip() == "writing":
                break
        assert process.poll() is None, "the command ended before it wrote"
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == command.TERMINATED == 143, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        f"stopped (SIGTERM): no handout was written to {out}; nothing half-written is left"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["lesson.toml"]


def test_the_help_lists_the_interrupted_exit_codes(capsys):
    with pytest.raises(SystemExit):
        command.main(["lesson", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "130 interrupted (Ctrl-C): no handout is written, and nothing half-written is left" in shown
    assert "143 stopped (SIGTERM): as for Ctrl-C" in shown
