# The two commands a new user needs: `make run` and `make test`. Both set up .venv when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export LITELLM_LOCAL_MODEL_COST_MAP := True
export LITELLM_OFFLINE_MODE := true

.PHONY: run test lint typecheck install clean bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip==25.3

# Re-install only when the dependency list changes; the project itself is installed editable.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# First start seeds the database with the demo scorers, datasets and traces of data/ (only if empty).
run: $(STAMP)
	$(BIN)/scorer-studio seed
	$(BIN)/scorer-studio ui

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
