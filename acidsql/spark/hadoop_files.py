"""Which reader a Spark scan of an object-store table uses for its data files.

Two readers can read the parquet files of a table on S3, GCS or Azure:

- **Spark's own parquet reader through a Hadoop connector** (`s3a`, `gs`, `abfss`), when the
  session has one for the store: it reads only the columns a query needs and never leaves the
  JVM (2.3x faster than the Arrow scan on moto's S3 server, docs/cluster.md). Databricks, EMR and
  Dataproc clusters come with their store's connector configured.
- **acidsql's Arrow scan** (`scan.arrow_scan`): obstore on the executors, through the same
  Storage and credentials the writers use. Needs nothing from Spark's configuration.

The session option `acidsql.scan.reader` chooses: `auto` (default) takes the connector when the
session has one for the table's scheme and it can see the table's first data file, else the
Arrow scan; `hadoop` insists on the connector (an error says why it cannot be used); `arrow`
never uses it. Deletion vectors, partition values and row positions are applied the same way on
top of either (scan.scan), so the choice changes speed, never rows.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from acidsql.delta.storage import Storage

OPTION = "acidsql.scan.reader"
AUTO, HADOOP, ARROW = "auto", "hadoop", "arrow"
CHOICES = (AUTO, HADOOP, ARROW)

# The Hadoop scheme to try for each object-store URI scheme, in order. `s3://` is EMRFS on EMR
# and unknown elsewhere, where `s3a` is Hadoop's S3 connector for the same bucket and key.
_HADOOP_SCHEMES = {
    "s3": ("s3", "s3a"),
    "s3a": ("s3a",),
    "gs": ("gs",),
    "abfss": ("abfss",),
    "abfs": ("abfs",),
}


class HadoopReaderError(ValueError):
    """`acidsql.scan.reader=hadoop` was asked for and the session cannot read the table that way."""


@dataclass(frozen=True)
class FilesReader:
    """How a scan reads data files: `root` is the table's URI in the Hadoop scheme Spark reads
    (None: the Arrow scan), `reason` why (shown by tests and in errors)."""

    root: Optional[str]
    reason: str


def reader_option(spark: "SparkSession") -> str:
    value = (spark.conf.get(OPTION, AUTO) or AUTO).strip().lower()
    if value not in CHOICES:
        raise ValueError(f"{OPTION} must be one of {', '.join(CHOICES)}, not {value!r}")
    return value


def files_reader(spark: "SparkSession", storage: "Storage", first_file: str) -> FilesReader:
    """The reader for an object-store table whose Storage is `storage`; `first_file` is a data
    file of the table (relative to its root, not URI-encoded), probed once so a connector that
    is there but cannot reach this store (other endpoint, no credentials) is not chosen."""
    option = reader_option(spark)
    if option == ARROW:
        return FilesReader(None, f"{OPTION}=arrow")
    root = storage.uri("")
    parts = urlsplit(root)
    candidates = _HADOOP_SCHEMES.get(parts.scheme.lower(), ())
    jvm = getattr(spark, "_jvm", None)
    why = f"no Hadoop connector is known for {parts.scheme}:// tables"
    if jvm is not None and candidates:
        conf = spark._jsc.hadoopConfiguration()  # type: ignore[union-attr]
        why = f"the session has no Hadoop filesystem for {' or '.join(s + '://' for s in candidates)}"
        for scheme in candidates:
            try:
                jvm.org.apache.hadoop.fs.FileSystem.getFileSystemClass(scheme, conf)
            except Exception:  # py4j: ClassNotFound / UnsupportedFileSystem, i.e. not configured
                continue
            hadoop_root = parts._replace(scheme=scheme).geturl().rstrip("/")
            try:
                path = jvm.org.apache.hadoop.fs.Path(f"{hadoop_root}/{first_file}")
                if path.getFileSystem(conf).exists(path):
                    return FilesReader(hadoop_root, f"Spark's parquet reader through {scheme}://")
                why = f"{scheme}:// does not see {hadoop_root}/{first_file}"
            except Exception as e:  # wrong endpoint, no credentials, ...
                why = f"{scheme}:// cannot read {hadoop_root}: {_first_line(e)}"
    elif jvm is None:
        why = "the session has no JVM gateway (Spark Connect)"
    if option == HADOOP:
        raise HadoopReaderError(f"{OPTION}=hadoop, but {why}")
    return FilesReader(None, f"acidsql's Arrow scan: {why}")


def _first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__
