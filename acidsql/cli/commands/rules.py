"""`acidsql rules [CODE]`: list the lint rules, or print one rule's documentation."""
from __future__ import annotations

import argparse
from pathlib import Path

from acidsql.cli.errors import UsageError

HELP = "list lint rules, or explain one (acidsql rules DL001)"


def register(subparsers) -> None:
    p = subparsers.add_parser("rules", help=HELP, description=HELP, parents=[subparsers.common],
                              epilog="examples:\n  acidsql rules\n  acidsql rules DL001\n  acidsql rules require-partition-predicate",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("rule", nargs="?", metavar="CODE", help="a rule code or name")
    p.add_argument("--format", "-f", choices=("text", "json"), default="text")


def rule_doc(rule) -> str:
    """The rule's doc page (docs/rules/<CODE>.md), else its module docstring."""
    page = Path(__file__).resolve().parents[3] / "docs" / "rules" / f"{rule.CODE}.md"
    if page.is_file():
        return page.read_text()
    return f"# {rule.CODE} {rule.NAME}\n\n{(rule.__doc__ or '').strip()}\n"


def run(args) -> int:
    import json
    import sys

    from acidsql.linter.rules import all_rules, rule_by_code

    if args.rule:
        rule = rule_by_code(args.rule)
        if rule is None:
            codes = ", ".join(r.CODE for r in all_rules())
            raise UsageError(f"no rule {args.rule!r} (rules: {codes})")
        if args.format == "json":
            sys.stdout.write(json.dumps({"code": rule.CODE, "name": rule.NAME, "summary": rule.SUMMARY,
                                         "severity": rule.SEVERITY.value, "doc": rule_doc(rule)}, indent=2) + "\n")
        else:
            from acidsql.cli.output import console, is_terminal

            if is_terminal():
                from rich.markdown import Markdown

                console().print(Markdown(rule_doc(rule)))
            else:
                sys.stdout.write(rule_doc(rule))
        return 0
    rules = all_rules()
    if args.format == "json":
        sys.stdout.write(json.dumps([{"code": r.CODE, "name": r.NAME, "summary": r.SUMMARY, "severity": r.SEVERITY.value}
                                     for r in rules], indent=2) + "\n")
        return 0
    from acidsql.cli.output import console, table

    t = table(None, "code", "name", "severity", "what it finds")
    for r in rules:
        t.add_row(r.CODE, r.NAME, r.SEVERITY.value, r.SUMMARY)
    console().print(t)
    return 0
