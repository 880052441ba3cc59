"""Rebuild tests/data/sql-corpus/ from its public sources (see its README for versions and
licences). Data only is copied: SQL test inputs as they are, and the SQL strings of tests and
documentation pages.

    python -m tests.sql.extract_corpus --spark-jar spark-sql_2.13-4.0.1-tests.jar \\
        --delta-repo /path/to/delta --sqlglot-sdist sqlglot-30.30.0.tar.gz

- spark/: files of sql/core/src/test/resources/sql-tests/inputs, copied verbatim from the
  test jar Apache Spark publishes for each release (`mvn dependency:get
  -Dartifact=org.apache.spark:spark-sql_2.13:4.0.1:jar:tests`), and query-counts.json: how many
  queries Spark's own test harness runs from each (the `-- !query` entries of its results file).
- delta/docs.sql: the ```sql blocks of the Delta documentation (docs/**/*.md, *.mdx).
- delta/scala-tests.sql: the string literals passed to `sql(...)` / `spark.sql(...)` in Delta's
  Spark test suites; Scala interpolations (`$name`, `${expr}`) become plain names.
- sqlglot/databricks.sql, sqlglot/spark.sql: the SQL the dialect tests read as that dialect
  (first argument of validate_identity / validate_all, `read={"databricks": ...}` entries).

Each extracted statement ends with `;` on its own line and follows a `-- source:` comment.
"""
from __future__ import annotations

import argparse
import ast
import io
import json
import re
import subprocess
import tarfile
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "data" / "sql-corpus"

# The Spark input files kept: statements of every kind, comments and literals of every form.
SPARK_FILES = (
    "array.sql", "cast.sql", "change-column.sql", "charvarchar.sql", "columnresolution-views.sql", "comments.sql",
    "cte-command.sql", "cte-nested.sql", "cte.sql", "date.sql", "describe-part-after-analyze.sql",
    "describe-query.sql", "describe-table-after-alter-table.sql", "describe.sql", "double-quoted-identifiers.sql",
    "execute-immediate.sql", "explain-cbo.sql", "explain.sql", "group-by.sql", "higher-order-functions.sql",
    "identifier-clause.sql", "inline-table.sql", "interval.sql", "join-lateral.sql", "json-functions.sql",
    "keywords.sql", "like-all.sql", "limit.sql", "literals.sql", "map.sql", "natural-join.sql", "null-handling.sql",
    "operators.sql", "parse-query-correctness.sql", "pipe-operators.sql", "pivot.sql", "regexp-functions.sql",
    "selectExcept.sql", "show-create-table.sql", "show-tables.sql", "show-tblproperties.sql", "show-views.sql",
    "show_columns.sql", "sql-on-files.sql", "sql-session-variables.sql", "sql-udf.sql", "string-functions.sql",
    "struct.sql", "table-aliases.sql", "timestamp.sql", "transform.sql", "union.sql", "unpivot.sql",
    "view-schema-binding.sql", "window.sql",
)
_SQL_START = re.compile(
    r"\s*(SELECT|WITH|INSERT|UPDATE|DELETE|MERGE|CREATE|REPLACE|ALTER|DROP|OPTIMIZE|VACUUM|REORG|RESTORE|DESCRIBE|"
    r"DESC|SHOW|EXPLAIN|CONVERT|TRUNCATE|GENERATE|FSCK|REFRESH|MSCK|SET|RESET|USE|CACHE|UNCACHE|CLONE|FROM|VALUES|"
    r"TABLE|ANALYZE|COMMENT|CALL)\b", re.IGNORECASE)


def spark(jar: Path) -> None:
    """The input files, and how many queries Spark's own test harness ran from each: the
    `-- !query` entries of its golden results file (sql-tests/results/<file>.out)."""
    folder = OUT / "spark"
    folder.mkdir(parents=True, exist_ok=True)
    counts = {}
    with zipfile.ZipFile(jar) as archive:
        for name in SPARK_FILES:
            (folder / name).write_bytes(archive.read(f"sql-tests/inputs/{name}"))
            counts[name] = archive.read(f"sql-tests/results/{name}.out").decode().count("-- !query\n")
    (folder / "query-counts.json").write_text(json.dumps(counts, indent=1, sort_keys=True) + "\n")


def _statements_file(path: Path, items: list[tuple[str, str]]) -> None:
    seen: set[str] = set()
    out = io.StringIO()
    for source, sql in items:
        sql = sql.strip().rstrip(";").strip()
        if not sql or sql in seen:
            continue
        seen.add(sql)
        out.write(f"-- source: {source}\n{sql}\n;\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(out.getvalue())


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


_SQL_BLOCK = re.compile(r"```sql[^\n]*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def delta_docs(repo: Path) -> None:
    items = []
    for path in sorted(p for p in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "docs").split()
                       if p.endswith((".md", ".mdx"))):
        text = _git(repo, "show", f"HEAD:{path}")
        for block in _SQL_BLOCK.finditer(text):
            line = text.count("\n", 0, block.start()) + 2
            for offset, sql in _doc_statements(block.group(1)):
                items.append((f"delta-io/delta:{path}:{line + offset}", sql))
    _statements_file(OUT / "delta" / "docs.sql", items)


def _doc_statements(block: str) -> list[tuple[int, str]]:
    """A documentation block often lists several statements without `;` between them, one
    paragraph each: a blank line followed (after comment lines) by a line that starts a
    statement starts a new one. (Blocks whose statements end with `;` split anyway.)"""
    lines = block.splitlines()
    out: list[tuple[int, list[str]]] = [(0, [])]
    blank = False
    for i, line in enumerate(lines):
        if not line.strip():
            blank = True
            out[-1][1].append(line)
            continue
        if blank and not line.lstrip().startswith("--") and _SQL_START.match(line) and any(
                l.strip() and not l.lstrip().startswith("--") for l in out[-1][1]):
            out.append((i, []))
        if not line.lstrip().startswith("--"):
            blank = False
        out[-1][1].append(line)
    return [(i, "\n".join(chunk)) for i, chunk in out if any(l.strip() for l in chunk)]


# sql("..."), spark.sql(s"""...""".stripMargin) ... in Scala.
_SCALA_SQL = re.compile(r'\bsql\(\s*(s?)(?:"""(.*?)"""|"((?:[^"\\\n]|\\.)*)")(\s*\.stripMargin)?(\s*\+)?', re.DOTALL)
_INTERPOLATED = re.compile(r"\$\{([^{}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
DELTA_SUITES = re.compile(
    r"(Merge|Update|Delete|Insert|Optimize|Vacuum|Restore|Describe|Alter|Clone|Convert|Clustering|DeletionVector|"
    r"RowTracking|Generated|Identity|DDL|Sql|SQL|Checkpoint|Constraint|Column|Schema|Table|Feature|Replace)")


def _name_for(expression: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", expression)
    name = "_".join(words[-2:]) if words else "x"
    from sqlglot.dialects.databricks import Databricks

    return f"{name}_1" if name.upper() in Databricks.Tokenizer.KEYWORDS else name  # `$table`: not the keyword


# Where an interpolation stands for a name or a value (kept, as a plain name): inside quotes or
# backquotes, after a word that a table name follows, or in a dotted name. Elsewhere it may
# stand for SQL text (`$mode CLONE`, `${if (x) "TRUNCATE HISTORY" else ""}`): such a string is
# left out, as no plain name would make it the statement the test ran.
_NAME_BEFORE = re.compile(r"(\b(TABLE|FROM|INTO|JOIN|UPDATE|USING|EXISTS|VIEW|CLONE|DATABASE|SCHEMA)\s+|\.)$",
                          re.IGNORECASE)


def _interpolations_are_names(sql: str) -> bool:
    for match in _INTERPOLATED.finditer(sql):
        before = sql[:match.start()]
        quoted = before.count("'") % 2 == 1 or before.count("`") % 2 == 1 or before.count('"') % 2 == 1
        if not (quoted or _NAME_BEFORE.search(before) or sql.startswith(".", match.end())):
            return False
    return True


def delta_scala(repo: Path, limit: int = 1500) -> None:
    items = []
    paths = [p for p in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "spark/src/test/scala").split()
             if p.endswith(".scala") and DELTA_SUITES.search(Path(p).name)]
    for path in sorted(paths):
        text = _git(repo, "show", f"HEAD:{path}")
        for match in _SCALA_SQL.finditer(text):
            line_start = text.rfind("\n", 0, match.start()) + 1
            if text[line_start:match.start()].lstrip().startswith(("*", "//", "/*")):
                continue  # commented-out test code
            interpolated, triple, plain, margin, concatenated = match.groups()
            if concatenated:  # `sql("INSERT INTO t " + rest)`: a fragment, not a statement
                continue
            if interpolated and re.search(r"\$\{[^}]*$", (triple if triple is not None else plain)):
                continue  # the literal ends inside `${f("x")}`: a fragment cut at the inner quote
            sql = triple if triple is not None else plain.encode().decode("unicode_escape")
            if margin:
                sql = "\n".join(re.sub(r"^\s*\|", "", line) for line in sql.splitlines())
            if interpolated:
                if not _interpolations_are_names(sql):
                    continue
                sql = _INTERPOLATED.sub(lambda m: _name_for(m.group(1) or m.group(2)), sql).replace("$$", "$")
            if not _SQL_START.match(sql):
                continue
            line = text.count("\n", 0, match.start()) + 1
            items.append((f"delta-io/delta:{path}:{line}", sql))
    _statements_file(OUT / "delta" / "scala-tests.sql", items[:limit])


def _string(node: ast.AST):
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def sqlglot_tests(sdist: Path) -> None:
    with tarfile.open(sdist) as archive:
        for dialect in ("databricks", "spark"):
            member = next(m for m in archive.getmembers() if m.name.endswith(f"tests/dialects/test_{dialect}.py"))
            source = archive.extractfile(member).read().decode()
            items = []
            for node in ast.walk(ast.parse(source)):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                found = []
                if name in ("validate_identity", "validate_all") and node.args:
                    found.append(_string(node.args[0]))
                for keyword in node.keywords:
                    if keyword.arg == "read" and isinstance(keyword.value, ast.Dict):
                        for key, value in zip(keyword.value.keys, keyword.value.values):
                            if _string(key) in ("databricks", "spark", "spark2"):
                                found.append(_string(value))
                for sql in found:
                    if sql:
                        items.append((f"tobymao/sqlglot:tests/dialects/test_{dialect}.py:{node.lineno}", sql))
            _statements_file(OUT / "sqlglot" / f"{dialect}.sql", items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spark-jar", type=Path)
    parser.add_argument("--delta-repo", type=Path)
    parser.add_argument("--sqlglot-sdist", type=Path)
    args = parser.parse_args()
    if args.spark_jar:
        spark(args.spark_jar)
    if args.delta_repo:
        delta_docs(args.delta_repo)
        delta_scala(args.delta_repo)
    if args.sqlglot_sdist:
        sqlglot_tests(args.sqlglot_sdist)


if __name__ == "__main__":
    main()
