# make run / make test create .venv on first use (and reinstall when pyproject.toml changes). `run`
# installs what a simulation needs; `test` adds the test tools. Each step says what it does, and pip
# lists the packages as it installs them, so a first run is never silent.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
PIP := $(BIN)/python -m pip install --disable-pip-version-check --progress-bar on

.PHONY: run test test-all bench results notebooks venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@echo "make: [setup 1/2] creating $(VENV) with $(PYTHON) (first run only)"
	$(PYTHON) -m venv $(VENV)
	@echo "make: [setup 2/2] installing cursedsim and its dependencies into $(VENV) (first run only, about a minute)"
	$(PIP) -e .
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	@echo "make: installing the test tools into $(VENV) (pytest, hypothesis, selenium, ...; first time only)"
	$(PIP) -e '.[test]'
	touch $(TEST_STAMP)

run: $(STAMP)
	@echo "make: simulating Verflucht! for 1-5 players, 100,000 games each (a first run compiles the kernel first)"
	$(BIN)/cursedsim simulate verflucht --players 1-5 --games 100000 --jobs 2

# test: the suite without the tests marked slow (what CI runs); test-all: every test, slow ones included.
# Both first compile every game's kernels, two games at a time, so the two test workers load them from
# the cache instead of compiling the same kernels inside single tests.
test: $(TEST_STAMP)
	@echo "make: compiling every game's kernels into the cache (a cold cache takes minutes, once)"
	$(BIN)/cursedsim compile --jobs 2
	$(BIN)/python -m pytest -n 2 --dist worksteal -q -m "not slow" --durations=30

test-all: $(TEST_STAMP)
	$(BIN)/cursedsim compile --jobs 2
	$(BIN)/python -m pytest -n 2 --dist worksteal -q

bench: $(TEST_STAMP)
	$(BIN)/python benchmarks/bench_verflucht.py
	$(BIN)/python benchmarks/bench_cursed.py
	$(BIN)/python benchmarks/bench_covens.py
	$(BIN)/python benchmarks/bench_gifts.py
	$(BIN)/python benchmarks/bench_village.py
	$(BIN)/python benchmarks/bench_compile.py
	$(BIN)/python benchmarks/bench_memory.py
	$(BIN)/python benchmarks/bench_search.py
	$(BIN)/python benchmarks/bench_clairvoyant.py
	$(BIN)/python benchmarks/bench_clairvoyant_verflucht.py

results: $(TEST_STAMP)
	$(BIN)/python experiments/verflucht_seals.py
	$(BIN)/python experiments/verflucht_compare.py
	$(BIN)/python experiments/verflucht_tune.py
	$(BIN)/cursedsim report verflucht --out results/verflucht/report
	$(BIN)/python experiments/cursed_tune.py
	$(BIN)/python experiments/cursed_policies.py
	$(BIN)/python experiments/cursed_items.py
	$(BIN)/cursedsim report cursed --out results/cursed/report
	$(BIN)/python experiments/covens_balance.py
	$(BIN)/cursedsim report covens --out results/covens/report
	$(BIN)/python experiments/gifts_balance.py
	$(BIN)/cursedsim report gifts --out results/gifts/report
	$(BIN)/python experiments/village_balance.py
	$(BIN)/cursedsim report village --out results/village/report --games 100000

# execute notebooks/*.ipynb and store them with their outputs (tests/test_notebooks.py checks they are fresh)
notebooks: $(TEST_STAMP)
	$(BIN)/python notebooks/execute.py

clean:
	rm -rf $(VENV) build *.egg-info
