"""Terminal output: rich when stdout is a terminal (colors unless NO_COLOR is set), plain
text when piped, so CI logs and `| grep` see no escape codes."""
from __future__ import annotations

import os
import sys
from typing import Optional


def is_terminal(stream=None) -> bool:
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty()


def console(stream=None):
    """A rich Console for `stream` (stdout by default). Markup is off: everything acidsql
    prints through it is data (table cells, reasons, SQL, partition values such as
    `[date=2024-01-01]`) and must be shown as it is; styles come from Text objects."""
    from rich.console import Console

    stream = stream or sys.stdout
    tty = is_terminal(stream)
    return Console(
        file=stream,
        force_terminal=tty,
        no_color=(not tty) or bool(os.environ.get("NO_COLOR")),
        highlight=False,
        markup=False,
        soft_wrap=not tty,
        width=None if tty else 200,
    )


def table(title: Optional[str] = None, *columns: str):
    """A rich Table: boxed on a terminal, simple columns when piped."""
    from rich import box
    from rich.table import Table

    t = Table(title=title, box=box.ROUNDED if is_terminal() else box.SIMPLE_HEAD, show_lines=False)
    for name in columns:
        t.add_column(name, overflow="fold")
    return t


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
