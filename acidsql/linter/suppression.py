"""Inline suppression, as sqlfluff and ruff users write it.

- `-- noqa` or `-- noqa: DL001, DL003` on any line of a statement silences findings on
  that statement (all codes, or the ones listed);
- `-- acidsql: disable=DL004` silences those codes from that line to the end of the file,
  or until `-- acidsql: enable=DL004`; `disable=all` silences everything.
"""
from __future__ import annotations

from dataclasses import dataclass
import re


# Pattern sources, compiled (and cached) by `re` when a script first has a comment like them:
# most have none, and compiling costs more than the check (start-up of lint runs).
_NOQA = r"--\s*noqa\b(?:\s*:\s*(?P<codes>[A-Za-z0-9_,\s-]+))?"
_TOGGLE = r"--\s*acidsql\s*:\s*(?P<verb>disable|enable)\s*=\s*(?P<codes>[A-Za-z0-9_,\s-]+)"
# Where either could start: most scripts have none, and then no line needs looking at.
_ANY = re.compile(r"--\s*(?:noqa|acidsql)", re.IGNORECASE)

ALL = "*"


def _codes(text: str) -> frozenset[str]:
    codes = {c.strip().upper() for c in re.split(r"[,\s]+", text or "") if c.strip()}
    return frozenset({ALL} if not codes or "ALL" in codes else codes)


@dataclass(frozen=True)
class Suppressions:
    noqa: tuple[tuple[int, frozenset[str]], ...]  # line -> codes silenced on that line
    toggles: tuple[tuple[int, str, frozenset[str]], ...]  # (line, "disable"|"enable", codes) in order

    @classmethod
    def scan(cls, text: str) -> "Suppressions":
        noqa, toggles = [], []
        if _ANY.search(text) is None:
            return cls((), ())
        for number, line in enumerate(text.splitlines(), start=1):
            if "--" not in line:
                continue
            m = re.search(_TOGGLE, line, re.IGNORECASE)
            if m:
                toggles.append((number, m.group("verb").lower(), _codes(m.group("codes"))))
                continue
            m = re.search(_NOQA, line, re.IGNORECASE)
            if m:
                noqa.append((number, _codes(m.group("codes") or "")))
        return cls(tuple(noqa), tuple(toggles))

    def silences(self, code: str, first_line: int, last_line: int) -> bool:
        """Whether a finding with `code` on a statement spanning these lines is silenced."""
        code = code.upper()
        for line, codes in self.noqa:
            if first_line <= line <= last_line and (ALL in codes or code in codes):
                return True
        disabled: set[str] = set()
        for line, verb, codes in self.toggles:
            if line > first_line:
                break
            if verb == "disable":
                disabled |= codes
            else:
                disabled -= codes if ALL not in codes else disabled.copy()
        return ALL in disabled or code in disabled
