"""Reading one statement with the Lark grammar (grammar_parser): the parse, and Lark's errors
as plain positioned messages."""
from __future__ import annotations

from acidsql.sql.failure import StatementError
from acidsql.sql.grammar_parser import ExpressionError, GrammarStatementBuilder, Prepared, grammar, prepare
from acidsql.sql.model import AnyStatement, Span


def read(text: str, seq: list, first: str, span: Span, params, sql_text: str, raw_strings: bool) -> AnyStatement:
    """The statement the grammar reads (`seq`: its tokens), or a StatementError."""
    from acidsql.sql.generated_parser import UnexpectedInput

    prepared = prepare(sql_text, seq, first)
    try:
        tree = _parse(prepared, seq)
    except UnexpectedInput as error:
        raise _from_lark(error, text) from None
    try:
        return GrammarStatementBuilder(text, span, params, sql_text, raw_strings, seq).build(tree)
    except ExpressionError as error:
        raise StatementError(error.message, error.offset) from None


def _parse(prepared: Prepared, seq: list):
    """Lark's LALR parser fed with the scanner's tokens (acidsql's one lexer), each word typed
    as Lark's contextual lexer would type it: the keyword when the parser's state takes that
    keyword, else a name. A blanked expression (`prepared.spans`) is one CONDITION token."""
    from acidsql.sql.generated_parser import Token

    parser = grammar()
    keywords = _terminals(parser)
    interactive = parser.parse_interactive()
    text = prepared.text
    spans = iter(prepared.spans)
    span = next(spans, None)
    for token in seq:
        while span is not None and token.start >= span[1]:
            span = next(spans, None)
        if span is not None and token.start >= span[0]:  # (a span starts at a token: prepare trims it)
            if token.start == span[0]:
                interactive.feed_token(Token("CONDITION", text[span[0]:span[1]], span[0], None, None, None, None, span[1]))
            continue
        value = text[token.start:token.end]
        kind = token.kind
        if kind == "word":
            name = keywords.get(token.upper)
            kind = name if name is not None and name in interactive.choices() else "IDENT"
        elif kind == "symbol" or kind == "marker":
            kind = keywords.get(value, "OPERATOR")
        else:
            kind = _KINDS[kind]
        interactive.feed_token(Token(kind, value, token.start, None, None, None, None, token.end))
    return interactive.feed_eof()


_KINDS = {"quoted": "BACKTICKED", "string": "STRING", "number": "NUMBER"}
_terminal_names: dict = {}


def _terminals(parser) -> dict:
    """The grammar's keywords and punctuation by their text (upper case): OPTIMIZE -> OPTIMIZE,
    COMMENT -> COMMENT_KW, ( -> LPAR, ..."""
    if not _terminal_names:
        for terminal in parser.lexer_conf.terminals:
            if type(terminal.pattern).__name__ == "PatternStr":
                _terminal_names[terminal.pattern.value.upper()] = terminal.name
    return _terminal_names


def _from_lark(error, text: str) -> StatementError:
    from acidsql.sql.generated_parser import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    end = max(len(text.rstrip()) - 1, 0)
    if isinstance(error, UnexpectedEOF):
        return StatementError(f"unexpected end of statement{_expected(error.expected)}", end)
    if isinstance(error, UnexpectedToken):
        error.expected = _acceptable(error)
        offset = error.token.start_pos if error.token.start_pos is not None else len(text) - 1
        if error.token.type == "$END":
            return StatementError(f"unexpected end of statement{_expected(error.expected)}", end)
        if error.token.type == "CONDITION":  # a blanked-out WHERE condition where none can be
            return StatementError(f"unexpected condition{_expected(error.expected)}", offset)
        return StatementError(f"unexpected '{error.token.value}'{_expected(error.expected)}", offset)
    if isinstance(error, UnexpectedCharacters):
        offset = error.pos_in_stream
        if offset >= len(text):
            return StatementError(f"unexpected end of statement{_expected(error.allowed)}", end)
        rest = text[offset:]
        word = rest[0]
        if word.isalnum() or word == "_":
            word = rest[:len(rest) - len(rest.lstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"))]
        return StatementError(f"unexpected '{word}'{_expected(error.allowed)}", offset)
    return StatementError("syntax error", 0)


def _acceptable(error) -> set:
    """The terminals the parser can really take where it failed. LALR merges the lookaheads of
    states with the same items, so the set Lark reports (that of a state about to reduce) may
    hold terminals that only fit elsewhere in the grammar: try each on a copy of the state."""
    from acidsql.sql.generated_parser import Token, UnexpectedInput

    state = getattr(error, "state", None)
    expected = set(error.expected or ())
    if state is None or not hasattr(state, "feed_token"):
        return expected
    out = set()
    for name in expected:
        trial = state.copy(deepcopy_values=False)
        try:
            trial.feed_token(Token(name, ""), name == "$END")
        except UnexpectedInput:
            continue
        except Exception:  # a callback choking on the empty token: the parser did take it
            pass
        out.add(name)
    return out or expected


# Terminal names as a reader would write them; names, numbers and strings are left unsaid (a
# message listing them says little more than "syntax error").
_SAID = {"LPAR": "'('", "RPAR": "')'", "COMMA": "','", "EQUAL": "'='", "DOT": "'.'", "CONDITION": "an expression",
         "COMMENT_KW": "COMMENT"}
_UNSAID = {"IDENT", "NUMBER", "STRING", "BACKTICKED", "OPERATOR", "SEMICOLON", "$END"}
# Whole expectations that read better as one phrase.
_PHRASES = {
    frozenset({"PURGE", "UPGRADE"}): "PURGE or UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = <n>)",
}


def _expected(names) -> str:
    names = {n for n in names or () if n not in _UNSAID and not n.startswith("__")}
    phrase = _PHRASES.get(frozenset(names))
    if phrase is not None:
        return "; expected " + phrase
    words = sorted(_SAID.get(n, n) for n in names if n in _SAID or n.isupper())
    if not words or len(words) > 5:
        return ""
    return "; expected " + " or ".join(words)
