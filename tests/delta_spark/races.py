"""The conflict differential: one race (../shared/SCENARIOS.md), two engines, same interleaving.

For each race:
1. the setup runs once on acidsql into a warehouse, which is copied twice, so both engines
   start from the very same files (file layout decides conflicts);
2. acidsql races it with row-level concurrency off (`acidsql.spark.race.run_scenario`);
3. Delta Spark races it on the other copy with its own commands and its own optimistic
   transactions (`DeltaSpark.run_held`: the current's commit is held while the winners run);
4. the outcomes (committed, or the exception) and what `after` reads are compared.

Open-source Delta allows only Serializable isolation (`DeltaConfigs.ISOLATION_LEVEL` must be
Serializable) and has no row-level concurrency, so each race runs in its open-source form:
every table Serializable. A race that needs WriteSerializable set by a statement cannot run on
Delta Spark and is reported as such.
"""
from __future__ import annotations

import hashlib
import itertools
import os
import random
import re
import shutil
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Optional, Union

from acidsql.analysis.predict import Scenario
from acidsql.sql import parse_script
from acidsql.sql import model as m

from .oracle import DeltaSpark, first_line, sorted_rows

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_ISOLATION = re.compile(r"'delta\.isolationLevel'\s*=\s*'(\w+)'", re.IGNORECASE)
_TBLPROPERTIES = re.compile(r"\bTBLPROPERTIES\s*\(", re.IGNORECASE)
SERIALIZABLE = "'delta.isolationLevel' = 'Serializable'"
_databases = itertools.count(1)


def open_source_form(sc: Scenario) -> Union[Scenario, str]:
    """`sc` with every table Serializable, or why it cannot run on open-source Delta."""
    for text in (sc.current, *sc.winners):
        found = _ISOLATION.search(text)
        if found and found.group(1).lower() != "serializable":
            return f"a statement sets delta.isolationLevel = {found.group(1)}, which open-source Delta refuses"
    setup = []
    for text in sc.setup:
        if re.match(r"\s*CREATE\s", text, re.IGNORECASE) and " AS SELECT" not in text.upper():
            if _ISOLATION.search(text):
                text = _ISOLATION.sub(SERIALIZABLE, text)
            elif _TBLPROPERTIES.search(text):
                text = _TBLPROPERTIES.sub(lambda mt: mt.group(0) + SERIALIZABLE + ", ", text, count=1)
            else:
                text = text.rstrip().rstrip(";") + f" TBLPROPERTIES ({SERIALIZABLE})"
        setup.append(text)
    return replace(sc, setup=tuple(setup), expect=None, rows=None)


def created_tables(sc: Scenario) -> list[str]:
    names = []
    for text in sc.setup:
        for statement in parse_script(text).statements:
            if isinstance(statement, m.CreateTable) and statement.target is not None and statement.target.name:
                names.append(statement.target.name)
    return names


def view_statements(sc: Scenario) -> list[m.CreateView]:
    """The setup's CREATE VIEW statements: each engine's session makes them again (a temporary
    view lives in a session, not in the warehouse)."""
    return [s for text in sc.setup for s in parse_script(text).statements if isinstance(s, m.CreateView)]


def target_name(statement_text: str) -> str:
    (statement,) = parse_script(statement_text).statements
    if statement.target is None or not statement.target.name:
        raise ValueError(f"no target table in {statement_text!r}")
    return statement.target.name


@dataclass(frozen=True)
class RaceVerdicts:
    name: str
    acidsql: str  # "committed", the exception, or "error: ..."
    delta_spark: str
    acidsql_reason: str = ""
    delta_message: str = ""
    acidsql_rows: Optional[list[tuple]] = None
    delta_rows: Optional[list[tuple]] = None
    held: bool = True  # Delta Spark's current reached its commit and was held

    @property
    def agree(self) -> bool:
        return self.acidsql == self.delta_spark and self.acidsql_rows == self.delta_rows

    def describe(self) -> str:
        rows = "" if self.acidsql_rows == self.delta_rows else f"; rows acidsql {self.acidsql_rows} vs Delta Spark {self.delta_rows}"
        return (f"{self.name}: acidsql {self.acidsql} ({self.acidsql_reason[:200]}), Delta Spark {self.delta_spark} "
                f"({self.delta_message[:200]}){rows}")


class Racer:
    """Races scenarios on both engines in `workdir`, on the run's one SparkSession."""

    def __init__(self, spark: "SparkSession", workdir: str):
        self.spark = spark
        self.delta = DeltaSpark(spark)
        self.workdir = workdir
        self._setups: dict[str, str] = {}
        # Races whose open-source forms are one race (scenarios that differ only in the isolation
        # level open_source_form replaces): raced once, the verdicts shared.
        self._raced: dict[tuple, RaceVerdicts] = {}

    def _setup(self, sc: Scenario) -> str:
        """A warehouse holding `sc`'s setup, written by acidsql (cached by the setup's text)."""
        key = hashlib.sha1("\n".join(sc.setup).encode()).hexdigest()[:12]
        if key not in self._setups:
            from acidsql.spark.session_api import Session

            root = os.path.join(self.workdir, f"setup-{key}")
            db = Session(self.spark, root)
            for text in sc.setup:
                for statement in db.statements(text, file=f"{sc.name}:setup"):
                    db.execute(statement)
            self._setups[key] = root
        return self._setups[key]

    def race(self, sc: Scenario) -> RaceVerdicts:
        key = (sc.setup, sc.current, sc.winners, sc.after)
        if key not in self._raced:
            self._raced[key] = self._race(sc)
        return replace(self._raced[key], name=sc.name)

    def _race(self, sc: Scenario) -> RaceVerdicts:
        from acidsql.spark.race import run_scenario
        from acidsql.spark.tables import Warehouse

        base = self._setup(sc)
        n = next(_databases)
        mine, theirs = (os.path.join(self.workdir, f"{n}-{who}") for who in ("acidsql", "delta"))
        shutil.copytree(base, mine)
        shutil.copytree(base, theirs)
        views = view_statements(sc)
        ours = run_scenario(self.spark, replace(sc, setup=tuple(v.text for v in views if v.temporary)), warehouse=mine,
                            row_level_concurrency=False)
        acid = ours.outcome if ours.outcome != "error" else f"error: {ours.error}"
        acid_rows = sorted_rows(ours.rows) if ours.rows is not None else None

        warehouse = Warehouse.at(theirs)
        database = f"oracle_{n}"
        self.spark.sql(f"CREATE DATABASE {database} LOCATION '{os.path.join(theirs, '_catalog')}'")
        previous = self.spark.catalog.currentDatabase()
        other_databases: list[str] = []
        try:
            for name in created_tables(sc):
                if "." in name:
                    # A table of another database (`other.events`): the statements name that
                    # database, so register it under that name, for this race only.
                    qualifier = name.rsplit(".", 1)[0]
                    if qualifier not in other_databases:
                        self.spark.sql(f"CREATE DATABASE IF NOT EXISTS {qualifier} "
                                       f"LOCATION '{os.path.join(theirs, '_catalog_' + qualifier)}'")
                        other_databases.append(qualifier)
                    self.spark.sql(f"CREATE TABLE {name} USING DELTA LOCATION '{warehouse.location_of_name(name)}'")
                else:
                    self.spark.sql(f"CREATE TABLE {database}.{name} USING DELTA LOCATION '{warehouse.location_of_name(name)}'")
            self.spark.catalog.setCurrentDatabase(database)
            for view in views:  # after the tables: Spark resolves a view's query when it is made
                self.spark.sql(view.text)
            path = warehouse.location_of_name(target_name(sc.current))

            def winners() -> None:
                for text in sc.winners:
                    self.delta.sql(text).collect()

            try:
                held = self.delta.run_held(sc.current, path, winners)
                theirs_outcome, message, was_held = held.outcome, held.message, held.held
                if theirs_outcome == "error":
                    theirs_outcome = f"error: {message}"
            except Exception as e:  # noqa: BLE001 - a winner Delta Spark refuses
                theirs_outcome, message, was_held = f"error: winner failed: {first_line(e)}", "", False
            delta_rows = None
            if sc.after and not theirs_outcome.startswith("error"):
                delta_rows = sorted_rows(_plain_row(r) for r in self.delta.sql(sc.after).collect())
        finally:
            for view in views:
                if view.temporary and view.target is not None:
                    self.spark.catalog.dropTempView(view.target.name)
            self.spark.catalog.setCurrentDatabase(previous)
            for qualifier in (database, *other_databases):
                self.spark.sql(f"DROP DATABASE IF EXISTS {qualifier} CASCADE")
        verdicts = RaceVerdicts(sc.name, acid, theirs_outcome, ours.reason, message,
                                [tuple(r) for r in acid_rows] if acid_rows is not None else None,
                                delta_rows, was_held)
        shutil.rmtree(mine, ignore_errors=True)
        shutil.rmtree(theirs, ignore_errors=True)
        return verdicts


def _plain_row(row) -> tuple:
    from acidsql.spark.race import _plain

    return tuple(_plain(v) for v in row)


# ---- generated races -----------------------------------------------------------------------------------

LAYOUTS = {
    "unpartitioned": ("", "false"),
    "unpartitioned-dv": ("", "true"),
    "partitioned": (" PARTITIONED BY (p)", "false"),
    "partitioned-dv": (" PARTITIONED BY (p)", "true"),
}
KINDS = ("insert", "delete", "update", "merge", "optimize", "insert-select")


def _predicate(rng: random.Random, ids: list[int]) -> str:
    p, q = rng.sample(range(3), 2)
    n = rng.choice(ids)
    return rng.choice([
        f"p = {p}", f"id = {n}", f"p = {p} AND id = {n}", f"id < {n}", f"p IN ({p}, {q})",
        f"p = {p} OR id = {n}", f"v = 'r{n}'",
    ])


def _statement(rng: random.Random, kind: str, ids: list[int], fresh: int, partitioned: bool) -> str:
    if kind == "insert":
        return f"INSERT INTO g VALUES ({fresh}, {rng.randrange(3)}, 'n{fresh}')"
    if kind == "delete":
        return f"DELETE FROM g WHERE {_predicate(rng, ids)}"
    if kind == "update":
        return f"UPDATE g SET v = 'u{fresh}' WHERE {_predicate(rng, ids)}"
    if kind == "merge":
        n = rng.choice(ids + [fresh])
        p = rng.randrange(3)
        on = "t.id = s.id" + (f" AND t.p = {p}" if rng.random() < 0.5 else "")
        return (f"MERGE INTO g t USING (SELECT {n} AS id, {p} AS p, 'm{fresh}' AS v) s ON {on} "
                "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    if kind == "optimize":
        # OPTIMIZE ... WHERE may name partition columns only
        return "OPTIMIZE g" + (f" WHERE p = {rng.randrange(3)}" if partitioned and rng.random() < 0.5 else "")
    if kind == "insert-select":
        return f"INSERT INTO g SELECT id + 1000, p, v FROM g WHERE {_predicate(rng, ids)}"
    raise ValueError(kind)


def generated_races(seed: int, count: int) -> list[Scenario]:
    """`count` random races on table g (id, p, v): a random layout, two or three INSERTs of set-up
    (one file per partition each), a random current and one or two random winners."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        layout = rng.choice(sorted(LAYOUTS))
        clause, dv = LAYOUTS[layout]
        setup = [f"CREATE TABLE g (id BIGINT, p INT, v STRING) USING DELTA{clause} "
                 f"TBLPROPERTIES ('delta.enableDeletionVectors' = {dv})"]
        ids: list[int] = []
        for _ in range(rng.randint(2, 3)):
            rows = []
            for _ in range(rng.randint(2, 4)):
                n = len(ids) + 1
                ids.append(n)
                rows.append(f"({n}, {rng.randrange(3)}, 'r{n}')")
            setup.append("INSERT INTO g VALUES " + ", ".join(rows))
        partitioned = layout.startswith("partitioned")
        current = _statement(rng, rng.choice(KINDS), ids, 500, partitioned)
        winners = tuple(_statement(rng, rng.choice(KINDS), ids, 600 + w, partitioned) for w in range(rng.randint(1, 2)))
        out.append(Scenario(name=f"generated-{seed}-{i}-{layout}", setup=tuple(setup), current=current,
                            winners=winners, after="SELECT id, p, v FROM g"))
    return out
