"""Which Storage a location gets: the one place that knows both backends.

It sits above `storage` (paths, LocalStorage, the Storage interface) and `object_store`
(ObjectStorage, which builds on that interface), so neither of them imports the other back."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

from acidsql.delta.object_store import ObjectStorage
from acidsql.delta.storage import LocalStorage, Storage, is_object_store_location, normalize_location


def storage_for(location: str, options: Optional[Mapping[str, str]] = None) -> "Storage":
    """The Storage of a table (or warehouse) location: LocalStorage for paths and file: URIs,
    ObjectStorage for object-store URIs, configured by `options` and the store's standard
    environment variables. Raises UnsupportedStorageError for other schemes."""
    location = normalize_location(location)
    if is_object_store_location(location):
        return ObjectStorage(location, options)
    return LocalStorage(location)  # storage options configure object stores only
