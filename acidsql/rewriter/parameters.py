"""Parameter markers (`:name`, `${name}`, `{{ name }}`) bound to typed SQL literals.

Jobs are usually templates: the date or country arrives at run time. Binding replaces each
marker with a literal built by `typed_literal`, never by pasting the raw value. Markers are
found by the SQL front end's lexer (`acidsql.sql.scanner`), so one set of rules says what is a
marker and what sits inside a string literal, a quoted identifier or a comment. A positional
`?` has no name to bind: it is reported as missing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional

from acidsql.rewriter.literals import typed_literal
from acidsql.sql.scanner import scan


@dataclass(frozen=True)
class BoundText:
    text: str
    bound: tuple[str, ...]  # names replaced, in order of first use
    missing: tuple[str, ...]  # markers with no value (left in place)


def find_markers(text: str) -> tuple[str, ...]:
    """Names of the parameter markers in `text`, in order of first use."""
    return tuple(dict.fromkeys(marker.name for marker in scan(text).markers))


def bind_parameters(
    text: str, params: Mapping[str, str], types: Optional[Mapping[str, str]] = None
) -> BoundText:
    """Replace every marker whose name is in `params` by a literal of the type `types` gives
    for that name (a column type, usually the target column of the same name), else a
    string literal. Raises `LiteralError` when a value does not fit its type."""
    types = {k.lower(): v for k, v in (types or {}).items()}
    out, bound, missing, pos = [], {}, {}, 0
    for marker in scan(text).markers:
        name = marker.name
        if marker.style == "positional" or name not in params:
            missing[name] = None
            continue
        out.append(text[pos:marker.start])
        out.append(typed_literal(params[name], types.get(name.lower())).sql)
        bound[name] = None
        pos = marker.end
    out.append(text[pos:])
    return BoundText("".join(out), tuple(bound), tuple(missing))
