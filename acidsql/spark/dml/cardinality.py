"""Delta's MERGE cardinality rule, for both DML paths.

Delta (ClassicMergeExecutor.findTouchedFiles, MergeIntoCommandBase.throwErrorOnMultipleMatches)
fails a MERGE whenever its ON condition matches one target row with two or more source rows,
whatever the clauses' conditions say and whether any clause acts on that pair, unless the only
WHEN MATCHED clause is an unconditional DELETE. A MERGE with only WHEN NOT MATCHED clauses
(insert-only) is not checked: it takes another path that never looks at matched pairs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acidsql.spark.results import StatementError
from acidsql.sql import model as m

if TYPE_CHECKING:
    import pyarrow as pa


def checks_cardinality(s: Any) -> bool:
    """Whether Delta checks this MERGE (acidsql.sql.model.Merge) for several source rows on one
    target row."""
    matched = [c for c in s.clauses if c.match is m.MergeMatch.MATCHED]
    by_source = any(c.match is m.MergeMatch.NOT_MATCHED_BY_SOURCE for c in s.clauses)
    if not matched and not by_source:
        return False  # insert-only
    only_unconditional_delete = (len(matched) == 1 and matched[0].action is m.MergeAction.DELETE
                                 and matched[0].condition is None)
    return not only_unconditional_delete


def pairs_all_taken(s: Any) -> bool:
    """Whether every matched (target row, source row) pair is taken by some WHEN MATCHED clause:
    there is an unconditional one (the last, as the parser requires). Then counting the pairs the
    clauses took finds every target row with several source rows."""
    return any(c.match is m.MergeMatch.MATCHED and c.condition is None for c in s.clauses)


def pairs_checked_apart(s: Any) -> bool:
    """Whether the MERGE's matched pairs no clause takes must be kept for the check: Delta checks
    it and not every pair is taken by a clause (`pairs_all_taken`)."""
    return checks_cardinality(s) and not pairs_all_taken(s)


def several_on_one_row(pairs: "pa.Table", file_column: str, row_column: str) -> bool:
    """Whether two of the matched (target row, source row) `pairs` (a row per pair, the target
    row's file and position) are on one target row."""
    import pyarrow.compute as pc

    if not pairs.num_rows:
        return False
    per_row = pairs.select([file_column, row_column]).group_by(
        [file_column, row_column], use_threads=False).aggregate([([], "count_all")])
    return pc.max(per_row.column("count_all")).as_py() > 1


def several_matches() -> StatementError:
    return StatementError(
        "The MERGE statement attempted to UPDATE or DELETE the same row in the target table multiple times: "
        "several source rows matched one target row. Make the source unique on the ON columns "
        "(for example with a GROUP BY or ROW_NUMBER() filter).",
        "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE")
