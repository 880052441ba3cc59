"""One pass over script text: where statements end, where parameter markers are, and a
"masked" copy in which string literals, quoted identifiers and comments are blanked out
(same length, newlines kept) so that keyword searches never look inside them."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

_IDENT_START = re.compile(r"[A-Za-z_]")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ParameterMarker:
    """`:name`, `${name}` or `{{ name }}` at [start, end) of the script."""

    name: str
    start: int
    end: int
    style: str  # "colon" | "dollar" | "jinja"


@dataclass(frozen=True)
class ScannedScript:
    text: str
    masked: str
    statements: tuple[tuple[int, int], ...]  # [start, end) of each statement, without `;`
    markers: tuple[ParameterMarker, ...]
    unterminated: Optional[int] = None  # where a quote that is never closed opens (it runs to the end)


_NOT_NEWLINE = re.compile(r"[^\n]")
_NOT_BLANK = re.compile(r"\S")
# Where something other than plain text may start: a quote, a comment, a parameter marker
# or a statement end. Everything between two such places is copied to `masked` as it is.
_SPECIAL = re.compile(r"""['"`]|--|/\*|\$\{|\{\{|:(?=[A-Za-z_])|;""")
# The body of a quoted literal after its opening quote: a backslash escapes the next character
# (not in backticks), a doubled quote stands for itself. Possessive, so an unterminated literal
# runs to the end of the text instead of backtracking to an earlier doubled quote.
_QUOTED_BODY = {
    "'": re.compile(r"(?:[^'\\]|\\[\s\S]|'')*+"),
    '"': re.compile(r'(?:[^"\\]|\\[\s\S]|"")*+'),
    "`": re.compile(r"(?:[^`]|``)*+"),
}


def _blank(chunk: str) -> str:
    return _NOT_NEWLINE.sub(" ", chunk) if "\n" in chunk else " " * len(chunk)


def scan(text: str) -> ScannedScript:
    masked: list[str] = []
    statements: list[tuple[int, int]] = []
    markers: list[ParameterMarker] = []
    n = len(text)
    i = 0  # everything before i is in `masked`
    stmt_start = 0
    unterminated = None
    search = _SPECIAL.search
    while True:
        match = search(text, i)
        if match is None:
            masked.append(text[i:])
            break
        at = match.start()
        if at > i:
            masked.append(text[i:at])
        c = match.group(0)
        if c in "'\"`":
            j = _QUOTED_BODY[c].match(text, at + 1).end()
            if j < n and text[j] == c:  # the closing quote
                masked.append(c + _blank(text[at + 1 : j]) + c)
                i = j + 1
            else:  # unterminated (or ends in a lone backslash): runs to the end, last character kept
                masked.append(c + _blank(text[at + 1 : n - 1]) + (text[n - 1] if n - 1 > at else ""))
                i = n
                unterminated = at
        elif c == "--":
            j = text.find("\n", at)
            j = n if j < 0 else j
            masked.append(" " * (j - at))
            i = j
        elif c == "/*":
            j = text.find("*/", at + 2)
            j = n if j < 0 else j + 2
            masked.append(_blank(text[at:j]))
            i = j
        elif c == "${":
            j = text.find("}", at)
            j = n if j < 0 else j + 1
            markers.append(ParameterMarker(text[at + 2 : j - 1].strip(), at, j, "dollar"))
            masked.append(text[at:j])
            i = j
        elif c == "{{":
            j = text.find("}}", at)
            j = n if j < 0 else j + 2
            markers.append(ParameterMarker(text[at + 2 : j - 2].strip(), at, j, "jinja"))
            masked.append(text[at:j])
            i = j
        elif c == ":":
            if _is_colon_marker(text, at):
                m = _IDENT.match(text, at + 1)
                markers.append(ParameterMarker(m.group(0), at, m.end(), "colon"))
                masked.append(text[at : m.end()])
                i = m.end()
            else:
                masked.append(c)
                i = at + 1
        else:  # ";"
            statements.append((stmt_start, at))
            masked.append(c)
            i = stmt_start = at + 1
    statements.append((stmt_start, n))
    masked_text = "".join(masked)
    kept = tuple((s, e) for s, e in statements if not masked_text[s:e].isspace() and s < e)
    return ScannedScript(text, masked_text, kept, tuple(markers), unterminated)


def _is_colon_marker(text: str, i: int) -> bool:
    """`:name` is a marker; `a::int` (cast) and `v:field` (variant path) are not."""
    if i + 1 >= len(text) or not _IDENT_START.match(text[i + 1]):
        return False
    prev = text[i - 1] if i > 0 else " "
    return not (prev.isalnum() or prev in "_:)]`'\"")


def split_statements(text: str) -> list[tuple[int, int]]:
    """The [start, end) character offsets of each statement, split on `;` outside strings,
    quoted identifiers, comments and parameter markers. Empty statements are dropped; the
    ranges exclude the `;` and include surrounding whitespace and comments."""
    return list(scan(text).statements)


def trim(masked: str, start: int, end: int) -> tuple[int, int]:
    """Narrow [start, end) to the first and last characters that are not blank in `masked`
    (so leading comments and whitespace fall outside the statement)."""
    first = _NOT_BLANK.search(masked, start, end)
    if first is None:
        return end, end
    return first.start(), first.start() + len(masked[first.start():end].rstrip())
