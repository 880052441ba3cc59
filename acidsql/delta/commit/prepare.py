"""The prepare stage: whether what the transaction staged may be committed at all, and the
actions of one commit attempt at a given version: its commitInfo (with the in-commit
timestamp), the staged actions, and the row ids row tracking gives new files.

An attempt's actions depend on the version it tries (row ids start above the table's
high-water mark *now*, the in-commit timestamp follows the previous commit's), so they are
built again for every attempt (Delta's reassignment of overlapping row ids in ConflictChecker).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from acidsql.conflict import IsolationLevel
from acidsql.delta import row_tracking
from acidsql.delta.actions import Action, AddFile, CommitInfo
from acidsql.delta.catalog.target import catalog_obligations, is_catalog_managed
from acidsql.delta.commit.state import Transaction
from acidsql.delta.commit.winners import TableState
from acidsql.delta.commit.write import CommitTarget
from acidsql.delta.exceptions import TransactionStateError
from acidsql.delta.features import check_writer_protocol
from acidsql.delta.iceberg import compat as iceberg_compat

ENGINE_INFO = "acidsql/0.1.0"
ICT_ENABLEMENT_VERSION = "delta.inCommitTimestampEnablementVersion"
ICT_ENABLEMENT_TIMESTAMP = "delta.inCommitTimestampEnablementTimestamp"


def check_staged(txn: Transaction, operation: str) -> None:
    """Refuse a commit the staged actions may not make: the first commit of a table without
    metadata and protocol, a protocol acidsql may not write, a write a table feature does not
    allow, or a table IcebergCompat / UniForm would leave in a state Delta refuses (Delta's
    error classes; `operation` tells REORG ... UPGRADE UNIFORM, which purges deletion vectors
    itself). Callers refuse before writing files (`check_write` with what they mean to do);
    this check of what was actually staged keeps any path that forgot from committing."""
    staged = txn.staged
    if txn.read_version < 0 and (staged.metadata is None or staged.protocol is None):
        raise TransactionStateError(f"{txn.table_name} has no table yet: the first commit needs metadata and protocol")
    if staged.protocol is not None:
        check_writer_protocol(staged.protocol)
    if is_catalog_managed(txn.protocol):
        txn.target  # a catalog-managed table's target finds (or, for a new table, makes) its catalog
        catalog_obligations(txn, txn.log.catalog)
    txn.check_write(staged.write_kind())
    before = (txn.snapshot.protocol, txn.snapshot.metadata) if txn.snapshot is not None else None
    iceberg_compat.check_commit(before, txn.protocol, txn.metadata, staged.adds.values(), operation)


def attempt_actions(txn: Transaction, target: CommitTarget, version: int, attempt_ms: int, state: TableState, *,
                    operation: str, parameters: dict[str, Any], metrics: dict[str, Any], retries: int,
                    isolation: IsolationLevel, is_blind_append: bool) -> list[Action]:
    """The actions of the attempt to commit at `version`: commitInfo first."""
    ict = in_commit_timestamp(txn, target, version, attempt_ms)
    info = CommitInfo(
        timestamp=attempt_ms, operation=operation,
        operation_parameters=dict(parameters),
        read_version=txn.read_version if txn.read_version >= 0 else None,
        isolation_level=isolation.value, is_blind_append=is_blind_append,
        operation_metrics={**metrics, "numRetries": retries},
        engine_info=ENGINE_INFO, txn_id=txn.txn_id,
        extra={**({"inCommitTimestamp": ict} if ict is not None else {}), **commit_info_tags(txn)},
    )
    return [info, *row_tracking_actions(txn, txn.staged.actions(), version, state)]


def in_commit_timestamp(txn: Transaction, target: CommitTarget, version: int, attempt_ms: int) -> Optional[int]:
    """The inCommitTimestamp of this commit at `version`, when the table has in-commit
    timestamps enabled (PROTOCOL.md "In-Commit Timestamps"): the later of the attempt time
    and one millisecond after the previous commit's inCommitTimestamp (or, for the commit
    that enables them, after the previous commit file's time). A commit that enables them
    on an existing table records the enablement version and timestamp in its metadata."""
    if txn.metadata is None or not txn.properties.enable_in_commit_timestamps:
        return None
    if version == 0:
        return attempt_ms
    previous = target.commit_info(version - 1)
    previous_ict = previous.extra.get("inCommitTimestamp") if previous is not None else None
    if previous_ict is not None:
        return max(attempt_ms, int(previous_ict) + 1)
    ict = max(attempt_ms, target.commit_file_time_ms(version - 1) + 1)
    was_enabled = txn.snapshot is not None and txn.snapshot.properties.enable_in_commit_timestamps
    staged = txn.staged
    if staged.metadata is not None and not was_enabled:
        config = dict(staged.metadata.config)
        config[ICT_ENABLEMENT_VERSION] = str(version)
        config[ICT_ENABLEMENT_TIMESTAMP] = str(ict)
        staged.metadata = replace(staged.metadata, configuration=tuple(sorted(config.items())))
    return ict


def row_tracking_actions(txn: Transaction, actions: list[Action], version: int, state: TableState) -> list[Action]:
    """`actions` as committed at `version` on a table with row tracking (row_tracking.py):
    new files get baseRowIds above the high-water mark the table has *now* (after the
    winners this attempt follows) and this version as defaultRowCommitVersion, and the
    mark moves in the same commit. The commit that makes the feature supported also gives
    ids to every live file that has none (a backfill: re-added, dataChange=false), files
    winners added included."""
    if not row_tracking.assigns_row_ids(txn.protocol, txn.properties):
        return actions
    adds = [a for a in actions if isinstance(a, AddFile)]
    staged = txn.staged
    if staged.protocol is not None and not row_tracking.supported(txn.snapshot.protocol if txn.snapshot else None):
        kept = {a.path for a in adds} | set(staged.removes)
        adds += [replace(a, data_change=False) for a in state.live_files()
                 if a.base_row_id is None and a.path not in kept]
    assigned, mark = row_tracking.assign_fresh_row_ids(
        adds, state.row_id_high_water_mark, version, lambda a: txn.rows.num_records(a.path, a))
    out = [a for a in actions if not isinstance(a, AddFile)] + assigned
    if mark != state.row_id_high_water_mark:
        out.append(row_tracking.high_water_mark_domain(mark))
    return out


def commit_info_tags(txn: Transaction) -> dict[str, Any]:
    """commitInfo tags: `delta.rowTracking.preserved` while row tracking is enabled (every
    writer of acidsql keeps the stable row ids and commit versions of the rows it moves)."""
    if txn.metadata is not None and row_tracking.enabled(txn.protocol, txn.properties):
        return {"tags": {row_tracking.PRESERVED_TAG: "true"}}
    return {}
