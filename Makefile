# Every target creates the virtual environment on first use, so each works on a fresh clone.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install test lint bench demo clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $@

install: $(BIN)/.installed

test: install
	$(BIN)/pytest -q

lint: install
	$(BIN)/ruff check treerag tests benchmarks examples
	$(BIN)/ruff format --check treerag tests benchmarks examples
	$(BIN)/mypy

bench: install
	for script in benchmarks/[a-z]*.py; do $(BIN)/python -m benchmarks.$$(basename $$script .py) --write || exit 1; done

demo: install
	$(BIN)/treerag demo

clean:
	rm -rf $(VENV) data
