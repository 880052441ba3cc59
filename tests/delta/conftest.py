"""Fixtures shared by the Delta engine tests: a fresh table directory and a way to create a
table through acidsql's own log API."""
from __future__ import annotations

import os
import uuid
from pathlib import Path

import pyarrow as pa

import pytest
from syrupy.extensions.amber import AmberSnapshotExtension

from acidsql.delta.actions import CommitInfo, Metadata, Protocol
from acidsql.delta.log import DeltaLog
from acidsql.delta.snapshot import spark_schema_from_arrow


ROOT = Path(__file__).resolve().parents[2]


class GoldenDelta(AmberSnapshotExtension):
    @classmethod
    def dirname(cls, *, test_location) -> str:
        return str(ROOT / "golden" / "delta")


@pytest.fixture
def golden(snapshot):
    """A syrupy snapshot stored under golden/delta/."""
    return snapshot.use_extension(GoldenDelta)


@pytest.fixture
def table_dir(tmp_path):
    """An empty directory for one table (as a string path)."""
    path = tmp_path / "table"
    path.mkdir()
    return str(path)


@pytest.fixture
def create_table(table_dir):
    """create_table(schema, partition_columns=(), configuration=None, protocol=None) -> DeltaLog:
    commits version 0 (protocol + metaData) with acidsql's log API."""

    def create(schema: pa.Schema, partition_columns=(), configuration=None, protocol=None,
               timestamp_ms: int = 1_700_000_000_000) -> DeltaLog:
        log = DeltaLog(table_dir)
        metadata = Metadata(id=str(uuid.uuid4()), schema_string=spark_schema_from_arrow(schema),
                            partition_columns=tuple(partition_columns),
                            configuration=tuple(sorted((configuration or {}).items())),
                            created_time=timestamp_ms)
        log.write_commit(0, [CommitInfo(timestamp_ms, "CREATE TABLE"), protocol or Protocol(1, 2), metadata])
        return log

    return create


@pytest.fixture(scope="session")
def postgres_server():
    """One throwaway PostgreSQL 15 cluster on 127.0.0.1 for the session (tests/pgserver.py)."""
    from tests.pgserver import PostgresServer, missing_reason

    reason = missing_reason()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI runs every catalog test: .ci/run installs postgresql)")
        pytest.skip(reason)
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def catalog_backend(request, monkeypatch):
    """The catalog the tables of a test use: the warehouse's embedded SQLite file (no
    ACIDSQL_CATALOG), or a fresh database on the PostgreSQL server (ACIDSQL_CATALOG set)."""
    monkeypatch.delenv("ACIDSQL_CATALOG", raising=False)
    if request.param == "postgres":
        server = request.getfixturevalue("postgres_server")
        monkeypatch.setenv("ACIDSQL_CATALOG", server.new_database())
    return request.param
