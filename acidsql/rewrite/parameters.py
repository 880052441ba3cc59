"""Parameter markers (`:name`, `${name}`, `{{ name }}`) bound to typed SQL literals.

Jobs are usually templates: the date or country arrives at run time. Binding replaces each
marker with a literal built by `typed_literal`, never by pasting the raw value, and skips
markers that sit inside string literals, quoted identifiers and comments.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Optional

from acidsql.rewrite.literals import typed_literal

_MARKER = re.compile(
    r"""
      \$\{\s*(?P<dollar>[A-Za-z_][A-Za-z0-9_]*)\s*\}
    | \{\{\s*(?P<jinja>[A-Za-z_][A-Za-z0-9_]*)\s*\}\}
    | (?<![:\w]):(?P<colon>[A-Za-z_][A-Za-z0-9_]*)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class BoundText:
    text: str
    bound: tuple[str, ...]  # names replaced, in order of first use
    missing: tuple[str, ...]  # markers with no value (left in place)


def _code_regions(text: str) -> list[tuple[int, int]]:
    """Spans of `text` outside strings, quoted identifiers and comments."""
    regions, i, start, n = [], 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"`":
            regions.append((start, i))
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" and ch != "`" else 1
            i = start = min(j + 1, n)
        elif text.startswith("--", i):
            regions.append((start, i))
            j = text.find("\n", i)
            i = start = n if j < 0 else j
        elif text.startswith("/*", i):
            regions.append((start, i))
            j = text.find("*/", i + 2)
            i = start = n if j < 0 else j + 2
        else:
            i += 1
    regions.append((start, n))
    return [(a, b) for a, b in regions if b > a]


def find_markers(text: str) -> tuple[str, ...]:
    """Names of the parameter markers in `text`, in order of first use."""
    names: dict[str, None] = {}
    for a, b in _code_regions(text):
        for m in _MARKER.finditer(text, a, b):
            names[m.group("dollar") or m.group("jinja") or m.group("colon")] = None
    return tuple(names)


def bind_parameters(
    text: str, params: Mapping[str, str], types: Optional[Mapping[str, str]] = None
) -> BoundText:
    """Replace every marker whose name is in `params` by a literal of the type `types` gives
    for that name (a column type, usually the target column of the same name), else a
    string literal. Raises `LiteralError` when a value does not fit its type."""
    types = {k.lower(): v for k, v in (types or {}).items()}
    out, bound, missing, pos = [], {}, {}, 0
    for a, b in _code_regions(text):
        for m in _MARKER.finditer(text, a, b):
            name = m.group("dollar") or m.group("jinja") or m.group("colon")
            if name not in params:
                missing[name] = None
                continue
            out.append(text[pos:m.start()])
            out.append(typed_literal(params[name], types.get(name.lower())).sql)
            bound[name] = None
            pos = m.end()
    out.append(text[pos:])
    return BoundText("".join(out), tuple(bound), tuple(missing))
