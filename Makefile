# Two commands for people (see README.md):
#   make run    set up .venv/ if needed, then start the explorer
#   make test   set up .venv/, a browser, axe-core and the servers the replica tests start,
#               if needed, then lint and run every test
# and one for developers between edits:
#   make check  lint, then the quick tier: every test that needs no browser, starts no server or
#               background process and computes for no more than a few seconds (a few minutes)
# The virtual environment is reused once a stamp file says its install finished; editing
# a requirements file makes it install again.

PYTHON ?= python3
VENV := .venv
# The PyTorch CPU index named in requirements.txt may be unreachable (offline machines):
# one quick retry keeps pip from stalling on it while still riding out a passing hiccup.
PIP_INSTALL := $(VENV)/bin/pip install --retries 1 --timeout 20 --disable-pip-version-check
APP_STAMP := $(VENV)/.app-installed
DEV_STAMP := $(VENV)/.dev-installed

.PHONY: run test check lint browser setup

run: $(APP_STAMP)
	$(VENV)/bin/streamlit run app.py

# Two test processes, one per core; a file whose tests share a server or browser stays in one
# (its xdist_group), every other test goes wherever a process is free. The 25 slowest are listed.
PYTEST_PARALLEL := -n 2 --dist loadgroup

# The order is shuffled (pytest-randomly prints its seed); ARGS=--randomly-seed=N replays one.
test: $(DEV_STAMP) browser lint
	$(VENV)/bin/pytest $(PYTEST_PARALLEL) --durations=25 $(ARGS)

# The tests left out are marked `browser`, `server` or `slow` in their own files, the latter two with why.
# The ten slowest are listed at the end, so that the tier can be kept quick.
check: $(DEV_STAMP) lint
	$(VENV)/bin/pytest $(PYTEST_PARALLEL) -m "not browser and not server and not slow" --durations=10

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

setup: $(DEV_STAMP)

browser: $(DEV_STAMP)
	@bash scripts/ensure-chromium.sh
	@bash scripts/fetch-axe.sh
	@bash scripts/ensure-services.sh

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(APP_STAMP): requirements.txt | $(VENV)/bin/python
	$(PIP_INSTALL) -r requirements.txt
	touch $@

$(DEV_STAMP): requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PIP_INSTALL) -r requirements-dev.txt
	touch $@ $(APP_STAMP)
