"""The lint rules, one module each. A rule module defines `CODE`, `NAME` (kebab-case
advice), `SUMMARY` (one line), `SEVERITY` and `check(statement, context) -> list[Finding]`
(`context.table(statement)` is the target's description, `context.analysis(statement)` the
analyzer's view, computed on first request); a rule that judges a transaction block as one unit
also defines `check_block(block, context)` (an AtomicBlock; a BEGIN TRANSACTION ... COMMIT is
handed over as one at its COMMIT); its doc page is `docs/rules/<CODE>.md`. Add a
rule by adding a module and its name here: the order is the order `acidsql rules` lists them.
Queries (SELECT ...) reach the rules unmodelled, as `OtherStatement`s with command QUERY (see
`lint_text`); a rule that judges queries sets `READS_QUERIES = True` to get `Select`s."""
from __future__ import annotations

import importlib
from functools import lru_cache
from types import ModuleType

RULE_MODULES = (
    "parse_error",
    "require_partition_predicate",
    "row_level_concurrency_fallback",
    "insert_reads_target",
    "metadata_change_beside_writers",
    "zorder_with_deletion_vectors",
    "serializable_blocks_blind_appends",
    "identity_column_concurrent_writes",
    "dml_reads_whole_table",
    "transaction_needs_catalog_managed",
    "transaction_block_conflicts",
)


@lru_cache(maxsize=1)
def all_rules() -> tuple[ModuleType, ...]:
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in RULE_MODULES)


def rule_by_code(code_or_name: str) -> ModuleType | None:
    wanted = code_or_name.strip().lower()
    for rule in all_rules():
        if wanted in (rule.CODE.lower(), rule.NAME.lower()):
            return rule
    return None
