# The course's entry points. README: `make lab` to study, `make test` to check everything.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# `make test` pins what it installs (CPU torch 2.13.0 here) so test runs are reproducible;
# `make lab` takes the normal torch for the machine (a CUDA build where pip picks one).
TEST_CONSTRAINTS := constraints-ci.txt
NBVAL := --nbval-lax --nbval-current-env --nbval-cell-timeout=300 --nbval-sanitize-with=tests/nbval_sanitize.cfg

.PHONY: lab test test-fast course exercises doctor clean

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(PIP_CONSTRAINTS) -e .
	touch $@

setup: $(VENV)/.installed

# Only this machine can reach the server; root (containers, cloud VMs) needs --allow-root.
LAB_ARGS := --notebook-dir=notebooks --ServerApp.ip=127.0.0.1 $(if $(filter 0,$(shell id -u)),--allow-root)

lab: setup
	$(PY) -m jupyter lab $(LAB_ARGS)

test:
	$(MAKE) setup PIP_CONSTRAINTS="-c $(TEST_CONSTRAINTS)"
	$(PY) -m pytest -p no:cacheprovider $(NBVAL) tests notebooks solutions

# Unit tests only: no torchrun launches, no notebooks (seconds).
test-fast: setup
	$(PY) -m pytest -p no:cacheprovider -m "not slow and not browser" tests

course: setup
	$(PY) -m ddp_lessons course notebooks

exercises: setup
	$(PY) -m ddp_lessons make-exercises

doctor: setup
	$(PY) -m ddp_lessons doctor

clean:
	rm -rf runs notebooks/runs notebooks/scripts solutions/runs solutions/scripts test-output
