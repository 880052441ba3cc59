"""Reading a Delta table on S3 into Spark with acidsql's scan, both readers
(acidsql/spark/hadoop_files.py): the Arrow scan (executors read the parquet files through
obstore, `mapInArrow`) and Spark's own parquet reader through `s3a` (hadoop-aws matched to
pyspark's Hadoop and the AWS SDK modules it uses, `make s3a-jars`), on the same table in moto's
S3 server on 127.0.0.1, in one local[2] session; deletion vectors applied by both.

    python -m benchmarks.s3_scan [--rows 2000000] [--files 8]

Without the jars (`make s3a-jars`) only the Arrow scan is measured. docs/cluster.md explains
when each reader is used."""
from __future__ import annotations

import argparse
import os
import time


def _best(fn, runs: int = 3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(runs):
        started = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - started)
    return best, out


def measure(rows: int = 2_000_000, files: int = 8) -> str:
    import numpy as np
    import pyarrow as pa

    from acidsql.delta import DeltaTable
    from acidsql.spark.scan import scan
    from acidsql.spark.session import local_session
    from tests.s3a.jars import s3a_jars
    from tests.s3server import ACCESS_KEY, REGION, SECRET_KEY, MotoServer, s3_env

    server = MotoServer()
    try:
        os.environ.update(s3_env(server.endpoint))
        server.create_bucket("bench")
        uri = "s3://bench/events"
        table = DeltaTable.create(uri, pa.schema([("id", pa.int64()), ("v", pa.float64()), ("s", pa.string())]))
        per = rows // files
        rng = np.random.default_rng(0)
        for f in range(files):
            ids = np.arange(f * per, (f + 1) * per, dtype=np.int64)
            table.append(pa.table({"id": ids, "v": rng.random(per), "s": pa.array([f"k{i % 997}" for i in ids])}))
        snapshot = DeltaTable(uri).snapshot()
        size_mib = sum(a.size for a in snapshot.files.values()) / 2 ** 20
        jars = [str(j) for j in s3a_jars()]
        conf = {"spark.ui.enabled": "false"}
        if jars:
            conf.update({
                "spark.jars": ",".join(jars),
                "spark.hadoop.fs.s3a.endpoint": server.endpoint,
                "spark.hadoop.fs.s3a.endpoint.region": REGION,
                "spark.hadoop.fs.s3a.path.style.access": "true",
                "spark.hadoop.fs.s3a.connection.ssl.enabled": "false",
                "spark.hadoop.fs.s3a.access.key": ACCESS_KEY,
                "spark.hadoop.fs.s3a.secret.key": SECRET_KEY,
                "spark.hadoop.fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
            })
        spark = local_session(app_name="acidsql-s3-scan-bench", conf=conf)
        try:
            from pyspark.sql import functions as F

            storage = DeltaTable(uri).log.storage

            def read(reader: str):
                spark.conf.set("acidsql.scan.reader", reader)
                return scan(spark, snapshot, storage=storage).agg(F.count("*"), F.sum("v"), F.countDistinct("s")).collect()

            arrow_s, arrow_rows = _best(lambda: read("arrow"))
            lines = [
                "## s3_scan",
                "",
                f"A {rows:,}-row table in {files} files ({size_mib:.0f} MiB) on moto's S3 server (127.0.0.1), "
                "read into Spark local[2] and aggregated (count, sum, count distinct); best of 3.",
                "",
                "| reader | seconds | rows/s |",
                "|---|---|---|",
                f"| acidsql Arrow scan (obstore on the executors, mapInArrow) | {arrow_s:.2f} | {rows / arrow_s:,.0f} |",
            ]
            if jars:
                s3a_s, s3a_rows = _best(lambda: read("hadoop"))
                assert arrow_rows[0][0] == s3a_rows[0][0] == rows
                lines.append(f"| acidsql scan, Spark's parquet reader through s3a (hadoop-aws 3.5.0, AWS SDK 2.35.4) | "
                             f"{s3a_s:.2f} | {rows / s3a_s:,.0f} |")
                lines += ["", f"Arrow scan / s3a: {arrow_s / s3a_s:.2f}x the time."]
            else:
                lines += ["", "s3a not measured: its jars are not in .cache/jars/s3a (`make s3a-jars`)."]
            out = "\n".join(lines) + "\n"
            print(out)
            return out
        finally:
            spark.stop()
    finally:
        server.stop()


def main() -> str:
    return measure()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--files", type=int, default=8)
    args = parser.parse_args()
    measure(args.rows, args.files)
