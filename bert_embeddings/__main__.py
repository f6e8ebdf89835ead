"""Commands for hosts: ``python -m bert_embeddings map MODEL`` (see ``--help``)."""

from __future__ import annotations

import argparse
import sys
import time

from bert_embeddings import checkpoints, config, geometry, map_jobs, neighbour_map, prepare
from bert_embeddings.errors import ExplorerError, MapStorageError

# Exit codes, as --help lists them.
DONE, WRONG_INPUT, NO_STORAGE, INTERRUPTED = 0, 2, 3, 130

MAP_HELP = f"""\
Compute the t-SNE map of every row of a model's token table (its exact 10 nearest neighbours,
how many of them the map keeps, its regions), the map the app's Maps page shows, and keep it
in the cache folder, where a server finds it finished instead of computing it in the
background. Prepare a big model on a bigger machine, then ship the folder with the app.

Where: BERT_EXPLORER_CACHE, now {config.explorer_cache_dir()}.
Iterations: BERT_EXPLORER_MAP_ITERATIONS, now {config.map_iterations()} (as the server uses).
A map already there and whole is left as it is. If anything fails, nothing half-written is
left behind.

Exit codes:
  {DONE}    the maps are there (computed now, or already)
  {WRONG_INPUT}    the model cannot be used: an unknown name, no network to reach the Hub, a
       folder that is not a checkpoint, a D out of range
  {NO_STORAGE}    the cache folder cannot take the map: a full or read-only disk, a path that
       is a file
  {INTERRUPTED}  interrupted (Ctrl-C): the unfinished map is removed
"""


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
    mapping.add_argument(
        "--revision", default=checkpoints.DEFAULT_REVISION, help="the Hub revision (default: main)"
    )
    mapping.add_argument(
        "--geometry",
        action="append",
        choices=[*geometry.GEOMETRIES, "all"],
        help="the geometry to map in, as the Maps page offers it; repeat it, or 'all' (default: raw)",
    )
    mapping.add_argument(
        "--d",
        type=int,
        default=None,
        metavar="D",
        help=f"directions all-but-the-top removes, 1 to {geometry.MOST_REMOVED} (default: the width // 100)",
    )
    return top


class Bar:
    """A progress bar on standard error: the stage and how far through it."""

    def __init__(self, label: str, stream=sys.stderr) -> None:
        self.label, self.stream, self.began = label, stream, time.monotonic()

    def __call__(self, stage: str, done: float) -> None:
        step = neighbour_map.STAGES.index(stage) + 1
        filled = int(20 * min(max(done, 0.0), 1.0))
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (20 - filled)}] {step}/{len(neighbour_map.STAGES)} "
            f"{stage:<27} {done:4.0%} {time.monotonic() - self.began:6.0f} s"
        )
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")


def map_command(args: argparse.Namespace) -> int:
    resolution = checkpoints.resolve(args.model, args.revision, fallback=False)
    model = checkpoints.load_resolved(resolution, args.revision)
    table = model.tables.word_embeddings
    settings = map_jobs.default_settings()
    wanted = prepare.shapes(args.geometry or ["raw"], args.d, table.shape[1])
    for shape in wanted:
        if shape[0] == "all-but-the-top":
            geometry.check_removed(shape[1], *table.shape)
    print(f"{model.name}: {table.shape[0]:,} rows of {table.shape[1]:,}", file=sys.stderr)
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


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return map_command(args)
    except MapStorageError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return NO_STORAGE
    except ExplorerError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return WRONG_INPUT
    except KeyboardInterrupt:
        print("\nstopped: the unfinished map was removed", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
