"""The GitHub Action (action.yml), run locally (issue 23 §12; no `act` needed): its `run:`
steps' command lines, as the runner would run them (bash -eo pipefail, the step's env with the
inputs filled in, `if:` evaluated), in a temporary workspace. The action's checkout is a copy
of this tree; its install step runs as written, into a fresh virtualenv that borrows this
environment's packages (so it needs no network: pip runs offline, without build isolation).
The `uses:` steps (setup-python, upload-sarif) are GitHub's own: only their wiring is checked."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import importlib.metadata as md

import jsonschema
import pytest
import yaml

from tests.install import base_dependencies, closure

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text())

DAILY = """CREATE TABLE events (id BIGINT, date DATE, v STRING) USING DELTA PARTITIONED BY (date);
DELETE FROM events WHERE id = 3;
"""


def _expression(text: str, inputs: dict) -> str:
    """`${{ inputs.x }}` filled in (the only expression the steps' values use)."""
    def value(match: re.Match) -> str:
        name = match.group(1)
        assert name in inputs, f"the action reads an input it does not declare: {name}"
        return inputs[name]

    out = re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", value, text)
    assert "${{" not in out, f"an expression this test cannot evaluate: {text}"
    return out


def _condition(text: str, inputs: dict) -> bool:
    """An `if:` of the forms the steps use: always(), inputs.x != '' / == '', joined by &&."""
    result = True
    for part in text.split("&&"):
        part = part.strip()
        if part == "always()":
            continue
        m = re.fullmatch(r"inputs\.([\w-]+)\s*(!=|==)\s*''", part)
        assert m, f"a condition this test cannot evaluate: {text}"
        empty = inputs[m.group(1)] == ""
        result = result and (not empty if m.group(2) == "!=" else empty)
    return result


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> dict:
    """The action's checkout (a copy of this tree) and a Python environment to install it into,
    as setup-python leaves one: the env a step runs with."""
    base = tmp_path_factory.mktemp("action")
    checkout = base / "acidsql-action"
    checkout.mkdir()
    for name in ("pyproject.toml", "README.md", "action.yml"):
        shutil.copy(ROOT / name, checkout / name)
    shutil.copytree(ROOT / "acidsql", checkout / "acidsql", ignore=shutil.ignore_patterns("__pycache__"))
    venv = base / "python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    site = next((venv / "lib").glob("python3*/site-packages"))
    # What a package index would serve, offline: acidsql's base dependencies (and theirs), pip
    # and setuptools, linked from this environment into a folder the venv reads after its own.
    # Nothing else: a base dependency missing from pyproject.toml fails the install step.
    borrowed = base / "borrowed"
    borrowed.mkdir()
    for name in sorted(closure(base_dependencies()) | {"pip", "setuptools"}):
        for top in {Path(str(f)).parts[0] for f in md.distribution(name).files or ()}:
            source = Path(sysconfig.get_paths()["purelib"]) / top
            if source.exists() and not (borrowed / top).exists() and not top.endswith(".pth") and top != "..":
                (borrowed / top).symlink_to(source)
    (site / "borrowed.pth").write_text(f"{borrowed}\n")
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(base), "NO_COLOR": "1",
           "GITHUB_ACTION_PATH": str(checkout), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "",
           "PIP_NO_BUILD_ISOLATION": "0"}
    return {"env": env, "venv": venv}


def _run_action(runner: dict, workspace: Path, inputs: dict) -> list[tuple[str, subprocess.CompletedProcess]]:
    """Run the action's steps in order, as a runner would; stop at the first failing one."""
    declared = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    inputs = {**declared, **inputs}
    ran = []
    for step in ACTION["runs"]["steps"]:
        if "if" in step and not _condition(step["if"], inputs):
            continue
        if "uses" in step:
            continue  # GitHub's own actions
        assert step["shell"] == "bash"
        env = {**runner["env"], **{k: _expression(str(v), inputs) for k, v in step.get("env", {}).items()}}
        script = workspace.parent / "step.sh"
        script.write_text(step["run"])
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace,
                              env=env, capture_output=True, text=True, timeout=600)
        ran.append((step["name"], done))
        if done.returncode:
            break
    return ran


def test_the_action_declares_its_inputs_and_wires_setup_python_and_the_sarif_upload():
    assert set(ACTION["inputs"]) >= {"paths", "args", "sarif-file"}
    assert ACTION["runs"]["using"] == "composite"
    uses = {step["uses"].split("@")[0]: step for step in ACTION["runs"]["steps"] if "uses" in step}
    assert uses["actions/setup-python"]["with"]["python-version"] == "${{ inputs.python-version }}"
    upload = uses["github/codeql-action/upload-sarif"]
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}"
    assert _condition(upload["if"], {"sarif-file": "x.sarif"}) and not _condition(upload["if"], {"sarif-file": ""})
    names = [step.get("name") for step in ACTION["runs"]["steps"]]
    assert names.index("Upload SARIF to code scanning") < names.index("acidsql lint (annotations)")


def test_the_action_annotates_findings_writes_valid_sarif_and_fails_the_job(runner, tmp_path):
    workspace = tmp_path / "workspace"
    (workspace / "jobs").mkdir(parents=True)
    (workspace / "jobs" / "daily.sql").write_text(DAILY)
    (workspace / "migrations").mkdir()
    (workspace / "migrations" / "001.sql").write_text("ALTER TABLE events ADD COLUMNS (x INT);\n")
    ran = _run_action(runner, workspace, {"paths": ".", "args": "--exclude 'migrations/*'", "sarif-file": "out.sarif"})
    assert [name for name, _ in ran] == ["Install acidsql (the base install, lint only)", "acidsql lint (SARIF)",
                                         "acidsql lint (annotations)"]
    install, sarif_step, annotate = (done for _, done in ran)
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-2000:]
    installed = subprocess.run([str(runner["venv"] / "bin" / "python"), "-c", "import acidsql; print(acidsql.__file__)"],
                               capture_output=True, text=True, env=runner["env"], cwd=workspace)
    assert str(runner["venv"]) in installed.stdout  # the action's own install, not this tree
    assert sarif_step.returncode == 0, sarif_step.stderr
    log = json.loads((workspace / "out.sarif").read_text())
    jsonschema.validators.validator_for(SARIF_SCHEMA)(SARIF_SCHEMA).validate(log)
    files = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert files == {"jobs/daily.sql"}  # migrations excluded through `args`
    assert annotate.returncode == 1, annotate.stdout + annotate.stderr
    assert "::warning file=jobs/daily.sql,line=2,col=1,title=DL001 require-partition-predicate::" in annotate.stdout


def test_the_action_passes_a_clean_workspace_and_fails_a_bad_invocation(runner, tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "job.sql").write_text("INSERT INTO events SELECT * FROM staging;\n")
    ran = _run_action(runner, workspace, {"paths": "job.sql", "sarif-file": "out.sarif"})
    assert [done.returncode for _, done in ran] == [0, 0, 0], [done.stderr for _, done in ran]
    assert json.loads((workspace / "out.sarif").read_text())["runs"][0]["results"] == []
    bad = _run_action(runner, workspace, {"paths": "job.sql", "args": "--select DL999", "sarif-file": "out.sarif"})
    assert [name for name, _ in bad][-1] == "acidsql lint (SARIF)" and bad[-1][1].returncode == 2
    assert "unknown rule code DL999" in bad[-1][1].stderr
    annotations_only = _run_action(runner, workspace, {"paths": "job.sql"})
    assert [name for name, _ in annotations_only] == ["Install acidsql (the base install, lint only)",
                                                      "acidsql lint (annotations)"]
    assert annotations_only[-1][1].returncode == 0
