"""Cold start: `streamlit run` to the embedding-layer page's heatmaps drawn in Chromium.

Measured in the default configuration (no model or offline variables set), so on a
machine without network it includes finding out that the Hub cannot be reached and
loading the bundled model. The reference is a one-file app that imports streamlit, torch
and plotly and draws one random 8 x 384 heatmap, timed the same way in the same run.
Rounds alternate app and reference; the medians are compared.

    .venv/bin/python -m bench.cold_start [--rounds N]

With BENCH_QUICK=1: one round, without the warm-up round (see bench/__init__.py).

Last line: cold_start ratio=R app_s=A reference_s=F
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench import full_or_quick
from testkit.browser import launch_chromium, streamlit_server

REFERENCE_APP = """
import plotly.graph_objects as go
import streamlit as st
import torch

z = torch.randn(8, 384).numpy()
st.plotly_chart(go.Figure(go.Heatmap(z=z, colorscale="RdBu_r", zmid=0)))
"""
# Plotly draws a heatmap trace as an <image> inside a "hm" group of the chart's SVG.
DRAWN_HEATMAPS = "[data-testid='stPlotlyChart'] g.hm image"
DEFAULT_CONFIG_UNSET = ("BERT_EXPLORER_MODEL", "HF_HUB_OFFLINE", "HF_ENDPOINT", "BERT_EXPLORER_BUNDLED_DIR")


def time_to_heatmaps(
    browser, script: Path | str, url_path: str, heatmaps: int, unset=(), env: dict | None = None
) -> tuple[float, float]:
    """Seconds from launching the server to ``heatmaps`` drawn; and to the script finishing."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    start = time.perf_counter()
    with streamlit_server(script, env=env, unset=unset) as (base, _process):
        page.goto(f"{base}/{url_path}", wait_until="domcontentloaded")
        page.locator(DRAWN_HEATMAPS).nth(heatmaps - 1).wait_for(state="attached", timeout=120_000)
        drawn = time.perf_counter() - start
        page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=120_000)
        finished = time.perf_counter() - start
    context.close()
    return drawn, finished


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=full_or_quick(5, 1))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        reference_script = Path(folder) / "reference.py"
        reference_script.write_text(REFERENCE_APP)
        browser = launch_chromium(playwright)
        app_times, app_finished, reference_times = [], [], []
        # Round 0 warms the disk cache and is not counted; a quick run has no time for it.
        for round_number in range(full_or_quick(0, 1), args.rounds + 1):
            app = time_to_heatmaps(browser, "app.py", "embedding_layer", 5, unset=DEFAULT_CONFIG_UNSET)
            reference = time_to_heatmaps(browser, reference_script, "", 1)
            if round_number == 0:
                continue  # the first round warms the disk cache for both alike
            app_times.append(app[0])
            app_finished.append(app[1])
            reference_times.append(reference[0])
            print(
                f"round {round_number}: app {app[0]:.2f} s (page finished {app[1]:.2f} s), "
                f"reference {reference[0]:.2f} s"
            )
        browser.close()
    app_s, reference_s = statistics.median(app_times), statistics.median(reference_times)
    print(
        f"page fully finished, verification included: median {statistics.median(app_finished):.2f} s "
        f"({statistics.median(app_finished) / reference_s:.2f} x reference)"
    )
    print(f"cold_start ratio={app_s / reference_s:.2f} app_s={app_s:.2f} reference_s={reference_s:.2f}")


if __name__ == "__main__":
    main()
