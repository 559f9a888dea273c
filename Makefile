# Two commands on a fresh machine:
#   make run   - set up .venv and run the gate on the bundled sample data
#   make test  - set up .venv with the dev extras and run every test, notebooks included
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SAMPLE := data/sample_release.txt

.PHONY: run test test-fast lint format bench report notebooks docs figures clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed-run

# The gate's own exit status is 1 for BLOCK; `make run` shows the verdict and
# only fails on an input error (2) or worse.
run: $(VENV)/.installed-run
	@$(BIN)/buddy-eval $(SAMPLE); status=$$?; [ $$status -le 1 ]

# Every test on every core, each file on one worker (a notebook's cells run in order).
test: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n auto --dist loadfile
	$(MAKE) --no-print-directory docs

# Everything but the tests marked slow (kernels, the browser, wheels, big inputs, signal
# waits, per-case command-line sweeps, the heaviest oracle sweeps), on every core: under a
# minute on two idle cores.
test-fast: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -m "not slow" -n auto -p no:nbval -o addopts="-ra --strict-markers" tests

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $@ $(VENV)/.installed-dev $(VENV)/.installed-run

bench: $(VENV)/.installed-bench
	$(BIN)/python -m benchmarks.run

report: $(VENV)/.installed-dev
	$(BIN)/buddy-eval notebook $(SAMPLE) -o release_report.html

# Re-execute every committed notebook in place (their outputs are what nbval checks).
# No timing metadata: a re-run with the same environment and data changes nothing.
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
notebooks: $(VENV)/.installed-dev
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
		--ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.record_timing=False \
		$(NOTEBOOKS)

# The documentation site, built offline from docs/ into docs/_build/html; any warning fails it.
# Then every `>>>` example of the API reference runs: a wrong output fails it too.
docs: $(VENV)/.installed-dev
	$(BIN)/python -m sphinx -W --keep-going -b html -q docs docs/_build/html
	$(BIN)/python -m sphinx -W --keep-going -b doctest -q docs docs/_build/doctest

# The charts in the README and the docs, redrawn from the sample data.
figures: $(VENV)/.installed-dev
	$(BIN)/python docs/make_figures.py

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(VENV)/.installed-dev
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info docs/_build
