"""Linter settings: `[tool.acidsql]` in pyproject.toml, or the top level of acidsql.toml.

```toml
[tool.acidsql]
select = ["DL"]                      # code prefixes to run (default: every rule)
ignore = ["DL006"]
exclude = ["migrations/*", "scratch"]  # files not to lint (globs; a folder name skips the folder)
concurrent = true                    # scripts run beside other writers (metadata changes matter)
catalog = "catalog.toml"             # optional: a catalog file (see acidsql.analysis.catalog)

[tool.acidsql.per-file-ignores]
"migrations/*.sql" = ["DL004"]

[tool.acidsql.tables.events]         # tables the scripts write, when not created in them
columns = { id = "BIGINT", date = "DATE", country = "STRING" }
partitioned_by = ["date", "country"]
properties = { "delta.enableDeletionVectors" = "true" }
```
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from acidsql.analysis.catalog import Catalog, TableInfo, table_from_config


class ConfigError(ValueError):
    """A configuration file that cannot be used (a user mistake)."""


@dataclass(frozen=True)
class LintConfig:
    select: tuple[str, ...] = ()  # empty: every rule
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    concurrent: bool = True
    tables: tuple[TableInfo, ...] = ()  # declared in the configuration
    catalog_file: Optional[Path] = None
    source: Optional[Path] = None  # the file these settings came from
    root: Path = field(default_factory=Path.cwd)
    # Catalog loaders for tables nobody described (e.g. a live `_delta_log` reader).
    loaders: tuple = ()
    # Glob patterns of files not to lint (`exclude` in the config, `--exclude` on the command line).
    exclude: tuple[str, ...] = ()

    def excludes(self, path: Path) -> bool:
        """Whether `path` matches an exclude pattern: its path relative to the config's folder
        (or as given), its file name, or the name of a folder it lies in."""
        if not self.exclude:
            return False
        try:
            relative = path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            relative = path.as_posix()
        names = [relative, path.as_posix(), path.name, *Path(relative).parent.parts]
        return any(fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(name, pattern.rstrip("/"))
                   for pattern in self.exclude for name in names)

    def enabled(self, code: str, file: str = "") -> bool:
        code = code.upper()
        if self.select and "ALL" not in self.select and not any(code.startswith(p) for p in self.select):
            return False
        if "ALL" in self.ignore or any(code.startswith(p) for p in self.ignore):
            return False
        if file and self.per_file_ignores:
            try:
                relative = Path(file).resolve().relative_to(self.root.resolve()).as_posix()
            except ValueError:
                relative = Path(file).as_posix()
            for pattern, codes in self.per_file_ignores:
                if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(Path(file).name, pattern):
                    if any(code.startswith(p) for p in codes):
                        return False
        return True

    def catalog(self) -> Catalog:
        """A fresh catalog holding the configured tables (and the catalog file's, if any)."""
        if self.catalog_file is not None:
            if not self.catalog_file.exists():
                raise ConfigError(f"catalog file not found: {self.catalog_file}")
            try:
                catalog = Catalog.from_config(self.catalog_file)
            except ValueError as error:
                raise ConfigError(str(error)) from None
        else:
            catalog = Catalog()
        catalog.loaders = catalog.loaders + tuple(self.loaders)
        for table in self.tables:
            catalog.put(table)
        return catalog

    def with_overrides(self, select: Optional[list[str]] = None, ignore: Optional[list[str]] = None) -> "LintConfig":
        from dataclasses import replace

        return replace(
            self,
            select=check_codes(tuple(c.upper() for c in select), "--select") if select else self.select,
            ignore=self.ignore + check_codes(tuple(c.upper() for c in (ignore or ())), "--ignore"),
        )


def unknown_codes(codes: Any) -> tuple[str, ...]:
    """The codes (or code prefixes, e.g. `DL`, `DL00`; `ALL`) that name no rule: a typo
    selects or ignores nothing, so it is an error, as in ruff and sqlfluff."""
    from acidsql.linter.rules import all_rules

    known = [rule.CODE for rule in all_rules()]
    return tuple(c for c in codes if c != "ALL" and not any(k.startswith(c) for k in known))


def check_codes(codes: tuple[str, ...], where: str) -> tuple[str, ...]:
    """`codes`, or a ConfigError naming the unknown ones and `where` they were given."""
    unknown = unknown_codes(codes)
    if unknown:
        from acidsql.linter.rules import all_rules

        known = ", ".join(rule.CODE for rule in all_rules())
        raise ConfigError(f"{where}: unknown rule code{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
                          f"(known: {known}; prefixes such as DL select several; `acidsql rules` lists them)")
    return codes


def _codes(value: Any, key: str, source: Path) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: `{key}` must be a list of rule codes")
    return check_codes(tuple(v.strip().upper() for v in value), f"{source}: `{key}`")


def _table(name: str, raw: Any, source: Path) -> TableInfo:
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: tables.{name} must be a table of settings")
    try:
        return table_from_config(name, raw, source=source.name)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def config_from_mapping(raw: dict, source: Path) -> LintConfig:
    known = {"select", "ignore", "per-file-ignores", "per_file_ignores", "concurrent", "tables", "catalog", "exclude"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(f"{source}: unknown setting(s): {', '.join(unknown)}")
    per_file = raw.get("per-file-ignores", raw.get("per_file_ignores", {}))
    if not isinstance(per_file, dict):
        raise ConfigError(f"{source}: `per-file-ignores` must map glob patterns to rule codes")
    tables = raw.get("tables", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{source}: `tables` must be a table of tables")
    catalog = raw.get("catalog")
    exclude = raw.get("exclude", [])
    if isinstance(exclude, str):
        exclude = [exclude]
    if not isinstance(exclude, list) or not all(isinstance(p, str) for p in exclude):
        raise ConfigError(f"{source}: `exclude` must be a list of glob patterns")
    return LintConfig(
        exclude=tuple(exclude),
        select=_codes(raw.get("select", []), "select", source),
        ignore=_codes(raw.get("ignore", []), "ignore", source),
        per_file_ignores=tuple((k, _codes(v, f"per-file-ignores.{k}", source)) for k, v in per_file.items()),
        concurrent=bool(raw.get("concurrent", True)),
        tables=tuple(_table(k, v, source) for k, v in tables.items()),
        catalog_file=(source.parent / catalog) if catalog else None,
        source=source,
        root=source.parent,
    )


def read_config_file(path: Path) -> LintConfig:
    import tomllib  # here, not at the top: most runs read no configuration file

    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("acidsql", {})
    elif "tool" in data and "acidsql" in data.get("tool", {}):
        data = data["tool"]["acidsql"]
    return config_from_mapping(data, path)


def find_config(start: Optional[Path] = None) -> LintConfig:
    """The nearest acidsql.toml, or pyproject.toml with a [tool.acidsql] table, from `start`
    upwards; defaults when there is none."""
    here = (start or Path.cwd()).resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / "acidsql.toml"
        if candidate.is_file():
            return read_config_file(candidate)
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            import tomllib

            try:
                data = tomllib.loads(candidate.read_text())
            except tomllib.TOMLDecodeError as error:
                raise ConfigError(f"{candidate}: invalid TOML: {error}") from None
            if "acidsql" in data.get("tool", {}):
                return config_from_mapping(data["tool"]["acidsql"], candidate)
    return LintConfig(root=here)
