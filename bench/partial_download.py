"""Fetching only the embedding layer against fetching the whole checkpoint.

A randomly initialised checkpoint of bert-base-uncased's shapes (12 layers, 438 MB) is
served by the tests' stand-in Hub on 127.0.0.1, once honouring byte ranges and once not.
Each round starts the app with an empty cache and that model, and measures the bytes the
server sent and the time from `streamlit run` to the embedding page's heatmaps drawn in
headless Chromium (the first render), alternating the two servers.

    .venv/bin/python -m bench.partial_download [--rounds N]

With BENCH_QUICK=1: one round, with a small random checkpoint (see bench/__init__.py).

Last line: partial_download bytes_ratio=B time_ratio=T   (target B <= 0.25)
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench import full_or_quick
from bench.cold_start import time_to_heatmaps
from bench.memory import bert_base_shaped
from testkit.browser import launch_chromium
from testkit.stand_in_hub import stand_in_hub

REPO = "bench/bert-base-shaped"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=full_or_quick(3, 1))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        checkpoint = bert_base_shaped(Path(folder) / "model")
        print(f"checkpoint: {(checkpoint / 'model.safetensors').stat().st_size / 1e6:.0f} MB")
        browser = launch_chromium(playwright)
        sent = {"ranged": [], "whole": []}
        seconds = {"ranged": [], "whole": []}
        with (
            stand_in_hub({REPO: checkpoint}) as (ranged_url, ranged_log),
            stand_in_hub({REPO: checkpoint}, ranges=False) as (whole_url, whole_log),
        ):
            for round_number in range(1, args.rounds + 1):
                for mode, url, log in (("ranged", ranged_url, ranged_log), ("whole", whole_url, whole_log)):
                    cache = Path(tempfile.mkdtemp(dir=folder))
                    before = log.bytes_sent
                    env = {
                        "HF_ENDPOINT": url,
                        "HF_HUB_CACHE": str(cache / "hub"),
                        # the explorer's own downloads too, whatever cache the caller set
                        "BERT_EXPLORER_CACHE": str(cache / "bert-explorer"),
                        "BERT_EXPLORER_MODEL": REPO,
                    }
                    drawn, _ = time_to_heatmaps(
                        browser, "app.py", "embedding_layer", 5, unset=("HF_HUB_OFFLINE",), env=env
                    )
                    sent[mode].append(log.bytes_sent - before)
                    seconds[mode].append(drawn)
                    megabytes = sent[mode][-1] / 1e6
                    print(f"round {round_number} {mode}: {megabytes:.1f} MB, heatmaps after {drawn:.2f} s")
        browser.close()
    bytes_ratio = statistics.median(sent["ranged"]) / statistics.median(sent["whole"])
    time_ratio = statistics.median(seconds["ranged"]) / statistics.median(seconds["whole"])
    print(f"partial_download bytes_ratio={bytes_ratio:.3f} time_ratio={time_ratio:.2f}")


if __name__ == "__main__":
    main()
