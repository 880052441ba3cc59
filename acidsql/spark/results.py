"""What running a statement produced, for people (text) and for programs (json), or why it
could not run (StatementError)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def conversion_notes(outcome: Any) -> tuple[str, ...]:
    """A note when the commit's UniForm conversion failed (CommitResult.conversion): the commit
    stands, Iceberg readers see the previous version until the next commit converts it."""
    conversion = getattr(outcome, "conversion", None)
    if conversion is None or conversion.ok:
        return ()
    return (f"UniForm: the Iceberg metadata of version {conversion.delta_version} was not written "
            f"({conversion.error}); the next commit converts it",)


@dataclass(frozen=True)
class QueryResult:
    """A query that ran inside a `BEGIN ATOMIC ... END` block: its rows as the transaction saw
    them (its own writes included), computed inside the transaction, before its COMMIT (a
    query that fails rolls the block back), and kept apart from the tables it read."""

    statement: str
    at: str  # file:line:col of the query in the script
    frame: "DataFrame"


@dataclass(frozen=True)
class StatementResult:
    """One statement's commit (or, for statements that commit nothing, what it did)."""

    statement: str
    operation: str
    table: Optional[str] = None
    version: Optional[int] = None  # the version committed; None when nothing was committed
    rows_inserted: int = 0
    rows_updated: int = 0
    rows_deleted: int = 0
    rows_copied: int = 0
    files_added: int = 0
    files_removed: int = 0
    deletion_vectors_written: int = 0
    files_rewritten: int = 0
    retries: int = 0
    isolation_level: Optional[str] = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    # The transactions of a statement that commits several (each INSERT of a multi-insert).
    parts: tuple["StatementResult", ...] = field(default_factory=tuple)
    # Where a DELETE, UPDATE or MERGE ran and why (acidsql.spark.dml.plan.DmlPlan: `plan.path`,
    # `plan.reason`); None for other statements.
    plan: Optional[Any] = None
    # The queries of a BEGIN ATOMIC block, in order, with their rows (to_dict leaves them out:
    # `acidsql run` prints their rows).
    queries: tuple[QueryResult, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(replace(self, parts=(), plan=None, queries=()))
        del d["queries"]
        d["notes"] = list(self.notes)
        d["parts"] = [p.to_dict() for p in self.parts]
        d["plan"] = self.plan.to_dict() if self.plan is not None else None
        return d

    def summary(self) -> str:
        """One line: `events: version 3 MERGE: 2 inserted, 1 updated; +2 files -1 file; 1 DV`."""
        if self.parts:
            return "; ".join(p.summary() for p in self.parts)
        head = f"{self.table}: " if self.table else ""
        where = f"version {self.version} " if self.version is not None else ""
        parts = []
        for n, word in ((self.rows_inserted, "inserted"), (self.rows_updated, "updated"), (self.rows_deleted, "deleted")):
            if n:
                parts.append(f"{n} {word}")
        files = []
        if self.files_added:
            files.append(f"+{self.files_added} file{'s' if self.files_added != 1 else ''}")
        if self.files_removed:
            files.append(f"-{self.files_removed} file{'s' if self.files_removed != 1 else ''}")
        if self.deletion_vectors_written:
            files.append(f"{self.deletion_vectors_written} deletion vector{'s' if self.deletion_vectors_written != 1 else ''} written")
        if self.files_rewritten:
            files.append(f"{self.files_rewritten} file{'s' if self.files_rewritten != 1 else ''} rewritten")
        if self.retries:
            files.append(f"{self.retries} retr{'ies' if self.retries != 1 else 'y'}")
        tail = "; ".join(x for x in (", ".join(parts), ", ".join(files)) if x)
        return f"{head}{where}{self.operation}" + (f": {tail}" if tail else "")


class StatementError(Exception):
    """A statement that cannot run as written (a missing table, a column that does not exist,
    several source rows matching one target row). The message is for the user."""

    def __init__(self, message: str, error_class: Optional[str] = None):
        self.error_class = error_class
        named = error_class is None or f"[{error_class}]" in message  # a positioned error names it already
        super().__init__(message if named else f"[{error_class}] {message}")
