"""Checkpoints: the table's state at a version in parquet, so that loading a snapshot reads
the newest checkpoint plus the commits after it (PROTOCOL.md "Checkpoints").

- `layout`: file names, the V1 / V2 / sidecar schemas, the checkpoint row of one action;
- `write`: classic (V1) checkpoints, V2 checkpoints with a sidecar, `_last_checkpoint`;
- `read`: classic, multi-part and V2 checkpoints (parquet or JSON, with sidecars);
- `columns`: the vectorized reader of the add and remove columns;
- `lazy_adds`: a checkpoint's add actions built on access.

When a checkpoint is written after a commit is the checkpoint hook's to decide
(`acidsql.delta.commit.hooks.CheckpointHook`, `delta.checkpointInterval`).
"""
from acidsql.delta.checkpoint.layout import (
    CHECKPOINT_SCHEMA, SIDECAR_DIR, SIDECAR_SCHEMA, V2_CHECKPOINT_SCHEMA, checkpoint_path, sidecar_path,
    v2_checkpoint_path,
)
from acidsql.delta.checkpoint.lazy_adds import CheckpointAdds
from acidsql.delta.checkpoint.read import read_checkpoint, read_checkpoint_lazily
from acidsql.delta.checkpoint.write import uses_v2_checkpoints, write_checkpoint, write_v2_checkpoint

__all__ = [
    "CHECKPOINT_SCHEMA", "SIDECAR_DIR", "SIDECAR_SCHEMA", "V2_CHECKPOINT_SCHEMA", "CheckpointAdds", "checkpoint_path",
    "read_checkpoint", "read_checkpoint_lazily", "sidecar_path", "uses_v2_checkpoints", "v2_checkpoint_path",
    "write_checkpoint", "write_v2_checkpoint",
]
