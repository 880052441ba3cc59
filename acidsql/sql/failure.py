"""The failure every reader of a statement raises for SQL it cannot read: a message and where."""
from __future__ import annotations

from typing import Optional

# The note of a statement acidsql failed to read through a defect of its own.
INTERNAL_ERROR_NOTE = "this is a defect in acidsql, not in the SQL: please report it with this statement"


class StatementError(Exception):
    """A positioned failure inside one statement: `offset` counts from the statement's start.
    The parser turns it into a `ParseError` at the script's line:column."""

    def __init__(self, message: str, offset: int, note: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.note = note

    def shifted(self, by: int) -> "StatementError":
        """The same failure in a statement that holds this one `by` characters in."""
        return StatementError(self.message, self.offset + by, self.note)
