# The two commands a new user needs: `make run` and `make test`. Both set up .venv when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements.lock
export LITELLM_LOCAL_MODEL_COST_MAP := True
export LITELLM_OFFLINE_MODE := true

.PHONY: run test lint typecheck install clean bench lock

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip==25.3

# Every package comes from the lock (exact versions and hashes of the whole tree), so two
# installs a month apart are the same program; the project itself is installed editable.
# Re-install only when the lock or the project's metadata changes.
$(STAMP): pyproject.toml $(LOCK) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# After changing a pin in pyproject.toml: resolve the whole tree again and commit the lock.
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --extra dev --extra ray --generate-hashes --universal \
		--python-version 3.11 --no-header --quiet -o $(LOCK)

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
