"""Golden files of the SQL front-end live in golden/sql/ (syrupy JSON snapshots)."""
from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "sql"


class SqlGoldenExtension(JSONSnapshotExtension):
    @classmethod
    def dirname(cls, *, test_location) -> str:
        return str(GOLDEN / Path(test_location.filepath).stem)


@pytest.fixture
def golden(snapshot):
    return snapshot.use_extension(SqlGoldenExtension)
