"""Event records into log rows: the copier a kernel calls for each record of one kind.

A game declares beside its tables which event fills which table, and from which fields::

    copy_combat = copier(EVENTS, "combat", COMBATS, context=("game_id", "round"),
                         columns={"region": "region + 1"})

and its kernel's drain loop calls ``copy_combat(logs.combats, st, i, game_id=gid, round=rnd)``
for a pending record ``i`` of that kind (:mod:`rules.core.events`): the copier claims a row
and writes every column. A column is filled by its entry in ``columns`` (an expression over
the event's fields, the context arguments and the names in ``env``), else by the context
argument of its name, else by the event field of its name. A column filled by nothing, an
entry naming no column, a name in an expression that is none of those, a context argument or
``env`` name used nowhere: each fails when the game is imported, naming it. The copier is
generated source compiled to be inlined (:func:`rules.core.jit.compile_generated`), so it
costs what the column-by-column copy written out in the kernel cost.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

from rules.core.events import Events
from rules.core.jit import compile_generated
from simulate.kit.support import claim
from simulate.kit.tables import LABEL_LIST, Table

INTERNAL = frozenset({"table_", "st_", "i_", "r_", "claim_"})
"""Names the generated copier uses itself."""


class _Fields(ast.NodeTransformer):
    """Rewrites each event field named in an expression as its column of the record."""

    def __init__(self, fields: Mapping[str, int]) -> None:
        self.fields = fields

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id not in self.fields:
            return node
        return ast.parse(f"st_.ev[i_, {self.fields[node.id]}]", mode="eval").body


def copier(
    events: Events,
    event: str,
    table: Table,
    *,
    context: Sequence[str] = (),
    columns: Mapping[str, str] | None = None,
    env: Mapping[str, Any] | None = None,
) -> Any:
    """The compiled ``copy(table, st, i, **context) -> row`` that writes pending record ``i``
    (of kind ``event``) as a new row of ``table``."""
    columns = dict(columns or {})
    env = dict(env or {})
    where = f"copy of event {event} into {table.name}"
    fields = {f.name: col for col, f in enumerate(events.event(event).fields, 1)}
    for a, b in ((context, fields), (env, fields), (context, env), (INTERNAL, [*context, *env])):
        if set(a) & set(b):
            raise ValueError(f"{where}: {sorted(set(a) & set(b))} named twice")
    names = {c.name: c for c in table.columns if not c.fill}
    if set(columns) - set(names):
        raise ValueError(f"{where}: no column {sorted(set(columns) - set(names))}")
    used: set[str] = set()
    lines = ["r_ = claim_(table_)"]
    for name, column in names.items():
        if column.type == LABEL_LIST:
            raise ValueError(f"{where}: list column {name} cannot be copied from an event")
        if name in columns:
            tree = ast.parse(columns[name], mode="eval")
            for node in ast.walk(tree):
                if isinstance(node, ast.Name):
                    if node.id not in fields and node.id not in context and node.id not in env:
                        raise ValueError(f"{where}: column {name} reads unknown {node.id!r}")
                    used.add(node.id)
            value = ast.unparse(_Fields(fields).visit(tree))
        elif name in context:
            value = name
            used.add(name)
        elif name in fields:
            value = f"st_.ev[i_, {fields[name]}]"
        else:
            raise ValueError(f"{where}: nothing fills column {name}")
        row = "r_" if column.index is None else f"r_, {column.index}"
        lines.append(f"table_.{column.buffer}[{row}] = {value}")
    unused = [n for n in (*context, *env) if n not in used]
    if unused:
        raise ValueError(f"{where}: {unused} used by no column")
    fn = f"copy_{event}"
    source = "\n".join(
        [f"def {fn}({', '.join(['table_', 'st_', 'i_', *context])}):"]
        + [f"    {line}" for line in [*lines, "return r_"]]
    )
    return compile_generated(source, fn, {**env, "claim_": claim})
