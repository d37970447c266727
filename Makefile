# The two set-up commands of the README:  make demo   and   make test
# Each makes a virtual environment in .venv and installs what it needs. System packages
# (espeak-ng for speech, alsa-utils, libgl1/libglib2.0-0 for OpenCV, fonts for the test renderer)
# are installed with apt-get when run as root, otherwise the exact command to run is printed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
APT_PACKAGES := espeak-ng alsa-utils libgl1 libglib2.0-0 fonts-dejavu-core
# numba caches compiled code next to the sources; keep it in the venv-independent cache dir.
export NUMBA_CACHE_DIR ?= $(CURDIR)/.venv/numba-cache

.PHONY: demo test lint system venv clean

demo: $(BIN)/.installed
	$(BIN)/tableside demo

# one BLAS thread per test worker: the workers already fill the cores, and idle OpenBLAS threads busy-wait
test: $(BIN)/.installed-test
	$(BIN)/ruff check .
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $(BIN)/python -m pytest -q -n 2 --dist loadfile

lint: $(BIN)/.installed-test
	$(BIN)/ruff check .

system:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	$(PYTHON) -c "import ensurepip, venv" 2>/dev/null || missing="$$missing python3-venv"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
		echo "installing system packages:$$missing"; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else \
		echo "tableside needs these system packages; please run:  sudo apt-get install -y$$missing"; \
		echo "(continuing: speech falls back to text without espeak-ng)"; \
	fi

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(BIN)/.installed: pyproject.toml | system $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(BIN)/.installed-test: pyproject.toml | system $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@ $(BIN)/.installed

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
