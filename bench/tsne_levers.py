"""The t-SNE map's settings, lever by lever: neighbour recall@10 and seconds on the bundled model.

Each row of docs/maps.md's table "Choosing the t-SNE settings" is one neighbour_map.Settings here,
computed on the bundled model's whole token table (30,522 x 384) one after another: its
recall@10, and the seconds of its affinities and layout (the exact neighbours and the PCA
start cost the same under every setting, so they are left out). The reference is the old
default (perplexity 30, 90 neighbours, 750 iterations), measured in the same run.

    .venv/bin/python -m bench.tsne_levers

With BENCH_QUICK=1: the first 1,000 rows, 10 iterations, three settings (the old default, the
default, and one with uniform affinities).

Last line: tsne_levers settings=N default_recall_at_10=R best_recall_at_10=B
default_seconds_ratio=T, where T is the default's seconds over the old default's (target:
the default keeps more neighbours than the old default, in less time).
"""

from __future__ import annotations

from dataclasses import replace

from bench import full_or_quick
from bert_embeddings.maps.neighbour_map import Settings

OLD = Settings(perplexity=30, neighbours=90, iterations=750)
DEFAULT = Settings()
LEVERS = [
    replace(OLD, perplexity=10, neighbours=30),
    replace(OLD, perplexity=15, neighbours=45),
    replace(OLD, perplexity=5, neighbours=15),
    replace(OLD, dof=0.8),
    replace(OLD, perplexity=10, neighbours=30, dof=0.8),
    replace(OLD, perplexity=15, neighbours=45, learning_rate=30522 / 12),
    replace(OLD, perplexity=15, neighbours=45, exaggeration=4),
    replace(OLD, perplexity=15, neighbours=45, early_iterations=100),
    replace(OLD, perplexity=15, neighbours=45, iterations=1500),
    Settings(perplexity=15, neighbours=45),
    Settings(perplexity=15, neighbours=45, iterations=400),
    Settings(perplexity=15, neighbours=45, learning_rate=30522 / 12),
    Settings(perplexity=15, neighbours=45, exaggeration=4),
    Settings(perplexity=10, neighbours=30),
    Settings(uniform=True, neighbours=10),
    Settings(uniform=True, neighbours=8),
    Settings(uniform=True, neighbours=12),
    Settings(uniform=True, neighbours=15),
    Settings(uniform=True, neighbours=10, exaggeration=4),
    Settings(uniform=True, neighbours=10, iterations=750),
    Settings(neighbours=15),
    Settings(perplexity=10),
    Settings(exaggeration=4),
    Settings(iterations=750),
    Settings(perplexity=30),
]
ROWS = full_or_quick(None, 1000)
SETTINGS = full_or_quick(
    [OLD, DEFAULT, *LEVERS], [replace(s, iterations=10) for s in (OLD, DEFAULT, LEVERS[14])]
)


def measure(table, settings: Settings, threads: int = 2) -> tuple[float, float]:
    from bert_embeddings.maps import neighbour_map

    result = neighbour_map.compute(table, settings, threads=threads)
    seconds = sum(result.seconds[stage] for stage in neighbour_map.STAGES[1:4])
    return result.recall, seconds


def describe(settings: Settings) -> str:
    changed = {k: v for k, v in settings.as_dict().items() if v != DEFAULT.as_dict()[k]}
    return (
        ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in changed.items())
        or "default"
    )


def main() -> None:
    from bert_embeddings.models import checkpoints

    table = checkpoints.load_bundled().tables.word_embeddings[:ROWS]
    results = []
    for settings in SETTINGS:
        recall, seconds = measure(table, settings)
        results.append((settings, recall, seconds))
        print(f"{describe(settings):70s} recall@10 {recall:.4f}  {seconds:6.1f} s", flush=True)
    one_thread = measure(table, SETTINGS[1], threads=1)
    print(f"{'default, one thread':70s} recall@10 {one_thread[0]:.4f}  {one_thread[1]:6.1f} s")
    old, default = results[0], results[1]
    best = max(recall for _, recall, _ in results)
    print(
        f"tsne_levers settings={len(results)} default_recall_at_10={default[1]:.3f} "
        f"best_recall_at_10={best:.3f} default_seconds_ratio={default[2] / old[2]:.2f}"
    )


if __name__ == "__main__":
    main()
