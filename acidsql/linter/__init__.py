"""The linter: one rule per module in `acidsql/linter/rules/`, findings for CI.

`lint_paths(paths, config) -> LintReport`, `lint_text(text, file, config) -> LintReport`,
`find_config(start) -> LintConfig`, `render(report, "text"|"json"|"sarif"|"github")`.
"""
from acidsql.linter.config import ConfigError, LintConfig, find_config, read_config_file
from acidsql.linter.finding import Finding, Severity
from acidsql.linter.formats import FORMATS, render, sarif_log
from acidsql.linter.runner import LintReport, lint_paths, lint_text, sql_files

__all__ = [
    "ConfigError", "FORMATS", "Finding", "LintConfig", "LintReport", "Severity", "find_config",
    "lint_paths", "lint_text", "read_config_file", "render", "sarif_log", "sql_files",
]
