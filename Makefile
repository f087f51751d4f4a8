# The targets the README tells people to run. Each sets up .venv first if needed.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run test lint bench clean

$(BIN)/memubot: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $@

setup: $(BIN)/memubot

run: setup
	$(BIN)/memubot run

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: setup lint
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/pip install -q -e '.[test,bench]'
	$(BIN)/python bench/locomo.py --consolidate
	$(BIN)/python bench/noise.py
	$(BIN)/python bench/dedup_threshold.py
	$(BIN)/python bench/decay_plot.py
	$(BIN)/python bench/scale.py
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/embedders.py
	$(BIN)/python bench/embed_contention.py
	$(BIN)/python bench/daemon.py --items 10000,100000

clean:
	rm -rf $(VENV) bench/out .mypy_cache .ruff_cache .pytest_cache
