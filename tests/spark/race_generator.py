"""Generated races: the engine as the static predictor's oracle, at scale (issue 24).

`generated_races(seed, count)` makes `count` races (SCENARIOS.md) over every statement kind of
the statement registry (`acidsql.analysis.statements`): INSERT (VALUES, SELECT from another table
or from the target), INSERT OVERWRITE, REPLACE WHERE, multi-insert, UPDATE, DELETE, MERGE (sources
inline, from a table, through a view and a CTE, reading the target), TRUNCATE, OPTIMIZE (with and
without ZORDER BY, clustering), REORG PURGE, ALTER TABLE (ADD / RENAME / DROP COLUMN, ADD
CONSTRAINT, SET TBLPROPERTIES including the isolation level, CLUSTER BY), DROP FEATURE, RESTORE,
CREATE OR REPLACE, and winners on another table; over table layouts (partitioned, deletion
vectors unpartitioned, CLUSTER BY, identity columns, change data feed, column mapping) and both
isolation levels, with one to three winners. Race `i` of a seed is the same race on every run
(its own random generator), so a failing race can be rerun alone.

`judge(race, prediction, outcome)` compares the static prediction (`acidsql conflicts`) with the
execution (`acidsql race`): a prediction is UNSOUND when it says committed and the race
conflicts, WRONG when it is certain of another outcome than the engine's, and EXACT when it is
certain (or says committed) and right.
"""
from __future__ import annotations

import enum
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from acidsql.analysis.predict import Prediction, Scenario


@dataclass(frozen=True)
class Layout:
    name: str
    clause: str = ""  # PARTITIONED BY / CLUSTER BY
    properties: tuple[tuple[str, str], ...] = ()
    identity: bool = False
    mapping: bool = False  # column mapping (name): RENAME / DROP COLUMN allowed

    @property
    def partitioned(self) -> bool:
        return "PARTITIONED" in self.clause

    @property
    def clustered(self) -> bool:
        return "CLUSTER" in self.clause

    @property
    def deletion_vectors(self) -> bool:
        return ("delta.enableDeletionVectors", "true") in self.properties


DV = ("delta.enableDeletionVectors", "true")
NO_DV = ("delta.enableDeletionVectors", "false")
LAYOUTS = (
    Layout("partitioned", " PARTITIONED BY (p)", (NO_DV,)),
    Layout("partitioned-dv", " PARTITIONED BY (p)", (DV,)),
    Layout("unpartitioned", "", (NO_DV,)),
    Layout("unpartitioned-dv", "", (DV,)),
    Layout("clustered", " CLUSTER BY (id)", ()),
    Layout("clustered-dv", " CLUSTER BY (id)", (DV,)),
    Layout("identity", " PARTITIONED BY (p)", (NO_DV,), identity=True),
    Layout("identity-dv", "", (DV,), identity=True),
    Layout("cdf", " PARTITIONED BY (p)", (NO_DV, ("delta.enableChangeDataFeed", "true"))),
    Layout("column-mapping", "", (DV, ("delta.columnMapping.mode", "name")), mapping=True),
)
ISOLATION = ("WriteSerializable", "Serializable")


class Verdict(str, enum.Enum):
    EXACT = "exact"  # certain (or committed) and right
    POSSIBLE = "possible"  # "possible: X", and the engine committed or raised X (or an alternative)
    # The engine refused a rebase the rules allow (a deletion-vector merge where one side removed
    # the whole file): a conflict by the engine's fail-safe, outside the predictor by design
    # (docs/reliability.md, "Fail-safe conflicts outside the predictor"). Valid, not exact.
    FAIL_SAFE = "fail-safe"
    UNSOUND = "unsound"  # predicted committed, the engine raised
    WRONG = "wrong"  # certain of another outcome, or possible of a class the engine did not raise
    INVALID = "invalid"  # the race itself did not run (a statement the engine refused)
    PREDICTOR_ERROR = "predictor error"  # the predictor failed on it


@dataclass(frozen=True)
class GeneratedRace:
    scenario: Scenario
    layout: str
    isolation: str
    kinds: tuple[str, ...]  # the current's kind, then each winner's


@dataclass
class _Gen:
    rng: random.Random
    layout: Layout
    ids: list[int] = field(default_factory=list)
    fresh: int = 100
    view: bool = False
    versions: int = 0  # the table's last version after the setup
    columns: tuple[str, ...] = ("id", "p", "v")

    def next_id(self) -> int:
        self.fresh += 1
        return self.fresh

    def p(self) -> int:
        return self.rng.randrange(3)

    def pred(self) -> str:
        r = self.rng
        p, q = r.sample(range(3), 2)
        n = r.choice(self.ids)
        options = [f"p = {p}", f"id = {n}", f"p = {p} AND id = {n}", f"id < {n}", f"p IN ({p}, {q})", f"v = 'r{n}'",
                   f"id >= {n} AND id <= {n + 2}"]
        if not self.layout.partitioned:
            options.append(f"p = {p} OR id = {n}")
        return r.choice(options)

    def row(self, p: Optional[int] = None) -> str:
        n = self.next_id()
        return f"({n}, {self.p() if p is None else p}, 'n{n}')"

    def full_row(self, p: Optional[int] = None) -> str:
        """A row of every column, for forms without a column list (REPLACE WHERE, OVERWRITE)."""
        row = self.row(p)
        return row[:-1] + ", 'e')" if self.layout.mapping else row

    @property
    def more(self) -> str:
        """The rest of a SELECT list after id, p, v (the column-mapping layout's `extra`)."""
        return ", 'e'" if self.layout.mapping else ""

    # --- statements, by kind ---------------------------------------------------------------------
    def insert(self) -> str:
        rows = ", ".join(self.row() for _ in range(self.rng.randint(1, 2)))
        return f"INSERT INTO g (id, p, v) VALUES {rows}"

    def insert_select_other(self) -> str:
        return f"INSERT INTO g (id, p, v) SELECT id + {self.next_id()}, p, v FROM o WHERE p = {self.p()}"

    def insert_select_self(self) -> str:
        return f"INSERT INTO g (id, p, v) SELECT id + {self.next_id()}, p, v FROM g WHERE {self.pred()}"

    def insert_overwrite(self) -> str:
        if self.layout.partitioned and self.rng.random() < 0.6:
            k = self.p()
            return f"INSERT OVERWRITE g PARTITION (p = {k}) SELECT id + {self.next_id()}, v{self.more} FROM o WHERE p = {k}"
        return f"INSERT OVERWRITE g VALUES {self.full_row()}"

    def replace_where(self) -> str:
        a = self.p()
        b = min(2, a + self.rng.randint(0, 1))
        if self.rng.random() < 0.5:
            return f"INSERT INTO g REPLACE WHERE p >= {a} AND p <= {b} VALUES {self.full_row(a)}"
        return (f"INSERT INTO g REPLACE WHERE p >= {a} AND p <= {b} "
                f"SELECT id + {self.next_id()}, p, v{self.more} FROM o WHERE p >= {a} AND p <= {b}")

    def multi_insert(self) -> str:
        a, b = self.p(), self.p()
        return (f"FROM o INSERT INTO g (id, p, v) SELECT id + {self.next_id()}, {a}, v WHERE p = {a} "
                f"INSERT INTO g (id, p, v) SELECT id + {self.next_id()}, {b}, v")

    def update(self) -> str:
        n = self.next_id()
        if self.rng.random() < 0.2 and not self.layout.clustered:
            return f"UPDATE g SET p = {self.p()}, v = 'u{n}' WHERE {self.pred()}"
        return f"UPDATE g SET v = 'u{n}' WHERE {self.pred()}"

    def delete(self) -> str:
        return f"DELETE FROM g WHERE {self.pred()}"

    def merge(self) -> str:
        r = self.rng
        n, k = r.choice(self.ids + [self.next_id()]), self.p()
        sources = [f"(SELECT {n} AS id, {k} AS p, 'm{n}' AS v) s", "o s", "(SELECT id + 1 AS id, p, v FROM g WHERE "
                   f"p = {k}) s"]
        if self.view:
            sources.append("gv s")
        source = r.choice(sources + ["src s"])
        with_ = f"WITH src AS (SELECT id, p, v FROM o WHERE p = {k}) " if source == "src s" else ""
        on = "t.id = s.id" + (f" AND t.p = {k}" if r.random() < 0.5 else "")
        clauses = r.choice(["WHEN MATCHED THEN UPDATE SET v = s.v", "WHEN MATCHED THEN DELETE",
                            "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT (id, p, v) VALUES (s.id, s.p, s.v)",
                            "WHEN NOT MATCHED THEN INSERT (id, p, v) VALUES (s.id, s.p, s.v)"])
        # MERGE inserts into identity tables are numbered now, but not raced yet: the analyzer
        # predicts a certain high-water-mark change for any MERGE with an INSERT clause, while the
        # engine (as Delta) changes the metadata only when the MERGE inserts a row.
        if self.layout.identity:
            clauses = "WHEN MATCHED THEN UPDATE SET v = s.v"
        return f"{with_}MERGE INTO g t USING {source} ON {on} {clauses}"

    def truncate(self) -> str:
        return "TRUNCATE TABLE g"

    def optimize(self) -> str:
        if self.layout.partitioned and self.rng.random() < 0.4:
            return f"OPTIMIZE g WHERE p = {self.p()}"
        return "OPTIMIZE g"

    def zorder(self) -> str:
        return "OPTIMIZE g ZORDER BY (v)" if self.layout.partitioned else "OPTIMIZE g ZORDER BY (id, v)"

    def reorg(self) -> str:
        return "REORG TABLE g APPLY (PURGE)"

    def add_column(self) -> str:
        return f"ALTER TABLE g ADD COLUMNS (c{self.next_id()} STRING)"

    def rename_column(self) -> str:
        return "ALTER TABLE g RENAME COLUMN extra TO extra2"

    def drop_column(self) -> str:
        return "ALTER TABLE g DROP COLUMN extra"

    def add_constraint(self) -> str:
        return f"ALTER TABLE g ADD CONSTRAINT c{self.next_id()} CHECK (id > 0)"

    def set_isolation(self) -> str:
        return f"ALTER TABLE g SET TBLPROPERTIES ('delta.isolationLevel' = '{self.rng.choice(ISOLATION)}')"

    def set_property(self) -> str:
        return f"ALTER TABLE g SET TBLPROPERTIES ('delta.logRetentionDuration' = 'interval {self.rng.randint(8, 60)} days')"

    def cluster_by(self) -> str:
        return f"ALTER TABLE g CLUSTER BY ({self.rng.choice(['p', 'v', 'id'])})"

    def drop_feature(self) -> str:
        return "ALTER TABLE g DROP FEATURE deletionVectors"

    def restore(self) -> str:
        return f"RESTORE TABLE g TO VERSION AS OF {self.rng.randint(1, max(1, self.versions - 1))}"

    def create_or_replace(self) -> str:
        return f"CREATE OR REPLACE TABLE g {self.create_body()}"

    def other_table(self) -> str:
        return self.rng.choice([f"INSERT INTO o VALUES {self.row()}", f"DELETE FROM o WHERE p = {self.p()}",
                                f"UPDATE o SET v = 'x' WHERE p = {self.p()}"])

    def create_body(self) -> str:
        lay = self.layout
        cols = ["id BIGINT", "p INT", "v STRING"]
        if lay.identity:
            cols.append("n BIGINT GENERATED ALWAYS AS IDENTITY")
        if lay.mapping:
            cols.append("extra STRING")
        props = list(lay.properties)
        return f"({', '.join(cols)}) USING DELTA{lay.clause} TBLPROPERTIES ({{props}})".replace(
            "{props}", ", ".join(f"'{k}' = '{v}'" for k, v in props + [("delta.isolationLevel", self.isolation)]))

    isolation: str = "WriteSerializable"

    # --- which kinds fit this layout ---------------------------------------------------------------
    def kinds(self, as_current: bool, last: bool) -> list[str]:
        lay = self.layout
        out = ["insert", "insert", "insert_select_other", "insert_select_self", "update", "update", "delete", "delete",
               "merge", "merge", "merge", "optimize", "add_column", "add_constraint", "set_isolation", "set_property",
               "restore", "truncate", "replace_where", "insert_overwrite"]
        if not lay.clustered:
            out.append("zorder")
        if lay.deletion_vectors:
            out.append("reorg")
            if not as_current:
                out.append("drop_feature")
        if lay.clustered or not lay.partitioned:
            out.append("cluster_by")
        if not as_current and not last:
            # a schema change makes the later winners' inserts without a column list wrong, and
            # clustering a table makes their ZORDER BY and OPTIMIZE ... WHERE wrong
            out.remove("add_column")
            if "cluster_by" in out:
                out.remove("cluster_by")
        if lay.mapping and last:
            out += ["rename_column", "drop_column"]
        if not as_current:
            out += ["multi_insert", "other_table", "create_or_replace"]
        if lay.identity:
            out = [k for k in out if k not in ("insert_overwrite", "replace_where", "create_or_replace")]
        return out


def generated_race(seed: int, index: int) -> GeneratedRace:
    rng = random.Random(f"{seed}-{index}")
    layout = rng.choice(LAYOUTS)
    isolation = rng.choice(ISOLATION)
    g = _Gen(rng, layout)
    g.isolation = isolation
    setup = [f"CREATE TABLE g {g.create_body()}"]
    g.versions = 0
    for _ in range(rng.choice((2, 2, 3))):
        rows = []
        for _ in range(rng.randint(1, 3)):
            n = len(g.ids) + 1
            g.ids.append(n)
            rows.append(f"({n}, {rng.randrange(3)}, 'r{n}')")
        setup.append("INSERT INTO g (id, p, v) VALUES " + ", ".join(rows))
        g.versions += 1
    if rng.random() < 0.25:
        setup.append(f"DELETE FROM g WHERE id = {rng.choice(g.ids)}")
        g.versions += 1
    if rng.random() < 0.3:
        g.view = True
        setup.append(f"CREATE OR REPLACE VIEW gv AS SELECT id, p, v FROM g WHERE p = {rng.randrange(3)}")
    current_kind = rng.choice(g.kinds(as_current=True, last=False))
    current = getattr(g, current_kind)()
    count = rng.choice((1, 1, 1, 2, 2, 3))
    winner_kinds = [rng.choice(g.kinds(as_current=False, last=i == count - 1)) for i in range(count)]
    winners = tuple(getattr(g, k)() for k in winner_kinds)
    if any(" o " in f"{t} " or "INTO o " in t for t in (current, *winners)):
        # the other table, only when a statement reads or writes it (each setup statement costs)
        setup[1:1] = ["CREATE TABLE o (id BIGINT, p INT, v STRING) USING DELTA",
                      "INSERT INTO o VALUES (1, 0, 'o1'), (2, 1, 'o2'), (3, 2, 'o3')"]
    name = f"gen-{seed}-{index}-{layout.name}-{isolation}-{current_kind}-vs-{'+'.join(winner_kinds)}"
    return GeneratedRace(Scenario(name=name, setup=tuple(setup), current=current, winners=winners),
                         layout.name, isolation, (current_kind, *winner_kinds))


def generated_races(seed: int, count: int, start: int = 0) -> list[GeneratedRace]:
    return [generated_race(seed, i) for i in range(start, start + count)]


# The words of the engine's refusal of a rebase it cannot carry out exactly
# (`acidsql/delta/commit/rebase.py`, `unmappable`).
FAIL_SAFE_REASON = "cannot be carried over exactly"


def judge(prediction: Optional[Prediction], outcome) -> Verdict:
    """The prediction against the engine's outcome (a spark.race.RaceOutcome)."""
    if outcome.outcome == "error":
        return Verdict.INVALID
    if prediction is None:
        return Verdict.PREDICTOR_ERROR
    actual = None if outcome.outcome == "committed" else outcome.outcome
    if prediction.certainty == "none" and actual is not None and FAIL_SAFE_REASON in outcome.reason:
        return Verdict.FAIL_SAFE
    if prediction.certainty == "none":
        return Verdict.EXACT if actual is None else Verdict.UNSOUND
    if prediction.certainty == "certain":
        return Verdict.EXACT if actual == prediction.exception else Verdict.WRONG
    allowed = {None, prediction.exception} | {a.split(":", 1)[1].split("(", 1)[0].strip() for a in prediction.alternatives}
    return Verdict.POSSIBLE if actual in allowed else Verdict.WRONG


@dataclass
class Tally:
    """What a run of generated races found."""

    verdicts: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)  # unsound, wrong and predictor errors, described
    invalid: list[str] = field(default_factory=list)
    by_kind: dict[str, Counter] = field(default_factory=dict)

    def add(self, race: GeneratedRace, verdict: Verdict, detail: str) -> None:
        self.verdicts[verdict] += 1
        self.by_kind.setdefault(race.kinds[0], Counter())[verdict] += 1
        if verdict in (Verdict.UNSOUND, Verdict.WRONG, Verdict.PREDICTOR_ERROR):
            self.failures.append(f"{verdict.value}: {race.scenario.name}: {detail}")
        elif verdict is Verdict.INVALID:
            self.invalid.append(f"{race.scenario.name}: {detail}")

    @property
    def valid(self) -> int:
        return sum(n for v, n in self.verdicts.items() if v is not Verdict.INVALID)

    @property
    def exactness(self) -> float:
        return self.verdicts[Verdict.EXACT] / self.valid if self.valid else 0.0

    def summary(self) -> str:
        parts = ", ".join(f"{v.value} {self.verdicts[v]}" for v in Verdict if self.verdicts[v])
        return f"{self.valid} races run ({parts}); exactness {self.exactness:.1%}"


def run_races(spark, races: list[GeneratedRace], progress=None) -> Tally:
    """Predict (no Spark) and execute (acidsql's engine, `acidsql.spark.race`) each race."""
    from acidsql.analysis.predict import predict_scenario
    from acidsql.spark.race import run_scenario

    tally = Tally()
    for i, race in enumerate(races):
        try:
            prediction = predict_scenario(race.scenario)
            why = ""
        except Exception as e:  # noqa: BLE001 - a predictor failure is a finding
            prediction, why = None, f"{type(e).__name__}: {e}"
        outcome = run_scenario(spark, race.scenario)
        verdict = judge(prediction, outcome)
        if verdict is Verdict.INVALID:
            detail = outcome.error or outcome.reason
        elif prediction is None:
            detail = why
        else:
            detail = (f"predicted {prediction.outcome} ({prediction.reason[:300]}); executed {outcome.outcome} "
                      f"({outcome.reason[:300]}); current {race.scenario.current!r}; winners {list(race.scenario.winners)}")
        tally.add(race, verdict, detail)
        if progress is not None:
            progress(i, race, verdict, detail)
    return tally
