"""The world a race plays on: the catalog and the known state of every table, as a scenario's
setup leaves them (or, for jobs, tables whose contents nobody described), and the winners'
commits on it. One world for the statements and the transaction blocks of a race
(`acidsql.analysis.predict`, `acidsql.analysis.blocks`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Sequence

from acidsql.analysis.analyze import IDENTITY_HIGH_WATER_MARK, Analysis, analyze
from acidsql.analysis.blocks import is_block, play_block
from acidsql.analysis.catalog import Catalog, table_key
from acidsql.analysis.effects import Effects, effects_of
from acidsql.analysis.footprints import footprint_of
from acidsql.analysis.symbolic import TableState
from acidsql.conflict import Footprint, Overlap, empty_commit_skipped
from acidsql.sql import model as m


@dataclass
class World:
    """The catalog and the known state of every table, as the setup leaves them.
    `contents_known` is False for jobs (`predict_jobs`): their tables exist with data nobody
    described, so no statement's effects are played on known files."""

    catalog: Catalog
    states: dict[str, TableState] = field(default_factory=dict)
    version: dict[str, int] = field(default_factory=dict)
    contents_known: bool = True
    # Each table's known state at each version (what RESTORE ... TO VERSION AS OF brings back),
    # and how many commits changed its metadata up to each version (RESTORE brings that back too).
    history: dict[str, dict[int, TableState]] = field(default_factory=dict)
    metadata_epochs: dict[str, dict[int, int]] = field(default_factory=dict)

    def copy(self) -> "World":
        """The world as it is now, for a transaction that must not change it (the race's current)."""
        return World(self.catalog.copy(), dict(self.states), dict(self.version), self.contents_known,
                      {k: dict(v) for k, v in self.history.items()},
                      {k: dict(v) for k, v in self.metadata_epochs.items()})

    def run_all(self, statement: m.AnyStatement) -> list[tuple[m.AnyStatement, Analysis, Optional[Effects], int]]:
        """Commit every write of a statement (one per INSERT of a multi-insert), in order."""
        out = []
        for part in statement.writes:
            out.append((part, *self.run(part)))
        return out

    def run(self, statement: m.AnyStatement) -> tuple[Analysis, Optional[Effects], int]:
        """Analyze and commit one write; return its analysis, effects and version."""
        a = analyze(statement, self.catalog)
        key = table_key(statement.target) if statement.target is not None else ""
        eff = None
        if a.is_write and statement.target is not None:
            state = self.states.get(key)
            if self.contents_known and (isinstance(statement, m.CreateTable) or state is not None):
                a = self._restored(a, key)
                eff = effects_of(a, state if state is not None else TableState(a.table_info), self.states,
                                 self.history.get(key))
                a = _settled(a, eff)
                if eff.commits and state is not None and empty_commit_skipped(
                        footprint_of(a, self.catalog, state, effects=eff)) is Overlap.CERTAIN:
                    eff = replace(eff, commits=False)  # Delta records no empty DML commit under Serializable
                if not eff.commits:  # nothing to commit: no version
                    return a, eff, self.version.get(key, -1)
            self.catalog.apply(statement)
            if eff is not None and eff.after is not None:
                self.states[key] = replace(eff.after, info=self.catalog.lookup(statement.target))
            elif key in self.states:
                self.states[key] = replace(self.states[key], info=self.catalog.lookup(statement.target))
            self.version[key] = self.version.get(key, -1) + 1
            if key in self.states:
                self.history.setdefault(key, {})[self.version[key]] = self.states[key]
            epochs = self.metadata_epochs.setdefault(key, {})
            epoch = epochs.get(self.version[key] - 1, 0)
            if a.metadata_change is not None or isinstance(statement, m.CreateTable):
                epoch += 1  # (an uncertain change counts: RESTORE then may restore old metadata)
            epochs[self.version[key]] = epoch
        else:
            self.catalog.apply(statement)
        return a, eff, self.version.get(key, -1)


    def _restored(self, a: Analysis, key: str) -> Analysis:
        """A RESTORE to a version of the known history also restores that version's metadata:
        a metadata change when it differs from the table's now (`delta/operations/restore.py`)."""
        s = a.statement
        if not isinstance(s, m.Restore) or s.version is None:
            return a
        epochs = self.metadata_epochs.get(key, {})
        then, now = epochs.get(s.version), epochs.get(self.version.get(key, -1))
        if then is None or now is None or then == now:
            return a
        return replace(a, metadata_change=f"restores the metadata of version {s.version}")

    def footprint(self, a: Analysis, key: str, version: Optional[int]) -> tuple[Footprint, Optional[Effects]]:
        """The footprint of `a` (the transaction under test) on the table as it is now, and its
        effects there when the table's contents are known."""
        a = self._restored(a, key)
        state = self.states.get(key)
        eff = effects_of(a, state, self.states, self.history.get(key)) if state is not None else None
        if eff is not None:
            a = _settled(a, eff)
        return footprint_of(a, self.catalog, state, version=version, effects=eff), eff


def _settled(a: Analysis, eff: Effects) -> Analysis:
    """What the known rows settle of the analysis: an INSERT into a table with identity columns
    that certainly writes no row numbers none, so it moves no high-water mark (the engine
    commits no metadata for it)."""
    if (a.metadata_change or "").startswith(IDENTITY_HIGH_WATER_MARK) and eff.added.emptiness() is Overlap.NONE \
            and eff.new_rows.emptiness() is Overlap.NONE:
        return replace(a, metadata_change=None)
    return a


def key_of(statement: m.AnyStatement) -> str:
    return table_key(statement.target) if statement.target is not None else ""


def commit_winners(world: World, winners: Sequence[m.AnyStatement], keys: set[str],
                   at: Callable[[int], Optional[int]]) -> tuple[dict[str, list[Footprint]], list[str]]:
    """Commit each winner on `world`, in order (a transaction block as one commit per table it
    writes), and return the footprints of those that wrote a table of `keys`, by table, with notes
    on the winners that cannot conflict."""
    found: dict[str, list[Footprint]] = {k: [] for k in keys}
    notes: list[str] = []
    where = ", ".join(sorted(keys))
    for whole in winners:
        short = " ".join(whole.text.split())[:60]
        if is_block(whole):
            wrote = [t for t in play_block(world, whole, at) if t.writes]
            for t in wrote:
                if table_key(t.key) in keys and t.footprint is not None:
                    found[table_key(t.key)].append(t.footprint)
            if not any(table_key(t.key) in keys for t in wrote):
                notes.append(f"winner {short!r} does not write {where}: it cannot conflict")
            continue
        states = dict(world.states)
        for stmt, a, eff, version in world.run_all(whole):
            key = key_of(stmt)
            if key not in keys or not a.is_write:
                notes.append(f"winner {short!r} does not write {where}: it cannot conflict")
            elif eff is not None and not eff.commits:
                notes.append(f"winner {' '.join(stmt.text.split())[:60]!r} has nothing to commit: it cannot conflict")
            else:
                found[key].append(footprint_of(a, world.catalog, states.get(key), version=at(version), effects=eff))
            states = dict(world.states)
    return found, notes


def versions(world: World) -> Callable[[int], Optional[int]]:
    # Versions name commits of a known history (a scenario's); jobs have none.
    return (lambda v: v) if world.contents_known else (lambda v: None)
