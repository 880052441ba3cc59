"""UniForm: Iceberg metadata for Delta tables with `delta.universalFormat.enabledFormats`
listing `iceberg`, so that Iceberg engines (pyiceberg, Trino, Snowflake, DuckDB, Spark with
Iceberg) read them. See docs/uniform.md.

`convert(log, snapshot)` writes the Iceberg metadata describing a Delta snapshot (the one entry
point a post-commit hook calls); `convert_after_commit` is that call as a commit makes it: it
never raises, and a conversion that fails is reported (a warning, and the commit result's
`conversion`) and caught up by the next commit's. The IcebergCompat checks every write runs
are in `compat`. pyiceberg (the `acidsql[uniform]` extra) is imported only when a table with
UniForm on is converted."""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from acidsql.delta.iceberg.compat import iceberg_on

if TYPE_CHECKING:
    from acidsql.delta.log import DeltaLog
    from acidsql.delta.snapshot import Snapshot

__all__ = ["ConversionResult", "convert", "convert_after_commit", "iceberg_on"]


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


def convert_after_commit(log: "DeltaLog", version: int, configuration: dict[str, str],
                         table_name: str = "") -> Optional[ConversionResult]:
    """The conversion after commit `version` of a table whose committed configuration is
    `configuration`: None when UniForm Iceberg is off. Never raises: a failure is a warning and
    a result with `error`, and the next commit converts from the last metadata that was written."""
    if not iceberg_on(configuration):
        return None
    started = time.perf_counter()
    try:
        return convert(log, log.snapshot(version))
    except Exception as e:  # the commit stands; Iceberg readers see the previous version until the next commit
        message = f"{type(e).__name__}: {e}"
        warnings.warn(f"committed version {version} of {table_name or log.table_root} but could not write its "
                      f"Iceberg metadata (UniForm): {message}. Iceberg readers see the last converted version; "
                      "the next commit converts again.", stacklevel=3)
        return ConversionResult(version, elapsed_ms=(time.perf_counter() - started) * 1000, error=message)
