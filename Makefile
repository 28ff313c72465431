# dinolab: `make run` and `make test` work from a fresh clone (they create .venv themselves).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
RUN_DIR ?= runs/demo-dkd
EVO_RUN_DIR ?= runs/demo-evo

.PHONY: venv run test bench lint format clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,dask]"
	touch $(STAMP)

venv: $(STAMP)

## run: 1,000,000 four-player Dino Kontra Dino games (mixed bots, rotated seats) and
## 200,000 four-player EVO games (heuristic bots), each with its report
run: $(STAMP)
	$(VENV)/bin/dinolab simulate dkd --games 1000000 --players 4 --seed 7 \
		--strategy greedy,cautious,blind,random --rotate --out $(RUN_DIR) --force
	$(VENV)/bin/dinolab report $(RUN_DIR)
	$(VENV)/bin/dinolab simulate evo --games 200000 --players 4 --seed 7 \
		--strategy heuristic --out $(EVO_RUN_DIR) --force
	$(VENV)/bin/dinolab report $(EVO_RUN_DIR)

## test: the whole suite (unit, property, statistical, CLI, notebooks)
test: $(STAMP)
	$(PY) -m pytest -q

## bench: kernel and end-to-end throughput of both games (dkd with the C yardstick ratio)
bench: $(STAMP)
	$(VENV)/bin/dinolab bench dkd
	$(VENV)/bin/dinolab bench evo

lint: $(STAMP)
	$(VENV)/bin/ruff check .

format: $(STAMP)
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) .numba_cache .pytest_cache .ruff_cache .hypothesis
