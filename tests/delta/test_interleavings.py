"""Random interleavings of small concurrent transactions (hypothesis). Whatever commits must
be explainable serially: under Serializable in exactly commit order, under WriteSerializable
in some order of the committed writes."""
from __future__ import annotations

import itertools
import tempfile

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acidsql.delta import DeltaConcurrentModificationException, DeltaTable

INITIAL = list(range(6))
SCHEMA = pa.schema([("id", pa.int64())])

operations = st.one_of(
    st.tuples(st.just("append"), st.lists(st.integers(0, 7), min_size=1, max_size=2)),
    st.tuples(st.just("delete"), st.frozensets(st.integers(0, 7), min_size=1, max_size=3)),
    st.tuples(st.just("optimize"), st.just(None)),
)


@st.composite
def schedules(draw):
    ops = draw(st.lists(operations, min_size=2, max_size=3))
    events = draw(st.permutations([i for i in range(len(ops)) for _ in (0, 1)]))
    return ops, events


def apply(rows: list[int], op) -> list[int]:
    kind, arg = op
    if kind == "append":
        return rows + list(arg)
    if kind == "delete":
        return [r for r in rows if r not in arg]
    return rows


def run(schedule, isolation: str, dvs: bool) -> tuple[list[int], list]:
    ops, events = schedule
    with tempfile.TemporaryDirectory() as root:
        t = DeltaTable.create(root, SCHEMA, properties={
            "delta.isolationLevel": isolation, "delta.enableDeletionVectors": "true" if dvs else "false"})
        t.append(pa.table({"id": INITIAL}))
        prepared, committed = {}, []
        for i in events:
            kind, arg = ops[i]
            if i not in prepared:
                if kind == "append":
                    prepared[i] = t.start_append(pa.table({"id": arg}))
                elif kind == "delete":
                    values = pa.array(sorted(arg), type=pa.int64())
                    prepared[i] = t.start_delete(lambda tb, v=values: pc.is_in(tb["id"], value_set=v),
                                                 description=f"id IN {sorted(arg)}")
                else:
                    prepared[i] = t.start_optimize()
                continue
            try:
                result = prepared[i].commit()
            except DeltaConcurrentModificationException:
                continue
            committed.append((result.version, ops[i]))
        final = sorted(t.to_arrow()["id"].to_pylist())
    return final, [op for _, op in sorted(committed, key=lambda vo: vo[0])]


def serial(order) -> list[int]:
    rows = list(INITIAL)
    for op in order:
        rows = apply(rows, op)
    return sorted(rows)


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(schedules(), st.booleans())
def test_serializable_equals_commit_order(schedule, dvs):
    final, committed = run(schedule, "Serializable", dvs)
    assert final == serial(committed)


@SETTINGS
@given(schedules(), st.booleans())
def test_write_serializable_has_a_serial_order(schedule, dvs):
    final, committed = run(schedule, "WriteSerializable", dvs)
    assert any(final == serial(order) for order in itertools.permutations(committed))
