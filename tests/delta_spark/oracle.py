"""Delta Spark as the judge: running statements through Delta's own commands on a shared
SparkSession, and racing them with Delta's own optimistic transactions.

A race follows ../shared/SCENARIOS.md: `current` does everything up to its commit, the
winners commit, then `current` commits. On Delta Spark the interleaving is made with the
gated log store (gate/GatedLogStore.java): `current` runs as the real SQL command in a
thread; its first attempt to write its commit file is held; the winners run and commit;
then it is released, finds its version taken, and Delta's own retry loop runs Delta's own
ConflictChecker against the winners. Nothing of the command is simulated: DELETE, UPDATE,
MERGE, OPTIMIZE, INSERT record their own reads, as they do in production.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

CONFLICT_EXCEPTIONS = (
    "ConcurrentAppendException", "ConcurrentDeleteReadException", "ConcurrentDeleteDeleteException",
    "MetadataChangedException", "ProtocolChangedException", "ConcurrentTransactionException",
    "ConcurrentWriteException",
)
_ERROR_CLASS_TO_EXCEPTION = {
    "DELTA_CONCURRENT_APPEND": "ConcurrentAppendException",
    "DELTA_CONCURRENT_DELETE_READ": "ConcurrentDeleteReadException",
    "DELTA_CONCURRENT_DELETE_DELETE": "ConcurrentDeleteDeleteException",
    "DELTA_METADATA_CHANGED": "MetadataChangedException",
    "DELTA_PROTOCOL_CHANGED": "ProtocolChangedException",
    "DELTA_CONCURRENT_TRANSACTION": "ConcurrentTransactionException",
    "DELTA_CONCURRENT_WRITE": "ConcurrentWriteException",
}
_JAVA_NAME = re.compile(r"(?:io\.delta\.exceptions|org\.apache\.spark\.sql\.delta)\.(\w+Exception)")
HOLD_TIMEOUT_S = 300.0


def conflict_name(error: BaseException) -> Optional[str]:
    """The Delta concurrent-modification exception `error` is, by its class name, or None."""
    name = type(error).__name__
    if name in CONFLICT_EXCEPTIONS:
        return name
    text = str(error)
    for match in _JAVA_NAME.finditer(text):
        if match.group(1) in CONFLICT_EXCEPTIONS:
            return match.group(1)
    for error_class, exception in _ERROR_CLASS_TO_EXCEPTION.items():
        if f"[{error_class}" in text:
            return exception
    return None


def first_line(error: BaseException) -> str:
    """The line of an error that says what happened (for a Py4J error, the Java exception's)."""
    lines = [ln.strip() for ln in str(error).splitlines() if ln.strip()]
    if lines and lines[0].startswith("An error occurred while calling"):
        said = next((ln for ln in lines[1:] if "Exception" in ln or "Error" in ln), None)
        if said:
            return said[:400]
    return lines[0][:400] if lines else type(error).__name__


@dataclass(frozen=True)
class HeldOutcome:
    """What the held statement did: committed, failed with a conflict, or failed otherwise."""

    outcome: str  # "committed", an exception name, or "error"
    message: str = ""
    held: bool = False  # its commit reached the log and was held while the winners ran
    version: Optional[int] = None

    @property
    def exception(self) -> Optional[str]:
        return self.outcome if self.outcome not in ("committed", "error") else None


class DeltaSpark:
    """Delta Spark on the test run's SparkSession (which must carry its jars)."""

    def __init__(self, spark: "SparkSession"):
        import delta.exceptions  # noqa: F401 - maps Delta's JVM conflicts to Python exceptions

        self.spark = spark
        self.jvm = spark._jvm
        self.gate = self.jvm.acidsql.testing.GatedLogStore

    # ---- plain use ----------------------------------------------------------------------------------
    def sql(self, text: str) -> "DataFrame":
        return self.spark.sql(text)

    @staticmethod
    def ref(path: str) -> str:
        return "delta.`" + str(path).replace("`", "``") + "`"

    def rows(self, path: str, version: Optional[int] = None, columns: str = "*") -> list[tuple]:
        """The table's rows, sorted (None first), as Delta Spark reads them."""
        at = f" VERSION AS OF {int(version)}" if version is not None else ""
        got = self.sql(f"SELECT {columns} FROM {self.ref(path)}{at}").collect()
        return sorted_rows(tuple(r) for r in got)

    def history(self, path: str) -> list[tuple[int, str]]:
        return sorted((r["version"], r["operation"]) for r in
                      self.sql(f"DESCRIBE HISTORY {self.ref(path)}").select("version", "operation").collect())

    def detail(self, path: str) -> dict[str, Any]:
        return self.sql(f"DESCRIBE DETAIL {self.ref(path)}").first().asDict()

    def checkpoint(self, path: str) -> None:
        """Write a checkpoint of the latest version, as Delta does every checkpointInterval commits."""
        log = self.jvm.org.apache.spark.sql.delta.DeltaLog.forTable(self.spark._jsparkSession, str(path))
        log.checkpoint()

    def forget(self, path: str) -> None:
        """Drop Delta's cached log of `path` (another writer changed it behind Delta's back)."""
        self.jvm.org.apache.spark.sql.delta.DeltaLog.invalidateCache(self.spark._jsparkSession,
                                                                     self.jvm.org.apache.hadoop.fs.Path(str(path)))

    # ---- races ----------------------------------------------------------------------------------------
    def run_held(self, statement: str, table_path: str, winners: Callable[[], None]) -> HeldOutcome:
        """Run `statement` (its target at `table_path`) up to its commit, run `winners()` while
        its commit is held, then let it commit. Exceptions from `winners` propagate after the
        held statement has been released and finished.

        The statement runs on a JVM thread (GatedLogStore.runSqlAsync), not a Python thread:
        two Python threads calling into Spark at once can end up on one Py4J connection, and
        then a winner waits behind the held statement for ever."""
        from py4j.protocol import Py4JJavaError

        self.gate.hold(str(table_path))
        future = self.gate.runSqlAsync(self.spark._jsparkSession, statement)
        held = False
        deadline = time.monotonic() + HOLD_TIMEOUT_S
        try:
            while not future.isDone() and time.monotonic() < deadline:
                if self.gate.awaitArrival(str(table_path), 200):
                    held = True
                    break
            if not held and not future.isDone():
                raise TimeoutError(f"{statement!r} neither reached its commit nor finished in {HOLD_TIMEOUT_S:.0f} s")
            if not held:
                # It finished without a commit to hold (it failed, or had nothing to commit): drop
                # the hold, or the first winner's commit would be the one held, for ever.
                self.gate.release(str(table_path))
            winners()
        finally:
            self.gate.release(str(table_path))
        try:
            future.get(int(HOLD_TIMEOUT_S), self.jvm.java.util.concurrent.TimeUnit.SECONDS)
            return HeldOutcome("committed", "", held)
        except Py4JJavaError as e:
            cause = e.java_exception.getCause() or e.java_exception
            text = f"{cause.getClass().getName()}: {cause.getMessage()}"
            name = conflict_name(RuntimeError(text))
            return HeldOutcome(name or "error", text[:400], held)


def _sort_key(row: tuple) -> tuple:
    return tuple((v is None, str(type(v).__name__), v if v is not None else 0) for v in row)


def sorted_rows(rows: Any) -> list[tuple]:
    return sorted((tuple(r) for r in rows), key=_sort_key)
