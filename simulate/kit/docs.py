"""The log schema as Markdown, from the table declarations (``docs/schema.md``).

Regenerate with ``dinolab games --markdown > docs/schema.md``; a test fails when the file and the
declarations disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

from simulate.kit.spec import GameSpec


def schema_markdown(games: Sequence[GameSpec]) -> str:
    """Every logged table of ``games``: columns, Arrow types, units and meanings."""
    out = [
        "# Log schema",
        "",
        "Generated from the table declarations by `dinolab games --markdown`; do not edit.",
        "Every run directory has one folder of Parquet parts per table. Category columns are",
        "dictionary-encoded strings. A column marked *derived on read* copies another table's",
        "fact and is not in the Parquet parts when the run writes its source: `Run.read` and",
        "`Run.scan` (reports, replay, notebooks) derive it, and a direct reader (DuckDB, pandas)",
        "joins it from the named source on the named columns (the manifest's table docs say",
        "which columns a run derives).",
        "",
    ]
    for g in games:
        out += [f"## {g.title} (`{g.name}`), log schema version {g.schema_version}", ""]
        for t in g.logged_tables:
            out += [f"### `{t.name}/`: {t.doc}", "", "| column | type | unit | meaning |"]
            out.append("|---|---|---|---|")
            for c in t.columns:
                kind = "category" if c.labels is not None or c.lineup else str(c.type)
                kind = "list of categories" if str(c.type).startswith("list") else kind
                meaning = c.doc + (f"; *derived on read*: {c.derived.text()}" if c.derived else "")
                out.append(f"| `{c.name}` | {kind} | {c.unit} | {meaning} |")
            out.append("")
    return "\n".join(out)
