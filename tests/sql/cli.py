"""The `acidsql` command as a user runs it (a fresh process, this tree's package), for the SQL
front end's tests of what the commands say."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def acidsql(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "acidsql.cli.main", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120)
