"""python -m acidsql.protocol [--readme README.md | --json]: the feature registry as the README's
table (printed, or written between the README's feature-table markers) or as JSON."""
import sys

from acidsql.protocol.features import feature_table_markdown, registry_json, update_readme

if len(sys.argv) == 3 and sys.argv[1] == "--readme":
    print("updated" if update_readme(sys.argv[2]) else "unchanged")
elif sys.argv[1:] == ["--json"]:
    print(registry_json())
elif not sys.argv[1:]:
    print(feature_table_markdown())
else:
    sys.exit("usage: python -m acidsql.protocol [--readme README.md | --json]")
