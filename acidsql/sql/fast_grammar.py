"""A fast path in front of the Lark grammar (grammar/delta.lark) for the common, plain forms
of the Delta statements it reads: OPTIMIZE, VACUUM, REORG, RESTORE, DESCRIBE HISTORY/DETAIL
and ALTER TABLE ... UNSET TBLPROPERTIES / DROP FEATURE / ... PREDICTIVE OPTIMIZATION.

`fast_parse(lark_text)` returns the tree Lark would build (same rule names, same tokens with
the same types, values and offsets; see `FastTree` / `FastToken`), or None. None means "not
sure": anything outside the plain forms (a grammar keyword used as a name, CHANGE COLUMN,
CLONE, a character it does not expect, an error) goes to Lark, which also writes every error
message. Lark costs ~100 us per statement (a Python LALR parser and contextual lexer) and
~0.1 s to load; most scripts then never load it.

Why the trees are the same: the grammar is LALR(1) over tokens, and this is a recursive-descent
reading of the same rules that accepts a strict subset of what they accept. Tokens: a word is a
keyword token only where that keyword is expected, and a name only when it is no keyword of
the grammar at all (Lark's contextual lexer then lexes it as IDENT, the only terminal that
matches it); punctuation and whitespace as in the grammar. tests/sql compares both parsers.
"""
from __future__ import annotations

import re
from typing import Optional

# Every keyword terminal of grammar/delta.lark (checked against the file by tests/sql).
KEYWORDS = frozenset({
    "OPTIMIZE", "VACUUM", "ZORDER", "FULL", "LITE", "USING", "INVENTORY", "RETAIN", "HOURS", "DRY",
    "RUN", "REORG", "TABLE", "APPLY", "PURGE", "UPGRADE", "UNIFORM", "ICEBERG_COMPAT_VERSION",
    "RESTORE", "TO", "VERSION", "TIMESTAMP", "AS", "OF", "DESCRIBE", "DESC", "HISTORY", "DETAIL",
    "LIMIT", "ALTER", "UNSET", "TBLPROPERTIES", "IF", "NOT", "EXISTS", "DROP", "FEATURE", "TRUNCATE",
    "ENABLE", "DISABLE", "INHERIT", "PREDICTIVE", "OPTIMIZATION", "CHANGE", "COLUMN", "CREATE", "OR",
    "REPLACE", "SHALLOW", "DEEP", "CLONE", "LOCATION", "WHERE", "BY", "SET", "CONVERT", "NO", "STATISTICS",
    "PARTITIONED",
})

# The keywords the grammar also takes as names (its `keyword_as_name` rule).
KEYWORDS_AS_NAMES = frozenset({
    "OPTIMIZE", "VACUUM", "ZORDER", "FULL", "LITE", "INVENTORY", "RETAIN", "HOURS", "DRY", "RUN", "PURGE", "UPGRADE",
    "UNIFORM", "APPLY", "HISTORY", "DETAIL", "FEATURE", "TRUNCATE", "RESTORE", "REORG", "CHANGE", "COLUMN",
    "PREDICTIVE", "OPTIMIZATION", "CLONE", "SHALLOW", "DEEP", "VERSION", "TIMESTAMP", "LOCATION", "ENABLE", "DISABLE",
    "INHERIT", "CONVERT", "NO", "STATISTICS", "PARTITIONED",
})


class FastToken(str):
    """Stands for a lark Token: a str (the matched text) with `type`, `value`, `start_pos`,
    `end_pos`."""

    def __new__(cls, type_: str, value: str, start: int, end: int) -> "FastToken":
        token = super().__new__(cls, value)
        token.type = type_
        token.value = value
        token.start_pos = start
        token.end_pos = end
        return token

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {self.value!r})"


class FastTree:
    """Stands for a lark Tree: `data` (the rule or alias name) and `children`."""

    __slots__ = ("data", "children")

    def __init__(self, data: str, children: list) -> None:
        self.data = data
        self.children = children

    def __repr__(self) -> str:
        return f"Tree({self.data!r}, {self.children!r})"


# The grammar's terminals (whitespace and comments are %ignore'd). Kinds: W word, B backticked,
# S string, N number, C condition, O operator, P punctuation. Strings, numbers and operators use
# the grammar's own patterns (an operator before `=`, as Lark tries the longer terminal first); a
# word is IDENT's.
_TOKEN = re.compile(
    r"(?P<ws>[ \t\f\r\n]+|--[^\n]*|/\*(?:.|\n)*?\*/)"
    r"|(?P<C>\x1a+)"
    r"|(?P<B>`(?:[^`]|``)*`)"
    r"|(?P<S>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<N>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?[A-Za-z]?)"
    r"|(?P<W>[A-Za-z_][A-Za-z0-9_$]*)"
    r"|(?P<O><=>|==|!=|<>|>=|<=|\|\||::|[-+*/%<>:!&|^~\[\]{}$?])"
    r"|(?P<P>[(),.=;])"
)
# After a token, characters that would make Lark split or join differently than here.
_GLUED = re.compile(r"[A-Za-z0-9_$`'\"\x1a]")


class _Fail(Exception):
    pass


def _tokens(text: str) -> Optional[list[tuple[str, str, int, int]]]:
    out = []
    n = len(text)
    i = 0
    match = _TOKEN.match
    glued = _GLUED.match
    while i < n:
        m = match(text, i)
        if m is None:
            return None
        kind = m.lastgroup
        j = m.end()
        if kind != "ws":
            if kind != "P" and kind != "O" and j < n and glued(text, j):
                return None  # e.g. `100HOURS`, `'a''b'`, a name running into a quote
            out.append((kind, m.group(), i, j))
        i = j
    return out


class _Reader:
    __slots__ = ("toks", "i")

    def __init__(self, toks):
        self.toks = toks
        self.i = 0

    # --- tokens ----------------------------------------------------------------------------
    def _peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def at_word(self, *words: str) -> bool:
        t = self._peek()
        return t is not None and t[0] == "W" and t[1].upper() in words

    def at_punct(self, p: str) -> bool:
        t = self._peek()
        return t is not None and t[0] == "P" and t[1] == p

    def keyword(self, word: str) -> FastToken:
        t = self._peek()
        if t is None or t[0] != "W" or t[1].upper() != word:
            raise _Fail
        self.i += 1
        return FastToken(word, t[1], t[2], t[3])

    def any_keyword(self, *words: str) -> FastToken:
        t = self._peek()
        if t is None or t[0] != "W":
            raise _Fail
        upper = t[1].upper()
        if upper not in words:
            raise _Fail
        self.i += 1
        return FastToken(upper, t[1], t[2], t[3])

    def punct(self, p: str) -> None:
        if not self.at_punct(p):
            raise _Fail
        self.i += 1

    def terminal(self, kind: str, type_: str) -> FastToken:
        t = self._peek()
        if t is None or t[0] != kind:
            raise _Fail
        self.i += 1
        return FastToken(type_, t[1], t[2], t[3])

    def _name_follows(self) -> bool:
        """Whether the token after the next one starts a name (there, every keyword of the
        grammar is lexed as itself, and only those in KEYWORDS_AS_NAMES are names)."""
        t = self.toks[self.i + 1] if self.i + 1 < len(self.toks) else None
        return t is not None and (t[0] == "B" or t[0] == "W" and (
            t[1].upper() in KEYWORDS_AS_NAMES or t[1].upper() not in KEYWORDS))

    # --- rules -----------------------------------------------------------------------------
    def name(self, keyword_is_ident: bool = False) -> FastTree:
        """A name. The grammar's other keywords (not in KEYWORDS_AS_NAMES) are read as IDENT only
        with `keyword_is_ident`: where the parser state takes none of them, so that Lark's
        contextual lexer reads them as IDENT (LALR merges states, so elsewhere some are lexed as
        keywords; tests/sql/test_fast_grammar.py checks each place)."""
        t = self._peek()
        if t is None:
            raise _Fail
        if t[0] == "B":
            self.i += 1
            return FastTree("name", [FastToken("BACKTICKED", t[1], t[2], t[3])])
        if t[0] == "W":
            upper = t[1].upper()
            self.i += 1
            if upper in KEYWORDS_AS_NAMES:  # lexed as the keyword wherever a name can stand
                return FastTree("name", [FastTree("keyword_as_name", [FastToken(upper, t[1], t[2], t[3])])])
            if upper in KEYWORDS and not keyword_is_ident:
                self.i -= 1
                raise _Fail  # Lark knows how it lexes this keyword here
            return FastTree("name", [FastToken("IDENT", t[1], t[2], t[3])])
        raise _Fail

    def dotted_name(self) -> FastTree:
        parts = [self.name()]
        while self.at_punct("."):
            self.i += 1
            parts.append(self.name())
        return FastTree("dotted_name", parts)

    def table_name(self) -> FastTree:
        return FastTree("table_name", [self.dotted_name()])

    def target(self) -> FastTree:
        t = self._peek()
        if t is not None and t[0] == "S":
            self.i += 1
            return FastTree("path_string", [FastToken("STRING", t[1], t[2], t[3])])
        return FastTree("target", [self.table_name()])

    def column_list(self) -> FastTree:
        columns = [self.dotted_name()]
        while self.at_punct(","):
            self.i += 1
            columns.append(self.dotted_name())
        return FastTree("column_list", columns)

    def parenthesized(self, item) -> list:
        """`"(" item ("," item)* ")"`: the items (the punctuation makes no tree node)."""
        self.punct("(")
        items = [item()]
        while self.at_punct(","):
            self.i += 1
            items.append(item())
        self.punct(")")
        return items

    def where(self) -> FastTree:
        return FastTree("where", [self.keyword("WHERE"), self.terminal("C", "CONDITION")])

    def property_key(self) -> FastTree:
        t = self._peek()
        if t is not None and t[0] == "S":
            self.i += 1
            return FastTree("property_key", [FastToken("STRING", t[1], t[2], t[3])])
        return FastTree("property_key", [self.dotted_name()])

    # --- statements --------------------------------------------------------------------------
    def optimize(self) -> FastTree:
        children = [self.keyword("OPTIMIZE"), self.target()]
        if self.at_word("WHERE"):
            children.append(self.where())
        if self.at_word("ZORDER"):
            zorder = [self.keyword("ZORDER"), self.keyword("BY")]
            if self.at_punct("("):
                self.i += 1
                zorder.append(self.column_list())
                self.punct(")")
            else:
                zorder.append(self.column_list())
            children.append(FastTree("zorder", zorder))
        if self.at_word("FULL"):
            children.append(self.keyword("FULL"))
        return FastTree("optimize", children)

    def vacuum(self) -> FastTree:
        children = [self.keyword("VACUUM"), self.target()]
        if self.at_word("LITE", "FULL"):
            children.append(FastTree("vacuum_mode", [self.any_keyword("LITE", "FULL")]))
        if self.at_word("USING"):
            inventory = [self.keyword("USING"), self.keyword("INVENTORY")]
            if self.at_punct("("):
                self.i += 1
                inventory.append(self.terminal("C", "CONDITION"))
                self.punct(")")
            else:
                inventory.append(self.table_name())
            children.append(FastTree("inventory", inventory))
        while True:
            if self.at_word("RETAIN"):
                children.append(FastTree("retain", [self.keyword("RETAIN"), self.terminal("N", "NUMBER"),
                                                    self.keyword("HOURS")]))
            elif self.at_word("DRY"):
                children.append(FastTree("dry_run", [self.keyword("DRY"), self.keyword("RUN")]))
            else:
                break
        return FastTree("vacuum", children)

    def reorg(self) -> FastTree:
        children = [self.keyword("REORG"), self.keyword("TABLE"), self.target()]
        if self.at_word("WHERE"):
            children.append(self.where())
        children.append(self.keyword("APPLY"))
        self.punct("(")
        if self.at_word("PURGE"):
            children.append(FastTree("purge", [self.keyword("PURGE")]))
        else:
            upgrade = [self.keyword("UPGRADE"), self.keyword("UNIFORM")]
            self.punct("(")
            upgrade.append(self.keyword("ICEBERG_COMPAT_VERSION"))
            self.punct("=")
            upgrade.append(self.terminal("N", "NUMBER"))
            self.punct(")")
            children.append(FastTree("upgrade_uniform", upgrade))
        self.punct(")")
        return FastTree("reorg", children)

    def restore(self) -> FastTree:
        children = [self.keyword("RESTORE")]
        if self.at_word("TABLE"):
            children.append(self.keyword("TABLE"))
        children.append(self.target())
        if self.at_word("TO"):
            children.append(self.keyword("TO"))
        if self.at_word("VERSION"):
            point = FastTree("restore_version", [self.keyword("VERSION"), self.keyword("AS"), self.keyword("OF"),
                                                 self.terminal("N", "NUMBER")])
        else:
            point = FastTree("restore_timestamp", [self.keyword("TIMESTAMP"), self.keyword("AS"), self.keyword("OF"),
                                                   self.terminal("C", "CONDITION")])
        children.append(point)
        return FastTree("restore", children)

    def describe(self) -> FastTree:
        children = [self.any_keyword("DESCRIBE", "DESC"),
                    FastTree("describe_what", [self.any_keyword("HISTORY", "DETAIL")]), self.target()]
        if self.at_word("LIMIT"):
            children.append(FastTree("limit", [self.keyword("LIMIT"), self.terminal("N", "NUMBER")]))
        return FastTree("describe", children)

    def alter(self) -> FastTree:
        children = [self.keyword("ALTER"), self.keyword("TABLE")]
        t = self._peek()
        if t is not None and t[0] == "W":  # `ALTER TABLE table ...`: no keyword can come here
            first = self.name(keyword_is_ident=True)
            parts = [first]
            while self.at_punct("."):
                self.i += 1
                parts.append(self.name())
            children.append(FastTree("target", [FastTree("table_name", [FastTree("dotted_name", parts)])]))
        else:
            children.append(self.target())
        if self.at_word("UNSET"):
            action = [self.keyword("UNSET"), self.keyword("TBLPROPERTIES")]
            if self.at_word("IF"):
                action.append(FastTree("if_exists", [self.keyword("IF"), self.keyword("EXISTS")]))
            action += self.parenthesized(self.property_key)
            children.append(FastTree("unset_properties", action))
        elif self.at_word("DROP"):
            action = [self.keyword("DROP"), self.keyword("FEATURE")]
            t = self._peek()
            if t is not None and t[0] == "S":
                self.i += 1
                action.append(FastTree("feature_name", [FastToken("STRING", t[1], t[2], t[3])]))
            else:
                action.append(FastTree("feature_name", [self.name()]))
            if self.at_word("TRUNCATE"):
                action.append(FastTree("truncate_history", [self.keyword("TRUNCATE"), self.keyword("HISTORY")]))
            children.append(FastTree("drop_feature", action))
        elif self.at_word("ENABLE", "DISABLE", "INHERIT"):
            children.append(FastTree("predictive_optimization", [
                self.any_keyword("ENABLE", "DISABLE", "INHERIT"), self.keyword("PREDICTIVE"),
                self.keyword("OPTIMIZATION")]))
        elif self.at_word("CHANGE", "ALTER"):
            action = [self.any_keyword("CHANGE", "ALTER")]
            if self.at_word("COLUMN") and self._name_follows():  # (the grammar shifts), else COLUMN is the name
                action.append(self.keyword("COLUMN"))
            action.append(self.dotted_name())
            while self._peek() is not None and not self.at_punct(";"):
                action.append(self.inner())
            children.append(FastTree("change_column", action))
        else:
            raise _Fail
        return FastTree("alter", children)

    def inner(self):
        """One `inner` of CHANGE COLUMN's tail: after its name every keyword is lexed as itself."""
        t = self._peek()
        if t is None:
            raise _Fail
        kind = t[0]
        if kind == "P":
            if t[1] == "(":
                self.i += 1
                items = []
                while not self.at_punct(")"):
                    if self._peek() is None or self.at_punct(";"):
                        raise _Fail
                    items.append(self.inner())
                self.i += 1
                return items[0] if len(items) == 1 else FastTree("inner", items)  # `?inner` inlines one child
            if t[1] in ",.=":
                self.i += 1
                return FastTree("inner", [])  # anonymous tokens are filtered out: an empty `inner`
            raise _Fail
        self.i += 1
        if kind == "W":
            upper = t[1].upper()
            if upper in KEYWORDS_AS_NAMES:
                return FastTree("keyword_as_name", [FastToken(upper, t[1], t[2], t[3])])
            if upper in KEYWORDS:
                return FastToken(upper, t[1], t[2], t[3])
            return FastToken("IDENT", t[1], t[2], t[3])
        types = {"B": "BACKTICKED", "S": "STRING", "N": "NUMBER", "O": "OPERATOR"}
        if kind not in types:
            raise _Fail
        return FastToken(types[kind], t[1], t[2], t[3])

    def create_clone(self) -> FastTree:
        if self.at_word("CREATE"):
            children = [self.keyword("CREATE")]
            if self.at_word("OR"):
                children += [self.keyword("OR"), self.keyword("REPLACE")]
        else:
            children = [self.keyword("REPLACE")]
        children.append(self.keyword("TABLE"))
        if self.at_word("IF"):
            children.append(FastTree("if_not_exists", [self.keyword("IF"), self.keyword("NOT"), self.keyword("EXISTS")]))
        children.append(self.table_name())
        if self.at_word("SHALLOW", "DEEP"):
            children.append(self.any_keyword("SHALLOW", "DEEP"))
        children.append(self.keyword("CLONE"))
        ref = [self.target()]
        if self.at_word("VERSION"):
            ref += [self.keyword("VERSION"), self.keyword("AS"), self.keyword("OF"), self.terminal("N", "NUMBER")]
        elif self.at_word("TIMESTAMP"):
            ref += [self.keyword("TIMESTAMP"), self.keyword("AS"), self.keyword("OF"), self.terminal("C", "CONDITION")]
        children.append(FastTree("table_ref", ref))
        while True:
            if self.at_word("TBLPROPERTIES"):
                tail = [self.keyword("TBLPROPERTIES"), *self.parenthesized(self.property)]
                children.append(FastTree("clone_properties", tail))
            elif self.at_word("LOCATION"):
                children.append(FastTree("clone_location", [self.keyword("LOCATION"), self.terminal("S", "STRING")]))
            else:
                break
        return FastTree("create_clone", children)

    def property(self) -> FastTree:
        key = self.property_key()
        if self.at_punct("="):
            self.i += 1
        t = self._peek()
        if t is not None and t[0] in ("S", "N"):
            self.i += 1
            value = FastToken("STRING" if t[0] == "S" else "NUMBER", t[1], t[2], t[3])
        else:
            value = self.name()
        return FastTree("property", [key, value])

    def convert(self) -> FastTree:
        children = [self.keyword("CONVERT"), self.keyword("TO"), self.name(), self.target()]
        if self.at_word("NO"):
            children.append(FastTree("convert_no_statistics", [self.keyword("NO"), self.keyword("STATISTICS")]))
        if self.at_word("PARTITIONED"):
            partitions = [self.keyword("PARTITIONED"), self.keyword("BY"), *self.parenthesized(self.convert_column)]
            children.append(FastTree("convert_partitions", partitions))
        return FastTree("convert", children)

    def convert_column(self) -> FastTree:
        column = [self.name()]
        if not self.at_punct(",") and not self.at_punct(")"):
            type_name = [self.name()]
            if self.at_punct("("):
                self.i += 1
                type_name.append(self.terminal("N", "NUMBER"))
                if self.at_punct(","):
                    self.i += 1
                    type_name.append(self.terminal("N", "NUMBER"))
                self.punct(")")
            column.append(FastTree("type_name", type_name))
        return FastTree("convert_column", column)


_STATEMENTS = {
    "OPTIMIZE": _Reader.optimize, "VACUUM": _Reader.vacuum, "REORG": _Reader.reorg, "RESTORE": _Reader.restore,
    "DESCRIBE": _Reader.describe, "DESC": _Reader.describe, "ALTER": _Reader.alter,
    "CREATE": _Reader.create_clone, "REPLACE": _Reader.create_clone, "CONVERT": _Reader.convert,
}


def fast_parse(lark_text: str) -> Optional[FastTree]:
    """The tree the grammar gives for `lark_text` (a prepared statement), or None when this
    fast path is not sure (then ask Lark)."""
    toks = _tokens(lark_text)
    if not toks or toks[0][0] != "W":
        return None
    rule = _STATEMENTS.get(toks[0][1].upper())
    if rule is None:
        return None
    reader = _Reader(toks)
    try:
        tree = rule(reader)
    except _Fail:
        return None
    if reader.at_punct(";"):
        reader.i += 1
    return tree if reader.i == len(toks) else None
