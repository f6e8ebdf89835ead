"""Commands for hosts: ``python -m bert_embeddings map MODEL``, ``... lesson FILE`` and
``... worker`` (see ``--help``)."""

from __future__ import annotations

import argparse
import signal
import sys
import time

from bert_embeddings import config
from bert_embeddings.analysis import geometry
from bert_embeddings.errors import ExplorerError, LessonError, MapStorageError
from bert_embeddings.jobs import backend, files, priority, queue
from bert_embeddings.maps import forecast, map_jobs, neighbour_map, prepare
from bert_embeddings.models import checkpoints
from bert_embeddings.spaces import pair, space_jobs, stages

# Exit codes, as --help lists them.
DONE, WRONG_INPUT, NO_STORAGE, INTERRUPTED, TERMINATED = 0, 2, 3, 130, 143

MAP_HELP = f"""\
Compute the t-SNE map of every row of a model's token table (its exact 10 nearest neighbours,
how many of them the map keeps, its regions), the map the app's Maps page shows, and keep it
in the cache folder, where a server finds it finished instead of computing it in the
background. Prepare a big model on a bigger machine, then ship the folder with the app.

Where: BERT_EXPLORER_CACHE, now {config.explorer_cache_dir()}.
Iterations: BERT_EXPLORER_MAP_ITERATIONS, now {config.map_iterations()} (as the server uses).
A map already there and whole is left as it is. If anything fails, nothing half-written is
left behind. It computes at the lowest CPU priority, as the app's own map worker does, so that
a server on the same machine keeps the cores its readers need.

With --stages it prepares What moved's stage spaces instead: each stage's table (the token
rows, the embedding output, every encoder layer for [CLS] piece [SEP], the layers from one pass
of the whole model) and its exact neighbour lists, in each geometry given.

Exit codes:
  {DONE}    the maps are there (computed now, or already)
  {WRONG_INPUT}    the model or an option cannot be used: an unknown name, no network to reach
       the Hub, a folder that is not a checkpoint, a revision for a model that has none,
       a D out of range, a BERT_EXPLORER_... setting the command cannot use, or (--queue)
       no job queue set, or one that does not answer
  {NO_STORAGE}    the cache folder cannot take the map: a full or read-only disk, a path that
       is a file
  {INTERRUPTED}  interrupted (Ctrl-C): the unfinished map is removed (with --stages: the
       unfinished stage's half-written files; what was finished is kept for the next run)
  {TERMINATED}  stopped (SIGTERM): as for Ctrl-C
"""


class RevisionError(ExplorerError):
    """A revision given for a model that has none (the bundled model, a folder)."""


class Terminated(BaseException):
    """SIGTERM, raised where the command is: what it leaves unfinished goes, as for Ctrl-C."""


def _terminated(signum, frame) -> None:
    raise Terminated


def _geometry(text: str) -> str:
    """--geometry: a geometry's name, as the notebook API and the Maps page name it, or 'all'."""
    if text == "all":
        return text
    try:
        return geometry.check_name(text)
    except ExplorerError as problem:
        raise argparse.ArgumentTypeError(f"{problem} Or all.") from None


def _removed(text: str) -> int:
    """--d: the same check as the notebook API's d and a link's d=, whichever geometry."""
    try:
        return geometry.check_d(text)
    except ExplorerError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m bert_embeddings", description="Commands for hosts of the BERT Embedding Explorer."
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    mapping = commands.add_parser(
        "map",
        help="compute a model's t-SNE maps into the cache folder",
        description=MAP_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mapping.add_argument(
        "model", metavar="MODEL", help="a Hub id (bert-base-uncased), an absolute folder path, or 'bundled'"
    )
    mapping.add_argument("--revision", default=None, help="the Hub revision of a Hub model (default: main)")
    mapping.add_argument(
        "--geometry",
        action="append",
        type=_geometry,
        metavar="{" + ",".join([*geometry.GEOMETRIES, "all"]) + "}",
        help="the geometry to map in, as the Maps page offers it; repeat it, or 'all' (default: raw)",
    )
    mapping.add_argument(
        "--d",
        type=_removed,
        default=None,
        metavar="D",
        help=f"directions all-but-the-top removes, 1 to {geometry.MOST_REMOVED} (default: the width // 100)",
    )
    mapping.add_argument(
        "--stages",
        action="store_true",
        help="instead of the maps, prepare What moved's stage spaces: every stage's table (token rows, "
        "embedding output, each layer) and its exact neighbour lists, in each geometry given",
    )
    mapping.add_argument(
        "--queue",
        action="store_true",
        help="put the maps (or, with --stages, the stage spaces) on the job queue that "
        "BERT_EXPLORER_JOBS names, for its workers, instead of computing them here; returns at once",
    )
    _more_commands(commands)
    return top


def _more_commands(commands) -> None:
    """The worker and lesson commands' arguments."""
    working = commands.add_parser(
        "worker",
        help="compute background jobs from the queue BERT_EXPLORER_JOBS names",
        description=WORKER_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    working.add_argument("--burst", action="store_true", help="stop once the queue is empty")
    working.add_argument("--name", default=None, help="the worker's name, as the queue's dashboard shows it")
    lessons = commands.add_parser(
        "lesson",
        help="check a lesson file, and write its handout",
        description=LESSON_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lessons.add_argument("lesson", metavar="FILE", help="a lesson file (TOML), or a built-in lesson's name")
    lessons.add_argument("--check", action="store_true", help="check the file: every step, every view")
    lessons.add_argument(
        "--handout",
        metavar="OUT.html",
        help="write the lesson's handout: one HTML file, every step's figures interactive, readable offline",
    )
    lessons.add_argument(
        "--model",
        default=None,
        metavar="MODEL",
        help="the model the handout's figures show, as the sidebar names it (default: the app's "
        "default model, or the bundled one where that cannot be had)",
    )


WORKER_HELP = """\
Take background jobs (t-SNE maps, stage spaces, aligned maps) from the job queue in Redis that
BERT_EXPLORER_JOBS names, one at a time, until stopped. Each job runs in a child process at
background work's priority and writes its result into the cache folder (BERT_EXPLORER_CACHE),
which must be the same folder, at the same path, as the web servers'. Run as many as the
machine has room for: one job needs some hundred MB (a big vocabulary's map, some GB).

Exit codes:
  0    stopped (with --burst: the queue was empty)
  2    BERT_EXPLORER_JOBS names no queue, or the queue does not answer
"""

LESSON_HELP = f"""\
Check a lesson file as the app checks it when it is opened: that it is a TOML file within the
limits of size and nesting, and that every step has a title, a text and a view whose page
exists and whose every parameter the page reads as a link would. Built-in lessons are named by
their names.

With --handout OUT.html it then writes the lesson's handout, for a host or a teacher to hand
out before a workshop: the lesson's title and summary, and each step's title, text, question
(its answer folded) and figures, interactive, each drawn by the function its page draws it
with, for the step's view on its own (every setting the step does not name at its default).
plotly.js is in the file once; it needs no network. Presenter notes are left out. The file is
written whole or not at all.

Exit codes:
  {DONE}    the lesson can be used (its title and steps are printed), and its handout is written
  {WRONG_INPUT}    it cannot: every problem is printed, naming its step and field (or the model
       cannot be loaded)
  {NO_STORAGE}    the handout cannot be written there: a folder that does not exist, a read-only
       or full disk, a path that is a folder
  {INTERRUPTED}  interrupted (Ctrl-C): no handout is written, and nothing half-written is left
  {TERMINATED}  stopped (SIGTERM): as for Ctrl-C
"""


def lesson_command(args: argparse.Namespace) -> int:
    from pathlib import Path

    from bert_embeddings.lessons import builtin, lesson

    if args.lesson in builtin.NAMES:
        found = builtin.load(args.lesson)
    else:
        try:
            data = lesson.read_file(args.lesson)  # (a device, a named pipe or a huge file: refused)
        except OSError as problem:
            print(f"error: {args.lesson} cannot be read: {problem.strerror or problem}", file=sys.stderr)
            return WRONG_INPUT
        found = lesson.read(data)
    print(f"{found.title}: {len(found.steps)} steps, all checked")
    for number, step in enumerate(found.steps, 1):
        print(f"  {number:2d}. {step.title} (/{step.page})")
    return DONE if args.handout is None else _handout(found, Path(args.handout), args.model)


def _handout(found, out, spec: str | None) -> int:
    """The lesson's handout written to ``out`` with the model ``spec`` (checked writable first:
    the figures take seconds to build)."""
    from bert_embeddings.lessons import handout

    if problem := _unwritable(out):
        print(f"error: the handout cannot be written to {out}: {problem}", file=sys.stderr)
        return NO_STORAGE
    spec = spec or checkpoints.default_spec()
    model = checkpoints.load_model(spec, fallback=spec in checkpoints.listed_specs())
    if model.notice:
        print(model.notice, file=sys.stderr)
    data = handout.handout(found, model).encode("utf-8")
    try:
        files.write_atomically(out, data)  # (whole, or nothing left behind)
    except OSError as problem:
        print(
            f"error: the handout cannot be written to {out}: {problem.strerror or problem}", file=sys.stderr
        )
        return NO_STORAGE
    print(f"{out}: the handout, {len(data) / 1e6:.1f} MB, with {model.name}")
    return DONE


def _unwritable(out) -> str | None:
    """Why no file can be written at ``out`` (None: it can be tried)."""
    import os

    folder = out.parent
    if out.is_dir():
        return "that is a folder"
    if not folder.is_dir():
        return f"there is no folder {folder}"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} may not be written to"
    return None


class Bar:
    """A progress bar on standard error: the step (one of ``steps``) and how far through it."""

    def __init__(self, label: str, steps: tuple[str, ...] = neighbour_map.STAGES, stream=sys.stderr) -> None:
        self.label, self.steps, self.stream, self.began = label, steps, stream, time.monotonic()

    def __call__(self, stage: str, done: float) -> None:
        step = self.steps.index(stage) + 1
        filled = int(20 * min(max(done, 0.0), 1.0))
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (20 - filled)}] {step}/{len(self.steps)} "
            f"{stage:<27} {done:4.0%} {time.monotonic() - self.began:6.0f} s"
        )
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")


def map_command(args: argparse.Namespace) -> int:
    revision = args.revision or checkpoints.DEFAULT_REVISION
    resolution = checkpoints.resolve(args.model, revision, fallback=False)
    if args.revision is not None and (
        resolution.key == checkpoints.BUNDLED or resolution.key.startswith("/")
    ):
        raise RevisionError(f"--revision is for a Hub model; {args.model} has no revisions.")
    model = checkpoints.load_resolved(resolution, revision)
    table = model.tables.word_embeddings
    settings = map_jobs.default_settings()
    wanted = prepare.shapes(args.geometry or ["raw"], args.d, table.shape[1])
    for shape in wanted:
        if shape[0] == "all-but-the-top":
            geometry.check_removed(shape[1], *table.shape)
    print(f"{model.name}: {table.shape[0]:,} rows of {table.shape[1]:,}", file=sys.stderr)
    if args.queue:
        return _enqueue(model, settings, wanted, args.stages)
    if args.stages:
        return _stages(model, wanted)
    cost = forecast.before_start(forecast.Shape.of(*table.shape, settings))
    print(
        f"each map: about {cost.low:.0f} to {cost.high:.0f} s on a 2-core machine like Streamlit "
        "Community Cloud's (less with more cores)",
        file=sys.stderr,
    )
    for shape in wanted:
        label = shape[0] if shape[0] != "all-but-the-top" else f"all-but-the-top {shape[1]}"
        bar = Bar(f"{label:<20}")
        try:
            done = prepare.prepare_map(table, shape, settings, bar)
        finally:
            bar.close()
        state = "computed" if done.computed else "already there"
        print(f"{label}: {state}, neighbour recall@10 {done.recall_at_10:.3f}, in {done.folder}")
    return DONE


def _stages(model, wanted: list[tuple[str, int]]) -> int:
    """Each stage space in each geometry, one at a time, with the map's progress bar, and said
    as soon as it is there."""
    try:
        key = space_jobs.model_key(model)
        names = stages.stage_names(model)
        for shape in wanted:
            label = shape[0] if shape[0] != "all-but-the-top" else f"all-but-the-top {shape[1]}"
            for stage in names:
                where = f"{label}, {stages.stage_label(stage)}"
                bar = Bar(f"{where:<30}", pair.STEPS)
                try:
                    done = pair.prepare_stage(model, key, stage, shape, progress=bar)
                finally:
                    bar.close()
                state = "computed" if done.computed else "already there"
                print(f"{where}: {state}, in {done.folder}", flush=True)
    except OSError as error:
        raise MapStorageError(files.storage_problem(error, False, "The stage spaces")) from None
    return DONE


def _enqueue(model, settings, wanted: list[tuple[str, int]], spaces: bool) -> int:
    """--queue: each map (or stage space) put on the job queue, or said to be there already."""
    if config.jobs_queue() is None:
        raise ExplorerError("--queue needs a job queue: set BERT_EXPLORER_JOBS to its Redis URL.")
    table, key = model.tables.word_embeddings, space_jobs.model_key(model) if spaces else ""
    for shape in wanted:
        label = shape[0] if shape[0] != "all-but-the-top" else f"all-but-the-top {shape[1]}"
        for stage in stages.stage_names(model) if spaces else [None]:
            if stage is None:
                found, where = prepare.queue_map(table, shape, settings), label
            else:
                found = space_jobs.start(key, space_jobs.Spec(str(model.folder), stage, shape))
                where = f"{label}, {stages.stage_label(stage)}"
            print(f"{where}: {'on the queue' if backend.is_job(found) else 'already there'}", flush=True)
    return DONE


def worker_command(args: argparse.Namespace) -> int:
    url = config.jobs_queue()
    if url is None:
        raise ExplorerError("A worker needs a job queue: set BERT_EXPLORER_JOBS to its Redis URL.")
    return queue.work(url, burst=args.burst, name=args.name)


def _stopped(args: argparse.Namespace) -> str:
    """What an interruption left, for the command interrupted (of stage spaces, the finished stay)."""
    if args.command != "map":
        out = getattr(args, "handout", None)
        kept = f"no handout was written to {out}; nothing half-written is left" if out else ""
        return "the worker stopped" if args.command == "worker" else kept or "nothing was written"
    if args.stages:
        return "the unfinished stage's half-written files were removed; all that was finished is kept"
    return "the unfinished map was removed"


def main(argv: list[str] | None = None) -> int:
    if problems := config.problems(command=True):
        for problem in problems:
            print(f"error: {problem}.", file=sys.stderr)
        return WRONG_INPUT
    args = parser().parse_args(argv)
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        command = {"lesson": lesson_command, "worker": worker_command}.get(args.command, map_command)
        return command(args)
    except LessonError as problem:
        print("error: this lesson cannot be used:", file=sys.stderr)
        for found in problem.problems:
            print(f"  - {found}", file=sys.stderr)
        return WRONG_INPUT
    except MapStorageError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return NO_STORAGE
    except ExplorerError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return WRONG_INPUT
    except KeyboardInterrupt:
        print(f"\nstopped: {_stopped(args)}", file=sys.stderr)
        return INTERRUPTED
    except Terminated:
        print(f"\nstopped (SIGTERM): {_stopped(args)}", file=sys.stderr)
        return TERMINATED
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    if sys.argv[1:2] != ["worker"]:  # a worker's jobs run at it; the worker itself must keep answering
        priority.background_priority()  # (the process only: never a test that calls main())
    sys.exit(main())
