"""Progress of a running statement, read from Spark's status tracker.

A statement is a few Spark jobs (scan the read set, write data files, maybe count rows);
`StageProgress` polls `SparkContext.statusTracker()` from a background thread while the
statement runs and hands each change to a callback (the CLI draws it). Polling, not a
SparkListener: listeners live in the JVM and need a Java class; the status tracker is the
public Python API for exactly this.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Optional


@dataclass(frozen=True)
class StageSnapshot:
    """The active stages at one moment, summed: what a progress bar shows."""

    stages: tuple[int, ...]  # active stage ids
    name: str  # the newest active stage's name (Spark's call-site, e.g. "mapInArrow at ...")
    tasks: int  # tasks of the active stages
    completed: int
    active: int
    failed: int

    @property
    def fraction(self) -> float:
        return self.completed / self.tasks if self.tasks else 0.0


def snapshot(tracker) -> Optional[StageSnapshot]:
    """What `tracker` (a pyspark StatusTracker) reports now; None when no stage is active."""
    stage_ids = sorted(tracker.getActiveStageIds())
    infos = [info for info in (tracker.getStageInfo(i) for i in stage_ids) if info is not None]
    if not infos:
        return None
    return StageSnapshot(
        stages=tuple(info.stageId for info in infos),
        name=infos[-1].name,
        tasks=sum(info.numTasks for info in infos),
        completed=sum(info.numCompletedTasks for info in infos),
        active=sum(info.numActiveTasks for info in infos),
        failed=sum(info.numFailedTasks for info in infos),
    )


class StageProgress:
    """`with StageProgress(spark, on_change): run()` calls `on_change(snapshot)` whenever the
    active stages or their task counts change (snapshot is None when Spark is between jobs)."""

    def __init__(self, spark, on_change: Callable[[Optional[StageSnapshot]], None], interval: float = 0.2):
        self._tracker = spark.sparkContext.statusTracker()
        self._on_change = on_change
        self._interval = interval
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def __enter__(self) -> "StageProgress":
        self._thread = threading.Thread(target=self._poll, name="acidsql-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _poll(self) -> None:
        last: Optional[StageSnapshot] = None
        while not self._stop.wait(self._interval):
            try:
                now = snapshot(self._tracker)
            except Exception:  # the JVM going away at shutdown must not surface as a progress error
                return
            if now != last:
                self._on_change(now)
                last = now
