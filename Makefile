# Two set-up commands (see README): `make demo` runs the main job, `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

$(BIN)/acidsql: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(BIN)/acidsql

.PHONY: install demo test bench bench-sf10 lint-corpus delta-jars
install: $(BIN)/acidsql

# Delta Spark, the reference implementation the delta_spark tests compare acidsql with: its
# jars from Maven Central (mvn dependency:copy into .cache/jars, so tests start offline), and
# the gated log store the conflict differential holds commits with (javac, against the jars
# pyspark ships). Versions: tests/delta_spark/session.py.
DELTA_VERSION := 4.4.0
JARS := .cache/jars
MVN_COPY := mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy -DoutputDirectory=$(JARS)
DELTA_JARS := $(JARS)/delta-spark_4.2_2.13-$(DELTA_VERSION).jar $(JARS)/delta-storage-$(DELTA_VERSION).jar
GATE_JAR := $(JARS)/acidsql-gated-logstore.jar
GATE_SRC := tests/delta_spark/gate/GatedLogStore.java
delta-jars: $(DELTA_JARS) $(GATE_JAR)

$(JARS)/delta-spark_4.2_2.13-$(DELTA_VERSION).jar:
	$(MVN_COPY) -Dartifact=io.delta:delta-spark_4.2_2.13:$(DELTA_VERSION)

$(JARS)/delta-storage-$(DELTA_VERSION).jar:
	$(MVN_COPY) -Dartifact=io.delta:delta-storage:$(DELTA_VERSION)

$(GATE_JAR): $(GATE_SRC) $(JARS)/delta-storage-$(DELTA_VERSION).jar $(BIN)/acidsql
	rm -rf $(JARS)/gate-classes
	javac -nowarn --release 17 -d $(JARS)/gate-classes \
	  -cp "$(JARS)/delta-storage-$(DELTA_VERSION).jar:$$($(BIN)/python -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')/*" \
	  $(GATE_SRC)
	jar cf $@ -C $(JARS)/gate-classes .
	rm -rf $(JARS)/gate-classes

demo: install
	rm -rf warehouse
	$(BIN)/acidsql run examples/quickstart.sql --warehouse warehouse

test: install delta-jars
	$(BIN)/python -m pytest -q -m "not slow" -p no:cacheprovider -n 2

# The benchmarks also need the `bench` extra (sqlfluff, for the side-by-side in lint_throughput).
$(VENV)/.bench-installed: $(BIN)/acidsql
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	touch $@

bench: $(VENV)/.bench-installed delta-jars
	$(BIN)/python -m benchmarks

# TPC-H RF1/RF2 at scale factor 10 (about 60M lineitems; needs ~15 GB of disk and an hour on 2
# cores): recorded in benchmarks/RESULTS_TPCH_SF10.md, which `make bench` shows beside SF 1.
bench-sf10: $(VENV)/.bench-installed delta-jars
	$(BIN)/python -m benchmarks.tpch_refresh --sf 10 --out benchmarks/RESULTS_TPCH_SF10.md

# Reliability harnesses (docs/reliability.md). Long runs: not part of `make test` or .ci/run.
TORTURE_ARGS ?= --procs 4 --txns 50 --layout all --isolation all
CRASH_ARGS ?= --kills 200 --layout unpartitioned-dv
FUZZ_ARGS ?= --examples 20000 --seed 0
TORTURE_S3_ARGS ?= --procs 4 --txns 20 --layout all --isolation WriteSerializable
CRASH_S3_ARGS ?= --kills 40 --layout unpartitioned-dv
.PHONY: torture crash fuzz corrupt reliability torture-s3 crash-s3 mixed races-long
MIXED_ARGS ?= --acidsql 3 --delta 2 --txns 25 --max-acidsql-txns 120
RACES ?= 200
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
# acidsql and Delta Spark writer processes on one table (tests/delta_spark/mixed.py).
mixed: install delta-jars
	$(BIN)/python -m tests.delta_spark.mixed $(MIXED_ARGS)

# The conflict differential with $(RACES) generated races instead of CI's 16.
races-long: install delta-jars
	ACIDSQL_GENERATED_RACES=$(RACES) $(BIN)/python -m pytest -q -p no:cacheprovider \
	  tests/delta_spark/test_conflicts_against_delta_spark.py -k generated

reliability: torture crash fuzz corrupt mixed
