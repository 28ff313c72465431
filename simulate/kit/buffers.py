"""The kernel's column buffers, made from the table declarations, and their Arrow tables.

A game's buffers are a named tuple of ``meta`` (int64 ``[table, (rows written, capacity, most
rows one game adds)]``), ``watch`` (the indices of the tables that grow, the only ones a
kernel must check for room before a game) and one field per table; each table is a named tuple
of ``meta`` (its row of the shared ``meta``, a view) and one numpy array per buffer of
:meth:`~simulate.kit.tables.Table.buffer_specs`. numba compiles a kernel for these
tuple types like any other argument and caches it. The classes are registered by name here
(:func:`log_types`, when a game's spec is made) and found by name as attributes of this module
(``simulate.kit.buffers.<game>__<table>``, through the module's ``__getattr__``): that is how
pickle and numba's cache name them, in any process that has loaded the game. Kernels write
``logs.turns.seat[row]``: by name, so a column cannot be filled from another one's position.
"""

from __future__ import annotations

import collections
import math
import re
import types
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from simulate.kit.arrow import dictionary, strings, to_arrow
from simulate.kit.tables import LABEL_LIST, Column, Kind, Table

if TYPE_CHECKING:
    from simulate.kit.spec import Setup

ROWS, CAPACITY, ROOM = 0, 1, 2
"""Slots of a table's ``meta``."""


_TYPES: dict[str, type] = {}
"""The buffer classes by name (``<game>__<table>``, ``<game>__logs``)."""


def _named(name: str, fields: Sequence[str]) -> type:
    """The registered named-tuple class ``name`` with ``fields``, made once."""
    known = _TYPES.get(name)
    if known is None or known._fields != tuple(fields):
        _TYPES[name] = known = collections.namedtuple(name, fields, module=__name__)
    return known


def log_types(game: str, tables: Sequence[Table]) -> type:
    """The named-tuple class of a game's buffers (and one class per table), registered here."""
    slug = re.sub(r"\W", "_", game)
    for t in tables:
        _named(f"{slug}__{t.name}", ["meta", *(b.name for b in t.buffer_specs())])
    return _named(f"{slug}__logs", ["meta", "watch", *(t.name for t in tables)])


def __getattr__(name: str) -> type:
    """A registered buffer class by its name (how pickle and numba's cache find it)."""
    try:
        return _TYPES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def _table_type(logs_type: type, table: str) -> type:
    return _TYPES[f"{logs_type.__name__[: -len('__logs')]}__{table}"]


def allocate(
    setup: Setup,
    n_games: int,
    *,
    detail: bool = True,
    trace: bool = False,
    poison: Any = None,
    tables: Sequence[str] | None = None,
) -> Any:
    """Empty buffers for ``n_games`` games: detail tables only with ``detail`` (and, given
    ``tables``, only when it names one of them: kernels decide whether to log their detail
    tables together, so all are filled and :func:`arrow_tables` keeps those asked for), trace
    tables only with ``trace``. ``poison`` fills them with a value instead of leaving them
    uninitialised (the conformance suite uses two poisons to find a column no kernel
    writes)."""
    spec = setup.game
    if tables is not None:
        detail = detail and any(t.kind is Kind.DETAIL and t.name in tables for t in spec.tables)
    meta = np.zeros((len(spec.tables), 3), dtype=np.int64)
    watch = np.array(
        [i for i, t in enumerate(spec.tables) if t.expected_rows is not None], dtype=np.int64
    )
    out = []
    for i, t in enumerate(spec.tables):
        on = (
            t.kind is Kind.GAME
            or (t.kind is Kind.DETAIL and detail)
            or (t.kind is Kind.TRACE and trace)
        )
        room = int(t.rows_per_game(setup)) if on else 0
        if not on:
            capacity = 0
        elif t.expected_rows is None:
            capacity = n_games * room
        else:
            capacity = math.ceil(n_games * t.expected_rows(setup)) + room
        arrays = []
        for b in t.buffer_specs():
            shape = b.shape(capacity, setup)
            arrays.append(
                np.empty(shape, b.dtype) if poison is None else np.full(shape, poison, b.dtype)
            )
        meta[i] = (0, capacity, room)
        out.append(_table_type(spec.log_type, t.name)(meta[i], *arrays))
    return spec.log_type(meta, watch, *out)


def reset(logs: Any) -> None:
    """Forget the rows written (buffers reused for the next chunk)."""
    logs.meta[:, ROWS] = 0


def grow(logs: Any) -> tuple[Any, list[str]]:
    """``logs`` with more room in every table a further game might overflow, rows kept."""
    meta = logs.meta.copy()
    tables, grown = [], []
    for i, (name, t) in enumerate(zip(logs._fields[2:], logs[2:], strict=True)):
        rows, capacity, room = (int(x) for x in meta[i])
        if rows + room <= capacity:
            tables.append(type(t)(meta[i], *t[1:]))
            continue
        bigger = 2 * capacity + room
        arrays = []
        for a in t[1:]:
            new = np.empty((bigger, *a.shape[1:]), a.dtype)
            new[:rows] = a[:rows]
            arrays.append(new)
        meta[i, CAPACITY] = bigger
        tables.append(type(t)(meta[i], *arrays))
        grown.append(name)
    return type(logs)(meta, logs.watch, *tables), grown


def _values(column: Column, table: Table, buf: Any, setup: Setup, start: int) -> np.ndarray:
    """The rows written of one column (a kit-filled column computed)."""
    rows = int(buf.meta[ROWS])
    if column.fill:
        return _filled(
            column.fill, column.dtype, int(table.rows_per_game(setup)), rows, setup, start
        )
    values = getattr(buf, column.buffer)
    return values[:rows] if column.index is None else values[:rows, column.index]


def _label_lists(codes: np.ndarray, labels: list[str]) -> pa.Array:
    """A list-of-categories column (lists of labels) from 2-D int8 codes padded with -1."""
    keep = codes >= 0
    offsets = np.zeros(len(codes) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum(keep.sum(axis=1))
    values = strings(labels).take(to_arrow(codes[keep], pa.int8()))
    return pa.ListArray.from_arrays(to_arrow(offsets, pa.int32()), values)


def _filled(fill: str, dtype: type, per_game: int, rows: int, setup: Setup, start: int):
    """A kit-filled column of a table with ``per_game`` rows for each game from ``start``."""
    n_games = rows // per_game
    if fill == "n_players":
        return np.full(rows, setup.n_players, dtype)
    if fill == "seat":
        return np.tile(np.arange(per_game, dtype=dtype), n_games)
    return np.repeat(np.arange(start, start + n_games, dtype=dtype), per_game)


def column_array(column: Column, table: Table, buf: Any, setup: Setup, start: int) -> pa.Array:
    """One column of a table's buffers as an Arrow array of the declared type."""
    values = _values(column, table, buf, setup, start)
    if column.lineup:
        labels = column.label_list(setup)
        code = np.array([labels.index(x) for x in setup.labels], dtype=np.int8)
        return dictionary(code[values], labels)
    if column.type == LABEL_LIST:
        return _label_lists(values, column.label_list(setup))
    if column.labels is not None:
        return dictionary(values, column.label_list(setup))
    return to_arrow(values, column.type)


def arrow_tables(
    setup: Setup, logs: Any, start: int, tables: Sequence[str] | None = None
) -> dict[str, pa.Table]:
    """Every logged table of a chunk starting at game ``start`` (only ``tables`` if given),
    from its buffers (trace tables are not logged)."""
    out = {}
    for t, buf in zip(setup.game.tables, logs[2:], strict=True):
        if t.kind is Kind.TRACE or (tables is not None and t.name not in tables):
            continue
        arrays = [column_array(c, t, buf, setup, start) for c in t.columns]
        out[t.name] = pa.Table.from_arrays(arrays, schema=t.arrow())
    return out


def view(setup: Setup, logs: Any, start: int) -> types.SimpleNamespace:
    """The rows written, as numpy arrays: ``view.turns.seat``, ``view.players.winner`` ...
    (a category column gives its codes; 2-D buffers are there under their buffer name)."""
    tables = {}
    for t, buf in zip(setup.game.tables, logs[2:], strict=True):
        rows = int(buf.meta[ROWS])
        cols = {b.name: getattr(buf, b.name)[:rows] for b in t.buffer_specs()}
        cols.update({c.name: _values(c, t, buf, setup, start) for c in t.columns})
        tables[t.name] = types.SimpleNamespace(rows=rows, **cols)
    return types.SimpleNamespace(**tables)
