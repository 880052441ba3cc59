"""Run a reliability harness with its table in S3: a moto S3 server on 127.0.0.1 for the run
(the harness's own processes reach it through the standard AWS variables).

    python -m tests.stress.s3 torture --procs 4 --txns 20 --layout all --isolation WriteSerializable
    python -m tests.stress.s3 crash --kills 40 --layout unpartitioned-dv

To run against a real bucket instead, set the AWS variables and pass `--store s3://bucket/prefix`
to `python -m tests.stress.torture` / `tests.stress.crash` directly."""
from __future__ import annotations

import os
import sys
import uuid


def main(argv: list[str]) -> int:
    from tests.s3server import MotoServer, s3_env

    if not argv or argv[0] not in ("torture", "crash"):
        print(__doc__, file=sys.stderr)
        return 2
    server = MotoServer()
    try:
        os.environ.update(s3_env(server.endpoint))
        bucket = f"acidsql-stress-{uuid.uuid4().hex[:8]}"
        server.create_bucket(bucket)
        if argv[0] == "torture":
            from tests.stress import torture as harness
        else:
            from tests.stress import crash as harness
        return harness.main(argv[1:] + ["--store", f"s3://{bucket}/{argv[0]}"])
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
