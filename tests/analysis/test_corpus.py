"""Every statement of the shared corpus that parses is analyzed without an exception; the
summary (kind, operation, blind append, whole-table read, row-level fallbacks, metadata and
protocol changes) is a golden file."""
from __future__ import annotations

from acidsql.analysis import Catalog, analyze
from acidsql.sql import parse_statement


def summarize(corpus_statements):
    catalog = Catalog()
    rows, unparsed = [], []
    for i, text in enumerate(corpus_statements, start=1):
        try:
            st = parse_statement(text)
        except Exception:
            unparsed.append(i)
            continue
        a = analyze(st, catalog)
        catalog.apply(st)
        pc = a.protocol_change
        rows.append({
            "n": i,
            "kind": a.kind,
            "operation": a.operation,
            "op_kind": a.op_kind.value,
            "table": a.table,
            "blind_append": a.blind_append,
            "whole_table_read": a.read.reads and a.read.whole_table,
            "partitions_read": a.read.partitions.describe() if a.read.reads else None,
            "row_level_fallbacks": list(a.row_level.fallbacks),
            "metadata_change": a.metadata_change is not None,
            "protocol_change": None if pc is None else sorted(pc.added_features) + [f"-{f}" for f in sorted(pc.removed_features)],
        })
        a.to_dict()  # the JSON form must build for every statement
    return rows, unparsed


def test_corpus_analysis_summary(corpus_statements, golden):
    rows, unparsed = summarize(corpus_statements)
    assert len(rows) + len(unparsed) == len(corpus_statements)
    assert len(rows) >= 240  # the corpus lists about 20 statements a front-end may reject
    kinds = {r["kind"] for r in rows}
    assert {"MERGE", "UPDATE", "DELETE", "INSERT", "ALTER TABLE", "OPTIMIZE"} <= kinds
    assert {"rows": rows, "unparsed": unparsed} == golden


def test_corpus_facts(corpus_statements):
    rows, _ = summarize(corpus_statements)
    by_kind = {}
    for r in rows:
        by_kind.setdefault(r["kind"], []).append(r)
    # no MERGE is ever a blind append; some INSERTs are
    assert not any(r["blind_append"] for r in by_kind["MERGE"])
    assert any(r["blind_append"] for r in by_kind["INSERT"])
    # MERGE ... WHEN NOT MATCHED BY SOURCE reads the whole target
    by_source = [r for r, t in zip(rows, [None] * len(rows)) if r["kind"] == "MERGE" and r["whole_table_read"]]
    assert by_source
    assert any(r["protocol_change"] and any(p.startswith("-") for p in r["protocol_change"]) for r in rows)  # DROP FEATURE
