"""Applying the fixes findings carry (`lint --fix --write`): each fix is its statement
rewritten, so the statement's text is replaced by it. A fix is left out, with the reason,
when it overlaps another or when its statement holds parameter markers (the rewrite binds
them to this run's values, and a job template must keep them)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from acidsql.linter.finding import Finding


@dataclass(frozen=True)
class FixedText:
    """One file's text before and after its fixes; `skipped` says which fixes were not applied
    and why."""

    file: str
    original: str
    fixed: str
    applied: int
    skipped: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.fixed != self.original


def _offset(line_starts: Sequence[int], line: int, col: int) -> int:
    return line_starts[line - 1] + col - 1


def apply_fixes(text: str, file: str, findings: Sequence[Finding]) -> FixedText:
    """`text` with the fixes of `findings` (those of `file`) applied."""
    from acidsql.rewriter import find_markers

    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    edits: dict[tuple[int, int], Finding] = {}
    for f in findings:
        if f.file == file and f.fix and f.end_line and f.end_col:
            edits.setdefault((_offset(starts, f.line, f.col), _offset(starts, f.end_line, f.end_col)), f)
    out, skipped, applied, end_of_last = text, [], 0, len(text) + 1
    for (start, end), f in sorted(edits.items(), reverse=True):
        where = f"{f.location} {f.code}"
        if end > end_of_last:
            skipped.append(f"{where}: overlaps another fix")
            continue
        markers = find_markers(text[start:end])
        if markers:
            skipped.append(f"{where}: the rewrite binds the parameter marker(s) {', '.join(markers)} to this run's "
                           "values; `acidsql rewrite --write` does that on purpose")
            continue
        out = out[:start] + f.fix + out[end:]
        applied += 1
        end_of_last = start
    return FixedText(file, text, out, applied, tuple(reversed(skipped)))


def fixed_files(findings: Sequence[Finding]) -> list[FixedText]:
    """Each file with a fixable finding, read and fixed (not written)."""
    out = []
    for file in dict.fromkeys(f.file for f in findings if f.fix):
        path = Path(file)
        if not path.is_file():  # <stdin>, <sql>
            continue
        out.append(apply_fixes(path.read_text(encoding="utf-8"), file, findings))
    return out
