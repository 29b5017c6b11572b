# The two commands of the README:
#   make run    installs everything and runs the reference evaluation
#   make check  installs everything and runs lint, types and the whole test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run check lint types test test-fast bench zizmor clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[retrieval,dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/recall-gate run --config recall-gate.yaml

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

types: $(STAMP)
	$(BIN)/mypy

zizmor: $(STAMP)
	$(BIN)/zizmor --offline --min-severity low action.yml .github/workflows

test: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/pytest -n 2

test-fast: $(STAMP)
	$(BIN)/pytest -n 2 -m "not integration and not act"

check: lint types zizmor test

bench: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
