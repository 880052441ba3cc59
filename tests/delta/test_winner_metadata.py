"""What a winner's metadata action changes, as the check stage reads it: a SET TBLPROPERTIES of
values already set changes nothing (Delta resolves it), a REPLACE TABLE of the same definition
is a new table (Delta compares createdTime too). Which operation kinds change data is one table
(conflict/operations.changes_data) for the analyzer and the engine."""
from __future__ import annotations

from dataclasses import replace

import pytest

from acidsql.conflict import OpKind
from acidsql.conflict.operations import changes_data
from acidsql.delta.actions import Metadata
from acidsql.delta.commit.winners import same_metadata

SCHEMA = '{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]}'
TABLE = Metadata(id="t-1", schema_string=SCHEMA, configuration=(("delta.isolationLevel", "Serializable"),),
                 created_time=1_700_000_000_000)


def test_the_same_metadata_written_again_is_no_change():
    assert same_metadata(TABLE, replace(TABLE))


@pytest.mark.parametrize("change", [
    {"created_time": 1_700_000_000_001},  # REPLACE TABLE of the same definition
    {"configuration": (("delta.isolationLevel", "WriteSerializable"),)},
    {"id": "t-2"},
    {"partition_columns": ("id",)},
])
def test_a_difference_is_a_metadata_change(change):
    assert not same_metadata(TABLE, replace(TABLE, **change))


def test_a_table_without_metadata_before_is_changed():
    assert not same_metadata(None, TABLE)


def test_which_kinds_change_data():
    assert {k for k in OpKind if changes_data(k)} == {OpKind.APPEND, OpKind.OVERWRITE, OpKind.DML, OpKind.CREATE,
                                                      OpKind.RESTORE}
