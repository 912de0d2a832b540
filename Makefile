# The two commands of the README: `make site` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# Material prints a banner about its end of life on every build; the design notes track it.
export NO_MKDOCS_2_WARNING := 1
# CPU machines get PyTorch's CPU build: PyPI's torch is the CUDA build, whose nvidia-* and triton packages
# make it many times larger (benchmarks/install_size.py measures both). The `+cpu` build is on PyTorch's CPU index; pip takes it
# from the machine's own wheels when they hold it (--no-index: no network, no retries against an index it
# cannot reach), else from that index. Its dependencies come from the lock. A machine with an NVIDIA GPU
# keeps the CUDA torch it has: its venv sees the system's site-packages.
HAVE_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
TORCH_CPU ?= torch==2.13.0+cpu
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
# Every package the site build and the tests install, pinned (torch's own dependencies too; torch itself is
# left out, as above). `make lock` writes it from pyproject.toml's ranges.
LOCK := requirements/lock.txt

.PHONY: setup site build-site serve test test-fast test-newest lock figures goldens clean

$(VENV)/.installed: pyproject.toml Makefile $(LOCK)
	python3 -m venv $(if $(HAVE_GPU),--system-site-packages) $(VENV)
	$(if $(HAVE_GPU),,$(PY) -m pip install -q --no-deps --no-index -c $(LOCK) $(TORCH_CPU) 2>/dev/null \
		|| $(PY) -m pip install -q --no-deps --index-url $(TORCH_CPU_INDEX) -c $(LOCK) $(TORCH_CPU))
	$(PY) -m pip install -q -r $(LOCK)
	$(PY) -m pip install -q --no-deps --no-build-isolation -e .
	$(PY) -m pip check
	touch $@

setup: $(VENV)/.installed

build-site: setup
	$(PY) -m mkdocs build --strict

site: build-site
	$(PY) -m mkdocs serve --strict --dev-addr 127.0.0.1:$(PORT)

# Two pytest processes at once, one a core (pytest-xdist is not in the package index this project is built
# from): the slow tests but the notebooks and those that read the built site (pyproject.toml names the markers),
# beside all the others, which balances the two and builds the site once. mypy runs beside them. The slow ones
# report after the others; the run fails if any part does.
SLOW_LOG := test-output/slow-tests.log
TYPES_LOG := test-output/mypy.log
test: setup
	$(VENV)/bin/ruff check .
	mkdir -p $(dir $(SLOW_LOG))
	$(VENV)/bin/mypy > $(TYPES_LOG) 2>&1 & types=$$!; \
	$(PY) -m pytest -m "slow and not notebook and not site" > $(SLOW_LOG) 2>&1 & slow=$$!; \
	$(PY) -m pytest -m "not (slow and not notebook and not site)"; others=$$?; \
	wait $$slow; slowed=$$?; cat $(SLOW_LOG); wait $$types; typed=$$?; cat $(TYPES_LOG); \
	exit $$((others || slowed || typed))

# What a contributor runs between changes: no browser, no fresh processes, no C++ compiles (pyproject.toml names
# the markers).
test-fast: setup
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -m "not slow and not browser"

# The tests with the newest versions pyproject.toml's ranges allow, ignoring the lock, in a venv of their own
# (the scheduled workflow .github/workflows/newest.yml runs this every day). Each run upgrades what it can.
NEWEST ?= .venv-newest
test-newest:
	test -x $(NEWEST)/bin/python || python3 -m venv $(if $(HAVE_GPU),--system-site-packages) $(NEWEST)
	$(NEWEST)/bin/python -m pip install -q --upgrade pip
	$(if $(HAVE_GPU),,$(NEWEST)/bin/python -m pip install -q --upgrade --no-deps --no-index $(TORCH_CPU) 2>/dev/null \
		|| $(NEWEST)/bin/python -m pip install -q --upgrade --no-deps --index-url $(TORCH_CPU_INDEX) $(TORCH_CPU))
	$(NEWEST)/bin/python -c "from importlib.metadata import version; print('torch==' + version('torch'))" \
		> $(NEWEST)/torch.txt  # the torch in place stays: the CPU build, or a GPU machine's own
	$(NEWEST)/bin/python -m pip install -q --upgrade --upgrade-strategy eager -c $(NEWEST)/torch.txt -e ".[docs,test]" \
		"torch"  # torch's own dependencies, at their newest, around the torch in place
	$(NEWEST)/bin/python -m pip check
	$(NEWEST)/bin/python -m pip list --format freeze > $(NEWEST)/versions.txt
	$(NEWEST)/bin/ruff check .
	$(NEWEST)/bin/python -m pytest

# Rewrites $(LOCK) from pyproject.toml (its docs, tables and test extras) with pip-tools, pinned in requirements/tools.txt.
# LOCK_FLAGS=--upgrade (the default) takes the newest versions; LOCK_FLAGS= keeps the pins that still fit.
# It resolves against PyPI alone (PIP_CONFIG_FILE=/dev/null: a machine's own pip.conf may add indexes or local
# wheels that a clean machine lacks), and torch's dependencies (the record extra) against $(TORCH_CPU), the
# CPU build, found on $(TORCH_CPU_INDEX) by default (LOCK_TORCH; or PIP_FIND_LINKS where a machine holds it).
# The lock is refused if it would install a CUDA build's packages or name a local path.
TOOLS ?= .venv-tools
LOCK_TORCH ?= --extra-index-url $(TORCH_CPU_INDEX)
LOCK_FLAGS ?= --upgrade
$(TOOLS)/.installed: requirements/tools.txt
	python3 -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install -q -r requirements/tools.txt
	touch $@

lock: $(TOOLS)/.installed
	echo '$(TORCH_CPU)' > $(TOOLS)/torch.txt
	PIP_CONFIG_FILE=/dev/null CUSTOM_COMPILE_COMMAND="make lock" $(TOOLS)/bin/pip-compile --quiet $(LOCK_FLAGS) \
		--extra docs --extra record --extra tables --extra test --all-build-deps --strip-extras --unsafe-package torch \
		--index-url https://pypi.org/simple $(LOCK_TORCH) -c $(TOOLS)/torch.txt \
		--no-emit-index-url --no-emit-find-links --no-emit-trusted-host --output-file $(LOCK) pyproject.toml
	if grep -nE '^(nvidia-|triton)|file://|/opt/|^-' $(LOCK); then \
		echo "make lock: $(LOCK) holds a CUDA build's packages or a local path (above): see the Makefile"; exit 1; fi

# Re-record what is stale (CUDA recordings on a GPU; CPU stand-ins elsewhere), then re-render.
figures: setup
	$(PY) -m profguide build --refresh

# Rewrites tests/goldens/: `profguide explain` (JSON and text) on every real trace in docs/traces/, so that a change
# to any verdict, figure or sentence on a real trace shows in review as a diff of those files.
goldens: setup
	$(PY) -m tests.goldens

clean:
	rm -rf site $(VENV) $(NEWEST) $(TOOLS)
