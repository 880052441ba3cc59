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
- parameter markers `:name`, `?` (Spark's), `${name}` and `{{ name }}` (templating). The last two
  are textual in the tools that bind them (Databricks' variable substitution, Jinja), so they
  are markers inside string literals too (`'${run_date}'`); `:name` and `?` are not.
- a byte-order mark at the start of the text is no character of the script: it is blanked, so
  the first statement starts after it (positions count it out of the first line's columns).
- `BEGIN ... END` (SQL scripting's compound statement, Databricks' `BEGIN ATOMIC ... END`) is
  one statement: the `;` inside it do not end it. `BEGIN`, `BEGIN TRANSACTION`, `BEGIN WORK`
  alone are statements of their own.

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
from typing import Iterator, NamedTuple


_IDENT_START = re.compile(r"[A-Za-z_]")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ParameterMarker:
    """`:name`, `?`, `${name}` or `{{ name }}` at [start, end) of the script (`?` is named "?").
    `in_string`: inside a string literal (only `${name}` and `{{ name }}` are markers there)."""

    name: str
    start: int
    end: int
    style: str  # "colon" | "positional" | "dollar" | "jinja"
    in_string: bool = False


class Token(NamedTuple):
    """One token of a statement, read from the masked text: `kind` is "word" (a name or a
    keyword; `upper` is its text in upper case), "quoted" (a backquoted name), "string",
    "number", "marker" or "symbol" (punctuation and operators). `depth`: how many parentheses
    are open before it. (A named tuple: statements have thousands of tokens, and a tuple is
    the cheapest immutable record to make.)"""

    kind: str
    upper: str
    start: int
    end: int
    depth: int


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
    markers: tuple[ParameterMarker, ...]  # outside string literals
    problems: tuple[LexProblem, ...] = ()  # in text order
    # Comments other SQL readers end elsewhere, as [start, end): `--` comments that a
    # backslash-newline continues onto the next line(s) (sqlglot ends them at the newline) and
    # nested block comments (Lark's grammar ends them at the first `*/`).
    unusual_comments: tuple[tuple[int, int], ...] = ()
    raw_strings: tuple[int, ...] = ()  # where each raw string literal (r'...') starts
    string_markers: tuple[ParameterMarker, ...] = ()  # `${name}` / `{{ name }}` inside string literals
    bom: bool = False  # the text starts with a byte-order mark (blanked in `masked`)

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

    def tokens(self, start: int, end: int) -> Iterator[Token]:
        """The tokens of text[start:end], in order (see `tokens`)."""
        return tokens(self.masked, start, end)

    def markers_in(self, start: int, end: int) -> tuple[ParameterMarker, ...]:
        """Every parameter marker in [start, end), inside string literals or not, in text order."""
        found = [m for m in self.markers if start <= m.start < end]
        if self.string_markers:
            found += [m for m in self.string_markers if start <= m.start < end]
            found.sort(key=lambda m: m.start)
        return tuple(found)


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
    string_markers: list[ParameterMarker] = []
    n = len(text)
    bom = text.startswith("\ufeff")
    i = 1 if bom else 0  # everything before i is in `masked`
    if bom:
        masked.append(" ")
    stmt_start = i
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
                _string_markers(text, at + 2, j, string_markers)
                i = j + 1
        elif c in "'\"`":
            j = _QUOTED_BODY[c].match(text, at + 1).end()
            if j < n and text[j] == c:  # the closing quote
                masked.append(c + _blank(text[at + 1:j]) + c)
                if c != "`":
                    _string_markers(text, at + 1, j, string_markers)
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
        elif c == "${" or c == "{{":
            close = "}" if c == "${" else "}}"
            j = text.find(close, at)
            if j < 0:  # no marker: the two characters are lexed as they are
                masked.append(c)
                i = at + 2
                continue
            i = j + len(close)
            markers.append(ParameterMarker(text[at + 2:j].strip(), at, i, "dollar" if c == "${" else "jinja"))
            masked.append(text[at:i])
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
    kept = [(s, e) for s, e in statements if s < e and not masked_text[s:e].isspace()]
    if "BEGIN" in masked_text or "begin" in masked_text.lower():
        kept = _join_blocks(masked_text, kept)
    return ScannedScript(text, masked_text, tuple(kept), tuple(markers), tuple(problems), tuple(unusual),
                         tuple(raw_strings), tuple(string_markers), bom)


def _string_markers(text: str, start: int, end: int, out: list[ParameterMarker]) -> None:
    """The `${name}` and `{{ name }}` markers in the string literal body text[start:end]."""
    if "${" not in text[start:end] and "{{" not in text[start:end]:
        return
    for match in _STRING_MARKER.finditer(text, start, end):
        name = (match.group(1) or match.group(2)).strip()
        out.append(ParameterMarker(name, match.start(), match.end(), "dollar" if match.group(1) is not None else "jinja",
                                   in_string=True))


def markers_in_string(value: str) -> list[ParameterMarker]:
    """The `${name}` and `{{ name }}` markers in a string literal's value (offsets in `value`)."""
    out: list[ParameterMarker] = []
    _string_markers(value, 0, len(value), out)
    return out


_STRING_MARKER = re.compile(r"\$\{([^{}]*)\}|\{\{((?:(?!\}\}).)*)\}\}")


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


# The tokens of masked text (strings, quoted names and comments are blanked inside their quotes,
# so each is matched whole): the lexer's one pattern for what `tokens` yields.
_TOKEN = re.compile(r"""\s*(?:  # (blanks are skipped inside the match: one C loop, not a search at each of them)
  (?P<string>[rR]?'[^']*'|[rR]?"[^"]*")
| (?P<word>[A-Za-z_][A-Za-z0-9_$]*)
| (?P<number>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[A-Za-z]*)
| (?P<quoted>`[^`]*`)
| (?P<marker>\$\{[^}]*\}|\{\{.*?\}\})
| (?P<symbol><=>|==|!=|<>|>=|<=|\|\||::|->|=>|\|>|\S)
)""", re.VERBOSE | re.DOTALL)


def tokens(masked: str, start: int = 0, end: int | None = None) -> Iterator[Token]:
    """The tokens of masked[start:end] (masked text: see `scan`), in order."""
    depth = 0
    new = tuple.__new__
    for match in _TOKEN.finditer(masked, start, len(masked) if end is None else end):
        kind = match.lastgroup
        text = match.group(kind)
        if kind == "word":
            yield new(Token, (kind, text.upper(), match.start(kind), match.end(), depth))
        elif text == "(":
            depth += 1
            yield new(Token, (kind, text, match.start(kind), match.end(), depth - 1))
        else:
            if text == ")":
                depth -= 1
            yield new(Token, (kind, text, match.start(kind), match.end(), depth))


def name_end(seq: list[Token], at: int) -> int | None:
    """The index just after the dotted name (`a`, `` a.`b c`.d ``) starting at seq[at], or None
    when no name starts there."""
    if at >= len(seq) or seq[at].kind not in ("word", "quoted"):
        return None
    k = at + 1
    while k + 1 < len(seq) and seq[k].upper == "." and seq[k + 1].kind in ("word", "quoted"):
        k += 2
    return k


# SQL scripting's compound statements that END closes (with their own word: END IF, END WHILE, ...).
_OPENS_AT_STATEMENT_START = frozenset({"IF", "WHILE", "LOOP", "REPEAT", "FOR", "BEGIN"})
_CLOSE_WORDS = frozenset({"IF", "WHILE", "LOOP", "REPEAT", "FOR", "CASE"})
# After these words a statement inside a block begins.
_STATEMENT_FOLLOWS = frozenset({"BEGIN", "ATOMIC", "THEN", "ELSE", "DO", "REPEAT", "LOOP"})


def _join_blocks(masked: str, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`ranges` with each BEGIN ... END block (and what follows its END up to the next `;`) as
    one statement."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(ranges):
        start, end = ranges[i]
        head = list(_first_tokens(masked, start, end, 2))
        if not (head and head[0].kind == "word" and head[0].upper == "BEGIN" and len(head) == 2
                and head[1].upper not in ("TRANSACTION", "WORK")):
            out.append((start, end))
            i += 1
            continue
        closed_at = block_end(masked, head[0].end)
        j = i
        while closed_at is not None and j + 1 < len(ranges) and ranges[j][1] < closed_at:
            j += 1
        if closed_at is None:
            j = len(ranges) - 1  # never closed: the rest of the text is the block (and its error)
        out.append((start, ranges[j][1]))
        i = j + 1
    return out


def _first_tokens(masked: str, start: int, end: int, count: int) -> Iterator[Token]:
    for n, token in enumerate(tokens(masked, start, end)):
        if n == count:
            return
        yield token


def block_end(masked: str, after_begin: int) -> int | None:
    """Where the END closing the block opened by a BEGIN just before `after_begin` ends, or None."""
    level = 1
    initial = True  # the next token starts a statement inside the block
    handler = False  # DECLARE ... HANDLER ... BEGIN: the BEGIN opens the handler's block
    closing = False  # just after END: IF / WHILE / ... / CASE belong to it
    previous = None
    for token in tokens(masked, after_begin):
        word = token.upper if token.kind == "word" else None
        if closing:
            closing = False
            if word in _CLOSE_WORDS:
                previous = token
                continue
        if token.upper == ";" and token.kind == "symbol":
            initial, handler = True, False
            previous = token
            continue
        if token.kind == "symbol" and token.upper == ":" and previous is not None and previous.kind == "word":
            previous = token  # a label: `lbl: BEGIN`, `lbl: WHILE ...`
            initial = True
            continue
        if word is not None:
            if word == "END":
                level -= 1
                if level == 0:
                    return token.end
                closing = True
            elif word == "CASE" or (word in _OPENS_AT_STATEMENT_START and initial) or (word == "BEGIN" and handler):
                level += 1
            elif word == "HANDLER":
                handler = True
            initial = word in _STATEMENT_FOLLOWS
        else:
            initial = False
        previous = token
    return None


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
