"""What a lint rule reports."""
from __future__ import annotations

from dataclasses import dataclass
import enum
from typing import Optional


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One problem at `file:line:col`. `hint` says what to do; `fix`, when present, is the
    whole statement rewritten so the problem is gone (from the rewriter)."""

    code: str  # stable: DL001
    name: str  # kebab-case advice: require-partition-predicate
    message: str
    file: str
    line: int
    col: int
    hint: str = ""
    severity: Severity = Severity.WARNING
    fix: Optional[str] = None
    end_line: Optional[int] = None
    end_col: Optional[int] = None

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def sort_key(self) -> tuple:
        return (self.file, self.line, self.col, self.code)

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "end_col": self.end_col,
            "hint": self.hint,
            "severity": self.severity.value,
            "fix": self.fix,
        }


@dataclass(frozen=True)
class LintError:
    """A defect of acidsql met while linting one statement (or reading one file), reported
    for that item while the rest is linted. `stage` says where: a rule code, "file" or
    "catalog"."""

    file: str
    line: int
    col: int
    stage: str
    message: str

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "col": self.col, "stage": self.stage, "error": self.message}
