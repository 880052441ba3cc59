"""acidsql: predict, lint, rewrite and run concurrent writes to Delta Lake tables.

The library facade. Importing `acidsql` is cheap: each function imports its layer when
called, and nothing here imports pyspark (`acidsql.connect` loads the Spark side lazily).

    import acidsql

    script = acidsql.parse("MERGE INTO t USING s ON ... ;")        # Script
    analyses = acidsql.analyze("DELETE FROM t WHERE d = '2024-01-01'") # tuple[Analysis, ...]
    report = acidsql.lint("UPDATE t SET v = 1")                     # LintReport (a str naming a file: that file)
    result = acidsql.rewrite(sql, {"date": "2024-01-01"}, catalog)   # RewriteResult
    predictions = acidsql.predict("scenarios.yaml")                  # list[Prediction]

Every result has `to_dict()` giving stable, JSON-serializable output.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional, Sequence, Union

from acidsql.lazy import lazy_names as _lazy_names

__version__ = "0.1.0"

if TYPE_CHECKING:
    from acidsql.delta.errors import DeltaError
    from acidsql.delta.exceptions import (
        ConcurrentAppendException, ConcurrentDeleteDeleteException, ConcurrentDeleteReadException,
        ConcurrentTransactionException, DeltaConcurrentModificationException, MaxCommitRetriesExceeded,
        MetadataChangedException, ProtocolChangedException)
    from acidsql.spark.results import StatementError
    from acidsql.spark.session_api import connect
    from acidsql.analysis.analyze import Analysis
    from acidsql.analysis.catalog import Catalog
    from acidsql.linter.config import LintConfig
    from acidsql.linter.runner import LintReport
    from acidsql.rewriter.partition_predicates import RewriteResult
    from acidsql.sql.model import Script, Statement

# Loaded on first use (`__getattr__`): the Spark session API, and the errors a run raises, so
# that `except acidsql.ConcurrentAppendException` needs no deep import path while `import
# acidsql` imports neither pyarrow nor pyspark.
_LAZY = {
    "connect": "acidsql.spark.session_api",
    # a commit lost a race (Delta's names and error classes)
    "DeltaConcurrentModificationException": "acidsql.delta.exceptions",
    "ConcurrentAppendException": "acidsql.delta.exceptions",
    "ConcurrentDeleteReadException": "acidsql.delta.exceptions",
    "ConcurrentDeleteDeleteException": "acidsql.delta.exceptions",
    "MetadataChangedException": "acidsql.delta.exceptions",
    "ProtocolChangedException": "acidsql.delta.exceptions",
    "ConcurrentTransactionException": "acidsql.delta.exceptions",
    "MaxCommitRetriesExceeded": "acidsql.delta.exceptions",
    # any error of the Delta engine (storage, log, protocol), and a statement that cannot run
    "DeltaError": "acidsql.delta.errors",
    "StatementError": "acidsql.spark.results",
}

__all__ = ["__version__", "analyze", "lint", "parse", "predict", "predict_jobs", "rewrite", *_LAZY]


def parse(sql: str, file: str = "<sql>", params: Optional[Mapping[str, str]] = None) -> "Script":
    """Parse a script into typed statements. Bad statements become `Script.errors` (with
    file, line, column); the others still parse."""
    from acidsql.sql import parse_script

    return parse_script(sql, file, params=dict(params) if params else None)


def analyze(
    sql: Union[str, "Script", "Statement"], catalog: Optional["Catalog"] = None, params: Optional[Mapping[str, str]] = None
) -> tuple["Analysis", ...]:
    """Analyze every statement of `sql` (text, a parsed Script, or one parsed statement): read and write sets,
    blind append, row-level concurrency, metadata/protocol changes, error classes. CREATE
    and ALTER statements update a copy of `catalog` as the script goes."""
    from acidsql.analysis import analyze as analyze_statement
    from acidsql.analysis.catalog import Catalog
    from acidsql.sql.model import Script, Statement

    catalog = catalog.copy() if catalog is not None else Catalog()
    if isinstance(sql, Statement):
        return (analyze_statement(sql, catalog),)
    script = sql if isinstance(sql, Script) else parse(sql, params=params)
    out = []
    for statement in script.statements:
        out.append(analyze_statement(statement, catalog))
        catalog.apply(statement)
    return tuple(out)


def lint(
    source: Union[str, Path, Sequence[Union[str, Path]]],
    config: Optional["LintConfig"] = None,
    params: Optional[Mapping[str, str]] = None,
    file: str = "<sql>",
) -> "LintReport":
    """Lint files and folders (a `Path`, or a list of paths), or SQL text (a `str`).

    A `str` is a path when it names a file or folder that exists, or looks like one (one word
    ending in `.sql` or holding a `/`: `"jobs/daily_merge.sql"`, a missing one raising
    FileNotFoundError); any other `str` is SQL text. A folder without a .sql file raises
    `acidsql.linter.runner.NoSqlFiles`."""
    from acidsql.linter import lint_paths, lint_text
    from acidsql.linter.runner import names_path

    if isinstance(source, str) and names_path(source):
        source = Path(source.strip())
    if isinstance(source, str):
        return lint_text(source, file, config, params)
    paths = [source] if isinstance(source, Path) else list(source)
    return lint_paths(paths, config, params)


def rewrite(
    sql: Union[str, "Statement"], params: Optional[Mapping[str, str]] = None, catalog: Optional["Catalog"] = None
) -> "RewriteResult":
    """Add literal predicates on the target's partition columns to one MERGE, UPDATE or
    DELETE, or say why not (`RewriteResult.refused`)."""
    from acidsql.rewriter import rewrite as rewrite_statement

    return rewrite_statement(sql, params or {}, catalog)


def predict(scenarios: Union[str, Path]) -> list:
    """Predict, without running anything, the outcome of each scenario in a YAML file
    (see the scenario format): `list[Prediction]`."""
    from acidsql.analysis import predict_scenarios

    return predict_scenarios(Path(scenarios))


def predict_jobs(scripts: Sequence[Union[str, Path]], catalog: Optional["Catalog"] = None):
    """Which of these job scripts can run at the same time: a pairwise `JobMatrix`."""
    from acidsql.analysis import predict_jobs as predict_job_matrix
    from acidsql.sql import parse_script

    parsed = [parse_script(Path(s).read_text(), str(s)) for s in scripts]
    return predict_job_matrix(parsed, catalog)


__getattr__, __dir__ = _lazy_names(__name__, _LAZY)
