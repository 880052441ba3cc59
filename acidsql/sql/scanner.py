"""One pass over script text: where statements end, where parameter markers are, and a
"masked" copy in which string literals, quoted identifiers and comments are blanked out
(same length, newlines kept) so that keyword searches never look inside them."""
from __future__ import annotations

import re
from dataclasses import dataclass

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


def _blank(chunk: str) -> str:
    return "".join(c if c == "\n" else " " for c in chunk)


def scan(text: str) -> ScannedScript:
    masked: list[str] = []
    statements: list[tuple[int, int]] = []
    markers: list[ParameterMarker] = []
    n = len(text)
    i = 0
    stmt_start = 0
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c in "'\"`":
            j = i + 1
            while j < n:
                if text[j] == "\\" and c != "`":
                    j += 2
                    continue
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:  # doubled quote inside the literal
                        j += 2
                        continue
                    break
                j += 1
            j = min(j + 1, n)
            masked.append(c + _blank(text[i + 1 : j - 1]) + (text[j - 1] if j - 1 > i else ""))
            i = j
        elif c == "-" and nxt == "-":
            j = text.find("\n", i)
            j = n if j < 0 else j
            masked.append(_blank(text[i:j]))
            i = j
        elif c == "/" and nxt == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            masked.append(_blank(text[i:j]))
            i = j
        elif c == "$" and nxt == "{":
            j = text.find("}", i)
            j = n if j < 0 else j + 1
            name = text[i + 2 : j - 1].strip()
            markers.append(ParameterMarker(name, i, j, "dollar"))
            masked.append(text[i:j])
            i = j
        elif c == "{" and nxt == "{":
            j = text.find("}}", i)
            j = n if j < 0 else j + 2
            name = text[i + 2 : j - 2].strip()
            markers.append(ParameterMarker(name, i, j, "jinja"))
            masked.append(text[i:j])
            i = j
        elif c == ":" and _is_colon_marker(text, i):
            m = _IDENT.match(text, i + 1)
            markers.append(ParameterMarker(m.group(0), i, m.end(), "colon"))
            masked.append(text[i : m.end()])
            i = m.end()
        elif c == ";":
            statements.append((stmt_start, i))
            masked.append(c)
            i += 1
            stmt_start = i
        else:
            masked.append(c)
            i += 1
    statements.append((stmt_start, n))
    masked_text = "".join(masked)
    kept = tuple((s, e) for s, e in statements if masked_text[s:e].strip())
    return ScannedScript(text, masked_text, kept, tuple(markers))


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
    while start < end and masked[start].isspace():
        start += 1
    while end > start and masked[end - 1].isspace():
        end -= 1
    return start, end
