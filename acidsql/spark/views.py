"""Queries over Delta tables in Spark SQL: every table a query names becomes a temporary view
of its snapshot (deletion vectors applied, time travel resolved), and the query is rewritten
to read the views. Names that are no Delta table of the warehouse are left to Spark (the
user's own temp views and catalog tables keep working under `acidsql.connect`)."""
from __future__ import annotations

import datetime as _dt
import itertools
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from sqlglot import exp

from acidsql.delta.log import DeltaLog
from acidsql.sql.build import table_ref
from acidsql.sql.model import TableRef
from acidsql.spark.scan import scan
from acidsql.spark.tables import Warehouse

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from acidsql.delta.snapshot import Snapshot

DIALECT = "spark"
_view_ids = itertools.count(1)


def has_delta_log(location: str) -> bool:
    return os.path.isdir(os.path.join(location, "_delta_log"))


def timestamp_ms(value: exp.Expression) -> int:
    """A TIMESTAMP AS OF value (a literal or simple cast) in epoch milliseconds (UTC)."""
    text = value.name if isinstance(value, exp.Literal) else (value.this.name if isinstance(value, exp.Cast) else value.sql())
    text = text.strip().strip("'")
    try:
        if text.isdigit() and len(text) == 17:  # t@yyyyMMddHHmmssSSS
            t = _dt.datetime.strptime(text[:14], "%Y%m%d%H%M%S").replace(microsecond=int(text[14:]) * 1000)
        else:
            t = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        from acidsql.spark.execute import StatementError

        raise StatementError(f"TIMESTAMP AS OF {value.sql()}: not a timestamp (expected e.g. '2024-01-31 12:00:00')",
                             "DELTA_TIME_TRAVEL_INVALID_TIMESTAMP") from None
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    return int(t.timestamp() * 1000)


def load_snapshot(location: str, ref: Optional[TableRef] = None) -> "Snapshot":
    log = DeltaLog(location)
    if ref is not None and ref.version_as_of is not None:
        return log.snapshot(version=ref.version_as_of)
    if ref is not None and ref.timestamp_as_of is not None:
        return log.snapshot(timestamp_ms=timestamp_ms(ref.timestamp_as_of))
    return log.snapshot()


@dataclass
class TableViews:
    """Temp views registered for one statement; `drop()` removes them."""

    spark: "SparkSession"
    warehouse: Warehouse
    names: list[str] = field(default_factory=list)
    snapshots: dict[str, "Snapshot"] = field(default_factory=dict)  # view name -> snapshot it reads
    # Table location -> the snapshot every read of that table sees: a write's own target is
    # read at the transaction's snapshot wherever the statement names it (its source, a
    # subquery, a CTE), as Delta reads it inside the transaction.
    pinned: dict[str, "Snapshot"] = field(default_factory=dict)
    # Names a leading WITH defines for the statement: they are CTEs, not tables.
    cte_names: set[str] = field(default_factory=set)

    def pin(self, location: str, snapshot: "Snapshot") -> "TableViews":
        self.pinned[os.path.abspath(location)] = snapshot
        return self

    def with_clause(self, ctes) -> str:
        """`WITH a AS (...), b AS (...) ` for a statement's leading WITH (each body reading
        views), or "" when there is none; afterwards the names are CTEs for `sql`."""
        parts = []
        for cte in ctes:
            body = self.sql(cte.this)
            name = cte.alias_or_name
            parts.append(f"`{name}` AS ({body})")
            self.cte_names.add(name.lower())
        return ("WITH " + ", ".join(parts) + " ") if parts else ""

    def register(self, df: "DataFrame", hint: str = "t") -> str:
        name = f"__acid_{''.join(c if c.isalnum() else '_' for c in hint)}_{next(_view_ids)}"
        df.createOrReplaceTempView(name)
        self.names.append(name)
        return name

    def view_of(self, ref: TableRef) -> Optional[str]:
        """A view of the Delta table `ref` names, or None when it is not a Delta table."""
        location = self.warehouse.location(ref)
        if not has_delta_log(location):
            return None
        pinned = self.pinned.get(os.path.abspath(location))
        timetravel = ref.version_as_of is not None or ref.timestamp_as_of is not None
        snapshot = pinned if pinned is not None and not timetravel else load_snapshot(location, ref)
        name = self.register(scan(self.spark, snapshot), ref.name or "path")
        self.snapshots[name] = snapshot
        return name

    def rewrite(self, expression: exp.Expression) -> exp.Expression:
        """A copy of `expression` reading views in place of Delta tables."""
        ctes = {cte.alias_or_name.lower() for cte in expression.find_all(exp.CTE)} | self.cte_names
        tree = expression.copy()
        for table in list(tree.find_all(exp.Table)):
            if not table.name or (not table.args.get("db") and table.name.lower() in ctes):
                continue
            if isinstance(table.parent, (exp.Create, exp.Insert, exp.Merge, exp.Update, exp.Delete)) \
                    and table.arg_key == "this":
                continue
            ref = table_ref(table)
            view = self.view_of(ref)
            if view is None:
                continue
            alias = ref.alias or (ref.name.split(".")[-1] if ref.name else None)
            replacement = exp.to_table(view)
            if alias:
                replacement.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
            table.replace(replacement)
        return tree

    def sql(self, expression: exp.Expression) -> str:
        return self.rewrite(expression).sql(dialect=DIALECT)

    def drop(self) -> None:
        for name in self.names:
            try:
                self.spark.catalog.dropTempView(name)
            except Exception:
                pass
        self.names.clear()


def spark_sql(expression: exp.Expression) -> str:
    return expression.sql(dialect=DIALECT)
