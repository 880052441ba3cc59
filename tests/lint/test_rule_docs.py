"""The examples in docs/rules/*.md are the rules' fixtures: each page's Bad block must fire
its rule and its Good block must not. A page's optional `## Table` block describes the table
both blocks run against (it is prepended to each)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from acidsql.linter import LintConfig, lint_text
from acidsql.linter.rules import all_rules

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"


def _blocks(code: str) -> dict[str, str]:
    """Each section's title and the first ```sql block under it."""
    out: dict[str, str] = {}
    for section in re.split(r"^## ", (DOCS / f"{code}.md").read_text(), flags=re.MULTILINE)[1:]:
        title, _, body = section.partition("\n")
        block = re.search(r"^```sql\n(.*?)^```", body, re.MULTILINE | re.DOTALL)
        if block:
            out[title.strip()] = block.group(1)
    return out


CODES = sorted(rule.CODE for rule in all_rules())


def test_every_rule_page_has_bad_and_good_sql():
    for code in CODES:
        assert {"Bad", "Good"} <= set(_blocks(code)), code


@pytest.mark.parametrize("code", CODES)
def test_bad_example_fires_and_good_example_does_not(code):
    blocks = _blocks(code)
    table = blocks.get("Table", "")
    config = LintConfig(select=(code,))
    bad = lint_text(table + blocks["Bad"], f"{code}-bad.sql", config)
    good = lint_text(table + blocks["Good"], f"{code}-good.sql", config)
    assert [f.code for f in bad.findings if f.code == code], f"{code}: the Bad example does not fire"
    assert [f.message for f in good.findings if f.code == code] == [], f"{code}: the Good example fires"
