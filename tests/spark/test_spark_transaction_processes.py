"""Two processes run conflicting transactions over two tables (issue 27), on the SQLite and the
PostgreSQL catalog: each an `acidsql.connect()` session running BEGIN TRANSACTION; two
UPDATEs (money moved from `checking` to `savings`, the same accounts); COMMIT. A barrier of
files makes both read and stage before either commits. Exactly one commits; the other, whose
COMMIT comes second, fails with Delta's conflict naming the winner's version (Databricks' rule:
the first COMMIT wins), and nothing of it is in either table. A third process polls both
tables throughout at consistent cuts (`Catalog.latest_versions`, one statement) and never sees
one table's half of a transfer: the sum over both tables never changes."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from acidsql.delta import DeltaTable
from tests.delta.conftest import catalog_backend, postgres_server  # noqa: F401  (the fixtures)
from tests.stress.transfer import EXPECTED_TOTAL, OPENING, balances, create_pair

pytestmark = pytest.mark.spark

ROOT = str(Path(__file__).resolve().parents[2])

WRITER = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {root!r})
    import acidsql
    from acidsql.delta.exceptions import DeltaConcurrentModificationException
    db = acidsql.connect(warehouse={warehouse!r}, conf={{"spark.ui.enabled": "false"}})
    db.sql("BEGIN TRANSACTION")
    db.sql("UPDATE checking SET balance = balance - {amount} WHERE id = 0")
    db.sql("UPDATE savings SET balance = balance + {amount} WHERE id = 1")
    open({ready!r}, "w").close()
    while not os.path.exists({go!r}):
        time.sleep(0.01)
    try:
        result = db.sql("COMMIT")
        print("RESULT committed " + " ".join(f"{{p.table}}={{p.version}}" for p in result.parts), flush=True)
    except DeltaConcurrentModificationException as e:
        print("RESULT conflict " + e.exception_name + " " + str(e).replace(chr(10), " "), flush=True)
        db.sql("ROLLBACK")
""")

READER = textwrap.dedent("""
    import json, os, sys, time
    sys.path.insert(0, {root!r})
    from acidsql.delta import DeltaTable
    from tests.stress.transfer import EXPECTED_TOTAL, balances
    roots = ({a!r}, {b!r})
    catalog = DeltaTable(roots[0]).log.catalog
    locations = tuple(DeltaTable(r).log.location for r in roots)
    reads, torn, cuts = 0, [], set()
    while True:
        stop = os.path.exists({stop!r})
        cut = catalog.latest_versions(locations)
        total = sum(sum(balances(DeltaTable(r), v).values()) for r, v in zip(roots, cut))
        reads += 1
        cuts.add(cut)
        if total != EXPECTED_TOTAL:
            torn.append([*cut, total])
        if stop:
            break
        time.sleep(0.02)
    print("RESULT " + json.dumps({{"reads": reads, "torn": torn, "cuts": sorted(cuts)}}), flush=True)
""")


def _result(out: str) -> str:
    lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
    assert len(lines) == 1, out
    return lines[0][len("RESULT "):]


def test_two_processes_with_conflicting_transactions_and_a_reader(tmp_path, catalog_backend):
    warehouse = str(tmp_path / "wh")
    a, b = create_pair(os.path.join(warehouse, "default"))  # the warehouse's `checking` and `savings`
    before = (a.version, b.version)
    go, stop = str(tmp_path / "go"), str(tmp_path / "stop")
    env = {**os.environ, "PYTHONPATH": ROOT}
    reader = subprocess.Popen([sys.executable, "-c", READER.format(root=ROOT, a=a.root, b=b.root, stop=stop)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    writers = []
    try:
        for i, amount in enumerate((100, 1)):
            ready = str(tmp_path / f"ready{i}")
            script = WRITER.format(root=ROOT, warehouse=warehouse, amount=amount, ready=ready, go=go)
            writers.append((amount, ready, subprocess.Popen(
                [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)))
        deadline = time.monotonic() + 900
        while not all(os.path.exists(ready) for _a, ready, _p in writers):  # both read and staged
            exited = [p.communicate() for _a, _r, p in writers if p.poll() is not None]
            assert not exited and reader.poll() is None and time.monotonic() < deadline, exited
            time.sleep(0.1)
        open(go, "w").close()
        outputs = [(amount, p.communicate(timeout=900)) for amount, _r, p in writers]
    finally:
        open(stop, "w").close()
        for _a, _r, p in writers:
            if p.poll() is None:
                p.kill()
    read_out, read_err = reader.communicate(timeout=300)
    results = {amount: _result(out) for amount, (out, _err) in outputs}
    assert sorted(r.split()[0] for r in results.values()) == ["committed", "conflict"], outputs
    won = next(amount for amount, r in results.items() if r.startswith("committed"))
    lost = results[next(amount for amount in results if amount != won)]
    assert lost.split()[1] == "ConcurrentAppendException", lost  # the same rows: ROW_LEVEL_CHANGES
    final = (DeltaTable(a.root).version, DeltaTable(b.root).version)
    assert final == (before[0] + 1, before[1] + 1)  # one transaction committed, on both tables
    # The second COMMIT failed against the first one's commit.
    assert f"committed at version {final[0]}" in lost or f"committed at version {final[1]}" in lost, lost
    assert balances(DeltaTable(a.root))[0] == OPENING - won and balances(DeltaTable(b.root))[1] == OPENING + won
    seen = json.loads(_result(read_out))
    assert seen["torn"] == [], seen
    assert [list(before), list(final)] == [c for c in seen["cuts"] if c in (list(before), list(final))], seen
    assert sum(sum(balances(DeltaTable(t.root)).values()) for t in (a, b)) == EXPECTED_TOTAL
