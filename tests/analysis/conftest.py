"""Golden files of the analyzer live in golden/analysis/ (syrupy JSON snapshots)."""
from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden" / "analysis"
SCENARIOS = ROOT / "examples" / "scenarios" / "semantics.yaml"


class AnalysisGoldenExtension(JSONSnapshotExtension):
    @classmethod
    def dirname(cls, *, test_location) -> str:
        return str(GOLDEN / Path(test_location.filepath).stem)


@pytest.fixture
def golden(snapshot):
    return snapshot.use_extension(AnalysisGoldenExtension)


@pytest.fixture(scope="session")
def scenario_file() -> Path:
    return SCENARIOS
