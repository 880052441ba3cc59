"""The jars of Hadoop's S3 connector (`make s3a-jars`, tests/s3a/pom.xml) a test SparkSession
loads, without the ones pyspark already ships in another version (netty, httpclient, slf4j,
commons-*): two versions of one library on a classpath is a coin toss."""
from __future__ import annotations

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
S3A_JARS_DIR = Path(os.environ.get("ACIDSQL_JARS_DIR", REPO / ".cache" / "jars")) / "s3a"
_VERSIONED = re.compile(r"^(?P<name>.+?)-\d[\w.]*\.jar$")


def _artifact(jar: str) -> str:
    m = _VERSIONED.match(jar)
    return m.group("name") if m else jar


def s3a_jars() -> list[Path]:
    """The connector's jars to add to a session, or [] when `make s3a-jars` has not run."""
    if not (S3A_JARS_DIR / "hadoop-aws-3.5.0.jar").is_file():
        return []
    import pyspark

    shipped = {_artifact(n) for n in os.listdir(Path(pyspark.__file__).parent / "jars")}
    return sorted(p for p in S3A_JARS_DIR.glob("*.jar") if _artifact(p.name) not in shipped)


HOW_TO_GET = "run `make s3a-jars` (mvn copy-dependencies of tests/s3a/pom.xml from Maven Central)"

# The test session carries the connector, unconfigured: any s3a:// access it was not set up for
# is refused at once (nothing listens on port 9; anonymous credentials, so no instance-metadata
# lookups; no retries), which makes acidsql's `auto` reader fall back to the Arrow scan, as on a
# machine without the connector. configure_bucket() points one bucket at a real server.
UNCONFIGURED = {
    "spark.hadoop.fs.s3a.endpoint": "http://127.0.0.1:9",
    "spark.hadoop.fs.s3a.endpoint.region": "us-east-1",
    "spark.hadoop.fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider",
    "spark.hadoop.fs.s3a.attempts.maximum": "1",
    "spark.hadoop.fs.s3a.retry.limit": "0",
    "spark.hadoop.fs.s3a.connection.establish.timeout": "2s",
    "spark.hadoop.fs.s3a.path.style.access": "true",
}


def session_conf(conf: dict[str, str]) -> dict[str, str]:
    """`conf` plus the connector's jars and UNCONFIGURED, when `make s3a-jars` has run."""
    jars = s3a_jars()
    if not jars:
        return conf
    listed = [conf["spark.jars"]] if conf.get("spark.jars") else []
    return {**conf, **UNCONFIGURED, "spark.jars": ",".join(listed + [str(j) for j in jars])}


def configure_bucket(spark, bucket: str, endpoint: str, access_key: str, secret_key: str) -> None:
    """Hadoop settings for one bucket (S3A's per-bucket `fs.s3a.bucket.NAME.*` keys), as a
    cluster's configuration would give them; a new bucket name means a new S3A filesystem."""
    hadoop = spark._jsc.hadoopConfiguration()
    prefix = f"fs.s3a.bucket.{bucket}."
    for key, value in {
        "endpoint": endpoint,
        "aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        "access.key": access_key,
        "secret.key": secret_key,
        "connection.ssl.enabled": "false",
    }.items():
        hadoop.set(prefix + key, value)
