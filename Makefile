# RoC developer commands. Every target bootstraps .venv by itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck pytest spec buf docs bench clean

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

## run: the conformance suite against the reference runtime (certify settings); reports in reports/
run: $(STAMP)
	$(BIN)/roc-conformance run --target reference --peer reference --report-dir reports

## test: linters, type checker, spec checks, buf lint (when node is present), the whole pytest suite, the docs build
test: lint typecheck spec buf pytest docs

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy

buf:
	@if ! find proto -name '*.proto' | grep -q .; then echo "buf lint skipped: no .proto files yet"; \
	elif command -v npx >/dev/null 2>&1; then \
		echo "buf lint (STANDARD)"; cd proto && npx --yes @bufbuild/buf@1.75.0 lint; \
	else echo "buf lint skipped: node/npx not found"; fi

## spec: requirements.json fresh, spec lint, a coverage summary (tests/spec runs the same checks)
spec: $(STAMP)
	$(BIN)/python -m roc_conformance.specdoc check
	$(BIN)/python -m roc_conformance.specdoc lint
	$(BIN)/python -m roc_conformance.specdoc coverage

pytest: $(STAMP)
	$(BIN)/python -m pytest

docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

## bench: every benchmark at full scale against its peers (strands-agents in its own .venv-bench);
## writes benchmarks/results.json, which the docs' Performance page shows
BENCH_VENV  := .venv-bench
BENCH_STAMP := $(BENCH_VENV)/.installed

$(BENCH_STAMP): pyproject.toml
	test -d $(BENCH_VENV) || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install -q --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install -q -e '.[bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BENCH_VENV)/bin/python -m benchmarks

clean:
	rm -rf $(VENV) $(BENCH_VENV) reports site .mypy_cache .ruff_cache .pytest_cache .hypothesis

## strands-python: the Strands Agents (Python) adapter's own virtualenv (not part of test or run)
STRANDS_PY_VENV := conformance/adapters/strands-python/.venv

.PHONY: strands-python
strands-python:
	test -d $(STRANDS_PY_VENV) || $(PYTHON) -m venv $(STRANDS_PY_VENV)
	$(STRANDS_PY_VENV)/bin/python -m pip install -q -e . 'strands-agents==1.62.0'

## strands-typescript: the Strands Agents (TypeScript) adapter's locked dependencies (and the kit's, which it imports)
STRANDS_TS := conformance/adapters/strands-typescript

.PHONY: strands-typescript
strands-typescript:
	cd conformance/adapters/kit-typescript && npm ci --no-audit --no-fund
	cd $(STRANDS_TS) && npm ci --no-audit --no-fund

## compat: the certify suite against the reference and the Strands adapters (install them once with
## make strands-python strands-typescript; it runs offline after); results and the matrix in compat/
COMPAT_INSTALLED := conformance/adapters/strands-python/.venv/bin/python \
	conformance/adapters/strands-typescript/node_modules/.package-lock.json

.PHONY: compat
compat: $(STAMP) $(COMPAT_INSTALLED)
	$(BIN)/roc-conformance compat

# Installing needs the network, so compat never does it: a missing adapter is named, with its make target.
$(COMPAT_INSTALLED):
	@echo "make compat: $@ is missing: install the adapters first with make strands-python strands-typescript" >&2
	@exit 1

## docs-deploy: the site of the current spec version (specVersion in spec/requirements.json) committed by mike
## to the local gh-pages branch, aliased latest, with the root redirecting to latest; nothing is pushed
.PHONY: docs-deploy
docs-deploy: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" NO_MKDOCS_2_WARNING=1 $(BIN)/mike deploy --update-aliases \
		"$$($(BIN)/python -c 'import json; print(json.load(open("spec/requirements.json"))["specVersion"])')" latest
	$(BIN)/mike set-default latest
