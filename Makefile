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

# The benchmarks also need the `bench` extra (sqlfluff, for the side-by-side in lint_throughput).
$(VENV)/.bench-installed: $(BIN)/acidsql
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	touch $@

bench: $(VENV)/.bench-installed
	$(BIN)/python -m benchmarks

# Reliability harnesses (docs/reliability.md). Long runs: not part of `make test` or .ci/run.
TORTURE_ARGS ?= --procs 4 --txns 50 --layout all --isolation all
CRASH_ARGS ?= --kills 200 --layout unpartitioned-dv
FUZZ_ARGS ?= --examples 20000 --seed 0
TORTURE_S3_ARGS ?= --procs 4 --txns 20 --layout all --isolation WriteSerializable
CRASH_S3_ARGS ?= --kills 40 --layout unpartitioned-dv
.PHONY: torture crash fuzz corrupt reliability torture-s3 crash-s3
torture: install
	$(BIN)/python -m tests.stress.torture $(TORTURE_ARGS)

crash: install
	$(BIN)/python -m tests.stress.crash $(CRASH_ARGS)

fuzz: install
	$(BIN)/python -m tests.stress.fuzz $(FUZZ_ARGS)

corrupt: install
	$(BIN)/python -m tests.stress.corrupt

# The same harnesses with the table in S3 (a moto S3 server on 127.0.0.1 for the run).
torture-s3: install
	$(BIN)/python -m tests.stress.s3 torture $(TORTURE_S3_ARGS)

crash-s3: install
	$(BIN)/python -m tests.stress.s3 crash $(CRASH_S3_ARGS)

reliability: torture crash fuzz corrupt torture-s3 crash-s3
