"""Racing a scenario on the engine, with the real interleaving (SCENARIOS.md):

1. `setup` statements run and commit one by one, in a fresh warehouse;
2. `current` does its read and write phases (snapshot read, data files written), not its commit;
3. each winner runs and commits;
4. `current` commits: the engine checks it against every winner with the shared rules.

A transaction block as `current` (docs/scenarios.md) runs its statements in a transaction held
open on the race's session and commits it, every table or none, after the winners, which run in
a second session of the warehouse; a block as a winner runs as `acidsql run` runs one.
"""
from __future__ import annotations

import datetime as _dt
import decimal
import shutil
import tempfile
import uuid
from collections import Counter
from dataclasses import asdict, dataclass, replace
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Optional

from acidsql.delta.exceptions import DeltaConcurrentModificationException
from acidsql.spark.maintenance import commits_in_steps
from acidsql.spark.results import StatementError, StatementResult
from acidsql.spark.session_api import Session
from acidsql.spark.transactions import block_refusals
from acidsql.sql import model as m

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from acidsql.analysis.predict import Scenario


@dataclass(frozen=True)
class RaceOutcome:
    name: str
    outcome: str  # "committed", the exception name, or "error"
    exception: Optional[str]
    reason: str
    expected: Optional[str]
    match: bool
    error_class: Optional[str] = None
    version: Optional[int] = None  # what `current` committed as
    rows: Optional[list[list[Any]]] = None  # what `after` returned
    expected_rows: Optional[list[list[Any]]] = None
    rows_match: Optional[bool] = None
    error: Optional[str] = None  # a statement that failed outside the race itself

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _plain(value: Any) -> Any:
    """Values compared as text, so YAML's 2024-01-01 (a date) equals Spark's date."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (decimal.Decimal,)):
        return str(value.normalize()) if value == value.to_integral() else str(value)
    if isinstance(value, _dt.datetime):
        return value.isoformat(sep=" ")
    return str(value)


def _rows_equal(actual: list[list[Any]], expected: list[list[Any]]) -> bool:
    a = Counter(tuple(_plain(v) for v in r) for r in actual)
    e = Counter(tuple(_plain(v) for v in r) for r in expected)
    return a == e


def run_scenario(spark: "SparkSession", scenario: "Scenario", warehouse: Optional[str] = None,
                 allow_external_paths: bool = False, storage_options: Optional[Mapping[str, str]] = None,
                 scratch_under: Optional[str] = None, row_level_concurrency: bool = True) -> RaceOutcome:
    """Race one scenario in `warehouse`, or in a fresh one removed afterwards: a temp folder,
    or a fresh prefix below `scratch_under` (an object-store URI, e.g. `s3://bucket/races`).
    Its delta.`/path` tables must lie in that warehouse unless `allow_external_paths`.
    `row_level_concurrency=False` races it as open-source Delta would (files only)."""
    own = warehouse is None
    if own and scratch_under is not None:
        from acidsql.delta.storage import join_location

        root = join_location(scratch_under, f"acidsql-race-{uuid.uuid4().hex[:12]}")
    else:
        root = tempfile.mkdtemp(prefix="acidsql-race-") if own else warehouse
    try:
        def session() -> Session:
            return Session(spark, root, allow_external_paths, storage_options, row_level_concurrency)

        return _race(session(), scenario, session)
    finally:
        if own and scratch_under is not None:
            from acidsql.delta.stores import storage_for

            scratch = storage_for(root, storage_options)
            for rel in list(scratch.walk_files()):
                scratch.delete(rel)
        elif own:
            shutil.rmtree(root, ignore_errors=True)


class _HeldBlock:
    """A transaction block as the race's `current`: its statements run in a transaction of `db`
    (staged, as `acidsql run` stages a block's statements: `SessionTransaction`), committed by
    `commit()` after the winners, all tables or none."""

    def __init__(self, db: Session, block: m.AtomicBlock):
        refused = block_refusals(block)
        if refused:
            raise StatementError("\n".join(f"{s.span}: {why}" for s, why in refused))
        self.db, self.block = db, block
        db.transactions.begin()
        try:
            for statement in block.statements:
                db.execute(statement)
        except BaseException:
            db.transactions.rollback_open()
            raise

    def commit(self) -> StatementResult:
        try:
            result = self.db.transactions.commit(self.block)
        except BaseException:
            self.db.transactions.rollback_open()  # a failed COMMIT leaves it aborted: roll it back
            raise
        version = next((p.version for p in result.parts if p.version is not None), None)
        notes = tuple(f"{p.table} committed at version {p.version}" for p in result.parts)
        return replace(result, version=version, notes=notes)


def _race(db: Session, sc: "Scenario", session: Optional[Callable[[], Session]] = None) -> RaceOutcome:
    def failed(step: str, e: Exception) -> RaceOutcome:
        return RaceOutcome(sc.name, "error", None, f"{step} failed: {e}", sc.expect, False, error=f"{step}: {e}")

    for i, text in enumerate(sc.setup, 1):
        try:
            for statement in db.statements(text, file=f"{sc.name}:setup[{i}]"):
                db.execute(statement)
        except Exception as e:  # noqa: BLE001 - reported as the scenario's error
            return failed(f"setup statement {i}", e)
    try:
        (current,) = db.statements(sc.current, file=f"{sc.name}:current")
        if isinstance(current, m.AtomicBlock):
            prepared: Any = _HeldBlock(db, current)
            # the winners run in another session of the warehouse: this one holds the open transaction
            winners_db = session() if session is not None else None
            if winners_db is None:
                raise ValueError("a transaction block as `current` needs a second session for the winners")
        elif commits_in_steps(current):
            raise ValueError(f"{current.kind.value} commits in several steps and cannot be held in flight as `current`; "
                             "race it as a winner")
        else:
            prepared, winners_db = db.prepare(current), db
    except Exception as e:  # noqa: BLE001
        return failed("current", e)
    for i, text in enumerate(sc.winners, 1):
        try:
            for statement in winners_db.statements(text, file=f"{sc.name}:winner[{i}]"):
                winners_db.execute(statement)
        except Exception as e:  # noqa: BLE001
            return failed(f"winner {i}", e)
    version = None
    exception = error_class = None
    try:
        result = prepared.commit()
        version = result.version
        outcome = "committed"
        reason = "; ".join(result.notes) if result.notes else "no winning commit conflicts with it"
    except DeltaConcurrentModificationException as e:
        outcome = exception = e.exception_name
        error_class = e.error_class
        reason = e.reason
    except Exception as e:  # noqa: BLE001
        return failed("current's commit", e)
    match = sc.expect is None or sc.expect == outcome
    rows = expected_rows = rows_match = None
    if sc.after:
        try:
            df = db.sql(sc.after)
            rows = [list(r) for r in df.collect()]  # type: ignore[union-attr]
        except Exception as e:  # noqa: BLE001
            return failed("after", e)
        if sc.rows is not None:
            expected_rows = [list(r) for r in sc.rows]
            rows_match = _rows_equal(rows, expected_rows)
            match = match and rows_match
    return RaceOutcome(sc.name, outcome, exception, reason, sc.expect, match, error_class, version,
                       [[_plain(v) for v in r] for r in rows] if rows is not None else None, expected_rows, rows_match)
