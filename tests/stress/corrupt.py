"""Corrupt logs, one damage at a time: what a reader gets, and whether a write is refused
before it adds to the log. Prints one line per case (the figures of docs/reliability.md).

    python -m tests.stress.corrupt

Each case builds a fresh table (versions 0-4, partitioned, 12 rows), damages it, then:
- reads the latest version from a cold handle: the outcome is the error (class and message),
  or the row count when the damage is one the reader can survive (a torn checkpoint);
- tries an append, then a DELETE, each on a fresh handle: "refused" when it raises (the
  _delta_log listing must be unchanged), "committed" when it succeeds.
A case whose read returns rows that differ from the undamaged table, whose refused write still
changed the log, or where a write committed on a log acidsql cannot read (or does not support)
is a violation (exit status 1). A blind append beside a missing data file may commit: it reads
no data file (as in Delta); the DELETE, which must read it, is refused. tests/stress/test_corrupt_logs.py
holds the same cases as assertions."""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Callable, Optional

import pyarrow as pa
import pyarrow.compute as pc

from acidsql.delta import CorruptLogError, DeltaError, DeltaTable, UnsupportedProtocolError
from acidsql.delta.checkpoint import write_checkpoint
from acidsql.delta.log import commit_path

SCHEMA = pa.schema([("id", pa.int64()), ("region", pa.string())])


def _rows(start: int, n: int) -> pa.Table:
    return pa.table({"id": list(range(start, start + n)), "region": ["eu" if i % 2 else "us" for i in range(n)]},
                    schema=SCHEMA)


def _make(root: str) -> DeltaTable:
    t = DeltaTable.create(root, SCHEMA, partition_columns=["region"])
    for v in range(4):
        t.append(_rows(v * 3, 3))
    return t


def _commit(t: DeltaTable, version: int) -> Path:
    return Path(t.root) / commit_path(version)


def _edit_lines(t: DeltaTable, version: int, edit: Callable[[dict], Optional[dict]]) -> None:
    path = _commit(t, version)
    out = [edit(json.loads(line)) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(o) + "\n" for o in out if o is not None))


def _protocol(**p) -> Callable[[DeltaTable], None]:
    return lambda t: _edit_lines(t, 0, lambda o: {"protocol": p} if "protocol" in o else o)


def _truncate_line(t: DeltaTable) -> None:
    text = _commit(t, 3).read_text()
    _commit(t, 3).write_text(text[: len(text) - 25])


def _append_line(version: int, line: str) -> Callable[[DeltaTable], None]:
    def damage(t: DeltaTable) -> None:
        with open(_commit(t, version), "a") as f:
            f.write(line + "\n")
    return damage


def _remove_data_file(t: DeltaTable) -> None:
    (Path(t.root) / sorted(t.snapshot().files)[0]).unlink()


def _checkpoint(t: DeltaTable) -> Path:
    write_checkpoint(t.log, t.snapshot(4))
    return Path(t.root) / "_delta_log" / f"{4:020d}.checkpoint.parquet"


def _torn_checkpoint(t: DeltaTable) -> None:
    cp = _checkpoint(t)
    cp.write_bytes(cp.read_bytes()[:200])


def _missing_checkpoint(t: DeltaTable) -> None:
    _checkpoint(t).unlink()  # _last_checkpoint still points at it


def _checkpoint_only_history(t: DeltaTable) -> None:
    cp = _checkpoint(t)
    for v in range(4):
        _commit(t, v).unlink()
    cp.write_bytes(b"not a checkpoint")


CASES: list[tuple[str, Callable[[DeltaTable], None]]] = [
    ("truncated JSON line (commit 3)", _truncate_line),
    ("unknown action (commit 2)", _append_line(2, json.dumps({"quantumEntanglement": {"path": "x"}}))),
    ("line that is not an object (commit 1)", _append_line(1, "[1, 2, 3]")),
    ("add without its path (commit 2)",
     lambda t: _edit_lines(t, 2, lambda o: {"add": {k: v for k, v in o["add"].items() if k != "path"}}
                           if "add" in o else o)),
    ("add whose path is a number (commit 2)",
     lambda t: _edit_lines(t, 2, lambda o: {"add": {**o["add"], "path": 5}} if "add" in o else o)),
    ("metaData whose schemaString is not JSON (commit 0)",
     lambda t: _edit_lines(t, 0, lambda o: {"metaData": {**o["metaData"], "schemaString": "{nope"}}
                           if "metaData" in o else o)),
    ("binary garbage commit (4)", lambda t: _commit(t, 4).write_bytes(b"\xff\xfe\x00garbage")),
    ("missing commit in the middle (2)", lambda t: _commit(t, 2).unlink()),
    ("missing first commit, no checkpoint", lambda t: _commit(t, 0).unlink()),
    ("data file referenced by the log is missing", _remove_data_file),
    ("reader version too new (4)", _protocol(minReaderVersion=4, minWriterVersion=7, readerFeatures=[],
                                              writerFeatures=[])),
    ("unsupported reader feature", _protocol(minReaderVersion=3, minWriterVersion=7,
                                             readerFeatures=["variantShredding-preview"],
                                             writerFeatures=["variantShredding-preview"])),
    ("writer version too new (8)", _protocol(minReaderVersion=1, minWriterVersion=8)),
    ("unsupported writer feature", _protocol(minReaderVersion=1, minWriterVersion=7,
                                             writerFeatures=["appendOnly", "frobnicateColumns"])),
    ("torn checkpoint (JSON log intact)", _torn_checkpoint),
    ("checkpoint missing, _last_checkpoint names it", _missing_checkpoint),
    ("garbage checkpoint, JSON before it deleted", _checkpoint_only_history),
    ("_last_checkpoint is not JSON", lambda t: (Path(t.root) / "_delta_log" / "_last_checkpoint").write_text("{{{")),
]


def run_case(name: str, damage: Callable[[DeltaTable], None], workdir: str) -> dict:
    root = os.path.join(workdir, "t")
    table = _make(root)
    expected = sorted(table.to_arrow().column("id").to_pylist())
    damage(table)
    out: dict = {"case": name}
    read_error: Optional[Exception] = None
    try:
        got = sorted(DeltaTable(root).to_arrow().column("id").to_pylist())
        out["read"] = f"reads {len(got)} rows"
        out["read_ok"] = got == expected
    except Exception as e:  # the outcome being measured
        read_error = e
        out["read"] = f"{type(e).__name__}: {e}".replace(workdir, "<tmp>")
        out["read_ok"] = None
    problems = []
    if out["read_ok"] is False:
        problems.append("a silent wrong answer")
    writes = {"append": lambda: DeltaTable(root).append(_rows(100, 1)),
              "delete": lambda: DeltaTable(root).delete(lambda r: pc.equal(r.column("id"), 1))}
    outcomes = []
    for name, write in writes.items():
        listing = sorted(os.listdir(Path(root) / "_delta_log"))
        try:
            write()
            outcomes.append(f"{name} committed")
            log_unreadable = read_error is not None and (
                isinstance(read_error, (CorruptLogError, UnsupportedProtocolError))
                or not isinstance(read_error, DeltaError))
            if log_unreadable:
                # a commit on a log acidsql cannot read makes the damage worse; a blind append
                # beside a missing data file does not (it reads no data file, as in Delta)
                problems.append(f"{name} committed on a table whose log does not read")
        except Exception as e:
            outcomes.append(f"{name} refused ({type(e).__name__})")
            if sorted(os.listdir(Path(root) / "_delta_log")) != listing:
                problems.append(f"a refused {name} changed the log")
    out["write"] = ", ".join(outcomes)
    out["problems"] = problems
    return out


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    bad = 0
    for name, damage in CASES:
        with tempfile.TemporaryDirectory(prefix="acidsql-corrupt-") as tmp:
            result = run_case(name, damage, tmp)
        bad += bool(result["problems"])
        if args.json:
            print(json.dumps(result))
        else:
            print(f"{name}\n  read: {result['read']}\n  write: {result['write']}"
                  + (f"\n  PROBLEMS: {', '.join(result['problems'])}" if result["problems"] else ""))
    print(f"{len(CASES)} cases, {bad} with problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
