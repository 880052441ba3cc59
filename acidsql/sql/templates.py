"""Jinja / dbt templates: a script with `{% ... %}`, `{# ... #}` or `{{ expression }}` is rendered
by Jinja (jinja2's sandbox) before it is parsed, as sqlfluff's Jinja templater and dbt do, with
dbt's functions: `ref('x')` -> the table name (`refs` mapping, default the bare name),
`source('s', 't')` -> `s.t` (`sources` mapping), `var('x')` (from --param, then `vars`),
`config(...)` -> nothing, `is_incremental()` (default false), `this` (default the file's stem).

A plain `{{ name }}` alone is no template: it is acidsql's parameter marker (bound with --param),
unless the script is a template for another reason, where Jinja renders it from --param.

The rendering keeps a source map: each character of the SQL knows the template offset it came
from (text Jinja generated: the offset of the tag that generated it), so parse errors and lint
findings point at the template's own line:column. A template that does not render (a syntax
error, an undefined name, a var() with no value) is a positioned error.
"""
from __future__ import annotations

import re
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

MODES = ("auto", "jinja", "none")
_TEMPLATE_NAME = "<acidsql template>"
_PLAIN_MARKER = re.compile(r"\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}")
_MARK = re.compile("\x00(\\d+)\x01")


@dataclass(frozen=True)
class TemplateConfig:
    """`[tool.acidsql.templater]`: how scripts are rendered (see the module's docstring)."""

    mode: str = "auto"  # auto: render scripts that are templates; jinja: render every script; none: never
    refs: tuple[tuple[str, str], ...] = ()  # ref name -> table name
    sources: tuple[tuple[str, str], ...] = ()  # "source.table" -> table name
    variables: tuple[tuple[str, str], ...] = ()  # var() values (--param wins)
    is_incremental: bool = False
    this: Optional[str] = None  # the model's own table; default: the file's stem


@dataclass(frozen=True)
class Rendered:
    """A template rendered: `text` is the SQL, `origin[i]` the template offset of text[i]."""

    template: str
    text: str
    origin: tuple[int, ...]

    def template_offset(self, offset: int) -> int:
        if not self.origin:
            return 0
        if offset >= len(self.origin):
            return min(self.origin[-1] + 1 + (offset - len(self.origin)), len(self.template))
        return self.origin[max(offset, 0)]


class TemplateError(Exception):
    """A template that does not render; `offset` is where in the template."""

    def __init__(self, message: str, offset: int, note: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.note = note


def is_template(text: str, config: Optional[TemplateConfig] = None) -> bool:
    """Whether `text` is rendered before it is parsed."""
    mode = (config or TemplateConfig()).mode
    if mode == "none":
        return False
    if mode == "jinja":
        return True
    if "{%" in text or "{#" in text:
        return True
    if "{{" not in text:
        return False
    return any(not _PLAIN_MARKER.fullmatch(m.group(0)) for m in re.finditer(r"\{\{.*?\}\}", text, re.DOTALL))


def render(template: str, file: str = "<sql>", config: Optional[TemplateConfig] = None,
           params: Optional[Mapping[str, str]] = None) -> Rendered:
    """The template rendered with dbt's functions, and its source map (TemplateError if it does
    not render)."""
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

    config = config or TemplateConfig()
    env = ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    try:
        chunks = _data_chunks(env, template)
    except jinja2.TemplateSyntaxError as error:
        raise TemplateError(f"the template does not parse: {error.message}", _line_offset(template, error.lineno)) from None
    marked, pos = [], 0
    for n, (start, value) in enumerate(chunks):
        marked += [template[pos:start], f"\x00{n}\x01"]
        pos = start
    marked.append(template[pos:])
    try:
        output = env.from_string("".join(marked)).render(_context(file, config, params or {}))
    except jinja2.TemplateSyntaxError as error:
        raise TemplateError(f"the template does not parse: {error.message}", _line_offset(template, error.lineno)) from None
    except jinja2.UndefinedError as error:
        raise _positioned(error, template, f"the template does not render: {error.message}") from None
    except TemplateError as error:
        raise _positioned(error, template, error.message, error.note) from None
    except SecurityError as error:  # an attribute or call outside the sandbox: refused, never run
        raise _positioned(error, template, f"the template does not render: the sandbox refuses it: {error}") from None
    except Exception as error:  # a filter or function failing on a value: the template's error
        raise _positioned(error, template, f"the template does not render: {type(error).__name__}: {error}") from None
    return _source_map(template, output, chunks)


def _data_chunks(env, template: str) -> list[tuple[int, str]]:
    """(offset, text) of each piece of the template Jinja copies to its output as it is."""
    chunks, pos = [], 0
    for _line, kind, value in env.lex(template):
        if kind != "data" or not value:
            continue
        start = template.find(value, pos)
        if start < 0:
            continue
        chunks.append((start, value))
        pos = start + len(value)
    return chunks


def _source_map(template: str, output: str, chunks: list[tuple[int, str]]) -> Rendered:
    text: list[str] = []
    origin: list[int] = []
    marks = list(_MARK.finditer(output))
    first = marks[0].start() if marks else len(output)
    text.append(output[:first])
    origin += [0] * first
    for k, mark in enumerate(marks):
        start, value = chunks[int(mark.group(1))]
        segment = output[mark.end(): marks[k + 1].start() if k + 1 < len(marks) else len(output)]
        copied = len(value) if segment.startswith(value) else 0
        text.append(segment)
        origin += list(range(start, start + copied))
        tag = min(start + len(value), len(template))  # where the tag after the copied text starts
        while tag < len(template) and template[tag] != "{":
            tag += 1
        origin += [min(tag, len(template))] * (len(segment) - copied)
    return Rendered(template, "".join(text), tuple(origin))


def _context(file: str, config: TemplateConfig, params: Mapping[str, str]) -> dict:
    refs, sources, variables = dict(config.refs), dict(config.sources), dict(config.variables)
    this = config.this or (Path(file).stem if file and not file.startswith("<") else "this")

    def ref(*names: str, **_options) -> str:
        name = names[-1] if names else ""
        return refs.get(name, name)

    def source(source_name: str, table_name: str) -> str:
        key = f"{source_name}.{table_name}"
        return sources.get(key, key)

    def var(name: str, default=None):
        if name in params:
            return params[name]
        if name in variables:
            return variables[name]
        if default is not None:
            return default
        raise TemplateError(f"var('{name}') has no value", 0,
                            f"give it with --param {name}=VALUE or under [tool.acidsql.templater.vars]")

    return {**params, "ref": ref, "source": source, "var": var, "config": lambda *a, **k: "",
            "is_incremental": lambda: config.is_incremental, "this": this}


def _line_offset(template: str, line: Optional[int]) -> int:
    """The offset of the first non-blank character of a 1-based line of the template."""
    offset = 0
    for _ in range(max((line or 1) - 1, 0)):
        nxt = template.find("\n", offset)
        if nxt < 0:
            break
        offset = nxt + 1
    while offset < len(template) and template[offset] in " \t":
        offset += 1
    return offset


def _positioned(error: Exception, template: str, message: str, note: Optional[str] = None) -> TemplateError:
    """The error at the template line Jinja's traceback names (at the name it is about, when that
    name is on the line)."""
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == _TEMPLATE_NAME or frame.filename == "<template>":
            line = frame.lineno
    offset = _line_offset(template, line)
    name = re.search(r"'([A-Za-z_][A-Za-z0-9_]*)' is undefined|var\('([^']+)'\)|access to attribute '([^']+)'",
                     message)
    if name is not None:
        word = next(group for group in name.groups() if group)
        end = template.find("\n", offset)
        found = template.find(word, offset, end if end >= 0 else len(template))
        if found >= 0:
            offset = found
    return TemplateError(message, offset, note)
