# dinolab: `make run` and `make test` work from a fresh clone (they create .venv themselves).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
.PHONY: venv run test test-fast bench schema docs compile-plans lint format clean

# --compile-bytecode does what pip does by default and uv skips: where PYTHONDONTWRITEBYTECODE
# is set, every Python process (a run's workers and compile helpers, each of the test suite's
# processes) would otherwise compile numba, pyarrow ... again on import (1.6 s, not 0.7 s).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet uv && $(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) -e ".[dev,dask,notebooks]" \
		|| $(PY) -m pip install --quiet -e ".[dev,dask,notebooks]"
	touch $(STAMP)

venv: $(STAMP)

## run: every registered game's demo (1,000,000 Dino Kontra Dino games, 200,000 EVO games ...,
## mixed or heuristic bots) into runs/demo-<game>/, each with its report
run: $(STAMP)
	$(VENV)/bin/dinolab demo --out-dir runs

## test: the whole suite (unit, property, statistical, conformance, CLI, notebooks), spread
## over every core by pytest-xdist (PYTEST_ARGS="-n 0" runs it in one process)
PYTEST_ARGS ?= -n auto
test: $(STAMP)
	$(PY) -m pytest -q $(PYTEST_ARGS)

## test-fast: the inner loop, under a minute warm: every test but those marked slow (the
## statistical, end-to-end, notebook, cluster and crash tests; CI runs them all)
test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not slow" $(PYTEST_ARGS)

## bench: kernel and end-to-end throughput of every game (dkd with the C yardstick ratio)
bench: $(STAMP)
	$(VENV)/bin/dinolab bench

## schema: regenerate docs/schema.md from the table declarations
schema: $(STAMP)
	$(VENV)/bin/dinolab games --markdown > docs/schema.md

## docs: regenerate what README and docs derive from the code: the schema page, the generated
## sections (every game's bots) and every figure block, each rerun at its declared size (minutes)
docs: $(STAMP)
	$(PY) -m simulate.docgen --figures

## compile-plans: record again the compile plan of each game whose kernel sources changed
## (a cold compile of each, under a minute): what a first compile's helper processes compile
compile-plans: $(STAMP)
	$(PY) -m simulate.kit.compile_plans record --stale

lint: $(STAMP)
	$(VENV)/bin/ruff check .

format: $(STAMP)
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) .numba_cache .pytest_cache .ruff_cache .hypothesis
