"""`acidsql`: predict, lint, rewrite and run concurrent writes to Delta Lake tables.

Each subcommand is a module in `acidsql/cli/commands/` with `register(subparsers)` and
`run(args) -> int`. Modules are imported one by one, so a missing or broken one does not
take the others down, and `acidsql lint` never imports Spark.

Exit status: 0 clean; 1 findings / conflicts / mismatches, or acidsql failed on some item
(each command reports that item and goes on with the rest); 2 a bad invocation (a missing
file, a bad option, a malformed config, an extra missing: the engine for history, describe and
--warehouse, PySpark for run and race).
"""
from __future__ import annotations

import argparse
import importlib
import logging
import sys
import traceback
from typing import Optional, Sequence

from acidsql.cli.errors import EXIT_FINDINGS, EXIT_USAGE, UsageError

COMMANDS = ("lint", "rules", "explain", "conflicts", "rewrite", "parse", "run", "race", "history", "describe")

EPILOG = """\
examples:
  acidsql lint jobs/                          lint every .sql file under jobs/
  acidsql lint job.sql --format github        annotations for GitHub Actions
  acidsql rules DL001                         what a rule checks, with examples
  acidsql explain "DELETE FROM t WHERE d = '2024-01-01'"
  acidsql conflicts scenarios.yaml            predict each scenario's outcome
  acidsql conflicts --jobs a.sql b.sql        which jobs can run at the same time
  acidsql rewrite job.sql --param date=2024-01-01 --param country=US

exit status: 0 clean, 1 findings/conflicts/mismatch (or acidsql failed on some statement),
             2 bad invocation (usage, missing file, bad config, an unreachable --warehouse,
               an extra not installed: acidsql[engine] for history/describe/--warehouse,
               acidsql[spark] for run/race).
Configuration: [tool.acidsql] in pyproject.toml, or acidsql.toml (see `acidsql rules`).
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own usage errors: one line, exit 2
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"acidsql: error: {message}\n")


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show full tracebacks for errors")
    return common


def build_parser(only: Optional[str] = None) -> tuple[argparse.ArgumentParser, dict[str, object]]:
    """The parser of every command, or with `only` of that one command (its own help and errors
    read the same; the top-level help, which lists them all, needs them all)."""
    common = _common()
    parser = _Parser(
        prog="acidsql",
        description="Predict, lint, rewrite and run concurrent writes to Delta Lake tables.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )
    from acidsql import __version__

    parser.add_argument("--version", action="version", version=f"acidsql {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.common = common  # commands pass it as a parent so `--debug` works after them too
    modules: dict[str, object] = {}
    for name in COMMANDS if only is None else (only,):
        try:
            module = importlib.import_module(f"acidsql.cli.commands.{name}")
        except ModuleNotFoundError as error:
            if error.name and error.name.startswith("acidsql.cli.commands"):
                continue  # not built yet
            raise
        module.register(subparsers)
        modules[name] = module
    return parser, modules


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    # acidsql says what it could not read, positioned; sqlglot's own warnings (about SQL it
    # generates for acidsql's internal use, too) are not for the user's terminal
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    try:
        # The command named on the command line (top-level options take no value): only its
        # module is imported and its options registered (~5 ms of start-up for all of them).
        named = next((a for a in argv if not a.startswith("-")), None)
        parser, modules = build_parser(named if named in COMMANDS else None)
        if named in COMMANDS and named not in modules:  # not built: say so as for any unknown
            parser, modules = build_parser()
        args = parser.parse_args(argv)
        debug = debug or getattr(args, "debug", False)
        if not getattr(args, "command", None):
            parser.print_help()
            return EXIT_USAGE
        return int(modules[args.command].run(args))
    except UsageError as error:
        if debug:
            traceback.print_exc()
        print(f"acidsql: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (FileNotFoundError, IsADirectoryError, PermissionError) as error:
        if debug:
            traceback.print_exc()
        message = error.strerror and error.filename and f"{error.strerror}: {error.filename}" or str(error)
        print(f"acidsql: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except ModuleNotFoundError as error:
        hint = _install_hint(error, _command(argv))
        if hint is None:
            return _internal_error(error, debug)
        if debug:
            traceback.print_exc()
        print(f"acidsql: error: {hint}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("acidsql: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
    except Exception as error:  # never a traceback for the user unless asked
        if type(error).__module__ == "acidsql.delta.errors":  # storage and log errors name their cause
            if debug:
                traceback.print_exc()
            print(f"acidsql: error: {error}", file=sys.stderr)
            return EXIT_USAGE
        return _internal_error(error, debug)


# What the extras install: `acidsql[engine]` the Delta engine, `acidsql[spark]` the engine and
# PySpark (the base install is the linter, explain, conflicts, rewrite and parse).
_ENGINE_MODULES = frozenset({"pyarrow", "numpy", "pyroaring", "obstore"})
_SPARK_MODULES = frozenset({"pyspark", "py4j", "pandas"})
_SPARK_COMMANDS = frozenset({"run", "race"})


def _install_hint(error: ModuleNotFoundError, command: str) -> Optional[str]:
    """What to install when a command needs an extra that is not installed; None when the
    missing module is no extra's (a defect)."""
    module = (error.name or "").split(".")[0]
    if module not in _ENGINE_MODULES | _SPARK_MODULES:
        return None
    if command in _SPARK_COMMANDS or module in _SPARK_MODULES:
        return (f"`acidsql {command}` runs SQL on PySpark with acidsql's Delta engine, which are not installed "
                f"(no module {error.name!r}): pip install 'acidsql[spark]'")
    what = "reads Delta tables" if command in ("history", "describe") else "reads the live tables of --warehouse"
    return (f"`acidsql {command}` {what} with acidsql's Delta engine, which is not installed "
            f"(no module {error.name!r}): pip install 'acidsql[engine]'")


def _command(argv: Sequence[str]) -> str:
    return next((a for a in argv if a in COMMANDS), "run")


def _internal_error(error: Exception, debug: bool) -> int:
    """A defect of acidsql that no command caught for one item: the result is unknown, so it
    fails like a finding would (exit 1); exit 2 is kept for bad invocations."""
    if debug:
        traceback.print_exc()
    print(f"acidsql: internal error: {type(error).__name__}: {error} (run with --debug for the traceback)",
          file=sys.stderr)
    return EXIT_FINDINGS


if __name__ == "__main__":
    sys.exit(main())
