"""Golden files for lint output live in golden/lint/ (syrupy, amber format)."""
from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.extensions.amber import AmberSnapshotExtension

ROOT = Path(__file__).resolve().parents[2]


class GoldenLint(AmberSnapshotExtension):
    @classmethod
    def dirname(cls, *, test_location) -> str:
        return str(ROOT / "golden" / "lint")


@pytest.fixture
def golden(snapshot):
    return snapshot.use_extension(GoldenLint)
