# Lakeshore: the two commands of the README, each doing all set-up on a fresh machine.
#   make demo   Debian packages, .venv, build, then `lakeshore demo`
#   make test   the same set-up, then the C++ tests (ctest) and the Python tests (pytest)
# Other targets: make install (set-up only), make bench, make lint, make clean.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
# Two cores are shared by everyone on the machine: keep the build at -j2 unless told otherwise.
export CMAKE_BUILD_PARALLEL_LEVEL ?= 2
# The persistent build folder scikit-build-core uses (pyproject.toml: build/{cache_tag}).
BUILD_DIR = build/$(shell $(PY) -c 'import sys; print(sys.implementation.cache_tag)')
# Extra arguments: `make demo DEMO_ARGS=./my-demo`, `make test PYTEST_ARGS="-k cli -x"`.
DEMO_ARGS ?=
PYTEST_ARGS ?=

.PHONY: demo test install system-packages ctest pytest bench lint stubs clean

demo: install
	$(VENV)/bin/lakeshore demo $(DEMO_ARGS)

test: install ctest pytest

system-packages:
	@bash scripts/ensure-system-packages.sh $(PYTHON)

$(PY): | system-packages
	$(PYTHON) -m venv $(VENV)

$(VENV)/.requirements-dev.stamp: requirements-dev.txt | $(PY)
	$(PIP) install -r requirements-dev.txt
	touch $@

# Builds the core once, for both the Python module and the GoogleTest binary, in BUILD_DIR;
# reruns only what changed. --no-build-isolation keeps the build tied to .venv's pyarrow so the
# build folder stays valid between runs.
install: system-packages $(VENV)/.requirements-dev.stamp
	$(PIP) install --no-build-isolation --no-deps --force-reinstall \
	  -C cmake.define.LAKESHORE_BUILD_TESTS=ON .

ctest: install
	cd $(BUILD_DIR) && ctest --output-on-failure

pytest: install
	$(PY) -m pytest $(PYTEST_ARGS)

bench: install
	$(PY) bench/write_read.py
	$(PY) bench/vacuum.py
	$(PY) bench/mor.py
	$(PY) bench/upsert.py
	$(PY) bench/filtered_read.py

# The typed face of the native module, from the built module (tests/test_core_stub.py checks it).
stubs: install
	$(PY) scripts/gen_core_stub.py

lint: $(VENV)/.requirements-dev.stamp
	$(VENV)/bin/ruff check python tests bench
	$(VENV)/bin/ruff format --check python tests bench
	$(VENV)/bin/mypy --strict --ignore-missing-imports python/lakeshore

clean:
	rm -rf build dist
