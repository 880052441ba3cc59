"""benchmarks/__main__.py: a run of some modules replaces only their sections of RESULTS.md;
--list names what `make bench` runs and at which size, running nothing."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.__main__ import modules, splice

REPO = Path(__file__).resolve().parent.parent


def section(name: str, body: str, size: str = "") -> str:
    return f"<!-- benchmarks.{name}{': ' + size if size else ''} -->\n{body}\n<!-- /benchmarks.{name} -->\n"


def test_a_section_is_replaced_in_place_and_the_others_kept():
    order = modules()
    text = "# Benchmark results\n\n" + section("dml", "DML figures") + "\n" + section("tpch_refresh", "SF 1 figures", "SF 1")
    out = splice(text, "tpch_refresh", section("tpch_refresh", "SF 0.05 figures", "SF 0.05"), order)
    assert "SF 1 figures" not in out and "SF 0.05 figures" in out
    assert "DML figures" in out
    assert out.count("<!-- benchmarks.tpch_refresh") == 1


def test_a_new_section_goes_before_the_next_module_in_order():
    order = modules()
    text = "# Benchmark results\n\n" + section("dml", "DML") + "\n" + section("tpch_refresh", "TPC-H")
    out = splice(text, "merge_shapes", section("merge_shapes", "shapes"), order)
    assert out.index("DML") < out.index("shapes") < out.index("TPC-H")
    # a file written before the markers (no section of a later module): at the end
    old = "# Benchmark results\n\n## clustering\n\nfigures\n"
    assert splice(old, "uniform", section("uniform", "U"), order).endswith(section("uniform", "U"))


def test_list_names_the_new_workloads_with_their_sizes():
    env_free = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--list"], cwd=REPO, capture_output=True, text=True,
                          env=env_free, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split(": ", 1) if ": " in line else (line, "") for line in proc.stdout.splitlines())
    assert lines["tpch_refresh"].startswith("TPC-H SF 1 ")
    assert lines["merge_shapes"].startswith("10,000,000 rows per table")
    assert lines["small_table"].startswith("2,000,000 rows")
    assert lines["tpch_streams"].startswith("TPC-H SF 0.1 ")


def test_an_unknown_module_is_refused():
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "no_such_bench"], cwd=REPO, capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}, timeout=120)
    assert proc.returncode == 2 and "no benchmark module no_such_bench" in proc.stderr
