"""The refusal-parity differential's own rules, without Spark: the generator is deterministic,
and the judge (dml_parity.judge) tells agreement from divergence as its docstring says."""
from __future__ import annotations

from .dml_cases import Case, Column, TableSpec, cases, ci_tables, random_tables
from .dml_parity import DELTA_INTERNAL, DOCUMENTED, Outcome, _canonical, judge

SPEC = TableSpec((Column("id", "bigint"), Column("d", "double"), Column("c", "char", 3)), False, True,
                 (("1", "0.0D", "'a'"),))


def _case(statement: str = "DELETE FROM {t} WHERE id = 1", kind: str = "DELETE", features=()) -> Case:
    return Case(SPEC, statement, kind, tuple(features), "rule")


def _ran(*rows, metrics=()) -> Outcome:
    return Outcome("ran", rows=tuple(sorted((tuple(_canonical(v) for v in r) for r in rows), key=repr)),
                   metrics=tuple(metrics), wrote=True)


def _refused(error_class, message="", origin="StatementError", wrote=False) -> Outcome:
    return Outcome("refused", error_class, message, origin, wrote=wrote)


def test_the_generator_is_deterministic():
    first = [(c.table.name, c.statement) for c in cases(5, 40, random_tables(5, 4))]
    assert first == [(c.table.name, c.statement) for c in cases(5, 40, random_tables(5, 4))]
    assert first != [(c.table.name, c.statement) for c in cases(6, 40, random_tables(5, 4))]
    assert {c.kind for c in cases(5, 40, ci_tables(1))} == {"DELETE", "UPDATE", "MERGE", "INSERT"}


def test_the_generator_covers_every_type_and_layout():
    specs = ci_tables(1)
    kinds = {c.kind for s in specs for c in s.columns}
    assert kinds >= {"bigint", "int", "double", "decimal", "string", "char", "varchar", "date", "timestamp", "boolean"}
    assert {(s.partitioned, s.deletion_vectors) for s in specs} == {(False, True), (True, False), (False, False), (True, True)}
    features = {f for c in cases(3, 400, specs) for f in c.features}
    assert features >= {"duplicate-set", "non-last-unconditional", "over-length", "out-of-range-literal",
                        "signed-zero", "duplicate-source-keys", "by-source", "char-compare", "mixed-type-literal"}


def test_same_rows_with_nan_and_different_rows_with_signed_zero():
    nan = float("nan")
    assert judge(_case(), _ran((1, nan)), _ran((1, nan))).what == "same rows"
    assert judge(_case(), _ran((1, -0.0)), _ran((1, 0.0))).what == "rows differ"
    assert judge(_case(), _ran((1, 0.0), (1, 0.0)), _ran((1, 0.0))).what == "rows differ"  # a multiset


def test_refusals_must_name_deltas_error_class():
    delta = _refused("DELTA_CONFLICT_SET_COLUMN", origin="AnalysisException")
    assert judge(_case(), _refused("DELTA_CONFLICT_SET_COLUMN"), delta).what == "both refused"
    assert judge(_case(), _refused(None, "[DELTA_CONFLICT_SET_COLUMN] i set twice"), delta).what == "both refused"
    assert judge(_case(), _refused(None, "i set twice"), delta).what == "other error class"
    assert judge(_case(), _refused("UNSUPPORTED_FEATURE"),
                 _refused("UNSUPPORTED_FEATURE.TABLE_OPERATION")).what == "both refused"
    assert judge(_case(), _refused("X", wrote=True), delta).what == "refusal wrote a commit"


def test_a_crash_is_a_divergence_whatever_delta_did():
    crash = Outcome("crashed", None, "Python int too large", "OverflowError")
    for delta in (_ran((1, 0.0)), _refused("X"), Outcome("internal", None, "NPE", "NullPointerException")):
        v = judge(_case(features=("out-of-range-literal",)), crash, delta)
        assert v.what == "acidsql crashed" and v.divergent
    assert judge(_case(), crash, _ran()).unexplained  # item 6 is fixed: no crash is a known divergence
    assert judge(_case(), Outcome("crashed", None, "boom", "AssertionError"), _ran()).unexplained


def test_known_divergences_need_their_own_symptom():
    cardinality = _refused("DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE")
    assert judge(_case(kind="MERGE"), _ran(), cardinality).unexplained  # item 1 is fixed: no longer known
    assert judge(_case(kind="UPDATE"), _ran(), cardinality).unexplained
    assert judge(_case(kind="UPDATE"), _ran((1,)), _ran((2,))).unexplained
    # item 2's CHAR comparison is fixed: other rows are a divergence (Parity reruns Delta without
    # data skipping before it calls one the documented CHAR_SKIPPING difference).
    assert judge(_case(features=("char-compare",)), _ran((1,)), _ran((2,))).unexplained
    assert judge(_case(kind="MERGE"), _ran((1,), metrics=[("numTargetRowsDeleted", 2)]),
                 _ran((1,), metrics=[("numTargetRowsDeleted", 1)])).unexplained  # item 7 is fixed


def test_documented_differences_and_delta_internal_errors_are_not_divergences():
    subquery = _refused("DELTA_UNSUPPORTED_SUBQUERY")
    assert judge(_case(features=("subquery",)), _ran(), subquery).what == DOCUMENTED
    assert judge(_case(), _ran(), subquery).unexplained  # no subquery: nothing documents it
    assert judge(_case(), _ran(), Outcome("internal", "INTERNAL_ERROR", "", "SparkException")).what == DELTA_INTERNAL


def test_a_value_error_is_deltas_class_and_only_a_race_between_two_may_differ():
    overflow, malformed = "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE", "CAST_INVALID_INPUT"
    update = _case(kind="UPDATE")
    # Spark's own cast class where Delta names its write error is a divergence again (fixed)
    assert judge(update, _refused("CAST_OVERFLOW"), _refused(overflow)).unexplained
    assert judge(update, _refused("NUMERIC_VALUE_OUT_OF_RANGE"), _refused(overflow)).unexplained
    # two rows' errors in two tasks: each engine names the task that failed first
    assert not judge(update, _refused(malformed), _refused(overflow)).unexplained
    assert not judge(update, _refused(overflow), _refused(malformed)).unexplained
    # '' written where Delta writes NULL, MERGE clauses out of order: no longer known (fixed)
    assert judge(update, _ran((1, "")), _ran((1, None))).unexplained
    out_of_order = _case("MERGE INTO {t} ...", "MERGE", ("clause-order",))
    assert judge(out_of_order, _ran(), _refused("PARSE_SYNTAX_ERROR")).unexplained
