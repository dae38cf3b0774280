# The course's entry points. README: `make lab` to study, `make test` to check everything.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# `make test` pins what it installs (CPU torch 2.13.0 here) so test runs are reproducible;
# `make lab` takes the normal torch for the machine (a CUDA build where pip picks one).
TEST_CONSTRAINTS := constraints-ci.txt
NBVAL := --nbval-lax --nbval-current-env --nbval-cell-timeout=300 --nbval-sanitize-with=tests/nbval_sanitize.cfg

.PHONY: lab lab-es test test-extended test-gpu test-fast course course-es exercises translations translations-run doctor site clean

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(PIP_CONSTRAINTS) -e .
	touch $@

setup: $(VENV)/.installed

# The web site's tools (pyproject's `docs` extra: Sphinx, myst-nb, Furo): `make site` and `make test` (its
# site test) install them; `make lab` does not.
$(VENV)/.installed-docs: $(VENV)/.installed
	$(PY) -m pip install --quiet $(PIP_CONSTRAINTS) -e '.[docs]'
	touch $@

setup-docs: $(VENV)/.installed-docs

# Only this machine can reach the server; root (containers, cloud VMs) needs --allow-root.
LAB_ARGS := --notebook-dir=notebooks --ServerApp.ip=127.0.0.1 $(if $(filter 0,$(shell id -u)),--allow-root)

lab: setup
	$(PY) -m jupyter lab $(LAB_ARGS)

# The Spanish edition (README.es.md): the file browser opens on notebooks/es/, served from the course's
# folder so that the lessons' links to exercises/es/ open too.
lab-es: setup
	$(PY) -m jupyter lab $(subst --notebook-dir=notebooks,--notebook-dir=. --LabApp.default_url=/lab/tree/notebooks/es,$(LAB_ARGS))

# The same CPU run on any machine: GPUs hidden (a GPU VM's CUDA torch then takes the CPU paths), and
# a .venv whose packages differ from the pins (e.g. a custom torch for `make lab`) is refused.
# Lessons run under nbval; solutions run once, in the grader test (tests/test_grading.py: every check
# passes, every cell runs without an error), not also under nbval.
# Most tests wait (torchrun start-up, rendezvous, timeouts, kernels): TEST_WORKERS pytest-xdist
# workers share the cores, each notebook whole on one worker (conftest.py says what runs together);
# then what is marked `serial` (lesson 9 measures the machine) runs alone (exit 5: none is marked).
# docs/AUTHORING.md, "How long the tests take": the timings and how to measure them.
# The Spanish lessons' stored outputs come from Spanish runs; three of them run under nbval here, the
# cheapest that cover torchrun launches and a failure (07), live ranks (00), widgets and figures (05)
# (every other notebooks/es/ lesson is ignored); `make course-es` runs them all.
TEST_WORKERS ?= 5
ES_TEST_LESSONS := notebooks/es/00_playground.ipynb notebooks/es/05_distributed_sampler.ipynb \
	notebooks/es/07_torchrun.ipynb
ES_IGNORED := $(addprefix --ignore=,$(filter-out $(ES_TEST_LESSONS),$(wildcard notebooks/es/*.ipynb)))
PYTEST := CUDA_VISIBLE_DEVICES="" $(PY) -m pytest -p no:cacheprovider $(NBVAL)
test:
	$(MAKE) setup-docs PIP_CONSTRAINTS="-c $(TEST_CONSTRAINTS)"
	$(PY) -m ddp_lessons doctor --check-pins $(TEST_CONSTRAINTS)
	$(PYTEST) -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder -m "not serial and not extended" $(ES_IGNORED) tests notebooks
	$(PYTEST) -m "serial and not extended" --ignore=notebooks/es tests notebooks || [ $$? -eq 5 ]

# The real runs `make test` leaves out (marker `extended`: their verdicts are covered from records or by
# grading the solutions), for a change to a check or the launcher: about 5 minutes on 2 cores.
test-extended: setup
	$(PYTEST) -n $(TEST_WORKERS) --dist loadgroup -m extended tests

# The GPU paths on purpose, on the GPUs this machine shows: the lessons with GPU cells, the doctor's
# smoke tests, and the unit tests of what decides backends and devices.
GPU_LESSONS := notebooks/01_why_ddp.ipynb notebooks/03_devices.ipynb notebooks/06_gradient_sync.ipynb \
	notebooks/09_scaling.ipynb notebooks/10_when_ddp_breaks.ipynb notebooks/12_to_the_cluster.ipynb \
	notebooks/13_mixed_precision.ipynb notebooks/14_accelerate.ipynb \
	notebooks/15_memory_and_sharding.ipynb notebooks/16_inside_allreduce.ipynb \
	notebooks/17_modern_loop.ipynb
test-gpu: setup
	$(PY) -m ddp_lessons doctor
	$(PY) -m pytest -p no:cacheprovider $(NBVAL) tests/test_backend.py tests/test_timing.py $(GPU_LESSONS)

# Unit tests only: no torchrun launches, no notebooks (seconds).
test-fast: setup
	$(PY) -m pytest -p no:cacheprovider -m "not slow and not browser" tests

course: setup
	$(PY) -m ddp_lessons course notebooks

# Every Spanish lesson, and each checked cell (# NBVAL_CHECK_OUTPUT) of those whose outputs come from a
# Spanish run printing what its stored output shows.
course-es: setup
	$(PY) -m ddp_lessons course notebooks/es --check-outputs

exercises: setup
	$(PY) -m ddp_lessons make-exercises

# notebooks/es/, exercises/es/ and examples/es/ from the English notebooks and the catalogs in i18n/es/ (AUTHORING.md).
translations: setup
	$(PY) -m ddp_lessons make-translations
	$(PY) tools/write_examples_es.py

# Generate, then run Spanish lessons in notebooks/es/ and store their outputs: NOTEBOOKS=... (default:
# every lesson whose code is translated and whose stored outputs are not from a run of its code).
translations-run: setup
	$(PY) -m ddp_lessons make-translations --run $(NOTEBOOKS)

doctor: setup
	$(PY) -m ddp_lessons doctor

# The course as a static web site in site/ (English; Spanish in site/es/), from the stored notebooks:
# nothing runs. Preview: python3 -m http.server --directory site --bind 127.0.0.1 8000 (README).
site: setup-docs
	$(PY) -m ddp_lessons site

clean:
	rm -rf runs notebooks/runs notebooks/scripts solutions/runs solutions/scripts test-output \
		notebooks/es/runs notebooks/es/scripts exercises/es/runs exercises/es/scripts site build/site
