"""Golden files for rewrites live in golden/rewrite/ (syrupy, amber format)."""
from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.extensions.amber import AmberSnapshotExtension

ROOT = Path(__file__).resolve().parents[2]


class GoldenRewrite(AmberSnapshotExtension):
    @classmethod
    def dirname(cls, *, test_location) -> str:
        return str(ROOT / "golden" / "rewrite")


@pytest.fixture
def golden(snapshot):
    return snapshot.use_extension(GoldenRewrite)
