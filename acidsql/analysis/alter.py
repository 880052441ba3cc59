"""What an ALTER TABLE changes, as Delta commits it: the metadata it rewrites, the protocol
features it adds or removes, the domains it writes, and whether it reads the table (ADD
CONSTRAINT checks every row). The analyzer's `_alter` builds its footprint from this."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from acidsql.analysis.catalog import TableInfo
from acidsql.conflict import ProtocolChange
from acidsql.protocol import FEATURE_PROPERTY_PREFIX, features_enabled_by, is_protocol_property, known_feature
from acidsql.protocol.features import with_requirements
from acidsql.sql import model as m


@dataclass(frozen=True)
class AlterChange:
    metadata: Optional[str]  # words for the metadata change, None when the metadata stays as it is
    protocol: Optional[ProtocolChange]
    domains: frozenset[str]
    reads_table: bool  # a read of every row (ADD CONSTRAINT validates the table)
    notes: tuple[str, ...]


def alter_change(s: m.AlterTable, info: TableInfo) -> AlterChange:
    meta: Optional[str] = None
    protocol: Optional[ProtocolChange] = None
    domains: frozenset[str] = frozenset()
    notes: list[str] = []
    reads_table = False
    if s.action is m.AlterAction.SET_PROPERTIES:
        stored = [(k, v) for k, v in s.properties if not is_protocol_property(k)]
        # delta.feature.* and the minimum versions are protocol requests, not configuration:
        # set alone, they change the protocol and leave the metadata as it is. Values the
        # table has already leave it as it is too: Delta finds no difference between the two
        # metadata and fails no concurrent write (ConflictChecker.attemptToResolveMetadataConflicts).
        changed = [(k, v) for k, v in stored if _unquoted(info.get_property(k)) != _unquoted(v)]
        meta = "sets " + ", ".join(f"{k} = {v}" for k, v in changed) if changed else None
        if stored and not changed:
            notes.append("every property it sets has that value already: the metadata does not change")
        added: set[str] = set()
        for k, v in s.properties:
            if k.lower().startswith(FEATURE_PROPERTY_PREFIX):
                requested = known_feature(k[len(FEATURE_PROPERTY_PREFIX):])
                turned_on = with_requirements([requested.name]) if requested is not None else {k[len(FEATURE_PROPERTY_PREFIX):]}
            else:
                turned_on = {f.name for f in features_enabled_by(k, v)}
            if k.lower() in ("delta.minreaderversion", "delta.minwriterversion"):
                protocol = ProtocolChange(reader_version_change=k.lower() == "delta.minreaderversion")
            added |= {f for f in turned_on if not info.has_feature(f)}
        if added:
            protocol = ProtocolChange(added_features=frozenset(added))
            notes.append(f"upgrades the protocol: adds table feature(s) {', '.join(sorted(added))}")
    elif s.action is m.AlterAction.UNSET_PROPERTIES:
        meta = "unsets " + ", ".join(s.property_keys)
    elif s.action is m.AlterAction.ADD_COLUMNS:
        meta = "adds column(s) " + ", ".join(f"{c.name} {c.type}" for c in s.columns)
    elif s.action is m.AlterAction.RENAME_COLUMN:
        meta = f"renames column {s.column_names[0]} to {s.rename_to}"
    elif s.action is m.AlterAction.DROP_COLUMNS:
        meta = "drops column(s) " + ", ".join(s.column_names)
    elif s.action is m.AlterAction.CHANGE_COLUMN_TYPE:
        meta = f"changes the type of column {s.column_names[0]} to {s.column_type}"
    elif s.action is m.AlterAction.DROP_FEATURE:
        feature = s.feature or "?"
        if feature.lower() == "deletionvectors" and info.get_property("delta.enableDeletionVectors") is not None:
            # Delta drops deletion vectors in steps: unset the property if it is set at all
            # (a metadata commit), purge, then downgrade the protocol. Writers in flight
            # meet the first commit.
            meta = "unsets delta.enableDeletionVectors (the first commit of DROP FEATURE deletionVectors)"
            notes.append("DROP FEATURE deletionVectors first disables deletion vectors (a metadata commit), "
                         "then purges them and removes the feature from the protocol: every concurrent write fails")
        else:
            meta = "sets delta.requireCheckpointProtectionBeforeVersion"
            protocol = ProtocolChange(removed_features=frozenset({feature}))
            notes.append(f"DROP FEATURE removes table feature {feature} from the protocol: every concurrent transaction fails")
    elif s.action is m.AlterAction.CLUSTER_BY:
        # Delta keeps the clustering columns in the delta.clustering domain, not in the
        # metadata (AlterTableClusterByDeltaCommand): new keys change that domain only, which
        # fails a concurrent writer of the same domain alone (ConflictChecker
        # checkIfDomainMetadataConflict). Clustering a table that is not clustered adds the
        # clustering feature too: a protocol upgrade (its metadata action changes nothing).
        domains = frozenset({"delta.clustering"})
        notes.append("the clustering columns live in the delta.clustering domain: new keys are no metadata "
                     "change, and existing files keep their layout until OPTIMIZE")
        if not info.clustering_columns and s.cluster_by:
            added = {f for f in with_requirements(["clustering"]) if not info.has_feature(f)}
            protocol = ProtocolChange(added_features=frozenset(added or {"clustering"}))
        elif not info.clustering_columns:
            domains = frozenset()
            notes.append("CLUSTER BY NONE on a table that is not clustered changes nothing (no commit)")
    elif s.action is m.AlterAction.CHANGE_COLUMN and s.column_change is not None:
        change = s.column_change
        what = ("sets its comment" if change.comment is not None else
                "drops NOT NULL" if change.drop_not_null else f"moves it {change.position}" if change.position else "changes it")
        meta = f"changes column {change.column} ({what})"
    elif s.action is m.AlterAction.ADD_CONSTRAINT:
        meta = f"sets delta.constraints.{(s.constraint or '?').lower()}"
        if not info.has_feature("checkConstraints"):
            protocol = ProtocolChange(added_features=frozenset({"checkConstraints"}))
        # Delta scans every row for violations (txn.filterFiles()): a read of all files.
        reads_table = True
    elif s.action is m.AlterAction.DROP_CONSTRAINT:
        meta = f"unsets delta.constraints.{(s.constraint or '?').lower()}"
    else:
        meta = f"ALTER TABLE ({s.detail or 'other change'})"
    return AlterChange(meta, protocol, domains, reads_table, tuple(notes))


def _unquoted(value: Optional[str]) -> Optional[str]:
    return None if value is None else str(value).strip().strip("'\"")
