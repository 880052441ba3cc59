"""`acidsql`: predict, lint, rewrite and run concurrent writes to Delta Lake tables.

Each subcommand is a module in `acidsql/cli/commands/` with `register(subparsers)` and
`run(args) -> int`. Modules are imported one by one, so a missing or broken one does not
take the others down, and `acidsql lint` never imports Spark.

Exit status: 0 clean, 1 findings / conflicts / mismatches, 2 usage or internal error.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from typing import Optional, Sequence

from acidsql.cli.errors import EXIT_USAGE, UsageError

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

exit status: 0 clean, 1 findings/conflicts/mismatch, 2 usage or internal error.
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


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, object]]:
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
    for name in COMMANDS:
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
    try:
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
    except KeyboardInterrupt:
        print("acidsql: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
    except Exception as error:  # never a traceback for the user unless asked
        if debug:
            traceback.print_exc()
        if type(error).__module__ == "acidsql.delta.errors":  # storage and log errors name their cause
            print(f"acidsql: error: {error}", file=sys.stderr)
            return EXIT_USAGE
        print(f"acidsql: internal error: {type(error).__name__}: {error} (run with --debug for the traceback)",
              file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
