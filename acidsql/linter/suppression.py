"""Inline suppression, as sqlfluff and ruff users write it.

- `-- noqa` or `-- noqa: DL001, DL003` on any line of a statement silences findings on
  that statement (all codes, or the ones listed);
- `-- acidsql: disable=DL004` silences those codes from that line to the end of the file,
  or until `-- acidsql: enable=DL004`; `disable=all` silences everything.

The codes are read as ruff reads them: a list of code-shaped words (letters then digits, or
`all`) separated by commas or spaces, ending at the first other word (`-- noqa: DL001 the
date comes from the job`). Every code a comment names is kept in `mentions`, so the runner can
report one that names no rule: a typo silences nothing, and says so. A `noqa:` followed by
no code at all is `malformed` (it is no blanket `-- noqa`).
"""
from __future__ import annotations

from dataclasses import dataclass
import re


# Pattern sources, compiled (and cached) by `re` when a script first has a comment like them:
# most have none, and compiling costs more than the check (start-up of lint runs).
_NOQA = r"--\s*noqa\b(?P<colon>\s*:)?(?P<codes>[^\n]*)"
_TOGGLE = r"--\s*acidsql\s*:\s*(?P<verb>disable|enable)\s*=(?P<codes>[^\n]*)"
_CODE = r"[A-Za-z]{1,10}[0-9]+|all"
# Where either could start: most scripts have none, and then no line needs looking at.
_ANY = re.compile(r"--\s*(?:noqa|acidsql)", re.IGNORECASE)

ALL = "*"


def _leading_codes(text: str) -> list[str]:
    """The code-shaped words at the start of `text`, upper-cased, up to the first other word."""
    out = []
    for word in re.split(r"[,\s]+", text.strip()):
        if not re.fullmatch(_CODE, word, re.IGNORECASE):
            break
        out.append(word.upper())
    return out


def _codes(words: list[str]) -> frozenset[str]:
    return frozenset({ALL} if not words or "ALL" in words else words)


@dataclass(frozen=True)
class Suppressions:
    noqa: tuple[tuple[int, frozenset[str]], ...]  # line -> codes silenced on that line
    toggles: tuple[tuple[int, str, frozenset[str]], ...]  # (line, "disable"|"enable", codes) in order
    mentions: tuple[tuple[int, int, str], ...] = ()  # (line, column, code) of every code named
    malformed: tuple[tuple[int, int, str], ...] = ()  # (line, column, comment) naming no code after `:`/`=`

    @classmethod
    def scan(cls, text: str) -> "Suppressions":
        noqa, toggles, mentions, malformed = [], [], [], []
        if _ANY.search(text) is None:
            return cls((), ())
        for number, line in enumerate(text.splitlines(), start=1):
            if "--" not in line:
                continue
            m = re.search(_TOGGLE, line, re.IGNORECASE)
            if m:
                words = _leading_codes(m.group("codes"))
                if not words:
                    malformed.append((number, m.start() + 1, m.group(0).strip()))
                    continue
                toggles.append((number, m.group("verb").lower(), _codes(words)))
                mentions.extend((number, m.start() + 1, w) for w in words if w != "ALL")
                continue
            m = re.search(_NOQA, line, re.IGNORECASE)
            if m:
                words = _leading_codes(m.group("codes")) if m.group("colon") else []
                if m.group("colon") and not words:
                    malformed.append((number, m.start() + 1, m.group(0).strip()))
                    continue
                noqa.append((number, _codes(words)))
                mentions.extend((number, m.start() + 1, w) for w in words if w != "ALL")
        return cls(tuple(noqa), tuple(toggles), tuple(mentions), tuple(malformed))

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
