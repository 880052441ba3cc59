"""Catalog-managed commits on one table (delta-io/delta protocol_rfcs/accepted/catalog-managed.md):
staged, ratified by acidsql's catalog, published; readers asking the catalog; what readers
without it do (acidsql, deltalake)."""
from __future__ import annotations

import json
import os

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.delta import DeltaTable
from acidsql.delta.catalog import SQLITE_FILE, open_catalog
from acidsql.delta.catalog.target import PUBLICATION
from acidsql.delta.exceptions import DeltaConcurrentModificationException, InvalidTablePropertyError
from acidsql.delta.log import DeltaLog, PathAccessBlocked

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64())])
MANAGED = {"delta.feature.catalogManaged": "supported"}


def rows(t):
    d = t.to_arrow().sort_by("id").to_pydict()
    return list(zip(d["id"], d["v"]))


def staged_files(root):
    d = os.path.join(root, "_delta_log", "_staged_commits")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def test_new_table_is_catalog_managed(tmp_path, catalog_backend):
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, properties=MANAGED)
    snap = t.snapshot()
    assert set(snap.protocol.reader_features) == {"catalogManaged", "vacuumProtocolCheck"}
    assert set(snap.protocol.writer_features) == {"catalogManaged", "inCommitTimestamp", "vacuumProtocolCheck"}
    assert snap.configuration["delta.enableInCommitTimestamps"] == "true"
    catalog = t.log.catalog
    assert snap.configuration["acidsql.catalog.id"] == catalog.catalog_id
    t.append(pa.table({"id": [1], "v": [10]}, schema=SCHEMA))
    # Each version was staged, ratified, then published with the same bytes.
    staged = staged_files(root)
    assert [n.split(".")[0] for n in staged] == [f"{0:020d}", f"{1:020d}"]
    for v, name in enumerate(staged):
        with open(os.path.join(root, "_delta_log", "_staged_commits", name), "rb") as f, \
                open(os.path.join(root, "_delta_log", f"{v:020d}.json"), "rb") as g:
            assert f.read() == g.read()
    managed = catalog.get(t.log.location)
    assert (managed.latest_version, managed.published_version, managed.ratified) == (1, 1, ())
    info = json.loads(open(os.path.join(root, "_delta_log", f"{1:020d}.json")).readline())["commitInfo"]
    assert info["txnId"] and info["inCommitTimestamp"]
    if catalog_backend == "sqlite":
        assert os.path.exists(tmp_path / SQLITE_FILE)  # the warehouse's embedded catalog


@pytest.mark.parametrize("access", ["snapshot", "history"])
def test_readers_ask_the_catalog_for_unpublished_versions(tmp_path, monkeypatch, catalog_backend, access):
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, properties=MANAGED)
    t.append(pa.table({"id": [1], "v": [10]}, schema=SCHEMA))

    def crash(*a, **k):
        raise OSError("killed before publication")
    monkeypatch.setattr(PUBLICATION, "run", crash)
    with pytest.warns(UserWarning, match="publication hook failed"):
        result = t.append(pa.table({"id": [2], "v": [20]}, schema=SCHEMA))
    assert result.version == 2
    assert not os.path.exists(os.path.join(root, "_delta_log", f"{2:020d}.json"))
    managed = t.log.catalog.get(t.log.location)
    assert [c.version for c in managed.unpublished] == [2]
    monkeypatch.undo()
    if catalog_backend == "postgres":
        monkeypatch.setenv("ACIDSQL_CATALOG", t.log.catalog.dsn)
    # A cold reader: the catalog names version 2, readable from its staged commit; reading
    # also publishes it (recovery).
    fresh = DeltaTable(root)
    assert fresh.version == 2
    if access == "history":  # DESCRIBE HISTORY lists the ratified version (it publishes it first)
        assert [v for v, _info in fresh.history()] == [2, 1, 0]
    else:
        assert rows(fresh) == [(1, 10), (2, 20)]
    assert os.path.exists(os.path.join(root, "_delta_log", f"{2:020d}.json"))
    assert fresh.log.catalog.get(fresh.log.location).unpublished == ()


def test_no_checkpoint_of_an_unpublished_version(tmp_path, monkeypatch, catalog_backend):
    """Checkpoints are written only for published versions (the RFC's maintenance rule)."""
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, properties={**MANAGED, "delta.checkpointInterval": "1"})
    monkeypatch.setattr(PUBLICATION, "run", lambda *a: (_ for _ in ()).throw(OSError("publication failed")))
    with pytest.warns(UserWarning, match="checkpoint hook failed.*not published"):
        t.append(pa.table({"id": [1], "v": [10]}, schema=SCHEMA))
    assert t.log.checkpoint_versions() == []
    monkeypatch.delattr(PUBLICATION, "run")  # the class's own again
    result = t.append(pa.table({"id": [2], "v": [20]}, schema=SCHEMA))  # publishes 1 and 2, checkpoints 2
    assert [h.hook for h in result.hooks][:2] == ["publication", "checkpoint"]
    assert DeltaTable(root).log.checkpoint_versions() == [2]
    assert rows(DeltaTable(root)) == [(1, 10), (2, 20)]


def test_catalog_version_is_authoritative(tmp_path, catalog_backend):
    """A `<v>.json` past the catalog's latest version is ignored (the RFC: readers ignore files
    with versions greater than the latest ratified one)."""
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, properties=MANAGED)
    t.append(pa.table({"id": [1], "v": [10]}, schema=SCHEMA))
    rogue = open(os.path.join(root, "_delta_log", f"{1:020d}.json"), "rb").read()
    with open(os.path.join(root, "_delta_log", f"{2:020d}.json"), "wb") as f:
        f.write(rogue)
    assert DeltaTable(root).version == 1
    assert rows(DeltaTable(root)) == [(1, 10)]


def test_path_access_without_its_catalog_is_refused(tmp_path, catalog_backend):
    root = str(tmp_path / "t")
    DeltaTable.create(root, SCHEMA, properties=MANAGED)
    with pytest.raises(PathAccessBlocked, match=r"\[DELTA_PATH_BASED_ACCESS_TO_CATALOG_MANAGED_TABLE_BLOCKED\]"):
        DeltaLog(root, catalog=None).snapshot()
    other = open_catalog(str(tmp_path / "elsewhere" / "other.sqlite"))
    with pytest.raises(PathAccessBlocked, match="catalogManaged|Catalog-Managed"):
        DeltaLog(root, catalog=other).snapshot()


def test_concurrent_single_table_commits(tmp_path, catalog_backend):
    """Two writers race for the same version: the catalog ratifies one; the other is checked
    against it with the conflict rules (a blind append passes, a conflicting update fails)."""
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, properties={**MANAGED, "delta.enableDeletionVectors": "true"})
    t.append(pa.table({"id": [1, 2], "v": [10, 20]}, schema=SCHEMA))
    first = t.start_update(lambda r: pc.equal(r["id"], 1), {"v": lambda r: pc.add(r["v"], 1)})
    second = t.start_update(lambda r: pc.equal(r["id"], 1), {"v": lambda r: pc.add(r["v"], 100)})
    append = t.start_append(pa.table({"id": [3], "v": [30]}, schema=SCHEMA))
    assert first.commit().version == 2
    assert append.commit().version == 3
    with pytest.raises(DeltaConcurrentModificationException):
        second.commit()
    assert rows(DeltaTable(root)) == [(1, 11), (2, 20), (3, 30)]


def test_enable_on_an_existing_table(tmp_path, monkeypatch, catalog_backend):
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA)
    t.append(pa.table({"id": [1], "v": [10]}, schema=SCHEMA))
    assert t.log.catalog_commits() is None
    from acidsql.delta.catalog.target import AdoptionHook
    monkeypatch.setattr(AdoptionHook, "run", lambda *a: (_ for _ in ()).throw(OSError("killed before adoption")))
    with pytest.warns(UserWarning, match="catalog adoption hook failed"):
        enabled = t.set_properties({"delta.feature.catalogManaged": "supported"})
    monkeypatch.undo()
    if catalog_backend == "postgres":
        monkeypatch.setenv("ACIDSQL_CATALOG", t.log.catalog.dsn)
    snap = DeltaTable(root).snapshot()  # the next access: the catalog adopts the table
    assert "catalogManaged" in snap.protocol.reader_features
    assert snap.configuration["delta.enableInCommitTimestamps"] == "true"
    fresh = DeltaTable(root)
    managed = fresh.log.catalog_commits()
    assert (managed.latest_version, managed.published_version) == (enabled.version, enabled.version)
    r = fresh.append(pa.table({"id": [2], "v": [20]}, schema=SCHEMA))
    assert [n.split(".")[0] for n in staged_files(root)] == [f"{r.version:020d}"]
    assert rows(DeltaTable(root)) == [(1, 10), (2, 20)]


def test_in_commit_timestamps_stay_on(tmp_path, catalog_backend):
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, properties=MANAGED)
    with pytest.raises(InvalidTablePropertyError, match=r"\[DELTA_CANNOT_MODIFY_CATALOG_MANAGED_DEPENDENCIES\]"):
        t.set_properties({"delta.enableInCommitTimestamps": "false"})
    with pytest.raises(InvalidTablePropertyError, match=r"\[DELTA_CANNOT_MODIFY_CATALOG_MANAGED_DEPENDENCIES\]"):
        DeltaTable.create(str(tmp_path / "u"), SCHEMA,
                          properties={**MANAGED, "delta.enableInCommitTimestamps": "false"})


def test_deltalake_refuses_a_catalog_managed_table(tmp_path, catalog_backend):
    """deltalake (delta-rs) reads no catalog-managed table by path: it asks for the catalog's
    latest version (docs/catalog.md)."""
    deltalake = pytest.importorskip("deltalake")
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, properties=MANAGED)
    t.append(pa.table({"id": [1], "v": [10]}, schema=SCHEMA))
    with pytest.raises(Exception, match="catalog-managed"):
        deltalake.DeltaTable(root).to_pyarrow_table()
    with pytest.raises(Exception, match="catalog-managed"):
        deltalake.write_deltalake(root, pa.table({"id": [2], "v": [20]}, schema=SCHEMA), mode="append")
    assert rows(DeltaTable(root)) == [(1, 10)]


def test_a_catalog_names_itself_without_a_credential(tmp_path, catalog_backend):
    """What error messages and repr show of a catalog: its engine and where it is; a PostgreSQL
    password never (trust authentication here ignores the one given)."""
    if catalog_backend == "sqlite":
        path = str(tmp_path / "c.sqlite")
        catalog = open_catalog(path)
        assert (str(catalog), repr(catalog)) == (f"the SQLite catalog {path}", f"SqliteCatalog({path!r})")
        return
    dsn = os.environ["ACIDSQL_CATALOG"].replace("postgres@", "postgres:s3cret@")
    catalog = open_catalog(dsn)
    assert str(catalog).startswith("the PostgreSQL catalog ") and "dbname=" in str(catalog)
    assert repr(catalog).startswith("PostgresCatalog('") and "host=127.0.0.1" in repr(catalog)
    assert "s3cret" not in str(catalog) + repr(catalog)
