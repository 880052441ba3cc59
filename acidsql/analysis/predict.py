"""The static conflict predictor: scenario files, concurrent jobs, and matrix rows.

Everything here builds symbolic footprints (`acidsql.analysis.footprints`) and asks the one
rule implementation, `acidsql.conflict.check`, what happens.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Sequence, Union

import yaml

from acidsql.sql import parse_statement
from acidsql.analysis.analyze import Analysis, analyze
from acidsql.analysis.blocks import BlockRefused, BlockTableReport, BlockVerdict, block_report, check_allowed, check_block, is_block, play_block, tables_read, transaction_units
from acidsql.analysis.world import World, commit_winners, key_of, versions
from acidsql.analysis.archetypes import MATRIX_COLUMNS, archetype
from acidsql.analysis.catalog import Catalog, table_key
from acidsql.analysis.footprints import footprint_of
from acidsql.analysis.rebase import rebased
from acidsql.analysis.symbolic import SymbolicRows
from acidsql.analysis.region import Region
from acidsql.conflict import IsolationLevel, Overlap, Verdict, check
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
    tables: tuple[str, ...] = ()  # a transaction block's: one line per table, with its isolation level

    def to_dict(self) -> dict:
        block = {"tables": list(self.tables)} if self.tables else {}  # a transaction block's only
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
            **block,
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
            current=_side(item["current"], source, name, "current"),
            winners=tuple(_side(s, source, name, "winner") for s in item.get("winners") or ()),
            expect=expect,
            after=item.get("after"),
            rows=tuple(tuple(r) for r in item["rows"]) if item.get("rows") is not None else None,
        ))
    return out


def _side(value: object, source: str, name: str, role: str) -> str:
    """A side of a race as SQL text: a statement, or a transaction block written as a list of
    statements (the text `BEGIN ATOMIC <s1>; <s2>; ... END`, as a block written out is read)."""
    if isinstance(value, list):
        if not value or not all(isinstance(s, str) and s.strip() for s in value):
            raise ScenarioError(f"{source}: scenario {name!r}: a {role} written as a list is a transaction block: "
                                "a non-empty list of statements")
        return "BEGIN ATOMIC\n" + "".join(f"  {s.strip().rstrip(';')};\n" for s in value) + "END"
    if not isinstance(value, str):
        raise ScenarioError(f"{source}: scenario {name!r}: {role} must be a statement or a list of statements")
    return value


def predict_race(world: World, current: m.AnyStatement, winners: Sequence[m.AnyStatement]) -> tuple[Verdict, Analysis, list[str]]:
    """The one prediction path of scenario files and of `--jobs`: `current` reads its snapshot
    of `world`, each of `winners` (whole statements: a multi-insert is one commit per INSERT, a
    transaction block one commit per table) commits on it in order, then `current` is checked
    against the winners of its table. Returns the verdict, the current's analysis and notes on
    winners that cannot conflict. A block as `current`: `predict_block_race`."""
    cur = analyze(current, world.catalog)
    key = key_of(current)
    at = versions(world)
    cur_fp, cur_eff = world.footprint(cur, key, at(world.version.get(key, -1)))
    found, notes = commit_winners(world, winners, {key}, at)
    if not cur.is_write:
        return Verdict(None, cur.layout.isolation, False, notes=("the current statement does not write a table",)), cur, notes
    if cur_eff is not None and not cur_eff.commits:
        why = "the current statement has nothing to commit (nothing to compact, no file to remove): it cannot conflict"
        return Verdict(None, cur.layout.isolation, False, notes=(why,)), cur, notes
    return check(cur_fp, found[key], rebased), cur, notes


def predict_block_race(world: World, block: m.AtomicBlock, winners: Sequence[m.AnyStatement]) -> tuple[BlockVerdict, list[str]]:
    """A transaction block as `current`: it plays on its snapshot of `world` (read-your-own-writes,
    without changing `world`), the winners commit, then each table of the block is checked against
    that table's winners at the table's isolation level (`blocks.check_block`)."""
    at = versions(world)
    tables = play_block(world.copy(), block, at, current=True)
    found, notes = commit_winners(world, winners, {table_key(t.key) for t in tables}, at)
    return check_block(tables, found), notes


def _parse(scenario: Scenario, role: str, text: str) -> m.AnyStatement:
    try:
        return parse_statement(text)
    except Exception as e:
        short = " ".join(text.split())
        raise ScenarioError(f"scenario {scenario.name!r}: {role} statement does not parse: {short[:80]!r}: {e}") from None


def predict_scenario(scenario: Scenario, catalog: Optional[Catalog] = None) -> Prediction:
    world = World((catalog or Catalog()).copy())
    for text in scenario.setup:
        world.run_all(_parse(scenario, "setup", text))
    current_stmt = _parse(scenario, "current", scenario.current)
    winners = [_parse(scenario, "winner", text) for text in scenario.winners]
    for block in [w for w in [current_stmt, *winners] if is_block(w)]:
        try:
            check_allowed(block)
        except BlockRefused as refused:  # it never runs: nothing to predict
            raise ScenarioError(f"scenario {scenario.name!r}: {refused}") from None
    if is_block(current_stmt):
        verdict, notes = predict_block_race(world, current_stmt, winners)
        return _block_prediction(scenario.name, scenario.expect, verdict, notes)
    if len(current_stmt.writes) != 1:
        raise ScenarioError(f"scenario {scenario.name!r}: the current statement must be one transaction, not a "
                            f"multi-insert of {len(current_stmt.writes)} writes")
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


def _block_prediction(name: str, expected: Optional[str], verdict: BlockVerdict, extra_notes: Sequence[str]) -> Prediction:
    """A block's prediction: the deciding table's verdict, and one line per table of the block."""
    lines, notes = [], list(extra_notes)
    for t, v in verdict.tables:
        level = t.isolation.value
        if v is None:
            lines.append(f"{t.key} ({level}, read only): not checked")
            notes.append(t.note)
            continue
        c = v.conflict
        said = "committed" if c is None else f"{'conflict' if v.certain else 'possible'}: {c.exception}"
        role = "writes" if t.writes else "read only"
        lines.append(f"{t.key} ({level}, {role}): {said}")
        if t.note:
            notes.append(t.note)
        notes.extend(f"{t.key}: {n}" for n in v.notes)
    analyses = [a for t, _v in verdict.tables for a in t.analyses]
    if verdict.deciding is not None:
        table, v = verdict.deciding
        deciding = replace(v, conflict=replace(v.conflict, reason=f"on {table.key}: {v.conflict.reason}"))
        cur = table.analyses[0] if table.analyses else (analyses[0] if analyses else None)
    else:
        levels = {t.isolation for t, _v in verdict.tables}
        deciding = Verdict(None, next(iter(levels)) if len(levels) == 1 else IsolationLevel.WRITE_SERIALIZABLE,
                           any(v.row_level for _t, v in verdict.tables if v is not None),
                           notes=tuple(dict.fromkeys(notes)) or ("the block writes no table",))
        cur = analyses[0] if analyses else None
    if cur is None:
        raise ScenarioError(f"scenario {name!r}: the current block writes no table")
    return replace(_prediction(name, expected, deciding, cur, notes), tables=tuple(lines))


def explain_block(block: m.AtomicBlock, catalog: Optional[Catalog] = None) -> tuple[BlockTableReport, ...]:
    """A transaction block as one unit, on tables whose contents nobody described: per table, what
    it reads and writes and what it meets against each archetype of concurrent commit."""
    world = World((catalog or Catalog()).copy(), contents_known=False)
    return block_report(play_block(world, block, versions(world), current=True))


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
    tables: frozenset[str]  # the tables it writes (a block: and reads), by key


def _script_writes(script: m.Script, catalog: Catalog, errors: list[str]) -> list[_JobWrite]:
    cat = catalog.copy()
    out = []
    for whole in transaction_units(script.statements):
        try:
            if is_block(whole):  # one unit: every table it writes commits together
                check_allowed(whole)
                writes = [st for st in whole.writes if st.target is not None and analyze(st, cat).is_write]
                if writes:
                    infos = [cat.target_info(st) for st in writes]
                    assumed = tuple(dict.fromkeys(f"{i.name}: {a}" for i in infos for a in i.assumptions))
                    touched = {key_of(st) for st in writes} | {table_key(t) for st in whole.statements for t in tables_read(st)}
                    out.append(_JobWrite(whole, cat.copy(), assumed, frozenset(touched)))
            for st in () if is_block(whole) else whole.writes:  # each INSERT of a multi-insert is its own transaction
                if st.target is not None and not _defines_table(st) and analyze(st, cat).is_write:
                    info = cat.target_info(st)
                    assumed = tuple(f"{info.name}: {a}" for a in info.assumptions)
                    out.append(_JobWrite(st, cat.copy(), assumed, frozenset({key_of(st)})))
            cat.apply(whole)
        except BlockRefused as refused:  # a transaction refuses it: it never commits
            errors.append(f"{refused} (this block is left out: it would be refused)")
        except Exception as bug:  # a defect of acidsql on one statement: the others are predicted
            errors.append(f"{whole.span}: internal error: {type(bug).__name__}: {bug} (this statement is left out)")
    return out


def _job_race(loser: _JobWrite, winner: _JobWrite) -> tuple[Optional[str], Verdict]:
    """`loser` (a statement or a block) in flight while `winner` commits: the table that decides
    and the verdict there (a block: its deciding table's, or a committed verdict)."""
    world = World(loser.catalog.copy(), contents_known=False)
    if is_block(loser.statement):
        verdict, _notes = predict_block_race(world, loser.statement, [winner.statement])
        if verdict.deciding is None:
            return None, Verdict(None, IsolationLevel.WRITE_SERIALIZABLE, False)
        table, v = verdict.deciding
        return table.key, v
    v, _cur, _notes = predict_race(world, loser.statement, [winner.statement])
    return loser.statement.target.key, v


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
                    if not a.tables & b.tables:
                        continue
                    for (ln, loser), (wn, winner) in (((names[i], a), (names[j], b)), ((names[j], b), (names[i], a))):
                        try:
                            table, v = _job_race(loser, winner)
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
                            loser=ln, winner=wn, table=table or "",
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
