"""The rows of a table's data files as a commit needs them: deletion vectors read and
written, row counts, and the row mapping side files compactions leave behind."""
from __future__ import annotations

import io
import json
import typing
from typing import Optional, Union

from pyroaring import BitMap64

from acidsql.delta import datafiles
from acidsql.delta.actions import AddFile, DeletionVectorDescriptor, RemoveFile
from acidsql.delta.deletion_vectors import DeletionVector
from acidsql.delta.footprints import all_rows
from acidsql.delta.row_mapping import PermutationMapping

if typing.TYPE_CHECKING:
    from acidsql.delta.storage import Storage


class FileRows:
    """Row-level access to one table's files for one transaction. `dv_storage` is where new
    deletion vectors go: "file" (a deletion vector file) or "inline" (in the log)."""

    def __init__(self, storage: "Storage", dv_storage: str = "file"):
        if dv_storage not in ("file", "inline"):
            raise ValueError(f"dv_storage must be 'file' or 'inline', not {dv_storage!r}")
        self.storage = storage
        self.dv_storage = dv_storage
        self._row_mapping_files: dict[str, PermutationMapping] = {}

    def read_deletion_vector(self, descriptor: Optional[DeletionVectorDescriptor]) -> BitMap64:
        if descriptor is None:
            return BitMap64()
        return DeletionVector.read(self.storage, descriptor).bitmap

    def write_deletion_vector(self, rows: BitMap64) -> Optional[DeletionVectorDescriptor]:
        """Store `rows` as a deletion vector (None when empty), inline or as a file per dv_storage."""
        if not rows:
            return None
        dv = DeletionVector(rows)
        return dv.to_inline_descriptor() if self.dv_storage == "inline" else dv.write_file(self.storage)

    def row_mapping_file(self, rel: str) -> PermutationMapping:
        """A compaction's row mapping side file (row_mapping.py), read once per transaction;
        RowMappingError when it is missing or unusable."""
        if rel not in self._row_mapping_files:
            self._row_mapping_files[rel] = PermutationMapping.read(self.storage, rel)
        return self._row_mapping_files[rel]

    def num_records(self, path: str, *candidates: Optional[Union[AddFile, RemoveFile]]) -> int:
        """The rows of data file `path`: numRecords of the first candidate action with stats,
        else the parquet footer's count."""
        for c in candidates:
            if c is not None and c.stats:
                n = json.loads(c.stats).get("numRecords")
                if n is not None:
                    return int(n)
        import pyarrow.parquet as pq

        return pq.read_metadata(io.BytesIO(self.storage.read_bytes(datafiles.data_file_rel_path(path)))).num_rows

    def deleted_rows_of(self, remove: RemoveFile, readd: Optional[AddFile], live: Optional[AddFile] = None) -> BitMap64:
        """Rows of `remove.path` a commit deleted: the new DV minus the old for a DV update,
        every row not already deleted for a remove without re-add."""
        before = self.read_deletion_vector(remove.deletion_vector)
        if readd is not None:
            return self.read_deletion_vector(readd.deletion_vector) - before
        return all_rows(self.num_records(remove.path, remove, live)) - before
