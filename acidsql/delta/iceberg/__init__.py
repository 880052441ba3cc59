"""UniForm: Iceberg metadata for Delta tables with `delta.universalFormat.enabledFormats`
listing `iceberg`, so that Iceberg engines (pyiceberg, Trino, Snowflake, DuckDB, Spark with
Iceberg) read them. See docs/uniform.md.

`convert(log, snapshot)` writes the Iceberg metadata describing a Delta snapshot. The commit
calls it as a post-commit hook (`acidsql.delta.commit.hooks.IcebergConversionHook`, named
HOOK_NAME): a conversion that fails never fails the commit; it is reported (a warning, and the
commit result's `conversion`) and caught up by the next commit's. The IcebergCompat checks every
commit runs (in its prepare stage) are in `compat`. pyiceberg (the `acidsql[uniform]` extra) is
imported only when a table with UniForm on is converted."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from acidsql.delta.iceberg.compat import iceberg_on

if TYPE_CHECKING:
    from acidsql.delta.log import DeltaLog
    from acidsql.delta.snapshot import Snapshot

__all__ = ["HOOK_NAME", "ConversionResult", "convert", "iceberg_on"]

HOOK_NAME = "uniform-iceberg"  # the post-commit hook that converts


@dataclass(frozen=True)
class ConversionResult:
    """What a conversion did: the Delta version the Iceberg metadata now describes (or failed to),
    the metadata file, how many Iceberg snapshots it added, and how: "incremental" (the commits
    since `previous_version` replayed), "full" (the snapshot converted whole) or "up-to-date".
    `error` is set when it failed; the Delta commit stands either way."""

    delta_version: int
    metadata_location: Optional[str] = None
    snapshots: int = 0
    mode: str = ""
    previous_version: Optional[int] = None
    elapsed_ms: float = 0.0
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None


def convert(log: "DeltaLog", snapshot: "Snapshot") -> ConversionResult:
    """Write the Iceberg metadata of `snapshot` beside the table, catching up from the last
    conversion found there. Raises on failure (ImportError without pyiceberg)."""
    started = time.perf_counter()
    try:
        from acidsql.delta.iceberg.converter import convert_snapshot
    except ImportError as e:
        raise ImportError(f"UniForm needs pyiceberg to write Iceberg metadata: pip install 'acidsql[uniform]' ({e})") from None
    location, snapshots, mode, previous = convert_snapshot(log, snapshot)
    return ConversionResult(snapshot.version, location, snapshots, mode, previous,
                            (time.perf_counter() - started) * 1000)
