"""`acidsql lint PATH...`: findings for CI."""
from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from acidsql.cli.common import add_param_option, add_warehouse_lookup_option, live_loaders, parse_params, storage_options
from acidsql.cli.errors import UsageError

HELP = "check SQL scripts for writes that will conflict when run concurrently"
EPILOG = """\
examples:
  acidsql lint jobs/                        every .sql file under jobs/
  acidsql lint job.sql --select DL001,DL004 only these rules
  acidsql lint job.sql --format sarif > acidsql.sarif
  acidsql lint job.sql --param date=2024-01-01 --fix   show rewrites that fix DL001 (a diff)
  acidsql lint jobs/ --fix --write          write them into the files
  acidsql lint jobs/ --exclude 'migrations/*'   skip files (also `exclude = [...]` in the config)
  acidsql lint - < job.sql                  SQL from stdin

Suppress a finding with `-- noqa: DL001` on the statement, or `-- acidsql: disable=DL004`
for the rest of the file. Settings: [tool.acidsql] in pyproject.toml or acidsql.toml.
Exit status: 0 no findings, 1 findings (or acidsql failed on some statement, or could not
read one table's log), 2 a bad invocation: a bad option, a missing file, a malformed config, or
a --warehouse acidsql cannot read (a missing folder or bucket, an endpoint that does not answer,
no credentials).
"""


def register(subparsers) -> None:
    p = subparsers.add_parser("lint", help=HELP, description=HELP, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter, parents=[subparsers.common])
    p.add_argument("paths", nargs="+", metavar="PATH", help="SQL files or folders; - reads SQL from stdin")
    p.add_argument("--format", "-f", choices=("text", "json", "sarif", "github"), default="text")
    p.add_argument("--select", metavar="CODES", help="comma-separated rule codes or prefixes to run")
    p.add_argument("--ignore", metavar="CODES", help="comma-separated rule codes to skip")
    p.add_argument("--config", metavar="FILE", help="acidsql.toml or pyproject.toml (default: nearest)")
    p.add_argument("--fix", action="store_true",
                   help="show the rewritten statement under fixable findings, and the diff of each file")
    p.add_argument("--write", "-w", action="store_true",
                   help="with --fix: write the fixed files, then lint them again (the report is of the fixed files)")
    p.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                   help="skip files matching this glob (a path relative to the config's folder, a file name or a "
                        "folder name); repeatable, added to `exclude` in the config")
    add_param_option(p)
    add_warehouse_lookup_option(p)


def _codes(value):
    return [c.strip() for c in value.split(",") if c.strip()] if value else None


def run(args) -> int:
    return _lint(args)


def _lint(args) -> int:
    import gc

    from acidsql.linter import ConfigError, find_config, read_config_file, render

    # acidsql's one GC policy: what the lint path imported (sqlglot's dialect tables, the
    # statement model, the rules) lives as long as the process, so the collector stops walking
    # it; each full collection of a lint otherwise walked all of it (~20% of a lint's CPU).
    gc.freeze()
    params = parse_params(args.param)
    try:
        if args.config:
            config = read_config_file(Path(args.config))
        else:
            first = Path(args.paths[0])
            config = find_config(first if first.exists() else None)
        config = config.with_overrides(_codes(args.select), _codes(args.ignore))
        config = dataclasses.replace(config, loaders=config.loaders + live_loaders(args.warehouse, storage_options(args)),
                                     exclude=config.exclude + tuple(args.exclude))
        if args.write and not args.fix:
            raise UsageError("--write writes the fixes of --fix: use --fix --write")
        report = _lint_arguments(args.paths, config, params)
        after = ""
        if args.fix:
            report, after = _fix(report, args, config, params)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    from acidsql.cli.output import is_terminal

    if args.format == "text" and is_terminal():
        _print_text(report, args.fix)  # colors
    else:
        # Piped, rich would print exactly this text (no colors, no wrapping); writing it
        # directly spares the start-up of importing and running rich (~30 ms per run).
        import sys

        sys.stdout.write(render(report, args.format, show_fixes=args.fix))
    if after:
        import sys

        (sys.stdout if args.format in ("text", "github") else sys.stderr).write(after)
    return report.exit_code


def _fix(report, args, config, params):
    """--fix: (the report, what to print after it: the fixes left out and the diff of each file
    the fixes change); --write: the files written, and the report of the fixed files. The text
    goes to stderr when the report is JSON or SARIF, so stdout stays one document."""
    from acidsql.linter.fixes import fixed_files
    from acidsql.rewriter import unified_diff

    fixed = fixed_files(report.findings)
    lines = [f"not fixed: {reason}\n" for f in fixed for reason in f.skipped]
    if not args.write:
        return report, "".join(lines) + "".join(unified_diff(f.original, f.fixed, f.file) for f in fixed if f.changed)
    written = [f for f in fixed if f.changed]
    for f in written:
        Path(f.file).write_text(f.fixed, encoding="utf-8")
        lines.append(f"fixed {f.file} ({f.applied} fix{'es' if f.applied != 1 else ''})\n")
    return (_lint_arguments(args.paths, config, params) if written else report), "".join(lines)


def _lint_arguments(paths: list[str], config, params):
    """Lint each argument in order: `-` is SQL read from stdin, the rest files and folders."""
    import sys

    from acidsql.linter import LintReport, lint_paths, lint_text

    report = LintReport(())
    files = [p for p in paths if p != "-"]
    if files:
        report = report + lint_paths(files, config, params)
    if "-" in paths:
        report = report + lint_text(sys.stdin.read(), "<stdin>", config, params)
    return report


def _print_text(report, show_fixes: bool) -> None:
    from rich.text import Text

    from acidsql.cli.output import console
    from acidsql.linter.finding import Severity
    from acidsql.linter.formats import error_line, summary

    out = console()
    colors = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
    for f in report.findings:
        line = Text()
        line.append(f.location, style="bold")
        line.append(": ")
        line.append(f.code, style=colors[f.severity])
        line.append(f" [{f.name}] ", style="dim")
        line.append(f.message)
        out.print(line)
        for hint_line in (f.hint or "").splitlines():
            out.print(Text("    " + hint_line, style="dim"))
        if show_fixes and f.fix:
            out.print(Text("    fix:", style="green"))
            for fix_line in f.fix.splitlines():
                out.print(Text("      " + fix_line, style="green"))
    for error in report.errors:
        out.print(Text(error_line(error), style="bold red"))
    for note in report.notes:
        out.print(Text(f"note: {note}", style="yellow"))
    line = summary(report)
    style = "bold green" if line.startswith("All clear") else ("bold red" if report.exit_code else "bold yellow")
    out.print(Text(line, style=style))
