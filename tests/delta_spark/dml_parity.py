"""The refusal-parity differential of issue 22: the same DELETE / UPDATE / MERGE / INSERT run by
acidsql's engine and by Delta Spark 4.4 on two copies of one starting table (dml_cases.py makes
them); they must leave the same rows, or both refuse, naming the same error class when Delta
names one.

How a case runs (`Parity.run`): the starting table is written once by Delta Spark (the
reference writes its own starting point) and kept; each case copies its folder twice, runs the
statement with acidsql (`Session.sql`) on one copy and with Delta Spark (`spark.sql`) on the
other, and reads both copies back with Delta Spark (the reader users see results through).
Delta's side does not depend on acidsql's DML path: a case run under several paths runs Delta
once, keeps its copy and rows, and judges each path's acidsql run against them. A case Spark
computed alone under "auto" (the planner's choice: no rows read or written on the driver) is not
run again under "spark", which runs that same code: its verdict is the spark path's too.

Comparison rules (`judge`):
- rows: the same multiset. DOUBLE values compare as Spark shows them: NaN equals NaN, and -0.0
  and 0.0 differ (CAST(-0.0D AS STRING) is '-0.0'; Delta writes the sign it computes, so a
  lost sign is a difference a user can see). TIMESTAMPs compare as their UTC text
  (the session's time zone is UTC); CHAR values as Spark reads them (padded).
- metrics: when both commit, the row counts Delta records in commitInfo.operationMetrics
  (deleted / updated / inserted, the ones both report) must be equal.
- refusals: acidsql refuses with a StatementError (or the engine's DeltaError, or an error
  Spark itself raised while acidsql ran the statement, which carries Spark's own error class:
  acidsql's CLI reports those as user errors too); when Delta names an error class, acidsql's
  error must name the same one (its main part: `UNSUPPORTED_FEATURE` matches
  `UNSUPPORTED_FEATURE.TABLE_OPERATION`). A refusal must leave the table's log as it was.
  Any other exception escaping acidsql (OverflowError, AssertionError, a raw Py4JJavaError)
  is a failure of its own, whatever Delta did.
- Delta failing without an error class (or with INTERNAL_ERROR) is a "Delta internal error":
  reported with its reproducer, not compared.
- Where acidsql follows Databricks over open-source Delta (subqueries in DELETE / UPDATE
  conditions: docs/databricks-vs-oss-delta.md, DELTA_UNSUPPORTED_SUBQUERY), the case is a
  documented difference, not a divergence: whether acidsql then runs the statement or refuses
  it with the error computing it raises (an overflow in the condition), Delta has nothing to
  compare it with.
- CHAR: Delta 4.4's DELETE / UPDATE / MERGE skip files by comparing the padded literal with the
  files' statistics of the unpadded values, so they miss rows Spark's padded comparison matches
  (`DELETE WHERE c = ''` keeps the '' row when it sits in a file of its own). When the rows
  differ on a table with a CHAR column, Delta runs the case again on a third copy with data
  skipping off (CHAR_SKIPPING_OFF); when acidsql's rows are those, the case is the documented
  difference CHAR_SKIPPING (docs/databricks-vs-oss-delta.md), else a divergence.

Known divergences (issue 22's numbered list) are named by KNOWN: small predicates on a verdict.
A divergence no predicate explains is NEW. `python -m tests.delta_spark.dml_parity --cases N
--seed S` (make dml-parity) runs a long sample and prints the counts.
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from . import dml_cases
from .dml_cases import Case, TableSpec
from .oracle import DeltaSpark, first_line

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# The session option that picks acidsql's DML path: "auto" (the pyarrow driver path where it
# applies, else Spark) or "spark" (always Spark). Each case can run under each value.
DML_PATH_OPTION = "acidsql.dml.path"
DOC = Path(__file__).resolve().parents[2] / "docs" / "databricks-vs-oss-delta.md"
_JAVA_EXCEPTION = re.compile(r"([\w.$]+(?:Exception|Error))\b")
_ERROR_CLASS = re.compile(r"\[([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\]")
_METRICS = {
    "DELETE": ("numDeletedRows",),
    "UPDATE": ("numUpdatedRows",),
    "MERGE": ("numTargetRowsInserted", "numTargetRowsUpdated", "numTargetRowsDeleted"),
    "INSERT": ("numOutputRows",),
}


@dataclass(frozen=True)
class Outcome:
    """What one engine did with a case."""

    status: str  # "ran", "refused", "crashed" (acidsql only), "internal" (Delta only)
    error_class: Optional[str] = None
    message: str = ""
    origin: str = ""  # the exception's type (for a refusal or a crash)
    rows: Optional[tuple[tuple, ...]] = None  # canonical, sorted; read when the statement ran
    metrics: tuple[tuple[str, int], ...] = ()
    wrote: bool = False  # a new log version appeared
    # acidsql's DML path for a statement it ran ("driver", "spark") and the planner's reason
    path: str = ""
    path_reason: str = ""
    # the driver reads or writes rows for Spark's path (DmlPlan.rows_on_driver, ...), which
    # acidsql.dml.path = spark never does
    driver_share: bool = False

    def brief(self) -> str:
        if self.status == "ran":
            return "ran" + (f" {dict(self.metrics)}" if self.metrics else "")
        return f"{self.status} {self.origin} [{self.error_class or '-'}] {self.message[:240]}"


# ---- the verdict --------------------------------------------------------------------------------

AGREE = ("same rows", "both refused")
DOCUMENTED = "documented difference"
DELTA_INTERNAL = "Delta internal error"
DIVERGENCES = ("rows differ", "metrics differ", "acidsql ran, Delta refused", "acidsql refused, Delta ran",
               "other error class", "acidsql crashed", "refusal wrote a commit")
SUBQUERY_DOC = ("DELTA_UNSUPPORTED_SUBQUERY", "INVALID_NON_DETERMINISTIC_EXPRESSIONS")
# Delta's data skipping, off for the rerun of a CHAR divergence; the documented difference it shows.
CHAR_SKIPPING_OFF = ("spark.databricks.delta.stats.skipping", "false")
CHAR_SKIPPING = "Delta 4.4 skips files by unpadded CHAR statistics"


@dataclass(frozen=True)
class Verdict:
    case: Case
    acidsql: Outcome
    delta: Outcome
    what: str  # one of AGREE, DOCUMENTED, DELTA_INTERNAL, DIVERGENCES
    known: Optional[str] = None  # the KNOWN entry that explains a divergence
    looked: object = None  # what Parity.run's `look` found in the two copies
    documented: Optional[str] = None  # which documented difference (CHAR_SKIPPING, ...)
    unskipped: Optional[Outcome] = None  # Delta again without data skipping (a CHAR divergence)

    @property
    def divergent(self) -> bool:
        return self.what in DIVERGENCES

    @property
    def unexplained(self) -> bool:
        return self.divergent and self.known is None

    @property
    def group(self) -> str:
        """What a long run counts this verdict under."""
        if not self.divergent:
            return self.what
        if self.known:
            return self.known
        side = self.delta if self.what == "acidsql ran, Delta refused" else self.acidsql
        detail = side.error_class or (side.origin if side.status != "ran" else "")
        return f"NEW: {self.what}" + (f" ({detail})" if detail else "")

    def reproducer(self) -> str:
        spec = self.case.table
        lines = [f"case {self.case.label}: {self.what}" + (f" [{self.known}]" if self.known else ""),
                 *("  " + s for s in spec.create_statements("{t}")),
                 f"  {self.case.statement}",
                 f"  acidsql: {self.acidsql.brief()}",
                 f"  Delta:   {self.delta.brief()}"]
        if self.unskipped is not None:
            lines.append(f"  Delta without data skipping: {self.unskipped.brief()}"
                         + (" (the same rows as acidsql)" if self.unskipped.rows == self.acidsql.rows else ""))
        a, d = self.acidsql.rows, self.delta.rows
        if a is not None and d is not None and a != d:
            ca, cd = Counter(a), Counter(d)
            lines.append(f"  rows only acidsql has: {sorted((ca - cd).elements(), key=repr)[:6]}")
            lines.append(f"  rows only Delta has:   {sorted((cd - ca).elements(), key=repr)[:6]}")
        return "\n".join(lines)


def _main_class(name: Optional[str]) -> Optional[str]:
    return name.split(".")[0] if name else None


def same_class(acidsql: Outcome, delta: Outcome) -> bool:
    if not delta.error_class:
        return True
    named = {acidsql.error_class, *_ERROR_CLASS.findall(acidsql.message)} - {None}
    return delta.error_class in named or _main_class(delta.error_class) in {_main_class(n) for n in named}


def judge(case: Case, acidsql: Outcome, delta: Outcome) -> Verdict:
    def verdict(what: str) -> Verdict:
        v = Verdict(case, acidsql, delta, what)
        return replace(v, known=explain(v)) if v.divergent else v

    if acidsql.status == "crashed":
        return verdict("acidsql crashed")
    if acidsql.status == "refused" and acidsql.wrote:
        return verdict("refusal wrote a commit")
    if delta.status == "internal":
        return verdict(DELTA_INTERNAL)
    if delta.error_class in SUBQUERY_DOC and "subquery" in case.features and not (
            acidsql.status == "refused" and same_class(acidsql, delta)):
        # Delta refuses the form before computing anything; acidsql computes it as Databricks
        # does, and either runs it or meets the error a row raises there (an overflow)
        return verdict(DOCUMENTED)
    if acidsql.status == "ran" and delta.status == "ran":
        if acidsql.rows != delta.rows:
            return verdict("rows differ")
        a, d = dict(acidsql.metrics), dict(delta.metrics)
        if acidsql.wrote and delta.wrote and any(a[k] != d[k] for k in a.keys() & d.keys()):
            return verdict("metrics differ")
        return verdict("same rows")
    if acidsql.status == "refused" and delta.status == "refused":
        return verdict("both refused" if same_class(acidsql, delta) else "other error class")
    if acidsql.status == "ran":
        return verdict("acidsql ran, Delta refused")
    return verdict("acidsql refused, Delta ran")


# ---- known divergences: issue 22's numbered list, and what this differential found ---------------------

@dataclass(frozen=True)
class Known:
    """A known divergence: one of issue 22's numbered items, or one this differential found
    ("new: ..."). `applies` is a small predicate on the verdict (the case and both outcomes).
    Delete the entry when its fix lands: the random samples then hold the fix."""

    item: str
    applies: Callable[[Verdict], bool]


def _delta_refused(v: Verdict, *classes: str) -> bool:
    return v.delta.status == "refused" and v.delta.error_class in classes


def _acidsql_did_not_refuse_alike(v: Verdict) -> bool:
    return v.what in ("acidsql ran, Delta refused", "other error class")


def _only_signed_zero(v: Verdict) -> bool:
    """The rows differ only in the sign of a zero."""
    def unsigned(rows):
        return Counter(tuple("0.0" if x == "-0.0" else x for x in r) for r in rows)

    return v.what == "rows differ" and unsigned(v.acidsql.rows) == unsigned(v.delta.rows)


# Refusals acidsql's front end makes before anything runs (Spark's parser makes them too).
FRONT_END_CLASSES = frozenset({"DELTA_CONFLICT_SET_COLUMN", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                               "INVALID_NUMERIC_LITERAL_RANGE", "NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION",
                               "NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION",
                               "NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION", "PARSE_SYNTAX_ERROR"})

# Errors a row's value raises while Spark computes it (an overflow into the column, a string that
# is no number). A statement whose rows raise two of them in two files fails with the first task
# to fail: Delta Spark 4.4 itself names either from run to run (one row raising both names the
# same one on both engines: the columns are computed in the table's order).
CARDINALITY = "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"
ROW_VALUE_CLASSES = frozenset({"DELTA_CAST_OVERFLOW_IN_TABLE_WRITE", "CAST_OVERFLOW_IN_TABLE_INSERT",
                               "CAST_INVALID_INPUT"})

KNOWN: tuple[Known, ...] = (
    Known("issue 22 item 2: CHAR/VARCHAR length (DELTA_EXCEED_CHAR_VARCHAR_LIMIT)",
          lambda v: _acidsql_did_not_refuse_alike(v) and _delta_refused(v, "DELTA_EXCEED_CHAR_VARCHAR_LIMIT")),
    # Found by this differential; not in issue 22's list.
    Known("new: both refuse a statement holding two errors, each engine naming another first (acidsql's "
          "front end checks what Spark's parser checks, before Delta's analysis)",
          lambda v: v.what == "other error class" and v.acidsql.status == "refused" and v.delta.status == "refused"
          and v.acidsql.error_class in FRONT_END_CLASSES),
    Known("new: both refuse a statement whose rows raise two errors in parallel tasks, each engine naming the "
          "error of the task that failed first (a race: Delta Spark itself names either from run to run)",
          lambda v: v.what == "other error class" and v.acidsql.status == "refused" and v.delta.status == "refused"
          and {v.acidsql.error_class, v.delta.error_class} <= ROW_VALUE_CLASSES),
    Known("new: both refuse a MERGE holding two errors, two source rows on one target row and a value Spark "
          "cannot compute or store, each engine naming another first (Delta folds constants while it plans and "
          "checks the rows' matches while it joins; acidsql checks the matches after computing the values)",
          lambda v: v.what == "other error class" and v.case.kind == "MERGE"
          and {v.acidsql.error_class, v.delta.error_class} & {CARDINALITY}
          and {v.acidsql.error_class, v.delta.error_class} - {CARDINALITY} <= ROW_VALUE_CLASSES),
    Known("new: acidsql skips files by the region its analyzer solves from an arithmetic condition (`i - 1 > 1` as "
          "`i > 2`); Delta 4.4 reads them and fails on the overflow a row there gives (ARITHMETIC_OVERFLOW)",
          lambda v: v.what == "acidsql ran, Delta refused" and v.delta.error_class == "ARITHMETIC_OVERFLOW"
          and "arithmetic" in v.case.features),
    Known("new: on a local session (the driver reads the candidate target rows) acidsql's MERGE computes a NOT "
          "MATCHED clause's condition only on the source rows no target row matches; Delta's computes it on a "
          "matched row too and fails where it raises there (CAST_INVALID_INPUT)",
          lambda v: v.what == "acidsql ran, Delta refused" and v.case.kind == "MERGE"
          and re.search(r"WHEN NOT MATCHED (BY TARGET )?AND", v.case.statement) is not None
          and v.delta.error_class in ROW_VALUE_CLASSES | {"ARITHMETIC_OVERFLOW"}),
)


def explain(v: Verdict) -> Optional[str]:
    return next((k.item for k in KNOWN if k.applies(v)), None)


# ---- running a case ---------------------------------------------------------------------------------

def _canonical(value):
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else repr(value)
    if isinstance(value, Decimal):
        return str(value)
    return value


def _projection(spec: TableSpec) -> str:
    return ", ".join(f"CAST({c.name} AS STRING) AS {c.name}" if c.kind == "timestamp" else c.name
                     for c in spec.columns)


def _log_versions(path: str) -> list[int]:
    log = os.path.join(path, "_delta_log")
    return sorted(int(n[:20]) for n in os.listdir(log) if n.endswith(".json") and n[:20].isdigit())


def _metrics(path: str, version: int, kind: str) -> tuple[tuple[str, int], ...]:
    with open(os.path.join(path, "_delta_log", f"{version:020d}.json")) as f:
        for line in f:
            info = json.loads(line).get("commitInfo")
            if info is not None:
                got = info.get("operationMetrics") or {}
                return tuple((k, int(got[k])) for k in _METRICS[kind] if k in got)
    return ()


# Error classes that only wrap the one that says what went wrong (in the exception's cause).
WRAPPERS = ("TASK_WRITE_FAILED",)


def _chain(error: BaseException) -> list[str]:
    """The messages of `error` and of its Java causes, outermost first."""
    out = [first_line(error)]
    java = getattr(error, "java_exception", None) or getattr(error, "_origin", None)
    seen = 0
    while java is not None and seen < 8:
        try:
            out.append(str(java.getMessage() or ""))
            java = java.getCause()
        except Exception:  # noqa: BLE001 - not a Java throwable after all
            break
        seen += 1
    return out


def _message(error: BaseException, error_class: Optional[str]) -> str:
    """The message that names `error_class` (a wrapper's cause's), else the error's first line."""
    return next((m for m in _chain(error) if error_class and f"[{error_class}]" in m), first_line(error))


def error_class_of(error: BaseException) -> Optional[str]:
    """The error class that says what went wrong: the exception's own, or, when that one only
    wraps another (TASK_WRITE_FAILED), its cause's."""
    found: list[str] = []
    getter = getattr(error, "getCondition", None)
    if getter is not None:
        try:
            name = getter()
        except Exception:  # noqa: BLE001 - a Py4J error without the method
            name = None
        if name:
            found.append(name)
    for message in _chain(error):
        match = _ERROR_CLASS.search(message)
        if match and match.group(1) not in found:
            found.append(match.group(1))
    return next((n for n in found if n not in WRAPPERS), found[0] if found else None)


class Parity:
    """Runs cases on both engines in `workdir`, on the run's one SparkSession (with Delta Spark).
    `keep_delta`: keep Delta's side of each case for a run of the same case under another DML
    path (a long run of one path passes False and keeps nothing)."""

    def __init__(self, spark: "SparkSession", workdir: str, keep_delta: bool = True):
        from acidsql.spark.session_api import Session

        self.spark = spark
        self.delta = DeltaSpark(spark)
        self.workdir = workdir
        self.acidsql = Session(spark, workdir)
        self._bases: dict[str, str] = {}
        self._n = 0
        # Delta Spark's side of a case depends on the case only (never on acidsql's DML path):
        # it runs once, on a copy kept for the module, and each DML path's run is judged
        # against it. (case's table, statement) -> Delta's copy and what Delta did there.
        self._delta_runs: dict[tuple[str, str], tuple[str, Outcome]] = {}
        self._unskipped: dict[tuple[str, str], Outcome] = {}
        self._rows: dict[str, tuple[tuple, ...]] = {}  # a kept copy's rows, read once
        self._keep_delta = keep_delta
        # A case whose "auto" run Spark computed alone (the planner's choice, in the result's
        # plan) runs the very same code under "spark": its verdict is reused for that path.
        self._took_spark: dict[tuple[str, str], Verdict] = {}
        # Delta Spark runs its copy on this thread while acidsql runs its own on the caller's:
        # two tables, two engines, nothing shared but the SparkSession (a third off a case's time).
        self._delta_thread = ThreadPoolExecutor(1, thread_name_prefix="delta-spark")

    def close(self) -> None:
        self._delta_thread.shutdown()
        for path, _ in self._delta_runs.values():
            shutil.rmtree(path, ignore_errors=True)

    def base(self, spec: TableSpec) -> str:
        """The starting table, written once by Delta Spark."""
        if spec.name not in self._bases:
            path = os.path.join(self.workdir, "base", spec.name)
            shutil.rmtree(path, ignore_errors=True)
            for text in spec.create_statements(self.delta.ref(path)):
                self.delta.sql(text).collect()
            self._bases[spec.name] = path
        return self._bases[spec.name]

    def run(self, case: Case, dml_path: str = "auto",
            look: Optional[Callable[[str, str, str], object]] = None) -> Verdict:
        """The verdict on `case`; `look(base, acidsql's copy, Delta's copy)` (the tables'
        folders, before the copies go) is kept in it as `looked`."""
        base = self.base(case.table)
        start = _log_versions(base)[-1]
        key = (case.table.name, case.statement)
        if dml_path == "spark" and look is None and key in self._took_spark:
            return self._took_spark[key]
        self._n += 1
        mine = os.path.join(self.workdir, "cases", f"{self._n}-acidsql")
        shutil.copytree(base, mine)
        theirs = None
        try:
            ran = self._delta_runs.get(key)
            if ran is None:
                theirs = os.path.join(self.workdir, "cases", f"{self._n}-delta")
                shutil.copytree(base, theirs)
                theirs_done = self._delta_thread.submit(self._run_delta, case, theirs, start)
                try:
                    acid = self._run_acidsql(case, mine, dml_path, start)
                finally:
                    delta = theirs_done.result()
                ran = self._delta_runs[key] = (theirs, delta)
            else:
                acid = self._run_acidsql(case, mine, dml_path, start)
            theirs, delta = ran
            acid, delta = self._read(case.table, (mine, acid), (theirs, delta))
            verdict = judge(case, acid, delta)
            if verdict.what == "rows differ" and any(c.kind == "char" for c in case.table.columns):
                verdict = self._char_skipping(verdict, base, start)
            if (dml_path == "auto" and acid.status == "ran" and acid.path == "spark" and not acid.driver_share
                    and self._keep_delta):
                self._took_spark[key] = verdict
            return replace(verdict, looked=look(base, mine, theirs)) if look is not None else verdict
        finally:
            for path in (mine, theirs):
                if path is not None:
                    self.delta.forget(path)
            shutil.rmtree(mine, ignore_errors=True)
            if not self._keep_delta and key in self._delta_runs:
                self._rows.pop(self._delta_runs.pop(key)[0], None)
                shutil.rmtree(theirs, ignore_errors=True)

    def _char_skipping(self, verdict: Verdict, base: str, start: int) -> Verdict:
        """A CHAR case whose rows differ, run by Delta again on a third copy with data skipping
        off (see the module doc): the documented difference CHAR_SKIPPING when acidsql's rows are
        what Delta then leaves."""
        case = verdict.case
        unskipped = self._unskipped.get((case.table.name, case.statement))
        if unskipped is None:
            path = os.path.join(self.workdir, "cases", f"{self._n}-delta-unskipped")
            shutil.copytree(base, path)
            key, value = CHAR_SKIPPING_OFF
            try:
                self.spark.conf.set(key, value)
                try:
                    unskipped = self._run_delta(case, path, start)
                finally:
                    self.spark.conf.unset(key)
                (unskipped,) = self._read(case.table, (path, unskipped))
            finally:
                self.delta.forget(path)
                shutil.rmtree(path, ignore_errors=True)
            if self._keep_delta:
                self._unskipped[(case.table.name, case.statement)] = unskipped
        if unskipped.status == "ran" and unskipped.rows == verdict.acidsql.rows:
            return replace(verdict, what=DOCUMENTED, known=None, documented=CHAR_SKIPPING, unskipped=unskipped)
        return replace(verdict, unskipped=unskipped)

    def _run_acidsql(self, case: Case, path: str, dml_path: str, start: int) -> Outcome:
        from pyspark.errors.exceptions.captured import CapturedException

        from acidsql.delta.errors import DeltaError
        from acidsql.spark.results import StatementError
        from acidsql.spark.tables import TableLocationError

        self.spark.conf.set(DML_PATH_OPTION, dml_path)
        try:
            result = self.acidsql.sql(case.sql(self.delta.ref(path)))
        except (StatementError, DeltaError, TableLocationError, CapturedException) as e:
            name = getattr(e, "error_class", None) or error_class_of(e)
            return Outcome("refused", name, _message(e, name), type(e).__name__,
                           wrote=_log_versions(path)[-1] != start)
        except Exception as e:  # noqa: BLE001 - anything else escaping acidsql is a defect of its own
            return Outcome("crashed", None, first_line(e), type(e).__name__)
        finally:
            self.spark.conf.unset(DML_PATH_OPTION)
        plan = getattr(result, "plan", None)
        ran = self._ran(case, path, start)
        if plan is None:
            return ran
        return replace(ran, path=plan.path.value, path_reason=plan.reason,
                       driver_share=plan.rows_on_driver or plan.writes_on_driver or plan.candidate_files_only)

    def _run_delta(self, case: Case, path: str, start: int) -> Outcome:
        try:
            self.delta.sql(case.sql(self.delta.ref(path))).collect()
        except Exception as e:  # noqa: BLE001 - Delta's refusal, or its internal error
            name = error_class_of(e)
            status = "refused" if name and not name.startswith("INTERNAL_ERROR") else "internal"
            origin = type(e).__name__
            if origin == "Py4JJavaError":
                java = _JAVA_EXCEPTION.search(first_line(e))
                origin = java.group(1).rsplit(".", 1)[-1] if java else origin
            return Outcome(status, name, _message(e, name), origin)
        return self._ran(case, path, start)

    @staticmethod
    def _ran(case: Case, path: str, start: int) -> Outcome:
        last = _log_versions(path)[-1]
        metrics = _metrics(path, last, case.kind) if last != start else ()
        return Outcome("ran", metrics=metrics, wrote=last != start)

    def _read(self, spec: TableSpec, *sides: tuple[str, Outcome]) -> tuple[Outcome, ...]:
        """Both copies' rows as Delta Spark reads them, in one query, when both statements ran
        (when one refused, the verdict needs no rows: the other's table is unchanged). Delta's
        kept copy is read once (Parity._delta_runs)."""
        if any(out.status != "ran" for _, out in sides):
            return tuple(out for _, out in sides)
        wanted = [(i, p) for i, (p, _) in enumerate(sides) if p not in self._rows]
        rows: dict[int, list[tuple]] = {i: [] for i, _ in wanted}
        if wanted:
            cols = _projection(spec)
            query = " UNION ALL ".join(f"SELECT {i} AS side__, {cols} FROM {self.delta.ref(p)}" for i, p in wanted)
            for r in self.spark.sql(query).collect():
                rows[r[0]].append(tuple(_canonical(v) for v in r[1:]))
        kept = {path for path, _ in self._delta_runs.values()}
        out = []
        for i, (path, outcome) in enumerate(sides):
            if i in rows:
                self._rows[path] = tuple(sorted(rows[i], key=repr))
            got = self._rows[path] if path in kept else self._rows.pop(path)
            out.append(replace(outcome, rows=got))
        return tuple(out)


# ---- a long run ---------------------------------------------------------------------------------------

@dataclass
class Tally:
    verdicts: list[Verdict] = field(default_factory=list)

    def add(self, v: Verdict) -> None:
        self.verdicts.append(v)

    def counts(self) -> Counter:
        return Counter(v.group for v in self.verdicts)

    def report(self) -> str:
        c = Counter(v.what for v in self.verdicts)
        groups = self.counts()
        lines = [f"cases: {len(self.verdicts)}",
                 f"same rows: {c['same rows']}", f"both refused: {c['both refused']}",
                 f"documented differences: {c[DOCUMENTED]}", f"Delta internal errors: {c[DELTA_INTERNAL]}",
                 f"divergences: {sum(1 for v in self.verdicts if v.divergent)} "
                 f"(unexplained: {sum(1 for v in self.verdicts if v.unexplained)})"]
        refusals = Counter(v.acidsql.origin for v in self.verdicts if v.acidsql.status == "refused")
        lines.append("acidsql's refusals by exception: " + ", ".join(f"{k} {n}" for k, n in refusals.most_common()))
        lines += self._paths()
        lines.append("divergences by class:")
        for group, n in groups.most_common():
            if group in AGREE or group in (DOCUMENTED, DELTA_INTERNAL):
                continue
            lines.append(f"  {n:5d}  {group}")
        lines.append("")
        firsts: dict[str, Verdict] = {}
        for v in self.verdicts:
            if v.divergent or v.what == DELTA_INTERNAL:
                key = v.group if v.divergent else f"{DELTA_INTERNAL}: {v.delta.origin} {v.delta.message[:60]}"
                best = firsts.get(key)
                if best is None or len(v.case.statement) < len(best.case.statement):
                    firsts[key] = v
        for key, v in sorted(firsts.items()):
            lines.append(f"== {key}\n{v.reproducer()}\n")
        return "\n".join(lines)


    def _paths(self) -> list[str]:
        """Which path acidsql's planner chose for the statements it ran, by kind, and why the
        others took the Spark path (the planner's reasons, most common first)."""
        ran = [v for v in self.verdicts if v.acidsql.status == "ran" and v.acidsql.path]
        if not ran:
            return []
        lines = ["acidsql's DML path for the statements it ran (planner, acidsql.dml.path=auto):"]
        for kind in sorted({v.case.kind for v in ran}):
            paths = Counter(v.acidsql.path for v in ran if v.case.kind == kind)
            n = sum(paths.values())
            lines.append(f"  {kind:7s} {n:5d}: " + ", ".join(f"{p} {c} ({100 * c / n:.0f}%)" for p, c in paths.most_common()))
        reasons = Counter(" ".join(v.acidsql.path_reason.split())[:110] for v in ran if v.acidsql.path != "driver")
        lines.append("  why not the driver path (most common first):")
        lines += [f"    {c:5d}  {r}" for r, c in reasons.most_common(12)]
        return lines


def main(argv: Optional[list[str]] = None) -> int:
    import argparse
    import tempfile

    from acidsql.spark.session import local_session

    from .session import delta_spark_problem, session_conf

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tables", type=int, default=0, help="starting tables (default: one per 25 cases)")
    parser.add_argument("--dml-path", default="auto", help=f"the value of {DML_PATH_OPTION} for acidsql")
    args = parser.parse_args(argv)
    problem = delta_spark_problem()
    if problem:
        print(f"Delta Spark is not available: {problem}")
        return 2
    conf, _ = session_conf()
    spark = local_session(app_name="dml-parity", conf=conf)
    spark.sparkContext.setLogLevel("OFF")  # a refused statement's failed tasks are expected here
    tables = dml_cases.random_tables(args.seed, args.tables or max(4, args.cases // 25))
    started = time.monotonic()
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="dml-parity-") as workdir:
        parity = Parity(spark, workdir, keep_delta=False)
        for i, case in enumerate(dml_cases.cases(args.seed, args.cases, tables)):
            v = parity.run(case, args.dml_path)
            tally.add(v)
            if v.unexplained or (i + 1) % 100 == 0:
                print(f"[{i + 1}/{args.cases} {time.monotonic() - started:.0f} s] {v.group}", flush=True)
        parity.close()
    print(f"\nseed {args.seed}, {len(tables)} starting tables, {DML_PATH_OPTION}={args.dml_path}, "
          f"{time.monotonic() - started:.0f} s\n")
    print(tally.report())
    spark.stop()
    return 1 if any(v.unexplained for v in tally.verdicts) else 0


if __name__ == "__main__":
    raise SystemExit(main())
