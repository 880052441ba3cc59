"""Where a DELETE, UPDATE, MERGE or INSERT ... VALUES runs, and why: the one place that decides it.

On a local session every Spark job costs a fixed fraction of a second (planning, scheduling,
moving rows between the JVM and Python), which was most of a small DELETE's, UPDATE's or MERGE's
time (benchmarks/RESULTS.md, "DML"). So where pyarrow computes a statement exactly as Spark SQL
(exact.py), its rows are found, computed and written on the driver. `plan(statement, facts)`
decides, from what is known of the statement, the table and the session, and says why:

- **driver**: everything on the driver with pyarrow (a MERGE's source is still collected by Spark);
- **spark**: Spark computes it; on a local session the driver may still read the rows it changes
  or may match (`rows_on_driver`: an UPDATE's matched rows, a MERGE's candidate target rows, so
  Spark sees only those) and write what Spark computed (`writes_on_driver`);
- **cluster**: the master is not local: Spark's executors read and write the files.

What is measured only while the statement runs (a MERGE source's size, how many target rows may
match) is checked against the limits here too (`DmlPlan.with_source`, `with_candidate_bytes`,
...), and a value pyarrow refuses while computing (an overflow) turns the plan to Spark through
`DmlPlan.fallback`; the plan a statement ran with is in its result (`StatementResult.plan`).

The session option `acidsql.dml.path` = `auto` (default) | `spark` (never the driver) selects;
`acidsql explain` shows the plan from the statement and the table as its catalog describes them,
saying which facts are known only when it runs. No pyspark here: explain starts no JVM.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Optional

from sqlglot import exp

from acidsql.spark.dml.driver_merge import DriverMerge, conjuncts, equi_keys
from acidsql.spark.dml.exact import Columns, NotExactOnDriver, driver_filter, not_carried, value
from acidsql.spark.dml.in_subquery import subquery_ins
from acidsql.spark.dml.names import source_alias, target_alias
from acidsql.spark.session import is_local, is_utc
from acidsql.sql import model as m

if TYPE_CHECKING:
    from acidsql.analysis.catalog import TableInfo

OPTION = "acidsql.dml.path"  # the session option (Spark conf, acidsql.connect(conf=...), Executor(dml_path=...))
AUTO, SPARK_ONLY = "auto", "spark"

# What the driver takes on at most (its memory): the data files it reads for one statement (their
# sizes on disk); a MERGE source it collects (Spark's size estimate, else its rows); the
# candidate target rows it hands Spark for a MERGE's join.
SCAN_MAX_BYTES = 1 << 30
SOURCE_MAX_BYTES = 1 << 30
SOURCE_MAX_ROWS = 10_000_000
CANDIDATE_MAX_ROWS = 2_000_000
# The rows of a `c IN (SELECT ...)` subquery whose values the driver compares with (in_subquery.py).
# "Small" because pyarrow's is_in builds its hash set of the values again for every data file it
# filters: ~10 ms per file at 100,000 values, 0.4 s at 1,000,000 (and the rows are collected
# whole). Past it, Spark's join of the subquery is cheaper than that; TPC-H's RF2 deletes
# SF x 1,500 orders (15,000 at SF10).
SUBQUERY_MAX_ROWS = 100_000

_GIB = f"{SCAN_MAX_BYTES >> 30} GiB"
# Facts a plan still depends on, in words (acidsql explain lists them; measuring one removes it).
ON_LOCAL_SESSION = "the session is local (on a cluster Spark's executors do the work)"
SCAN_FITS = f"the files it reads hold at most {_GIB}"
SOURCE_FITS = f"the source is at most {_GIB} (Spark's estimate) or {SOURCE_MAX_ROWS:,} rows"
CANDIDATES_FIT = (f"the target rows whose keys are among the source's are in files of at most {_GIB} and number at "
                  f"most {CANDIDATE_MAX_ROWS:,} (more: Spark scans only the files holding them)")
NO_UNSEEN_RULES = "the table has no NOT NULL or generated column (its catalog entry does not say)"
NO_IDENTITY = "the table has no identity column (a MERGE's new rows would be numbered by Spark)"
SOURCE_TYPES = "the source's column types make ON's equalities keys and its clauses exact (known when it runs)"
SESSION_UTC = "the session time zone is UTC (the driver reads TIMESTAMP literals and strings as UTC)"
SUBQUERY_FITS = (f"each IN subquery compiles on its own and gives at most {SUBQUERY_MAX_ROWS:,} rows of a type "
                 "the driver compares with its column exactly (Spark computes it first, one job)")


def path_option(value: Optional[str]) -> str:
    """The value of `acidsql.dml.path` (None: the default); ValueError for any other value."""
    chosen = (value or AUTO).strip().lower()
    if chosen not in (AUTO, SPARK_ONLY):
        raise ValueError(f"{OPTION} must be '{AUTO}' or '{SPARK_ONLY}', not {value!r}")
    return chosen


class Path(str, enum.Enum):
    """driver: pyarrow on the driver computes the statement; spark: Spark does (the driver may
    read and write rows for it, `DmlPlan.rows_on_driver`); cluster: Spark's executors do all."""

    DRIVER = "driver"
    SPARK = "spark"
    CLUSTER = "cluster"


@dataclass(frozen=True)
class DmlFacts:
    """What the plan is decided from. None: not known (acidsql explain: no session, no data)."""

    columns: Columns  # the target table's (its CHAR / VARCHAR columns marked)
    changes_feed: bool  # the table records its change data feed
    table_rules: Optional[bool]  # CHECK constraints, NOT NULL or generated columns (CHAR / VARCHAR: `columns`)
    master: Optional[str]  # the Spark master
    option: str = AUTO  # acidsql.dml.path
    scan_bytes: Optional[int] = None  # the data files a DELETE / UPDATE reads (sizes on disk)
    source: Optional[Columns] = None  # a MERGE source's columns
    new_columns: Optional[bool] = None  # MERGE WITH SCHEMA EVOLUTION: the source adds columns
    identity_columns: Optional[bool] = False  # the table has identity columns (a MERGE's new rows are numbered)
    time_zone: Optional[str] = None  # spark.sql.session.timeZone

    @staticmethod
    def of_table_info(info: "TableInfo", source: Optional["TableInfo"] = None,
                      schema_evolution: bool = False) -> "DmlFacts":
        """The facts a catalog entry gives (acidsql explain); `source`: a MERGE source table's."""
        constraints = any(k.lower().startswith("delta.constraints.") for k, _v in info.properties)
        return DmlFacts(Columns.of_sql_types(info.columns), bool(info.property_true("delta.enableChangeDataFeed")),
                        True if constraints else None, None,
                        source=Columns.of_sql_types(source.columns) if source is not None and source.known else None,
                        new_columns=None if schema_evolution else False,
                        identity_columns=bool(info.identity_columns) if info.known else None)


@dataclass(frozen=True)
class DmlPlan:
    """Where a statement runs (`path`) and why (`reason`), in words."""

    statement: str  # DELETE, UPDATE, MERGE, INSERT REPLACE WHERE
    path: Path
    reason: str
    rows_on_driver: bool = False  # the driver reads the rows the statement changes or may match
    writes_on_driver: bool = False  # the driver writes the files (what it or Spark computed)
    candidate_files_only: bool = False  # MERGE: Spark scans only the files holding a candidate row
    pending: tuple[str, ...] = ()  # facts it still depends on (ON_LOCAL_SESSION, ...)

    @property
    def all_on_driver(self) -> bool:
        return self.path is Path.DRIVER

    def describe(self) -> str:
        """One line: `driver on a local session (why)`, `Spark (why); the driver reads ...`."""
        word = {Path.DRIVER: "driver on a local session", Path.SPARK: "Spark", Path.CLUSTER: "Spark on a cluster"}
        text = f"{word[self.path]} ({self.reason})"
        if self.path is Path.SPARK and self.rows_on_driver:
            text += "; the driver reads the rows it changes" + (" and writes the files" if self.writes_on_driver else "")
        if self.candidate_files_only:
            text += "; Spark scans only the files holding a candidate row"
        if self.pending:
            text += "; if " + "; ".join(self.pending)
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"statement": self.statement, "path": self.path.value, "reason": self.reason,
                "rows_on_driver": self.rows_on_driver, "writes_on_driver": self.writes_on_driver,
                "candidate_files_only": self.candidate_files_only, "depends_on": list(self.pending)}

    # ---- runtime facts: each checked against its limit here, the plan answering with itself or Spark
    def fallback(self, reason: str) -> "DmlPlan":
        """The driver refused a value while computing (an overflow): Spark computes the statement
        (over the rows the driver found, written by the driver)."""
        return replace(self, path=Path.SPARK, reason=reason)

    def with_source(self, estimated_bytes: Optional[int], count: Callable[[], int]) -> "DmlPlan":
        """Once a MERGE source's size is known: Spark's estimate, else (unknown or past the limit)
        its rows, counted by `count` (a Spark job) only then."""
        if SOURCE_FITS not in self.pending:
            return self
        if estimated_bytes is not None and estimated_bytes <= SOURCE_MAX_BYTES:
            return self._measured(SOURCE_FITS)
        return self.with_source_rows(count(), estimated_bytes)

    def with_source_rows(self, rows: int, estimated_bytes: Optional[int] = None) -> "DmlPlan":
        if rows <= SOURCE_MAX_ROWS:
            return self._measured(SOURCE_FITS)
        size = f"Spark estimates {_size(estimated_bytes)}" if estimated_bytes is not None else "Spark cannot size it"
        return self._spark(f"the MERGE source has {rows:,} rows, past the driver's {SOURCE_MAX_ROWS:,} ({size})")

    def with_candidate_bytes(self, size: int) -> "DmlPlan":
        if size <= SCAN_MAX_BYTES:
            return self
        return self._spark(f"the target files that may match the source's keys hold {_size(size)}, past the "
                           f"driver's {_GIB}")

    def with_candidate_rows(self, rows: int) -> "DmlPlan":
        if rows <= CANDIDATE_MAX_ROWS:
            return self._measured(CANDIDATES_FIT)
        return replace(self._spark(f"{rows:,} target rows match the source's keys, past the {CANDIDATE_MAX_ROWS:,} "
                                   "the driver hands Spark"), candidate_files_only=True)

    def with_subquery(self, rows: int, refusal: Optional[str] = None) -> "DmlPlan":
        """Once an IN subquery is computed (`rows` it gave; `refusal`: why the driver does not
        compare with them, in_subquery.py): Spark computes the statement past the limit."""
        if refusal is None and rows <= SUBQUERY_MAX_ROWS:
            return self._measured(SUBQUERY_FITS)
        return self._spark("WHERE: " + (refusal or f"an IN subquery gives more than {SUBQUERY_MAX_ROWS:,} rows, past "
                                        "what the driver compares with: Spark joins it"))

    def _measured(self, fact: str) -> "DmlPlan":
        return replace(self, pending=tuple(p for p in self.pending if p != fact))

    def _spark(self, reason: str) -> "DmlPlan":
        return DmlPlan(self.statement, Path.SPARK, reason)


def _size(n: Optional[int]) -> str:
    return "?" if n is None else f"{n / (1 << 30):.1f} GiB" if n >= 1 << 29 else f"{n / (1 << 20):.1f} MiB"


def statement_label(s: m.AnyStatement) -> str:
    if isinstance(s, m.Insert):
        return "INSERT" if s.replace_where is None else "INSERT REPLACE WHERE"
    return s.label


def plan(s: m.AnyStatement, facts: DmlFacts) -> DmlPlan:
    """Where `s` (a DELETE, UPDATE or MERGE, or the rows an INSERT ... REPLACE WHERE replaces)
    runs, and why, from `facts`; see the module doc."""
    label = statement_label(s)
    if facts.option == SPARK_ONLY:
        return DmlPlan(label, Path.SPARK, f"{OPTION} = {SPARK_ONLY}: Spark computes every DELETE, UPDATE and MERGE")
    if facts.master is not None and not is_local(facts.master):
        return DmlPlan(label, Path.CLUSTER, f"the master is {facts.master}: Spark's executors read and write the files")
    if facts.time_zone is not None and not is_utc(facts.time_zone):
        return DmlPlan(label, Path.SPARK, f"the session time zone is {facts.time_zone}: the driver computes DATE and "
                       "TIMESTAMP values as in UTC, so Spark computes the statement")
    local = (ON_LOCAL_SESSION,) if facts.master is None else ()
    if facts.time_zone is None and facts.columns.has_timestamp():
        local += (SESSION_UTC,)
    if isinstance(s, m.Update):
        decided = _update(s, facts)
    elif isinstance(s, m.Merge):
        decided = _merge(s, facts)
    elif isinstance(s, m.Insert) and s.replace_where is None:
        decided = _insert(s, facts)
    else:
        decided = _delete(s, s.replace_where if isinstance(s, m.Insert) else s.where, facts)
    if decided.path is Path.SPARK and not decided.rows_on_driver:
        return decided
    return replace(decided, pending=local + decided.pending)


def _spark(label: str, reason: str, **driver_share: Any) -> DmlPlan:
    return DmlPlan(label, Path.SPARK, reason, **driver_share)


def _scan_pending(facts: DmlFacts) -> tuple[str, ...]:
    return (SCAN_FITS,) if facts.scan_bytes is None else ()


def _scan_too_large(facts: DmlFacts) -> Optional[str]:
    if facts.scan_bytes is not None and facts.scan_bytes > SCAN_MAX_BYTES:
        return f"the files it may change hold {_size(facts.scan_bytes)}, past the driver's {_GIB}"
    return None


def _delete(s: m.AnyStatement, condition: Optional[exp.Expression], facts: DmlFacts) -> DmlPlan:
    """A DELETE, or the rows an INSERT ... REPLACE WHERE replaces: on the driver, the rows the
    condition selects are found by reading only its columns of the candidate files."""
    label = statement_label(s)
    if facts.changes_feed:
        return _spark(label, "the table records its change data feed: Spark reads the deleted rows for it")
    if getattr(s, "ctes", ()):
        return _spark(label, "the statement has a WITH clause: Spark computes its condition")
    subqueries = _subqueries(condition)
    try:
        driver_filter(condition, facts.columns, (target_alias(s.target),), subqueries)
    except NotExactOnDriver as e:
        return _spark(label, f"WHERE: {e}")
    too_large = _scan_too_large(facts)
    if too_large:
        return _spark(label, too_large)
    if subqueries:
        return DmlPlan(label, Path.DRIVER, "pyarrow computes its WHERE exactly as Spark, with the values of its IN "
                       "subquery: the driver finds the rows", True, True,
                       pending=_scan_pending(facts) + (SUBQUERY_FITS,))
    return DmlPlan(label, Path.DRIVER, "pyarrow computes its WHERE exactly as Spark: the driver finds the rows, "
                   "no Spark job", True, True, pending=_scan_pending(facts))


def _subqueries(condition: Optional[exp.Expression]) -> tuple[None, ...]:
    """A condition's IN subqueries, none computed yet (exact.check_condition)."""
    return (None,) * len(subquery_ins(condition))


def _insert(s: m.Insert, facts: DmlFacts) -> DmlPlan:
    """An INSERT ... VALUES that only adds rows (or overwrites whole files of a table without a
    change data feed): on the driver, its values are computed and written (driver_insert.py)."""
    label = statement_label(s)
    if not isinstance(s.source, exp.Values):
        return _spark(label, "the INSERT's query is computed by Spark")
    if s.ctes or s.by_name or s.schema_evolution or s.partition_spec or s.replace_using or s.replace_on is not None:
        return _spark(label, "a WITH clause, BY NAME, WITH SCHEMA EVOLUTION, PARTITION or REPLACE: Spark computes it")
    if s.mode is m.InsertMode.OVERWRITE and facts.changes_feed:
        return _spark(label, "the table records its change data feed: Spark writes the overwritten rows' changes")
    if facts.table_rules or facts.columns.char_varchar:
        return _spark(label, "the table has CHECK constraints, NOT NULL, generated or CHAR / VARCHAR columns: Spark "
                      "checks the rows")
    return DmlPlan(label, Path.DRIVER, "pyarrow computes its VALUES exactly as Spark: the driver writes them, no Spark "
                   "job", writes_on_driver=True, pending=_rules_pending(facts))


def _update(s: m.Update, facts: DmlFacts) -> DmlPlan:
    """On the driver, the matched rows are read (only they go to Spark, if Spark computes the new
    values), and the new rows written; the values too, where pyarrow computes them exactly."""
    label = statement_label(s)
    if s.ctes:
        return _spark(label, "the statement has a WITH clause: Spark computes it")
    refused = _scan_too_large(facts) or not_carried(facts.columns)
    if refused:
        return _spark(label, refused)
    subqueries = _subqueries(s.where)
    try:
        driver_filter(s.where, facts.columns, (target_alias(s.target),), subqueries)
    except NotExactOnDriver as e:
        return _spark(label, f"WHERE: {e}")
    share = dict(rows_on_driver=True, writes_on_driver=True, pending=_scan_pending(facts) + _rules_pending(facts)
                 + ((SUBQUERY_FITS,) if subqueries else ()))
    checked = _checked_by_spark(facts)
    if checked:
        return _spark(label, f"{checked}: Spark computes the new rows and checks them", **share)
    try:
        update_values(s, facts.columns)
    except NotExactOnDriver as e:
        return _spark(label, str(e), **share)
    if subqueries:
        return DmlPlan(label, Path.DRIVER, "pyarrow computes its WHERE (with the values of its IN subquery) and "
                       "every SET value exactly as Spark", **share)
    return DmlPlan(label, Path.DRIVER, "pyarrow computes its WHERE and every SET value exactly as Spark: no Spark job",
                   **share)


def update_values(s: m.Update, columns: Columns) -> dict[str, Callable[[Any], Any]]:
    """The UPDATE's SET values, each a function over its matched rows (the table's columns)
    computed with pyarrow; raises NotExactOnDriver when one is not exact (exact.py). A SET of
    a column the table does not have is refused before (the UPDATE's own error)."""
    names = columns.names()
    alias = target_alias(s.target).lower()
    types = {n: columns.schema.field(n).type for n in columns.schema.names}

    def resolve(c: exp.Column) -> Optional[str]:
        if c.args.get("db") is not None or (c.table and c.table.lower() != alias):
            return None
        return names.get(c.name.lower())

    out = {}
    for key, node in s.assignments:
        column = names.get(m.assigned_column(key))
        if column is None:
            raise NotExactOnDriver(f"SET {key}: not a column of the table")
        try:
            out[column] = value(node, resolve, types, types[column], column, char_varchar=column in columns.char_varchar)
        except NotExactOnDriver as e:
            raise NotExactOnDriver(f"SET {e}") from None
    return out


def _rules_pending(facts: DmlFacts) -> tuple[str, ...]:
    return (NO_UNSEEN_RULES,) if facts.table_rules is None else ()


def _checked_by_spark(facts: DmlFacts) -> Optional[str]:
    """What of the table Spark checks the rows a statement writes against (Delta's rules, CHAR /
    VARCHAR lengths: constraints.checked_rows), in words; None when nothing."""
    if facts.table_rules:
        return "the table has CHECK constraints, NOT NULL or generated columns"
    if facts.columns.char_varchar:
        return (f"the table has CHAR / VARCHAR columns ({', '.join(sorted(facts.columns.char_varchar))}), whose "
                "lengths Delta checks")
    return None


def _merge(s: m.Merge, facts: DmlFacts) -> DmlPlan:
    """On the driver, the target rows that can match are found (those whose ON keys are among the
    source's); the whole MERGE runs there when ON is its keys and every clause is exact."""
    label = statement_label(s)
    if any(c.match is m.MergeMatch.NOT_MATCHED_BY_SOURCE for c in s.clauses):
        return _spark(label, "WHEN NOT MATCHED BY SOURCE takes every target row that matches nothing: Spark scans them")
    refused = not_carried(facts.columns)
    if refused:
        return _spark(label, refused)
    talias, salias = target_alias(s.target), source_alias(s)
    runtime = (SOURCE_FITS, CANDIDATES_FIT)
    if facts.source is None:
        keys, residual = _equalities(s.on, talias, salias)
        if not keys:
            return _spark(label, "MERGE ON has no equality of a target column with a source column")
        share = dict(rows_on_driver=True, writes_on_driver=not _checked_by_spark(facts),
                     pending=runtime + (SOURCE_TYPES,) + _rules_pending(facts))
        if residual:
            return _spark(label, f"MERGE ON has a residual condition {residual[0].sql(dialect='databricks')}: "
                          "Spark computes it", **share)
    else:
        keys, _residual = equi_keys(s.on, talias, salias, facts.columns, facts.source)
        if not keys:
            return _spark(label, "MERGE ON has no equality of a target column with a source column that pyarrow "
                          "compares as Spark (integers, or plain strings, on both sides)")
        share = dict(rows_on_driver=True, writes_on_driver=not _checked_by_spark(facts),
                     pending=runtime + _rules_pending(facts))
    if facts.new_columns or (facts.new_columns is None and s.schema_evolution):
        if facts.new_columns:
            return _spark(label, "WITH SCHEMA EVOLUTION: the source brings new columns; Spark computes the MERGE", **share)
        share["pending"] += ("the source brings no new column (WITH SCHEMA EVOLUTION)",)
    if any(c.match is m.MergeMatch.NOT_MATCHED for c in s.clauses):
        if facts.identity_columns:
            return _spark(label, "the MERGE inserts rows into a table with identity columns: Spark numbers them after "
                          "the high-water mark, as INSERT does", **{**share, "writes_on_driver": False})
        if facts.identity_columns is None:
            share["pending"] += (NO_IDENTITY,)
    checked = _checked_by_spark(facts)
    if checked:
        return _spark(label, f"{checked}: Spark computes the rows it writes and checks them", **share)
    if facts.source is not None:
        try:
            DriverMerge.compile(s, talias, salias, facts.columns, facts.source)
        except NotExactOnDriver as e:
            return _spark(label, str(e), **share)
    return DmlPlan(label, Path.DRIVER, "ON is its keys and pyarrow computes every clause exactly as Spark: Spark only "
                   "collects the source", **share)


def _equalities(on: Optional[exp.Expression], talias: str, salias: str) -> tuple[list[exp.Expression], list[exp.Expression]]:
    """Before the source's types are known: ON's conjuncts that equate a target column and a source
    column (each qualified by its side's name), and the others."""
    sides = {talias.lower(), salias.lower()}
    keys, residual = [], []
    for c in conjuncts(on) if on is not None else []:
        a, b = (c.this, c.expression) if isinstance(c, exp.EQ) else (None, None)
        columns = [x.unnest() for x in (a, b) if x is not None]
        if (len(columns) == 2 and all(isinstance(x, exp.Column) and x.args.get("db") is None for x in columns)
                and {x.table.lower() for x in columns} == sides and len(sides) == 2):
            keys.append(c)
        else:
            residual.append(c)
    return keys, residual
