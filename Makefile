# Set-up is bootstrapped: every target creates what it needs on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PEERS := .peers
BELOTE_CLI := $(PEERS)/belote-cli/bin/python
COLVER := $(PEERS)/colver/bin/python
BELOTE_CLI_VERSION := 4.9.6
JOBS ?= 2

.PHONY: test lint typecheck pytest bench strength demo play serve peers clean docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@echo "compiling the solver once (numba; cached for every later start)..."
	$(PY) -m rebelote.solver.warm
	touch $(STAMP)

# Peer engines live in their own virtualenvs and are driven by subprocess only.
$(BELOTE_CLI):
	$(PYTHON) -m venv $(PEERS)/belote-cli
	$(PEERS)/belote-cli/bin/pip install -q belote-cli==$(BELOTE_CLI_VERSION)

$(COLVER):
	$(PYTHON) -m venv $(PEERS)/colver
	$(PEERS)/colver/bin/pip install -q colver

peers: $(BELOTE_CLI) $(COLVER)

test: $(STAMP) peers
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest -n $(JOBS)

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench

typecheck: $(STAMP)
	$(VENV)/bin/mypy

pytest: $(STAMP) peers
	$(VENV)/bin/pytest -n $(JOBS)

bench: $(STAMP) $(BELOTE_CLI) $(COLVER)
	$(PY) -m bench

# The expert against colver by time budget (10, 100, 500 ms; both colver bidders): the
# full runs (hours on two cores), a table and bench/out/strength.png.
strength: $(STAMP) $(COLVER)
	$(PY) -m bench.strength

# The web platform on http://127.0.0.1:8000, SQLite, nothing to install.
serve: $(STAMP)
	$(VENV)/bin/rebelote serve

# The terminal game.
play: $(STAMP)
	$(VENV)/bin/rebelote play

# A game played by bots, then replayed.
demo: $(STAMP)
	$(VENV)/bin/rebelote selfplay --preset classic --hands 12 --seed 1 --record demo-record.json
	$(VENV)/bin/rebelote replay demo-record.json

docs: $(STAMP)
	$(PY) -c "from rebelote.rules import options_markdown as o; print(o(), end='')" > docs/rules-options.md

clean:
	rm -rf $(VENV) $(PEERS) .mypy_cache .ruff_cache .pytest_cache .hypothesis
