"""Server memory after every page has been opened once, with a bert-base-sized model.

bert-base-uncased cannot be downloaded here, so a randomly initialised checkpoint of its
shapes (30,522 x 768 token table, 12 layers, 438 MB safetensors) stands in for it, written
to a temporary folder and named by BERT_EXPLORER_MODEL. Every page is opened in headless
Chromium and waited on until its script has finished (the embedding-layer page until its
verification has passed), then the server's resident memory is read from /proc.

    .venv/bin/python -m bench.memory

With BENCH_QUICK=1 a small random checkpoint stands in instead (see bench/__init__.py), and
only the pages the last line's figures name are opened: Overview, Tokens, Embedding layer and
Context.

Context, the one page that loads the whole model (all 12 encoder layers), is opened last;
RSS is read before it and after it.

Last line: memory rss_mb=M context_rss_mb=C, M after every page but Context (target <= 850),
C after Context too (target <= 1300); Overview, Tokens and Embedding layer alone are checked
against 700.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench import QUICK, QUICK_CHECKPOINT, QUICK_PIECES, full_or_quick
from testkit.browser import PAGES, launch_chromium, open_page, rss_mb, streamlit_server
from testkit.random_models import keep_first_pieces, write_random_bert

# Each target for the pages it was set for: the first three pages, every page but Context,
# and every page (Context loads the whole model).
FOUNDATION_PAGES_MB = 700
WITHOUT_CONTEXT_MB = 850
WITH_CONTEXT_MB = 1300
# The pages opened, in order; Context stays last: RSS is read before it and after it.
OPENED = full_or_quick(list(PAGES), ["overview", "tokens", "embedding_layer", "context"])


# bert-base-uncased's shapes; a quick run's model keeps its positions but is narrow and shallow,
# so that it is written and loaded in a moment, and has the first QUICK_PIECES pieces of the
# vocabulary.
QUICK_SHAPE = {"hidden": 64, "positions": 512, "layers": 2, "heads": 2}
MODEL_SHAPE = full_or_quick({"hidden": 768, "positions": 512, "layers": 12, "heads": 12}, QUICK_SHAPE)


def quick_stand_in(folder: Path) -> Path:
    """A quick run's stand-in, written to ``folder`` (tests/test_benchmarks.py writes it once
    for every run and hands it over as BENCH_QUICK_CHECKPOINT)."""
    return keep_first_pieces(write_random_bert(folder, **QUICK_SHAPE), QUICK_PIECES)


def bert_base_shaped(folder: Path) -> Path:
    """The benchmarks' stand-in for bert-base-uncased, written to ``folder``: a small one in a
    quick run, copied from BENCH_QUICK_CHECKPOINT when that names one."""
    if QUICK_CHECKPOINT:
        return Path(shutil.copytree(QUICK_CHECKPOINT, folder))
    if QUICK:
        return quick_stand_in(folder)
    return write_random_bert(folder, **MODEL_SHAPE)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        checkpoint = bert_base_shaped(Path(folder) / "bert-base-shaped")
        size_mb = (checkpoint / "model.safetensors").stat().st_size / 1e6
        print(f"checkpoint: {checkpoint} ({size_mb:.0f} MB)")
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        with streamlit_server(env={"BERT_EXPLORER_MODEL": str(checkpoint)}) as (base, process):
            print(f"server started: rss {rss_mb(process.pid):.0f} MB")
            after = {}
            for path in OPENED:
                open_page(page, f"{base}/{path}")
                if page.locator("[data-testid='stException']").count():
                    raise RuntimeError(f"the {path} page shows an exception")
                if path == "embedding_layer":
                    page.get_by_text("Passed: within").wait_for(state="visible", timeout=120_000)
                after[path] = rss_mb(process.pid)
                print(f"after opening {path}: rss {after[path]:.0f} MB")
        browser.close()
    foundation = max(after[p] for p in ("overview", "tokens", "embedding_layer"))
    without_context = max(v for p, v in after.items() if p != "context")
    resident = after["context"]
    for label, value, target in (
        ("Overview, Tokens and Embedding layer", foundation, FOUNDATION_PAGES_MB),
        ("every page but Context", without_context, WITHOUT_CONTEXT_MB),
        ("every page, Context included", resident, WITH_CONTEXT_MB),
    ):
        print(f"{label}: {value:.0f} MB, target <= {target} MB: {'met' if value <= target else 'NOT met'}")
    print(f"memory rss_mb={without_context:.0f} context_rss_mb={resident:.0f}")


if __name__ == "__main__":
    main()
