# The two commands of the README: `make site` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# Material prints a banner about its end of life on every build; the design notes track it.
export NO_MKDOCS_2_WARNING := 1
# CPU machines get PyTorch's CPU build (a bare `torch` would pull a CUDA build of
# several GB). A machine with an NVIDIA GPU keeps the CUDA torch it has: its venv
# sees the system's site-packages.
HAVE_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
TORCH_CPU ?= torch==2.13.0

.PHONY: setup site build-site serve test figures clean

$(VENV)/.installed: pyproject.toml Makefile
	python3 -m venv $(if $(HAVE_GPU),--system-site-packages) $(VENV)
	$(if $(HAVE_GPU),,$(PY) -m pip install -q $(TORCH_CPU))
	$(PY) -m pip install -q -e ".[docs,test]"
	touch $@

setup: $(VENV)/.installed

build-site: setup
	$(PY) -m mkdocs build --strict

site: build-site
	$(PY) -m mkdocs serve --strict --dev-addr 127.0.0.1:$(PORT)

test: setup
	$(VENV)/bin/ruff check .
	$(PY) -m pytest

# Re-record what is stale (CUDA recordings on a GPU; CPU stand-ins elsewhere), then re-render.
figures: setup
	$(PY) -m profguide build --refresh

clean:
	rm -rf site $(VENV)
