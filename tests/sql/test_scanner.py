"""The lexer follows Spark's (SqlBaseLexer.g4): raw strings, nested comments, escapes, doubled
backquotes, `--` comments continued by a backslash, parameter markers; an unclosed quote or
comment is one positioned error and the statements after it parse."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot import exp

from acidsql.rewriter import bind_parameters, find_markers
from acidsql.sql import parse_script, parse_statement, split_statements
from acidsql.sql.scanner import scan


def _texts(text: str) -> list[str]:
    return [text[s:e].strip() for s, e in split_statements(text)]


def _literal(statement) -> str:
    return statement.expression.find(exp.Literal).this


@pytest.mark.parametrize("sql, value", [
    (r"SELECT r'C:\dir\' AS a", "C:\\dir\\"),
    (r'SELECT r"\\foo" AS a', "\\\\foo"),
    (r"SELECT R'a\'", "a\\"),
    (r'SELECT R"x;y"', "x;y"),
])
def test_raw_strings_take_no_escapes(sql, value):
    script = parse_script(sql + ";\nSELECT 2 AS b;")
    assert not script.errors, [e.format() for e in script.errors]
    first, second = script.statements
    assert _literal(first) == value
    assert isinstance(first.expression.find(exp.Literal), exp.Literal)  # not sqlglot's RawString
    assert second.text == "SELECT 2 AS b"


def test_r_inside_a_name_is_no_raw_prefix():
    # `xr'a'` is the name xr then the string 'a', as in Spark: the backslash escapes the quote
    assert len(_texts(r"SELECT xr'a\';b'; SELECT 2")) == 2
    assert len(_texts(r"SELECT r'a\';b'; SELECT 2")) == 3


def test_nested_block_comments():
    text = "/* a /* b; */ c; */ SELECT 1 AS x; /* d */ SELECT 2 AS y"
    script = parse_script(text)
    assert [s.text for s in script.statements] == ["SELECT 1 AS x", "SELECT 2 AS y"]
    assert not script.errors
    # commented-out code is not linted: a nested comment around a DELETE hides it all
    script = parse_script("/* old:\n /* note */\n DELETE FROM t;\n*/\nSELECT 1")
    assert [s.kind.value for s in script.statements] == ["SELECT"]


def test_nested_comment_inside_a_grammar_statement():
    statement = parse_statement("OPTIMIZE t /* a /* b */ c */ WHERE d = 1 ZORDER BY (x)")
    assert statement.zorder_by == ("x",) and statement.where.sql() == "d = 1"


def test_hint_is_code_not_a_comment():
    (statement,) = parse_script("SELECT /*+ BROADCAST(s) */ * FROM t JOIN s ON t.a = s.a").statements
    assert statement.kind.value == "SELECT"
    assert scan("SELECT /*+ X */ 1").masked == "SELECT /*+ X */ 1"


def test_backslash_escapes_and_doubled_quotes():
    assert _texts("SELECT 'it\\'s;' AS a; SELECT \"b\\\";\" AS c; SELECT 'd'';' AS e") == [
        "SELECT 'it\\'s;' AS a", "SELECT \"b\\\";\" AS c", "SELECT 'd'';' AS e"]
    assert _literal(parse_statement("SELECT 'it\\'s;' AS a")) == "it's;"


def test_doubled_backquotes_in_identifiers():
    script = parse_script("SELECT `a``;b` FROM `t;``u`; SELECT 2")
    assert len(script.statements) == 2 and not script.errors
    assert script.statements[0].tables[0].parts == ("t;`u",)
    assert script.statements[0].tables[0].name == "`t;``u`"  # written back as Spark would quote it


def test_line_comments_and_their_backslash_continuation():
    assert _texts("SELECT 1 AS a -- x; y\n; SELECT 2") == ["SELECT 1 AS a -- x; y", "SELECT 2"]
    # Spark: a backslash right before the newline continues the comment onto the next line
    text = "SELECT 1 AS a -- continued \\\nSELECT 2 AS b\n;\nSELECT 3 AS c"
    script = parse_script(text)
    assert not script.errors, [e.format() for e in script.errors]
    assert [s.expression.sql() for s in script.statements] == ["SELECT 1 AS a", "SELECT 3 AS c"]


def test_parameter_markers():
    text = "SELECT :day, ${country}, {{ region }}, ?, a::int, v:field, ':no', `?`, /* :no ? */ x -- ${no}\n"
    markers = scan(text).markers
    assert [(m.name, m.style) for m in markers] == [
        ("day", "colon"), ("country", "dollar"), ("region", "jinja"), ("?", "positional")]
    assert parse_script(text).parameters == ("day", "country", "region", "?")


def test_the_rewriter_binds_the_markers_the_scanner_finds():
    text = r"UPDATE t SET a = 1 WHERE d = :day AND p = r'C:\x\' AND q = ':day' /* :day */ AND r = ${day}"
    assert find_markers(text) == ("day",)
    bound = bind_parameters(text, {"day": "2024-01-01"})
    assert bound.text == (r"UPDATE t SET a = 1 WHERE d = '2024-01-01' AND p = r'C:\x\' AND q = ':day' "
                          r"/* :day */ AND r = '2024-01-01'")
    assert bind_parameters("DELETE FROM t WHERE a = ?", {"a": "1"}).missing == ("?",)


@pytest.mark.parametrize("bad, message, col", [
    ("SELECT 'abc AS x", "unterminated string literal", 8),
    ('SELECT "abc AS x', "unterminated string literal", 8),
    ("SELECT `abc AS x", "unterminated quoted identifier", 8),
    ("SELECT r'abc AS x", "unterminated raw string literal", 8),
    ("SELECT 1 /* a /* b */ AS x", "unclosed comment", 10),
])
def test_an_unclosed_quote_or_comment_is_one_error_and_the_next_statement_parses(bad, message, col):
    # (a quote pairs with the next quote of its kind anywhere after it, as in Spark: "never
    # closed" means no such quote follows)
    script = parse_script(f"SELECT 0 AS w;\n{bad};\nSELECT 2 AS y;\nDELETE FROM t WHERE a = 1")
    (error,) = script.errors
    assert error.message.startswith(message) and (error.line, error.col) == (2, col)
    assert [s.text for s in script.statements] == ["SELECT 0 AS w", "SELECT 2 AS y", "DELETE FROM t WHERE a = 1"]


def test_unclosed_nested_comment_says_that_comments_nest():
    (error,) = parse_script("/* a /* b */ SELECT 1").errors
    assert "nest" in error.note and (error.line, error.col) == (1, 1)


# -- every statement parses or is one error, and none is lost -------------------------------------

_BODY = st.text(alphabet=st.sampled_from(list("ab ;'\"`\\/*-\n:?$")), max_size=12)


@st.composite
def _literal_piece(draw) -> tuple[str, str]:
    """A Spark string literal with its value: escaped, raw, or double-quoted."""
    body = draw(_BODY)
    kind = draw(st.sampled_from(["escaped", "raw", "double"]))
    if kind == "raw":
        quote = draw(st.sampled_from(["'", '"']))
        body = body.replace(quote, "")
        return f"{draw(st.sampled_from('rR'))}{quote}{body}{quote}", body
    quote = "'" if kind == "escaped" else '"'
    escaped = "".join("\\" + c if c in (quote, "\\") else c for c in body)
    return f"{quote}{escaped}{quote}", body


@st.composite
def _comment_piece(draw) -> str:
    body = draw(_BODY).replace("\n", " ")
    if draw(st.booleans()):
        return "-- " + body.rstrip("\\") + "\n"
    body = body.replace("*/", "").replace("/*", "")
    if body.endswith("/") or body.endswith("*"):
        body += " "
    inner = draw(st.booleans())
    return f"/* {body} /* {body} */ */" if inner else f"/* {body} */"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_literal_piece(), _comment_piece()), min_size=1, max_size=6))
def test_generated_scripts_lose_no_statement(pieces):
    text = "".join(f"{comment}SELECT {literal} AS c{i} {comment};\n" for i, ((literal, _), comment) in enumerate(pieces))
    script = parse_script(text)
    assert not script.errors, [e.format() for e in script.errors]
    assert len(script.statements) == len(pieces)
    assert [_literal(s) for s in script.statements] == [value for (_, value), _ in pieces]
