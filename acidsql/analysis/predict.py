"""The static conflict predictor: scenario files, concurrent jobs, and matrix rows.

Everything here builds symbolic footprints (`acidsql.analysis.footprints`) and asks the one
rule implementation, `acidsql.conflict.check`, what happens.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional, Sequence, Union

import yaml

from acidsql.sql import parse_statement
from acidsql.analysis.analyze import IDENTITY_HIGH_WATER_MARK, Analysis, analyze
from acidsql.analysis.archetypes import MATRIX_COLUMNS, archetype
from acidsql.analysis.catalog import Catalog
from acidsql.analysis.effects import Effects, effects_of
from acidsql.analysis.footprints import footprint_of
from acidsql.analysis.symbolic import SymbolicRows, TableState
from acidsql.analysis.region import Region
from acidsql.conflict import Footprint, IsolationLevel, Overlap, Verdict, check, empty_commit_skipped
from acidsql.sql import model as m

EXCEPTIONS = (
    "ConcurrentAppendException", "ConcurrentDeleteReadException", "ConcurrentDeleteDeleteException",
    "MetadataChangedException", "ProtocolChangedException", "ConcurrentTransactionException",
)


class ScenarioError(ValueError):
    """A scenario file that does not follow SCENARIOS.md."""


@dataclass(frozen=True)
class Scenario:
    name: str
    setup: tuple[str, ...]
    current: str
    winners: tuple[str, ...]
    expect: Optional[str] = None
    after: Optional[str] = None
    rows: Optional[tuple] = None


@dataclass(frozen=True)
class Prediction:
    name: str
    outcome: str  # "committed" | "conflict: X" | "possible: X"
    exception: Optional[str]
    certainty: str  # "none" (commits), "certain", "possible"
    reason: str
    expected: Optional[str]
    match: Optional[bool]
    error_class: Optional[str] = None
    isolation: str = ""
    row_level: bool = False
    alternatives: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    advice: Optional[str] = None

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "outcome": self.outcome,
            "exception": self.exception,
            "certainty": self.certainty,
            "reason": self.reason,
            "expected": self.expected,
            "match": self.match,
            "error_class": self.error_class,
            "isolation": self.isolation,
            "row_level": self.row_level,
            "alternatives": list(self.alternatives),
            "notes": list(self.notes),
            "assumptions": list(self.assumptions),
            "advice": self.advice,
        }


# ---------------------------------------------------------------------------------------------
# Scenario files
# ---------------------------------------------------------------------------------------------


def load_scenarios(path_or_text: Union[str, Path]) -> list[Scenario]:
    """Scenarios from a YAML file path or YAML text (SCENARIOS.md format)."""
    text = path_or_text
    source = "<string>"
    if isinstance(path_or_text, Path) or (isinstance(path_or_text, str) and "\n" not in path_or_text and path_or_text.endswith((".yaml", ".yml"))):
        p = Path(path_or_text)
        if not p.exists():
            raise ScenarioError(f"{p}: no such scenario file")
        text, source = p.read_text(), str(p)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ScenarioError(f"{source}: not valid YAML: {e}") from e
    if not isinstance(data, list):
        raise ScenarioError(f"{source}: a scenario file holds a list of scenarios")
    out, names = [], set()
    for i, item in enumerate(data):
        if not isinstance(item, dict) or "name" not in item or "current" not in item:
            raise ScenarioError(f"{source}: scenario #{i + 1} needs at least 'name' and 'current'")
        name = str(item["name"])
        if name in names:
            raise ScenarioError(f"{source}: scenario name {name!r} is used twice")
        names.add(name)
        expect = item.get("expect")
        if expect is not None and expect != "committed" and expect not in EXCEPTIONS:
            raise ScenarioError(f"{source}: scenario {name!r}: expect must be 'committed' or one of {', '.join(EXCEPTIONS)}, not {expect!r}")
        out.append(Scenario(
            name=name,
            setup=tuple(str(s) for s in item.get("setup") or ()),
            current=str(item["current"]),
            winners=tuple(str(s) for s in item.get("winners") or ()),
            expect=expect,
            after=item.get("after"),
            rows=tuple(tuple(r) for r in item["rows"]) if item.get("rows") is not None else None,
        ))
    return out


@dataclass
class _World:
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

    def run_all(self, statement: m.AnyStatement) -> list[tuple[m.AnyStatement, Analysis, Optional[Effects], int]]:
        """Commit every write of a statement (one per INSERT of a multi-insert), in order."""
        out = []
        for part in statement.writes:
            out.append((part, *self.run(part)))
        return out

    def run(self, statement: m.AnyStatement) -> tuple[Analysis, Optional[Effects], int]:
        """Analyze and commit one write; return its analysis, effects and version."""
        a = analyze(statement, self.catalog)
        key = statement.target.key.lower() if statement.target is not None else ""
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


def _key(statement: m.AnyStatement) -> str:
    return statement.target.key.lower() if statement.target is not None else ""


def predict_race(world: _World, current: m.AnyStatement, winners: Sequence[m.AnyStatement]) -> tuple[Verdict, Analysis, list[str]]:
    """The one prediction path of scenario files and of `--jobs`: `current` reads its snapshot
    of `world`, each of `winners` (whole statements: a multi-insert is one commit per INSERT)
    commits on it in order, then `current` is checked against the winners of its table.
    Returns the verdict, the current's analysis and notes on winners that cannot conflict."""
    cur = analyze(current, world.catalog)
    key = _key(current)
    # Versions name commits of a known history (a scenario's); jobs have none.
    at = (lambda v: v) if world.contents_known else (lambda v: None)
    cur_fp, cur_eff = world.footprint(cur, key, at(world.version.get(key, -1)))
    found: list[Footprint] = []
    notes: list[str] = []
    for whole in winners:
        states = dict(world.states)
        for stmt, a, eff, version in world.run_all(whole):
            if _key(stmt) != key or not a.is_write:
                notes.append(f"winner {' '.join(whole.text.split())[:60]!r} does not write {key}: it cannot conflict")
                continue
            if eff is not None and not eff.commits:
                notes.append(f"winner {' '.join(stmt.text.split())[:60]!r} has nothing to commit: it cannot conflict")
                continue
            found.append(footprint_of(a, world.catalog, states.get(key), version=at(version), effects=eff))
            states = dict(world.states)
    if not cur.is_write:
        return Verdict(None, cur.layout.isolation, False, notes=("the current statement does not write a table",)), cur, notes
    if cur_eff is not None and not cur_eff.commits:
        why = "the current statement has nothing to commit (nothing to compact, no file to remove): it cannot conflict"
        return Verdict(None, cur.layout.isolation, False, notes=(why,)), cur, notes
    return check(cur_fp, found), cur, notes


def _parse(scenario: Scenario, role: str, text: str) -> m.AnyStatement:
    try:
        return parse_statement(text)
    except Exception as e:
        short = " ".join(text.split())
        raise ScenarioError(f"scenario {scenario.name!r}: {role} statement does not parse: {short[:80]!r}: {e}") from None


def predict_scenario(scenario: Scenario, catalog: Optional[Catalog] = None) -> Prediction:
    world = _World((catalog or Catalog()).copy())
    for text in scenario.setup:
        world.run_all(_parse(scenario, "setup", text))
    current_stmt = _parse(scenario, "current", scenario.current)
    if len(current_stmt.writes) != 1:
        raise ScenarioError(f"scenario {scenario.name!r}: the current statement must be one transaction, not a "
                            f"multi-insert of {len(current_stmt.writes)} writes")
    winners = [_parse(scenario, "winner", text) for text in scenario.winners]
    verdict, cur, notes = predict_race(world, current_stmt.writes[0], winners)
    return _prediction(scenario.name, scenario.expect, verdict, cur, notes)


def _prediction(name: str, expected: Optional[str], verdict: Verdict, cur: Analysis, extra_notes: Sequence[str] = ()) -> Prediction:
    c = verdict.conflict
    notes = tuple(dict.fromkeys(list(extra_notes) + list(verdict.notes) + list(cur.notes)))
    if cur.identity_note:
        notes += (cur.identity_note,)
    if c is None:
        reason = "no conflict is possible: " + ("; ".join(verdict.notes) if verdict.notes else "no winner touches what this transaction read or removed")
        if verdict.rebases:
            reason += "; " + "; ".join(f"{r.kind.value} ({r.detail})" for r in verdict.rebases)
        outcome, exc, certainty = "committed", None, "none"
    else:
        certain = c.certainty is Overlap.CERTAIN
        outcome = f"{'conflict' if certain else 'possible'}: {c.exception}"
        exc, certainty = c.exception, "certain" if certain else "possible"
        reason = f"{c.reason} [{c.check.value}; {c.error_class}]"
        if not certain:
            reason += " -- depends on data the analyzer cannot see"
    match = None
    if expected is not None:
        match = (exc is None) if expected == "committed" else (exc == expected)
    return Prediction(
        name=name,
        outcome=outcome,
        exception=exc,
        certainty=certainty,
        reason=reason,
        expected=expected,
        match=match,
        error_class=c.error_class if c else None,
        isolation=verdict.isolation.value,
        row_level=verdict.row_level,
        alternatives=tuple(f"{'conflict' if a.certainty is Overlap.CERTAIN else 'possible'}: {a.exception} ({a.reason})" for a in verdict.alternatives),
        notes=notes,
        assumptions=cur.assumptions,
        advice=c.advice if c else None,
    )


def predict_scenarios(path_or_text: Union[str, Path], catalog: Optional[Catalog] = None) -> list[Prediction]:
    """Predict every scenario of a file (or YAML text)."""
    return [predict_scenario(s, catalog) for s in load_scenarios(path_or_text)]


# ---------------------------------------------------------------------------------------------
# Concurrent jobs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairConflict:
    """What happens to `loser_statement` (job `loser`) when `winner_statement` (job `winner`)
    commits first on the same table."""

    loser: str
    winner: str
    table: str
    loser_statement: str
    winner_statement: str
    outcome: str
    exception: Optional[str]
    certainty: str
    reason: str

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class JobMatrix:
    jobs: tuple[str, ...]
    conflicts: tuple[PairConflict, ...]  # only pairs that may fail
    safe_pairs: tuple[tuple[str, str], ...]  # job pairs that never conflict in either order
    # Statements (or pairs of them) acidsql failed on, in words; the rest was predicted. A job
    # pair with such a failure is not called safe.
    errors: tuple[str, ...] = ()
    # What the predictions assume: the layout of each table nobody described (not created in
    # the scripts, not in the configuration, not found in the warehouse).
    notes: tuple[str, ...] = ()

    def for_pair(self, a: str, b: str) -> list[PairConflict]:
        return [c for c in self.conflicts if {c.loser, c.winner} == {a, b}]

    def to_dict(self) -> dict:
        return {
            "jobs": list(self.jobs),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "safe_pairs": [list(p) for p in self.safe_pairs],
            "errors": list(self.errors),
            "notes": list(self.notes),
        }

    def describe(self) -> list[str]:
        out = []
        for c in self.conflicts:
            out.append(f"if {c.winner} commits first on {c.table}, {c.loser} {'fails' if c.certainty == 'certain' else 'may fail'} "
                       f"with {c.exception}: {c.reason}")
        for a, b in self.safe_pairs:
            out.append(f"{a} and {b} can run concurrently")
        out.extend(self.errors)
        out.extend(f"note: {n}" for n in self.notes)
        return out


def _defines_table(st: m.AnyStatement) -> bool:
    """A plain CREATE TABLE (or CONVERT TO DELTA) defines a table the jobs then share; it does
    not race with them (CREATE OR REPLACE / REPLACE TABLE do)."""
    return (isinstance(st, m.CreateTable) and not (st.or_replace or st.replace_only)) or isinstance(st, m.ConvertToDelta)


def _shared_catalog(scripts: Sequence[m.Script], catalog: Catalog) -> Catalog:
    """What every job knows: the catalog plus the tables any job's CREATE TABLE defines and the
    views any job's CREATE VIEW defines."""
    cat = catalog.copy()
    for script in scripts:
        for st in script.statements:
            if _defines_table(st) or isinstance(st, m.CreateView):
                cat.apply(st)
    return cat


@dataclass(frozen=True)
class _JobWrite:
    statement: m.AnyStatement
    catalog: Catalog  # what the job knows when it runs the statement (its script so far)
    assumptions: tuple[str, ...]


def _script_writes(script: m.Script, catalog: Catalog, errors: list[str]) -> list[_JobWrite]:
    cat = catalog.copy()
    out = []
    for whole in script.statements:
        try:
            for st in whole.writes:  # each INSERT of a multi-insert is its own transaction
                if st.target is not None and not _defines_table(st) and analyze(st, cat).is_write:
                    info = cat.target_info(st)
                    assumed = tuple(f"{info.name}: {a}" for a in info.assumptions)
                    out.append(_JobWrite(st, cat.copy(), assumed))
            cat.apply(whole)
        except Exception as bug:  # a defect of acidsql on one statement: the others are predicted
            errors.append(f"{whole.span}: internal error: {type(bug).__name__}: {bug} (this statement is left out)")
    return out


def predict_jobs(scripts: Sequence[m.Script], catalog: Optional[Catalog] = None) -> JobMatrix:
    """Jobs (one script each) running concurrently: for every pair of statements on the same
    table, in both orders, whether the later committer fails and why. Each pair is predicted by
    `predict_race`, the path of scenario files, on a world whose tables hold data nobody
    described (so where a scenario's setup would decide, a job pair may say "possible")."""
    catalog = _shared_catalog(scripts, catalog or Catalog())
    names = []
    for i, s in enumerate(scripts):
        n = s.file if s.file and s.file not in names else f"job{i + 1}"
        names.append(n)
    errors: list[str] = []
    writes = [_script_writes(s, catalog, errors) for s in scripts]
    notes = tuple(dict.fromkeys(a for job in writes for w in job for a in w.assumptions))
    failed_jobs = {i for i, s in enumerate(scripts) for e in errors if e.startswith(f"{s.file}:")}
    conflicts: list[PairConflict] = []
    safe: list[tuple[str, str]] = []
    for i in range(len(scripts)):
        for j in range(i + 1, len(scripts)):
            found = i in failed_jobs or j in failed_jobs
            for a in writes[i]:
                for b in writes[j]:
                    if _key(a.statement) != _key(b.statement):
                        continue
                    for (ln, loser), (wn, winner) in (((names[i], a), (names[j], b)), ((names[j], b), (names[i], a))):
                        try:
                            world = _World(loser.catalog.copy(), contents_known=False)
                            v, _cur, _notes = predict_race(world, loser.statement, [winner.statement])
                        except Exception as bug:  # this pair only
                            found = True
                            errors.append(f"{loser.statement.span} against {winner.statement.span}: internal error: "
                                          f"{type(bug).__name__}: {bug}")
                            continue
                        if v.conflict is None:
                            continue
                        found = True
                        c = v.conflict
                        certain = c.certainty is Overlap.CERTAIN
                        conflicts.append(PairConflict(
                            loser=ln, winner=wn, table=loser.statement.target.key,
                            loser_statement=" ".join(loser.statement.text.split()),
                            winner_statement=" ".join(winner.statement.text.split()),
                            outcome=f"{'conflict' if certain else 'possible'}: {c.exception}",
                            exception=c.exception, certainty="certain" if certain else "possible",
                            reason=c.reason,
                        ))
            if not found:
                safe.append((names[i], names[j]))
    return JobMatrix(tuple(names), tuple(conflicts), tuple(safe), tuple(errors), notes)


# ---------------------------------------------------------------------------------------------
# A statement's row of the conflict matrix
# ---------------------------------------------------------------------------------------------

_UNKNOWN_ROWS = SymbolicRows(unknown=Region(), new_unknown=Region())


def conflict_row(analysis: Analysis, catalog: Optional[Catalog] = None) -> dict:
    """The statement (as the transaction under test) against each kind of concurrent commit,
    in both isolation levels: {column: {isolation: {"outcome", "reason"}}}."""
    out: dict[str, dict[str, dict[str, str]]] = {}
    for level in (IsolationLevel.WRITE_SERIALIZABLE, IsolationLevel.SERIALIZABLE):
        layout = replace(analysis.layout, isolation=level)
        a = replace(analysis, layout=layout)
        fp = footprint_of(a, catalog)
        for col in MATRIX_COLUMNS:
            if not analysis.is_write:
                v = Verdict(None, level, False)
            else:
                v = check(fp, [archetype(col, layout)])
            c = v.conflict
            cell = {
                "outcome": "committed" if c is None else f"{'conflict' if c.certainty is Overlap.CERTAIN else 'possible'}: {c.exception}",
                "reason": (c.reason if c else "; ".join(v.notes) or "cannot conflict"),
            }
            out.setdefault(col, {})[level.value] = cell
    return out
