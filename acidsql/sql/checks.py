"""What Spark's parser (and Delta's, at the statement's first reading) refuses and sqlglot reads
anyway: each a positioned StatementError with Spark's or Delta's error class where it has one.

On the statement's tokens (scanner.tokens): WHEN MATCHED without THEN, UPDATE without SET in
MERGE, WHERE before SET in UPDATE, VALUE for VALUES. On sqlglot's tree: double-quoted names
(a string in Spark SQL), a string as a table name. On the model: a MERGE clause without a
condition before the last clause of its kind, a column set twice in one UPDATE or MERGE clause.
"""
from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Optional

from sqlglot import exp

from acidsql.sql.databricks_only import note as databricks_note
from acidsql.sql.failure import StatementError
from acidsql.sql.literals import check_interval, check_typed_literal
from acidsql.sql.model import AlterAction, AlterTable, Merge, MergeAction, MergeMatch, TableRef, Update
from acidsql.sql.scanner import Token, name_end

_CLAUSE_WORDS = frozenset({"THEN", "UPDATE", "DELETE", "INSERT", "WHEN"})


_TYPED_LITERALS = frozenset({"DATE", "TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ"})
_CREATE_CLAUSES = frozenset({"PARTITIONED", "CLUSTER", "CLUSTERED", "LOCATION", "COMMENT", "TBLPROPERTIES", "OPTIONS",
                             "ROW", "STORED", "SKEWED"})
# Spark's functions whose first argument is a datetime unit, written as a name (DAY), not a string.
_UNIT_FUNCTIONS = frozenset({"DATEADD", "DATE_ADD", "DATEDIFF", "DATE_DIFF", "TIMESTAMPADD", "TIMESTAMPDIFF",
                             "TIMEDIFF"})


def check_statement_tokens(seq: list[Token], head: list[Token], text: str) -> tuple[str, ...]:
    """Checks on the statement's tokens; returns the Databricks-only notes they show."""
    notes: list[str] = []
    first = head[0].upper
    if first in ("MAP", "REDUCE"):
        raise StatementError(f"acidsql does not read Hive's {first} ... USING 'script' transform queries", 0)
    if first == "MERGE" or (first == "WITH" and any(t.upper == "MERGE" and t.kind == "word" for t in seq)):
        _merge_clause_words(seq)
    elif first == "UPDATE":
        where = next((t for t in seq if t.depth == 0 and t.upper == "WHERE"), None)
        set_ = next((t for t in seq if t.depth == 0 and t.upper == "SET"), None)
        if where is not None and set_ is not None and where.start < set_.start:
            raise StatementError("SET must come before WHERE in UPDATE", set_.start)
    elif first in ("CREATE", "REPLACE"):
        _create_clause_order(seq)
        notes += _create_function(seq)
        if any(t.upper == "TIMESERIES" for t in seq):
            notes.append(databricks_note("informational_constraints"))
    for k, token in enumerate(seq):
        word = token.upper
        if word in _TRIGGERS:
            _check_token(seq, k, token, word, first, text)
        elif token.kind == "number" and (len(word) > 18 or word[-1].isalpha() or "e" in word or "E" in word):
            check_number(token, seq[k - 1] if k > 0 else None)
    return tuple(notes)


_PYTHON_UDF_WORDS = frozenset({"LANGUAGE", "ENVIRONMENT", "HANDLER", "PARAMETER"})


def _create_function(seq: list[Token]) -> list[str]:
    """CREATE [OR REPLACE] [TEMPORARY] FUNCTION [IF NOT EXISTS] name AS 'class' ...: the class is
    a string. Databricks' Python functions (LANGUAGE PYTHON, ENVIRONMENT, HANDLER, PARAMETER
    STYLE) are noted."""
    at = next((k for k, t in enumerate(seq[:7]) if t.upper == "FUNCTION" and t.kind == "word"), None)
    if at is None:
        return []
    k = at + 1
    if [t.upper for t in seq[k:k + 3]] == ["IF", "NOT", "EXISTS"]:
        k += 3
    k = name_end(seq, k) or k + 1
    if k + 1 < len(seq) and seq[k].upper == "AS" and seq[k + 1].kind != "string":
        raise _syntax_error(seq[k + 1], seq[k], "CREATE FUNCTION name AS takes the class name as a string")
    python = any(t.kind == "word" and t.depth == 0 and t.upper in _PYTHON_UDF_WORDS for t in seq)
    return [databricks_note("python_udf")] if python else []


# The tokens some check starts at (every other token is passed over at once).
# Words a table name follows: a string after one is no table name (sqlglot reads one).
_TABLE_WORDS = frozenset({"FROM", "JOIN", "INTO", "UPDATE", "TABLE"})
_TRIGGERS = frozenset({"VALUE", "VALUES", "EXCEPT", "FILTER", "INTERVAL", "{", "."}) | _TYPED_LITERALS | _UNIT_FUNCTIONS \
    | _TABLE_WORDS


def _check_token(seq: list[Token], k: int, token: Token, word: str, first: str, text: str) -> None:
    following = seq[k + 1] if k + 1 < len(seq) else None
    if token.kind == "word":
        if word in _TABLE_WORDS:  # (a double-quoted one is left to the tree check, which says why)
            if following is not None and following.kind == "string" and token.depth == 0 and '"' not in following.upper:
                raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{text[following.start:following.end]}'"
                                     ": a table name is not a string", following.start)
        elif word == "VALUE" and following is not None and following.upper == "(" and first in (
                "INSERT", "MERGE", "WITH", "FROM"):
            at = seq[k + 2] if k + 2 < len(seq) else following
            raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{at.upper}': VALUE is no "
                                 "keyword of Spark SQL (VALUES is)", at.start)
        if word == "EXCEPT" and k > 0 and seq[k - 1].upper == "*":
            if following is None or following.upper != "(":
                raise _syntax_error(following, token, "* EXCEPT takes its columns in parentheses")
            if k + 2 < len(seq) and seq[k + 2].upper == ")":
                raise _syntax_error(seq[k + 2], token, "* EXCEPT takes at least one column")
        elif word == "FILTER" and k > 0 and seq[k - 1].upper == ")" and following is not None and \
                following.upper == "(" and (k + 2 >= len(seq) or seq[k + 2].upper != "WHERE"):
            raise _syntax_error(seq[k + 2] if k + 2 < len(seq) else None, following,
                                "an aggregate's FILTER takes (WHERE condition)")
        elif word == "VALUES" and following is not None and following.upper == "(":
            _values_arity(seq, k)
        elif word in _TYPED_LITERALS and following is not None and following.upper == "(" and k and (
                seq[k - 1].upper in ("AS", "::") or (first in ("CREATE", "REPLACE", "ALTER") and seq[k - 1].kind == "word")):
            raise StatementError(f"[UNSUPPORTED_DATATYPE] Spark's {word} takes no precision", token.start)
        elif word == "INTERVAL" and following is not None and following.kind in ("number", "string", "symbol"):
            check_interval(seq, k, text)
        elif word in _TYPED_LITERALS and following is not None and following.kind == "string":
            check_typed_literal(seq, k, text)
        elif word in _UNIT_FUNCTIONS and following is not None and following.upper == "(" and k + 3 < len(seq) \
                and seq[k + 2].kind == "string" and seq[k + 3].upper == "," and _arguments(seq, k + 1) == 3:
            raise StatementError(f"[INVALID_PARAMETER_VALUE.DATETIME_UNIT] the unit of {word} is a name such as "
                                 "DAY or HOUR, not a string", token.start)
    elif word == "{":
        raise _syntax_error(token, token, "braces are no SQL here (a {{ name }} parameter needs two)")
    elif word == "." and following is not None and following.upper == "." and following.start == token.end:
        raise _syntax_error(token, token, "'..' is no SQL (a placeholder left in?)")


def _arguments(seq: list[Token], open_at: int) -> int:
    """How many arguments the call whose `(` is seq[open_at] has."""
    depth, count = seq[open_at].depth, 1
    for token in seq[open_at + 1:]:
        if token.upper == ")" and token.depth == depth:
            return count
        if token.upper == "," and token.depth == depth + 1:
            count += 1
    return count


def _syntax_error(at: Optional[Token], after: Token, why: str) -> StatementError:
    if at is None:
        return StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near end of input: {why}", after.end)
    return StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{at.upper}': {why}", at.start)


def _create_clause_order(seq: list[Token]) -> None:
    """CREATE TABLE: USING <provider> comes before the other clauses (PARTITIONED BY, LOCATION,
    ...); CLUSTER BY and PARTITIONED BY do not go together."""
    seen_clause = None
    cluster = partitioned = None
    table = next((k for k, t in enumerate(seq[:8]) if t.upper == "TABLE"), None)
    if table is None:
        return
    after = table + 1 + (3 if [t.upper for t in seq[table + 1:table + 4]] == ["IF", "NOT", "EXISTS"] else 0)
    for token in seq[(name_end(seq, after) or after):]:
        if token.depth != 0 or token.kind != "word":
            continue
        if token.upper == "AS":
            break
        if token.upper in _CREATE_CLAUSES:
            seen_clause = seen_clause or token
            if token.upper == "CLUSTER":
                cluster = token
            elif token.upper == "PARTITIONED":
                partitioned = token
        elif token.upper == "USING" and seen_clause is not None:
            raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near 'USING': USING <provider> comes "
                                 f"before {seen_clause.upper} in CREATE TABLE", token.start)
    if cluster is not None and partitioned is not None:
        raise StatementError("[_LEGACY_ERROR_TEMP_0035] Operation not allowed: CLUSTER BY and PARTITIONED BY cannot "
                             "both be given", min(cluster.start, partitioned.start))


# Spark's integral literal suffixes and their ranges (SqlBaseParser: TINYINT 1Y, SMALLINT 1S, BIGINT 1L).
_INTEGRAL = {"Y": ("TINYINT", 127), "S": ("SMALLINT", 32767), "L": ("BIGINT", 9223372036854775807)}
_FLOAT_MAX = 3.4028234663852886e38


def check_number(token: Token, before: Optional[Token]) -> None:
    """Spark's parser refuses a numeric literal out of its type's range (INVALID_NUMERIC_LITERAL_RANGE)
    and a decimal of more than 38 digits (DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION)."""
    text = token.upper
    negative = before is not None and before.upper == "-"
    if text[-2:].upper() == "BD":
        suffix, body = "BD", text[:-2]
    elif text[-1].isalpha():
        suffix, body = text[-1].upper(), text[:-1]
    else:
        suffix, body = "", text
    if suffix in _INTEGRAL:
        if body.isdigit():
            type_name, top = _INTEGRAL[suffix]
            if int(body) > top + (1 if negative else 0):
                raise StatementError(f"[INVALID_NUMERIC_LITERAL_RANGE] the numeric literal {text} is outside the range "
                                     f"of {type_name}", token.start)
        return
    if suffix in ("D", "F") or (suffix == "" and "e" in body.lower()):
        try:
            value = float(body)
        except ValueError:
            return
        if value > (_FLOAT_MAX if suffix == "F" else 1.7976931348623157e308):
            raise StatementError(f"[INVALID_NUMERIC_LITERAL_RANGE] the numeric literal {text} is outside the range of "
                                 f"{'FLOAT' if suffix == 'F' else 'DOUBLE'}", token.start)
        return
    if suffix not in ("", "BD") or (suffix == "" and body.isdigit() and len(body) <= 19):
        return
    try:
        digits, exponent = Decimal(body).as_tuple()[1:]
    except InvalidOperation:
        return
    precision = max(len(digits), -exponent if isinstance(exponent, int) else 0)
    if precision > 38:
        raise StatementError(f"[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] the decimal literal {text} needs a precision "
                             f"of {precision}, above the maximum of 38", token.start)


# Spark's grammar (mergeIntoTable): matchedClause* notMatchedClause* notMatchedBySourceClause*.
# After a NOT MATCHED [BY TARGET] clause, and after a NOT MATCHED BY SOURCE clause: the words a
# later clause must begin with. The first word that leaves them is where Spark's parser reports
# the syntax error (`WHEN MATCHED` after a NOT MATCHED clause: at MATCHED; `WHEN NOT MATCHED
# THEN` after a BY SOURCE clause: at THEN).
_AFTER_NOT_MATCHED = ("WHEN", "NOT")
_AFTER_BY_SOURCE = ("WHEN", "NOT", "MATCHED", "BY", "SOURCE")


def _merge_clause_words(seq: list[Token]) -> None:
    allowed: tuple[str, ...] = ()  # the words the next clause must begin with (none yet)
    for k, token in enumerate(seq):
        if token.upper != "WHEN" or token.kind != "word":
            continue
        j = k + 1
        if j < len(seq) and seq[j].upper == "NOT":
            j += 1
        if j >= len(seq) or seq[j].upper != "MATCHED":
            continue
        clause_end = j + 1
        if clause_end + 1 < len(seq) and seq[clause_end].upper == "BY" and seq[clause_end + 1].upper in ("SOURCE", "TARGET"):
            clause_end += 2
        off = next((t for t, word in zip(seq[k:], allowed) if t.upper != word), None)
        if off is not None:
            raise _syntax_error(off, token, "the WHEN clauses of a MERGE come in this order: WHEN MATCHED, then "
                                "WHEN NOT MATCHED [BY TARGET], then WHEN NOT MATCHED BY SOURCE")
        if j == k + 2:  # WHEN NOT MATCHED ...
            allowed = _AFTER_BY_SOURCE if seq[clause_end - 1].upper == "SOURCE" else _AFTER_NOT_MATCHED
        clause = " ".join(t.upper for t in seq[k:clause_end])
        following = _next_clause_word(seq, clause_end, token.depth)
        if following is None or following.upper != "THEN":
            at = following.start if following is not None else seq[-1].start
            raise StatementError(f"expected THEN after {clause}", at)
    for k, token in enumerate(seq[:-1]):
        if token.upper == "THEN" and seq[k + 1].upper == "UPDATE":
            after = seq[k + 2] if k + 2 < len(seq) else None
            if after is None or after.upper != "SET":
                raise StatementError("expected SET after UPDATE (UPDATE SET * or UPDATE SET col = value)",
                                     after.start if after is not None else seq[k + 1].end)


def _next_clause_word(seq: list[Token], start: int, depth: int) -> Optional[Token]:
    """The first of THEN, UPDATE, DELETE, INSERT, WHEN from `start` at the clause's own level:
    not inside parentheses nor inside a CASE ... END of its condition (whose WHEN and THEN are
    the CASE's)."""
    cases = 0
    for t in seq[start:]:
        if t.kind != "word" or t.depth != depth:
            continue
        if t.upper == "CASE":
            cases += 1
        elif t.upper == "END" and cases:
            cases -= 1
        elif not cases and t.upper in _CLAUSE_WORDS:
            return t
    return None


def check_tree(tree: exp.Expression, text: str, masked: str, seq: list[Token]) -> None:
    """What sqlglot's tree shows Spark would refuse (looking only where the tokens say there is
    something to see): double-quoted names (Spark reads "x" as a string, so `FROM "t"` or
    `AS "a"` is a syntax error there, where sqlglot reads a name), a string literal as a table
    name, two CTEs of one name, a table property given twice, a TRUNCATE partition without a
    value."""
    if '"' in masked:
        _quoted_names(tree, text)
    with_ = tree.args.get("with_")
    if isinstance(with_, exp.With):
        names = [cte.alias_or_name.lower() for cte in with_.expressions]
        if len(set(names)) != len(names):
            duplicate = next(n for n in names if names.count(n) > 1)
            raise StatementError(f"[DUPLICATED_CTE_NAMES] the CTE name {duplicate} is defined twice", 0)
    properties = tree.args.get("properties")
    if isinstance(properties, exp.Properties):
        keys = [_property_key(p) for p in properties.expressions if type(p) is exp.Property]
        duplicates = sorted({k for k in keys if keys.count(k) > 1})
        if duplicates:
            at = next((t.start for t in seq if t.upper == "TBLPROPERTIES"), 0)
            raise StatementError(f"[DUPLICATE_KEY] the table property {duplicates[0]} is given twice", at)
    if isinstance(tree, exp.TruncateTable) and isinstance(tree.args.get("partition"), exp.Partition):
        for item in tree.args["partition"].expressions:
            at = next((t.start for t in seq if t.upper == "PARTITION"), 0)
            if isinstance(item, exp.EQ) and isinstance(item.expression, (exp.Literal, exp.Boolean, exp.Null, exp.Neg)):
                continue
            if isinstance(item, exp.Column):
                raise StatementError(f"[INVALID_SQL_SYNTAX.EMPTY_PARTITION_VALUE] the partition column {item.name} "
                                     "has no value", at)
            raise StatementError("[PARSE_SYNTAX_ERROR] a partition spec holds column = constant pairs", at)


def _values_arity(seq: list[Token], k: int) -> None:
    """VALUES (..), (..) [AS name (cols)] at seq[k]: every row, and the column names, one width
    (Spark's INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH)."""
    widths, j = [], k + 1
    while j < len(seq) and seq[j].upper == "(":
        depth, width = seq[j].depth, 1
        j += 1
        while j < len(seq) and not (seq[j].upper == ")" and seq[j].depth == depth):
            if seq[j].upper == "," and seq[j].depth == depth + 1:
                width += 1
            j += 1
        widths.append(width)
        j += 1
        if j + 1 < len(seq) and seq[j].upper == "," and seq[j + 1].upper == "(":
            j += 1
        else:
            break
    if j < len(seq) and seq[j].upper == "AS":
        j += 1
    if widths and j + 1 < len(seq) and seq[j].kind in ("word", "quoted") and seq[j + 1].upper == "(":
        names, depth = 1, seq[j + 1].depth
        for token in seq[j + 2:]:
            if token.upper == ")" and token.depth == depth:
                break
            names += token.upper == "," and token.depth == depth + 1
        widths.append(names)
    if len(set(widths)) > 1:
        raise StatementError("[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] the rows of a VALUES table and its column "
                             "names do not have one number of values", seq[k].start)


def _property_key(prop: exp.Property) -> str:
    key = prop.this
    return key.this if isinstance(key, exp.Literal) else key.sql(dialect="databricks")


def _quoted_names(tree: exp.Expression, text: str) -> None:
    for node in tree.find_all(exp.ColumnDef, exp.Dot):
        name = node.this
        if isinstance(name, exp.Literal) and name.is_string:
            at = _opening_quote(text, (name.meta or {}).get("start"))
            raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{text[at:at + len(name.this) + 2]}': "
                                 "a string is no name in Spark SQL (quote names with backquotes)", at)
    for node in tree.find_all(exp.Identifier, exp.Table):
        if isinstance(node, exp.Table):
            this = node.this
            if isinstance(this, exp.Literal) and this.is_string:
                at = (this.meta or {}).get("start")
                raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{this.sql(dialect='databricks')}': "
                                     "a table name is not a string", _opening_quote(text, at))
            continue
        if node.quoted:
            at = _opening_quote(text, (node.meta or {}).get("start"))
            if at is not None and text[at] in "\"'":
                raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{text[at]}{node.this}{text[at]}': "
                                     "double quotes make a string in Spark SQL, not a name (quote names with "
                                     "backquotes)", at)


def _opening_quote(text: str, at: Optional[int]) -> int:
    """sqlglot's start offset of a quoted token, moved onto its opening quote."""
    if at is None:
        return 0
    while at > 0 and text[at] not in "\"'`" and text[at - 1] in "\"'`":
        at -= 1
    return at


# -- on the model ----------------------------------------------------------------------------

_NON_LAST = {
    MergeMatch.MATCHED: ("NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION", "MATCHED"),
    MergeMatch.NOT_MATCHED: ("NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION", "NOT MATCHED [BY TARGET]"),
    MergeMatch.NOT_MATCHED_BY_SOURCE: ("NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION", "NOT MATCHED BY SOURCE"),
}


def check_merge(merge: Merge) -> None:
    """Spark's parser: of the clauses of one kind, only the last may omit its condition; Delta:
    one UPDATE clause sets each column once."""
    for match, (error_class, words) in _NON_LAST.items():
        clauses = [c for c in merge.clauses if c.match is match]
        if any(c.condition is None for c in clauses[:-1]):
            raise StatementError(f"[{error_class}] When there are more than one {words} clauses in a MERGE statement, "
                                 f"only the last {words} clause can omit the condition", 0)
    for clause in merge.clauses:
        if clause.action is MergeAction.UPDATE:
            _conflicting_set_columns(clause.assignments, merge.target, merge.text)


def check_update(update: Update) -> None:
    _conflicting_set_columns(update.assignments, update.target, update.text)


def _conflicting_set_columns(assignments, target: Optional[TableRef], text: str) -> None:
    """Delta's DELTA_CONFLICT_SET_COLUMN: two assignments set the same column, or one sets a
    struct and another a field inside it (`SET s = ..., s.a = ...`). Names match case-
    insensitively; a qualifier naming the target (`t.i`, the table's alias or name) is not
    part of the column."""
    qualifiers = {q.lower() for q in ((target.alias if target else None), (target.table_part if target else None)) if q}
    seen: list[tuple[tuple[str, ...], str]] = []
    for key, _value in assignments:
        path = tuple(part.strip("`").lower() for part in key.split("."))
        if len(path) > 1 and path[0] in qualifiers:
            path = path[1:]
        for other, other_key in seen:
            shorter = min(len(path), len(other))
            if path[:shorter] == other[:shorter]:
                columns = ",".join(sorted({".".join(other), ".".join(path)}))
                raise StatementError(f"[DELTA_CONFLICT_SET_COLUMN] There is a conflict from these SET columns: "
                                     f"[{columns}]", _assignment_offset(text, key, other_key))
        seen.append((path, key))


def _assignment_offset(text: str, key: str, first_key: str) -> int:
    """Where the second of two conflicting assignments starts in the statement (0 if not found)."""
    first = text.find(first_key)
    second = text.find(key, first + len(first_key)) if first >= 0 else -1
    return max(second, 0)


# Table properties Spark keeps for itself: ALTER TABLE ... SET TBLPROPERTIES may not set them.
_RESERVED_PROPERTIES = frozenset({"location", "provider", "owner", "external", "is_managed_location"})


def check_alter_table(alter: AlterTable) -> None:
    if alter.action is AlterAction.SET_PROPERTIES:
        reserved = [key for key, _value in alter.properties if key.lower() in _RESERVED_PROPERTIES]
        if reserved:
            raise StatementError(f"[UNSUPPORTED_FEATURE.SET_TABLE_PROPERTY] {reserved[0]} is a reserved table property: "
                                 "ALTER TABLE ... SET TBLPROPERTIES cannot set it", 0)
