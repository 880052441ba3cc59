# Two set-up commands (see README): `make demo` runs the main job, `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

$(BIN)/acidsql: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(BIN)/acidsql

.PHONY: install demo test bench lint-corpus
install: $(BIN)/acidsql

demo: install
	rm -rf warehouse
	$(BIN)/acidsql run examples/quickstart.sql --warehouse warehouse

test: install
	$(BIN)/python -m pytest -q -m "not slow" -p no:cacheprovider

bench: install
	$(BIN)/python -m benchmarks
