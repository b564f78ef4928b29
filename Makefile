# make run / make test create .venv on first use (and reinstall when pyproject.toml changes).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench results venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/cursedsim simulate verflucht --players 1-5 --games 100000 --jobs 2

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_verflucht.py
	$(BIN)/python benchmarks/bench_cursed.py
	$(BIN)/python benchmarks/bench_memory.py

results: $(STAMP)
	$(BIN)/python experiments/verflucht_seals.py
	$(BIN)/python experiments/verflucht_compare.py
	$(BIN)/python experiments/verflucht_tune.py
	$(BIN)/cursedsim report verflucht --out results/verflucht/report
	$(BIN)/python experiments/cursed_policies.py
	$(BIN)/python experiments/cursed_tune.py
	$(BIN)/python experiments/cursed_items.py
	$(BIN)/cursedsim report cursed --out results/cursed/report

clean:
	rm -rf $(VENV) build *.egg-info
