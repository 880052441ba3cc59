"""Progress of running statements comes from Spark's status tracker."""
from __future__ import annotations

import time

from acidsql.spark.progress import StageProgress


def test_progress_reports_the_running_stage_and_its_tasks(spark):
    seen = []

    def slow(rows):
        for row in rows:
            time.sleep(0.1)
            yield row

    with StageProgress(spark, seen.append, interval=0.02):
        spark.sparkContext.parallelize(range(16), 8).mapPartitions(slow).count()
    running = [s for s in seen if s is not None]
    assert running, "no stage was ever seen running"
    assert all(s.tasks == 8 for s in running)
    assert max(s.completed for s in running) >= 1
    assert all(0.0 <= s.fraction <= 1.0 for s in running)
    # Only changes are reported: no two consecutive snapshots are equal.
    assert all(a != b for a, b in zip(seen, seen[1:]))


def test_progress_stops_polling_when_the_statement_ends(spark):
    progress = StageProgress(spark, lambda s: None, interval=0.01)
    with progress:
        pass
    assert not progress._thread.is_alive()
