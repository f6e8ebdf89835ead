"""The browser tests' Chromium, in one place: a pytest plugin (tests/conftest.py loads it).

A test (or fixture) that asks for ``browser`` gets Debian's Chromium, headless under Playwright's
synchronous API, launched once for its test file and closed at the file's end. A file whose pages
need other switches overrides ``chromium_args`` (testkit.browser.NO_WEBGL, say). Where there is no
Chromium or no Playwright the test skips and says how to install them; under CI=true, where
`make test` installs both, it fails instead. A file that uses Playwright's names when it is
imported calls ``playwright_api()`` there, which skips or fails the whole file the same way.

One Playwright per file, not per test process: while the synchronous API is started, its event
loop counts as running in the process's main thread, so that any later test of that process
calling ``asyncio.run()`` would fail for no reason of its own (and only in some orders).
"""

from __future__ import annotations

import os

import pytest

from testkit.browser import chromium_path, launch_chromium

NO_CHROMIUM = "no chromium: install it with `apt-get install -y chromium` (or run `make test` as root)"


def need_chromium(why: str = NO_CHROMIUM) -> None:
    """Skips the caller (a test, a fixture, or a test file being imported) with ``why`` where there
    is no Chromium; fails it under CI=true."""
    if chromium_path() is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but no chromium found: install Debian's chromium package", pytrace=False)
        pytest.skip(why, allow_module_level=True)


def playwright_api():
    """Playwright's synchronous API (``sync_api.expect``, ``sync_api.TimeoutError``), once
    ``need_chromium`` has passed; skips where Playwright is not installed."""
    need_chromium()
    return pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def chromium_args() -> tuple[str, ...]:
    """Switches added to testkit.browser.CHROMIUM_ARGS for this file's Chromium."""
    return ()


@pytest.fixture(scope="module")
def browser(chromium_args):
    """This file's headless Chromium (tests/conftest.py reports its pages when a test fails).
    Each test closes the contexts it opens."""
    sync_api = playwright_api()
    with sync_api.sync_playwright() as playwright:
        chromium = launch_chromium(playwright, tuple(chromium_args))
        yield chromium
        chromium.close()
