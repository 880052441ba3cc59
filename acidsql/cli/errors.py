"""Errors the CLI reports as one line (`acidsql: error: ...`), exit status 2."""
from __future__ import annotations


class UsageError(Exception):
    """A user mistake: a missing file, a bad option value, a malformed config."""


EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
