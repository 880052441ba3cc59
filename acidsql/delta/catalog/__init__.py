"""acidsql's catalog, the commit coordinator of catalog-managed tables (`catalogManaged`):
`base` (the interface and its SQL), `sqlite` (embedded, the default), `postgres` (several
machines), `resolve` (which catalog manages a table). The commit target that speaks to it and
the publication hook are `acidsql.delta.catalog.target`; see docs/catalog.md."""
from acidsql.delta.catalog.base import (
    STAGED_DIR, CatalogError, Proposal, Ratification, RatifiedCommit, ReadFence, SqlCatalog, TableCommits,
    staged_commit_name,
)
from acidsql.delta.catalog.postgres import PostgresCatalog
from acidsql.delta.catalog.resolve import (
    CATALOG_ENV, SQLITE_FILE, Catalog, catalog_for, default_catalog_dsn, open_catalog, table_location,
)
from acidsql.delta.catalog.sqlite import SqliteCatalog

__all__ = [
    "CATALOG_ENV", "SQLITE_FILE", "STAGED_DIR", "Catalog", "CatalogError", "PostgresCatalog", "Proposal",
    "Ratification", "ReadFence", "RatifiedCommit", "SqlCatalog", "SqliteCatalog", "TableCommits", "catalog_for",
    "default_catalog_dsn", "open_catalog", "staged_commit_name", "table_location",
]
