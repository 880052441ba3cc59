"""The Lark grammar (`grammar/delta.lark`) for the Delta statements sqlglot cannot read
(OPTIMIZE, VACUUM, REORG, RESTORE, CONVERT, GENERATE, DESCRIBE HISTORY/DETAIL, ALTER TABLE UNSET
TBLPROPERTIES / DROP FEATURE / PREDICTIVE OPTIMIZATION / CHANGE COLUMN, CREATE TABLE ... CLONE),
the statements that write no Delta table in Spark's forms (SHOW, USE, REFRESH, DROP TABLE, ...)
and Databricks' BEGIN TRANSACTION / COMMIT / ROLLBACK: `prepare` and the tree -> model builder.
(grammar_reader feeds the parser the scanner's tokens.)

The grammar is LALR(1) with Lark's contextual lexer. Its parser is `generated_parser.py`, made
from delta.lark by Lark's standalone generator and committed (tests/sql/test_grammar.py
regenerates it and checks that it is the same, so the two cannot drift apart):

    make grammar        # python -m tests.sql.generate_parser

Loading it is importing a module: no grammar to compile, no cache file, and Lark itself is
not needed at run time. The grammar sees the clause skeleton only: `prepare` finds where a
WHERE condition ends from the statement's depth-0 keywords and blanks the condition out (same
length) before Lark runs. Conditions and other expressions are parsed by sqlglot from the
statement text, so every statement carries sqlglot expressions whichever parser read it.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

from sqlglot import exp
from sqlglot.errors import ParseError as SqlglotParseError
from sqlglot.errors import TokenError

from acidsql.sql.expressions import bind_parameters, plain_sqlglot
from acidsql.sql.build import is_path, parse_one_sql, plain_raw_strings
from acidsql.sql.databricks_only import note as databricks_note
from acidsql.sql.model import (
    AlterAction, AlterTable, BeginTransaction, ColumnChange, ColumnDef, CommitTransaction, ConvertToDelta, CreateTable,
    Describe, DescribeWhat, Optimize, OtherStatement, Reorg, ReorgApply, Restore, RollbackTransaction, Span, TableRef,
    Vacuum,
)
from acidsql.sql.scanner import name_end, scan, tokens

if TYPE_CHECKING:  # the generated parser is imported on first use: scripts without Delta statements never need it
    from acidsql.sql.generated_parser import Lark, Token

GRAMMAR = Path(__file__).resolve().parent / "grammar" / "delta.lark"
CONDITION_CHAR = "\x1a"  # what a blanked-out WHERE condition is made of (terminal CONDITION)

_parser: Optional["Lark"] = None


class _NoLexer:
    """Stands in for Lark's contextual lexer, which acidsql does not use: the parser is fed the
    scanner's tokens (grammar_reader), so the lexer Lark would build at load is not built."""

    def __init__(self, *_args, **_kwargs) -> None:
        pass


def grammar() -> "Lark":
    """The LALR parser of delta.lark (from the generated module), made on first use."""
    global _parser
    if _parser is None:
        from acidsql.sql.generated_parser import Lark_StandAlone

        _parser = Lark_StandAlone(_plugins={"ContextualLexer": _NoLexer})
    return _parser


# -- cutting expressions out ----------------------------------------------------------------

_PREPARED = frozenset({"OPTIMIZE", "REORG", "RESTORE", "VACUUM", "CREATE", "REPLACE", "ALTER"})


class Prepared:
    """A statement made ready for the grammar: `lark_text` is `text` with each expression (at
    the [start, end) ranges in `spans`) overwritten by CONDITION characters, same length."""

    __slots__ = ("text", "lark_text", "spans")

    def __init__(self, text: str, lark_text: str, spans: tuple[tuple[int, int], ...] = ()):
        self.text = text
        self.lark_text = lark_text
        self.spans = spans


def prepare(text: str, seq: list, first_word: str) -> Prepared:
    """Blank out, for the grammar, the expressions of
      OPTIMIZE t WHERE cond [ZORDER BY ...] [FULL]     REORG TABLE t WHERE cond APPLY (...)
      RESTORE t TO TIMESTAMP AS OF expr                VACUUM t USING INVENTORY (query) ...
      CREATE TABLE t SHALLOW CLONE s TIMESTAMP AS OF expr [TBLPROPERTIES (...)] [LOCATION '...']
    A WHERE condition runs from the first depth-0 WHERE to the last depth-0 `ZORDER BY` (else a
    `FULL` that ends the statement) for OPTIMIZE, to the last depth-0 `APPLY (` for REORG, else
    to the end: so a column named `apply`, `zorder` or `full` inside it is read as a column. A
    `)` that closes nothing ends it too. TIMESTAMP AS OF runs to the end (for CLONE, to a depth-0
    TBLPROPERTIES or LOCATION), the inventory query to its closing parenthesis. `seq` is the
    statement's tokens (scanner.tokens), so nothing inside strings, quoted names or comments counts."""
    if first_word not in _PREPARED:
        return Prepared(text, text)
    if first_word == "ALTER":
        return _prepare_change_column(text, seq)
    start = None  # where the expression starts (after WHERE / AS OF / the inventory's `(`)
    end = None
    inventory_paren = False  # INVENTORY seen, its `(` next
    ends: list[tuple[str, int]] = []  # depth-0 words that can end a WHERE condition
    clone = first_word in ("CREATE", "REPLACE")
    for k, token in enumerate(seq):
        if token.kind == "symbol":
            if token.upper == "(" and inventory_paren:
                start, inventory_paren = token.end, False
            elif token.upper == ")" and start is not None and token.depth <= 0 and (
                    first_word == "VACUUM" or token.depth < 0):
                end = token.start  # the inventory query's `)`, or a `)` closing nothing
                break
            continue
        if token.kind != "word" or token.depth != 0 or (k > 0 and seq[k - 1].upper == "." and seq[k - 1].end == token.start):
            continue  # (a word right after a dot is part of a name)
        phrase = _clause_phrase(seq, k)
        if phrase is None:
            continue
        word, phrase_end = phrase
        if start is None:
            if (word == "WHERE" and first_word in ("OPTIMIZE", "REORG")) or (
                    word == "TIMESTAMP" and (first_word == "RESTORE" or clone)):
                start = phrase_end
            elif word == "INVENTORY" and first_word == "VACUUM":
                inventory_paren = True
        elif clone and word in ("TBLPROPERTIES", "LOCATION"):
            end = token.start
            break
        elif (word == "ZORDER" and first_word == "OPTIMIZE") or (word == "APPLY" and first_word == "REORG") or (
                word == "FULL" and first_word == "OPTIMIZE" and k == len(seq) - 1):
            ends.append((word[0], token.start))
    if start is None:
        return Prepared(text, text)
    if end is None:
        zorder = [at for word, at in ends if word == "Z"]
        end = zorder[-1] if zorder else (ends[-1][1] if ends else len(text))
    inside = [t for t in seq if start <= t.start and t.end <= end]  # (comments are no tokens)
    if not inside:  # nothing there: the grammar says what is missing
        return Prepared(text, text)
    start, end = inside[0].start, inside[-1].end
    return Prepared(text, text[:start] + CONDITION_CHAR * (end - start) + text[end:], ((start, end),))


def _prepare_change_column(text: str, seq: list) -> Prepared:
    """ALTER TABLE t CHANGE | ALTER [COLUMN] c <rest>: the rest blanked (read by the builder)."""
    k = name_end(seq, 4 if [t.upper for t in seq[2:4]] == ["IF", "EXISTS"] else 2)
    if k is None or k >= len(seq) or seq[k].upper not in ("CHANGE", "ALTER"):
        return Prepared(text, text)
    k += 1
    if k + 1 < len(seq) and seq[k].upper == "COLUMN" and seq[k + 1].kind in ("word", "quoted"):
        k += 1
    end = name_end(seq, k)
    if end is None or end >= len(seq):
        return Prepared(text, text)
    start, stop = seq[end].start, seq[-1].end
    return Prepared(text, text[:start] + CONDITION_CHAR * (stop - start) + text[stop:], ((start, stop),))


def _clause_phrase(seq: list, k: int) -> Optional[tuple[str, int]]:
    """(first word, end offset) of the clause phrase starting at seq[k], if one does: WHERE,
    ZORDER BY, APPLY (, FULL, TIMESTAMP AS OF, INVENTORY (, TBLPROPERTIES, LOCATION."""
    word = seq[k].upper
    after = [t.upper for t in seq[k + 1:k + 3]]
    if word in ("WHERE", "FULL", "TBLPROPERTIES", "LOCATION"):
        return word, seq[k].end
    if word == "ZORDER" and after[:1] == ["BY"]:
        return word, seq[k + 1].end
    if word in ("APPLY", "INVENTORY") and after[:1] == ["("]:
        return word, seq[k].end
    if word == "TIMESTAMP" and after == ["AS", "OF"]:
        return word, seq[k + 2].end
    return None


# -- the tree -> the model -----------------------------------------------------------------

_TRANSACTIONS = {"begin_transaction": BeginTransaction, "commit": CommitTransaction, "rollback": RollbackTransaction}
# The grammar's statements that write no Delta table (see `command` in delta.lark).
_COMMANDS = frozenset({"show", "use", "use_catalog", "set_catalog", "refresh", "uncache", "clear_cache", "repair",
                       "drop", "create_namespace", "alter_namespace", "describe_other", "comment_on", "analyze",
                       "load_data", "alter_view"})


class ExpressionError(Exception):
    """sqlglot could not read an expression of a grammar statement; `offset` is in the statement."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


# Lark's Token is a str subclass and its Tree is not: the builder tells them apart that way, so
# that this module does not import lark before a Delta statement needs it.


# The builder walks children directly (Tree.find_data visits every subtree: slow).


def _name_part(name) -> tuple[str, bool]:
    """(text, quoted) of a `name` tree (IDENT, BACKTICKED, or a keyword_as_name tree)."""
    token = name.children[0]
    if not isinstance(token, str):
        token = token.children[0]
    if token.type == "BACKTICKED":
        return token.value[1:-1].replace("``", "`"), True
    return token.value, False


def _name_parts(tree) -> list[tuple[str, bool]]:
    """(text, quoted) for each part of a dotted_name."""
    return [_name_part(name) for name in tree.children if not isinstance(name, str)]


def _dotted(tree) -> str:
    return ".".join(text for text, _quoted in _name_parts(tree))


def _target(tree) -> TableRef:
    if tree.data == "path_string":
        return TableRef(path=_unquote(tree.children[0].value))
    while tree.data != "dotted_name":  # target -> table_name -> dotted_name
        tree = tree.children[0]
    parts = _name_parts(tree)
    if len(parts) == 2 and parts[0][0].lower() == "delta" and parts[1][1] and is_path(parts[1][0]):
        return TableRef(path=parts[1][0])
    return TableRef(parts=tuple(text if quoted else text.lower() for text, quoted in parts))


def _unquote(text: str) -> str:
    if text[0] in "rR":  # a raw string: no escapes
        return text[2:-1]
    quote = text[0]
    body = text[1:-1]
    return body.replace(quote * 2, quote).replace("\\" + quote, quote)


def _find(tree, data: str):
    return next((c for c in tree.children if not isinstance(c, str) and c.data == data), None)


def _all(tree, data: str) -> list:
    return [c for c in tree.children if not isinstance(c, str) and c.data == data]


def _has(tree, token_type: str) -> bool:
    return any(isinstance(c, str) and c.type == token_type for c in tree.children)


def _number(tree) -> str:
    return next(t for t in tree.children if isinstance(t, str) and t.type == "NUMBER").value


class GrammarStatementBuilder:
    """Turns one Lark tree into a model statement; `text` is the statement's source, `source`
    the same text as sqlglot should read its expressions (same length; see parser). With
    `params`, parameter markers in expressions are bound (see expressions.bind_parameters)."""

    def __init__(self, text: str, span: Span, params=None, source: Optional[str] = None, raw_strings: bool = False,
                 seq: Optional[list] = None):
        self.text = text
        self.seq = seq if seq is not None else list(tokens(scan(text).masked))
        self.span = span
        self.params = params
        self.source = text if source is None else source
        self.raw_strings = raw_strings

    def sub_expression(self, token: "Token"):
        """The sqlglot expression of a CONDITION token (an expression blanked by `prepare`)."""
        start, end = token.start_pos, token.end_pos
        source = self.source[start:end]
        try:
            expression = parse_one_sql(source)
        except SqlglotParseError as error:
            info = error.errors[0] if error.errors else {}
            offset = start + len(info.get("start_context") or "")

            raise ExpressionError(f"bad expression: {plain_sqlglot(info) if info else error}", offset) from None
        except TokenError:
            raise ExpressionError("bad expression: unterminated string or quoted identifier", start) from None
        if isinstance(expression, exp.Alias):  # `a b` / `a @b`: sqlglot reads an alias, SQL has none here
            alias = expression.args["alias"]
            at = (alias.meta or {}).get("start")
            if at is None:
                at = max(source.rfind(alias.name), 0) if alias.name else 0
                while at > 0 and source[at - 1] in "@:$":
                    at -= 1
            word = source[at:].split(None, 1)
            raise ExpressionError(f"bad expression: unexpected '{word[0] if word else alias.name}'", start + at)
        if self.raw_strings:
            expression = plain_raw_strings(expression)
        if self.params:

            expression = bind_parameters(expression, self.params)
        return expression

    def build(self, tree):
        common = dict(text=self.text, span=self.span)
        kind = tree.data
        target_tree = next((c for c in tree.children if not isinstance(c, str) and c.data in ("target", "path_string", "table_name")), None)
        target = _target(target_tree) if target_tree is not None else None
        where_tree = _find(tree, "where")
        where = self.sub_expression(where_tree.children[1]) if where_tree is not None else None
        if kind == "optimize":
            zorder = _find(tree, "zorder")
            columns = tuple(_dotted(d) for d in _find(zorder, "column_list").children) if zorder is not None else ()
            return Optimize(target=target, where=where, zorder_by=columns, full=_has(tree, "FULL"), **common)
        if kind == "vacuum":
            retain = _find(tree, "retain")
            mode = _find(tree, "vacuum_mode")
            return Vacuum(
                target=target, retain_hours=_hours(retain.children[1]) if retain is not None else None,
                dry_run=_find(tree, "dry_run") is not None,
                lite=mode is not None and _has(mode, "LITE"), **common,
            )
        if kind == "reorg":
            upgrade = _find(tree, "upgrade_uniform")
            if upgrade is not None:
                return Reorg(target=target, where=where, apply=ReorgApply.UPGRADE_UNIFORM,
                             iceberg_compat_version=int(_number(upgrade)), **common)
            return Reorg(target=target, where=where, apply=ReorgApply.PURGE, **common)
        if kind == "restore":
            version = _find(tree, "restore_version")
            if version is not None:
                return Restore(target=target, version=int(_number(version)), **common)
            stamp = _find(tree, "restore_timestamp")
            timestamp = self.sub_expression(stamp.children[-1])
            notes = ()
            if not (isinstance(timestamp, exp.Literal) and timestamp.is_string):
                notes = (databricks_note("restore_timestamp_expression"),)
            return Restore(target=target, timestamp=timestamp, notes=notes, **common)
        if kind == "describe":
            what_tree = _find(tree, "describe_what")
            what = DescribeWhat.HISTORY if _has(what_tree, "HISTORY") else DescribeWhat.DETAIL
            limit = _find(tree, "limit")
            return Describe(target=target, what=what,
                            limit=int(limit.children[1].value) if limit is not None else None, **common)
        if kind == "alter":
            return self._alter(tree, target, common)
        if kind == "create_clone":
            return self._clone(tree, common)
        if kind == "convert":
            return self._convert(tree, common)
        if kind in _TRANSACTIONS:
            return _TRANSACTIONS[kind](notes=(databricks_note(kind),), target=None, **common)
        if kind == "generate":
            mode = _name_part(_find(tree, "name"))[0]
            return OtherStatement(target=target, command=f"GENERATE {mode}",
                                  note=f"GENERATE {mode} writes manifest files, not a Delta commit: no conflict effect",
                                  **common)
        if kind == "comment_on" and _has(tree, "TABLE"):
            return AlterTable(target=_target(_find(tree, "dotted_name")), action=AlterAction.OTHER,
                              detail="COMMENT ON TABLE", notes=("acidsql reads COMMENT ON TABLE as a metadata change",),
                              **common)
        if kind in _COMMANDS:
            from acidsql.sql.commands import passthrough

            notes = (databricks_note("use_catalog"),) if kind == "use_catalog" else ()
            return passthrough(self.text, self.seq, self.span, notes)
        raise ValueError(f"no builder for {kind}")  # the grammar and this builder disagree

    def _alter(self, tree, target: TableRef, common: dict):
        action = tree.children[-1]
        if action.data == "unset_properties":
            keys = []
            for key in _all(action, "property_key"):
                token = key.children[0]
                keys.append(_unquote(token.value) if isinstance(token, str) else _dotted(token))
            return AlterTable(target=target, action=AlterAction.UNSET_PROPERTIES, property_keys=tuple(keys),
                              if_exists=_find(action, "if_exists") is not None, **common)
        if action.data == "drop_feature":
            feature = _find(action, "feature_name").children[0]
            name = _unquote(feature.value) if isinstance(feature, str) else _name_part(feature)[0]
            return AlterTable(target=target, action=AlterAction.DROP_FEATURE, feature=name,
                              truncate_history=_find(action, "truncate_history") is not None, **common)
        if action.data == "predictive_optimization":
            verb = action.children[0].value.upper()
            return OtherStatement(target=target, note=f"ALTER TABLE ... {verb} PREDICTIVE OPTIMIZATION: no commit",
                                  command="ALTER TABLE", notes=(databricks_note("predictive_optimization"),), **common)
        column = _dotted(_find(action, "dotted_name"))
        rest = next((t for t in action.children if isinstance(t, str) and t.type == "CONDITION"), None)
        if rest is None:
            raise ExpressionError(f"[_LEGACY_ERROR_TEMP_0035] Operation not allowed: ALTER TABLE ... "
                                  f"{action.children[0].value.upper()} COLUMN {column} without what to change", 0)
        words = _words(self.text[rest.start_pos:rest.end_pos])
        tail = [w.value.upper() for w in words]
        if tail[-2:] == ["NOT", "NULL"] and tail[-3:-2] not in (["DROP"], ["SET"]):
            raise ExpressionError("[_LEGACY_ERROR_TEMP_0034] Operation not allowed: ALTER TABLE ... CHANGE COLUMN with "
                                  "NOT NULL (Delta adds a NOT NULL constraint with ALTER COLUMN ... SET NOT NULL)", 0)
        notes = ()
        if "." in column:
            notes = (databricks_note("nested_change_column"),)
        change = _column_change(column, words)
        if change is not None:
            return AlterTable(target=target, action=AlterAction.CHANGE_COLUMN, column_change=change,
                              detail=f"CHANGE COLUMN {column}", notes=notes, **common)
        return AlterTable(target=target, action=AlterAction.OTHER, detail=f"CHANGE COLUMN {column}", notes=notes, **common)

    def _clone(self, tree, common: dict):
        name_tree = _find(tree, "table_name")
        target = _target(name_tree)
        ref_tree = _find(tree, "table_ref")
        clone_of = _target(next(c for c in ref_tree.children if not isinstance(c, str)))
        version = next((t for t in ref_tree.children if isinstance(t, str) and t.type == "NUMBER"), None)
        timestamp = next((t for t in ref_tree.children if isinstance(t, str) and t.type == "CONDITION"), None)
        if version is not None:
            clone_of = TableRef(parts=clone_of.parts, path=clone_of.path, version_as_of=int(version.value))
        elif timestamp is not None:
            clone_of = TableRef(parts=clone_of.parts, path=clone_of.path, timestamp_as_of=self.sub_expression(timestamp))
        properties = []
        for prop in (p for tail in _all(tree, "clone_properties") for p in _all(tail, "property")):
            key = prop.children[0].children[0]
            key_text = _unquote(key.value) if isinstance(key, str) else _dotted(key)
            value = prop.children[-1]
            value_text = _unquote(value.value) if isinstance(value, str) and value.type == "STRING" else (
                value.value if isinstance(value, str) else _name_part(value)[0])
            properties.append((key_text, value_text))
        location = _find(tree, "clone_location")
        create = _has(tree, "CREATE")
        notes = () if _has(tree, "SHALLOW") or _has(tree, "DEEP") else (databricks_note("clone_default_deep"),)
        return CreateTable(
            target=target, or_replace=create and _has(tree, "REPLACE"), replace_only=not create,
            if_not_exists=_find(tree, "if_not_exists") is not None, properties=tuple(properties),
            location=_unquote(location.children[1].value) if location is not None else None,
            clone_of=clone_of, notes=notes, **common,
        )


    def _convert(self, tree, common: dict):
        word_tree = _find(tree, "name")
        word, _quoted = _name_part(word_tree)
        if word.upper() != "DELTA":
            token = word_tree.children[0]
            at = getattr(token, "start_pos", None) or 0
            raise ExpressionError(f"expected DELTA after CONVERT TO, not {word!r}", at)
        target_tree = _find(tree, "target")
        while target_tree.data != "dotted_name":
            target_tree = target_tree.children[0]
        parts = _name_parts(target_tree)
        source_format = "parquet"
        if len(parts) == 2 and parts[0][0].lower() in ("parquet", "iceberg") and parts[1][1]:
            source_format = parts[0][0].lower()
            target = TableRef(path=parts[1][0])
        else:  # a catalog table stored as Parquet
            target = TableRef(parts=tuple(text if quoted else text.lower() for text, quoted in parts))
        columns = []
        partitions = _find(tree, "convert_partitions")
        for column in _all(partitions, "convert_column") if partitions is not None else ():
            name = _name_part(_find(column, "name"))[0]
            type_tree = _find(column, "type_name")
            type_text = ""
            if type_tree is not None:
                type_text = _name_part(_find(type_tree, "name"))[0].upper()
                numbers = [t.value for t in type_tree.children if isinstance(t, str) and t.type == "NUMBER"]
                if numbers:
                    type_text += "(" + ",".join(numbers) + ")"
            columns.append(ColumnDef(name=name, type=type_text))
        return ConvertToDelta(target=target, source_format=source_format, partitioned_by=tuple(columns),
                              no_statistics=_find(tree, "convert_no_statistics") is not None, **common)


class _Word:
    """A word of CHANGE COLUMN's rest: `type` as the grammar's terminals name them (IDENT,
    BACKTICKED, STRING, NUMBER, OPERATOR), GROUP for a parenthesised group (DECIMAL(10, 2): "(10,2)")."""

    def __init__(self, type_: str, value: str):
        self.type = type_
        self.value = value


_WORD_TYPES = {"word": "IDENT", "quoted": "BACKTICKED", "string": "STRING", "number": "NUMBER"}


def _words(text: str) -> list[_Word]:
    """CHANGE COLUMN's rest as words, each parenthesised group as one."""
    words: list[_Word] = []
    group: Optional[list[str]] = None
    for token in tokens(scan(text).masked):
        value = text[token.start:token.end]
        if token.upper == "(" and token.depth == 0:
            group = []
        elif token.upper == ")" and token.depth == 0 and group is not None:
            words.append(_Word("GROUP", "(" + ",".join(v for v in group if v != ",") + ")"))
            group = None
        elif group is not None:
            group.append(value)
        else:
            words.append(_Word(_WORD_TYPES.get(token.kind, "OPERATOR"), value))
    return words


def _column_change(column: str, words: list[_Word]) -> Optional[ColumnChange]:
    """CHANGE | ALTER COLUMN c [c [type]] [COMMENT 'x'] [FIRST | AFTER d], or ... DROP NOT NULL:
    the metadata-only column changes; None for anything else (a rename, a new type, defaults)."""
    texts = [w.value.upper() if w.type != "STRING" else w.value for w in words]
    if texts == ["DROP", "NOT", "NULL"]:
        return ColumnChange(column=column, drop_not_null=True)
    comment = position = type_text = None
    i = 0
    if i < len(words) and words[i].type in ("IDENT", "BACKTICKED") and texts[i] not in ("COMMENT", "FIRST", "AFTER"):
        new_name = words[i].value.strip("`")
        if new_name.lower() != column.split(".")[-1].lower():
            return None  # a rename
        i += 1
        if i < len(words) and words[i].type == "IDENT" and texts[i] not in ("COMMENT", "FIRST", "AFTER"):
            type_text, i = texts[i], i + 1
            if i < len(words) and words[i].type == "GROUP":  # DECIMAL(10, 2)
                type_text, i = type_text + words[i].value, i + 1
    while i < len(words):
        if texts[i] == "COMMENT" and i + 1 < len(words) and words[i + 1].type == "STRING":
            comment, i = _unquote(words[i + 1].value), i + 2
        elif texts[i] == "FIRST":
            position, i = "FIRST", i + 1
        elif texts[i] == "AFTER" and i + 1 < len(words):
            position, i = f"AFTER {words[i + 1].value.strip('`')}", i + 2
        else:
            return None
    if comment is None and position is None:
        return None
    return ColumnChange(column=column, comment=comment, position=position, type=type_text)


def _hours(token) -> float:
    """RETAIN n HOURS: the grammar's NUMBER also lexes `0a` (a number glued to a word)."""
    try:
        return float(token.value)
    except ValueError:
        raise ExpressionError(f"RETAIN expects a number of hours, not {token.value!r}", token.start_pos or 0) from None
