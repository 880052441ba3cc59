"""`acidsql lint --format sarif` as CI uploads it (issue 23 §12): valid against the SARIF 2.1.0
JSON schema (tests/data/sarif, OASIS's), with the tool's version, its informationUri (the
repository pyproject.toml names), each rule's absolute helpUri to its doc page, and the
rewrite as a `fixes` entry whose replacement, applied, gives the fixed file."""
from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import urlparse

import jsonschema

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text())

JOB = """CREATE TABLE delta_table (user_id BIGINT, date DATE, country STRING, v STRING)
USING DELTA PARTITIONED BY (date, country);
MERGE INTO delta_table d
USING (SELECT * FROM staging WHERE date = '2024-01-01' AND country = 'US') s
ON s.user_id = d.user_id AND s.date = d.date AND s.country = d.country
WHEN MATCHED THEN UPDATE SET *;
ALTER TABLE delta_table ADD COLUMNS (x INT);  -- noqa: DL999
SELEC 1;
DELETE FROM unseen WHERE id = 1;
"""


def _sarif(cwd: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "acidsql", "lint", "job.sql", "--format", "sarif"], cwd=cwd,
                         capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                         timeout=120)
    assert out.returncode == 1, out.stdout + out.stderr
    return json.loads(out.stdout)


def _offset(text: str, line: int, col: int) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(x) for x in lines[:line - 1]) + col - 1


def test_sarif_is_valid_and_complete(tmp_path):
    (tmp_path / "job.sql").write_text(JOB)
    log = _sarif(tmp_path)
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(log)  # raises with the path of what is wrong
    driver = log["runs"][0]["tool"]["driver"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert driver["version"] == project["version"]
    assert driver["informationUri"] == project["urls"]["Repository"]
    for rule in driver["rules"]:
        url = urlparse(rule["helpUri"])
        assert url.scheme == "https" and rule["helpUri"].startswith(project["urls"]["Repository"] + "/")
        assert (ROOT / url.path.split("/blob/main/", 1)[1]).is_file(), rule["helpUri"]
    results = log["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"DL000", "DL001", "DL004"}
    notifications = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any("DL999" in n["message"]["text"] for n in notifications)
    assert any("cannot see" in n["message"]["text"] for n in notifications)


def test_sarif_fixes_replace_the_statement_with_its_rewrite(tmp_path):
    (tmp_path / "job.sql").write_text(JOB)
    (fixed,) = [r for r in _sarif(tmp_path)["runs"][0]["results"] if r.get("fixes")]
    assert fixed["ruleId"] == "DL001"
    (change,) = fixed["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "job.sql"
    (replacement,) = change["replacements"]
    region = replacement["deletedRegion"]
    start = _offset(JOB, region["startLine"], region["startColumn"])
    end = _offset(JOB, region["endLine"], region["endColumn"])
    assert JOB[start:end].startswith("MERGE INTO delta_table d") and JOB[start:end].endswith("UPDATE SET *")
    patched = JOB[:start] + replacement["insertedContent"]["text"] + JOB[end:]
    assert "AND d.date = DATE '2024-01-01' AND d.country = 'US'\nWHEN MATCHED THEN UPDATE SET *;\nALTER" in patched
