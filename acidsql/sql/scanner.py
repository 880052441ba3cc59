"""One pass over script text, with the lexical rules of Spark's SQL lexer (SqlBaseLexer.g4):
where statements end, where parameter markers are, and a "masked" copy in which string
literals, quoted identifiers and comments are blanked out (same length, newlines kept) so that
keyword searches never look inside them.

The rules, as Spark's lexer has them:
- `'...'` and `"..."`: a backslash escapes the next character (`'it\\'s'`); `''` inside is two
  adjacent literals, which Spark concatenates, so the masked text is the same either way.
- raw strings `r'...'`, `R"..."`: no escapes, they end at the first matching quote
  (`r'C:\\dir\\'`). The `r` must start a token: `xr'a'` is the name `xr` and the string `'a'`.
- `` `...` ``: a quoted identifier; a doubled backquote stands for one.
- `-- ...` runs to the end of the line; a backslash right before the newline continues it.
- `/* ... */` nests: `/* a /* b */ c */` is one comment. `/*+ ... */` is a hint, not a comment.
- parameter markers `:name`, `?` (Spark's), `${name}` and `{{ name }}` (templating).

A quote that is never closed is one unrecognized character to Spark's lexer, which then goes
on lexing the rest; a comment never closed runs to the end of the text and fails the parse.
Here both are a `LexProblem` at the opener, the opener is taken as that one bad token and
lexing goes on after it: the statement holding it is one positioned error, and the statements
after it parse as they would without it.
"""
from __future__ import annotations

from dataclasses import dataclass
import re
from bisect import bisect_left


_IDENT_START = re.compile(r"[A-Za-z_]")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ParameterMarker:
    """`:name`, `?`, `${name}` or `{{ name }}` at [start, end) of the script (`?` is named "?")."""

    name: str
    start: int
    end: int
    style: str  # "colon" | "positional" | "dollar" | "jinja"


@dataclass(frozen=True)
class LexProblem:
    """Something the lexer cannot take, at `offset`: an unclosed quote or comment."""

    offset: int
    message: str
    note: str | None = None


@dataclass(frozen=True)
class ScannedScript:
    text: str
    masked: str
    statements: tuple[tuple[int, int], ...]  # [start, end) of each statement, without `;`
    markers: tuple[ParameterMarker, ...]
    problems: tuple[LexProblem, ...] = ()  # in text order
    # Comments other SQL readers end elsewhere, as [start, end): `--` comments that a
    # backslash-newline continues onto the next line(s) (sqlglot ends them at the newline) and
    # nested block comments (Lark's grammar ends them at the first `*/`).
    unusual_comments: tuple[tuple[int, int], ...] = ()
    raw_strings: tuple[int, ...] = ()  # where each raw string literal (r'...') starts

    def problem_in(self, start: int, end: int) -> LexProblem | None:
        """The first lexical problem in [start, end), if any."""
        for problem in self.problems:
            if start <= problem.offset < end:
                return problem
        return None

    def has_raw_string(self, start: int, end: int) -> bool:
        i = bisect_left(self.raw_strings, start)
        return i < len(self.raw_strings) and self.raw_strings[i] < end

    def unusual_comments_in(self, start: int, end: int) -> tuple[tuple[int, int], ...]:
        return tuple((s, e) for s, e in self.unusual_comments if s < end and e > start)


_NOT_NEWLINE = re.compile(r"[^\n]")
_NOT_BLANK = re.compile(r"\S")
# Where something other than plain text may start: a raw-string prefix, a quote, a comment, a
# parameter marker or a statement end. Everything between two such places is copied to
# `masked` as it is.
_SPECIAL = re.compile(r"""[rR](?=['"])|['"`]|--|/\*|\$\{|\{\{|:(?=[A-Za-z_])|\?|;""")
# The body of a quoted literal after its opening quote: a backslash escapes the next character
# (not in backquotes), a doubled quote continues it. Possessive, so an unterminated literal
# runs to the end of the text instead of backtracking to an earlier doubled quote.
_QUOTED_BODY = {
    "'": re.compile(r"(?:[^'\\]|\\[\s\S]|'')*+"),
    '"': re.compile(r'(?:[^"\\]|\\[\s\S]|"")*+'),
    "`": re.compile(r"(?:[^`]|``)*+"),
}
_COMMENT_BRACKETS = re.compile(r"/\*(?!\+)|\*/")
_UNCLOSED_QUOTE = {
    "'": "unterminated string literal: this ' is never closed",
    '"': 'unterminated string literal: this " is never closed',
    "`": "unterminated quoted identifier: this ` is never closed",
}


def _blank(chunk: str) -> str:
    return _NOT_NEWLINE.sub(" ", chunk) if "\n" in chunk else " " * len(chunk)


def _is_name_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def scan(text: str) -> ScannedScript:
    masked: list[str] = []
    statements: list[tuple[int, int]] = []
    markers: list[ParameterMarker] = []
    problems: list[LexProblem] = []
    unusual: list[tuple[int, int]] = []
    raw_strings: list[int] = []
    n = len(text)
    i = 0  # everything before i is in `masked`
    stmt_start = 0
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
        if c in "rR":
            if at > 0 and _is_name_char(text[at - 1]):  # `xr'a'`: the name xr, then a string
                masked.append(c)
                i = at + 1
                continue
            quote = text[at + 1]
            j = text.find(quote, at + 2)
            if j < 0:
                problems.append(LexProblem(at, f"unterminated raw string literal: this {c}{quote} is never closed"))
                masked.append(text[at:at + 2])
                i = at + 2
            else:
                raw_strings.append(at)
                masked.append(c + quote + _blank(text[at + 2:j]) + quote)
                i = j + 1
        elif c in "'\"`":
            j = _QUOTED_BODY[c].match(text, at + 1).end()
            if j < n and text[j] == c:  # the closing quote
                masked.append(c + _blank(text[at + 1:j]) + c)
                i = j + 1
            else:  # never closed: one bad character, and the rest is lexed as if it were not there
                problems.append(LexProblem(at, _UNCLOSED_QUOTE[c]))
                masked.append(c)
                i = at + 1
        elif c == "--":
            j = text.find("\n", at)
            if j > 0 and text[j - 1] == "\\":  # a backslash-newline continues it onto the next line
                while j > 0 and text[j - 1] == "\\":
                    j = text.find("\n", j + 1)
                j = n if j < 0 else j
                unusual.append((at, j))
                masked.append(_blank(text[at:j]))
            else:
                j = n if j < 0 else j
                masked.append(" " * (j - at))
            i = j
        elif c == "/*":
            if text.startswith("+", at + 2):  # a hint: its contents are lexed as code
                masked.append(c)
                i = at + 2
                continue
            j, inner = _comment_end(text, at)
            if j < 0:
                note = None
                if inner is not None:
                    note = ("block comments nest in Spark SQL: the /* at offset "
                            f"{inner - at} of this comment opens a comment inside it, which needs its own */")
                problems.append(LexProblem(at, "unclosed comment: this /* is never closed", note))
                masked.append(c)
                i = at + 2
            else:
                if inner is not None:
                    unusual.append((at, j))
                masked.append(_blank(text[at:j]))
                i = j
        elif c == "${":
            j = text.find("}", at)
            if j < 0:
                masked.append(c)
                i = at + 2
                continue
            markers.append(ParameterMarker(text[at + 2:j].strip(), at, j + 1, "dollar"))
            masked.append(text[at:j + 1])
            i = j + 1
        elif c == "{{":
            j = text.find("}}", at)
            if j < 0:
                masked.append(c)
                i = at + 2
                continue
            markers.append(ParameterMarker(text[at + 2:j].strip(), at, j + 2, "jinja"))
            masked.append(text[at:j + 2])
            i = j + 2
        elif c == ":":
            if _is_colon_marker(text, at):
                m = _IDENT.match(text, at + 1)
                markers.append(ParameterMarker(m.group(0), at, m.end(), "colon"))
                masked.append(text[at:m.end()])
                i = m.end()
            else:
                masked.append(c)
                i = at + 1
        elif c == "?":
            markers.append(ParameterMarker("?", at, at + 1, "positional"))
            masked.append(c)
            i = at + 1
        else:  # ";"
            statements.append((stmt_start, at))
            masked.append(c)
            i = stmt_start = at + 1
    statements.append((stmt_start, n))
    masked_text = "".join(masked)
    kept = tuple((s, e) for s, e in statements if s < e and not masked_text[s:e].isspace())
    return ScannedScript(text, masked_text, kept, tuple(markers), tuple(problems), tuple(unusual),
                         tuple(raw_strings))


def _comment_end(text: str, at: int) -> tuple[int, int | None]:
    """(end, inner) of the block comment opening at `at`: `end` just after its `*/` (-1 when it
    never closes); `inner` where the first nested comment opens, if one does."""
    depth = 0
    inner = None
    for bracket in _COMMENT_BRACKETS.finditer(text, at):
        if bracket.group(0) == "/*":
            depth += 1
            if depth == 2 and inner is None:
                inner = bracket.start()
        else:
            depth -= 1
            if depth == 0:
                return bracket.end(), inner
    return -1, inner


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
