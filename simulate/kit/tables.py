"""Log tables declared once: every column's name, type, meaning and unit, in one list.

A game declares its tables as :class:`Table` s of :class:`Column` s. Everything else derives
from that list: the kernel's column buffers and their growth (:mod:`simulate.kit.buffers`), the
Arrow conversion, the schema ``verify`` checks, the manifest's table docs, ``dinolab games GAME``
and ``docs/schema.md``.

Buffers. A column is written by the kernel into a numpy buffer of the same name (a 1-D array
with one value per row). Columns declared with :func:`group` share one 2-D buffer, so a kernel
can fill them in a loop (``logs.turns.genes[row, k]``). A dictionary column's buffer holds int8
codes into its labels; the :func:`strategy` column's buffer holds the lineup position of the
seat's bot, which the kit turns into the bot's label.

Rows. Each table says how many rows one game may write at most (``rows_per_game``). Tables whose
typical count is far below that bound give an ``expected_rows`` estimate: their buffers start
there and grow when a game might not fit (the kernel stops before such a game; see
:mod:`simulate.kit.support`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Collection, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from simulate.kit.arrow import NUMPY_OF

if TYPE_CHECKING:
    from simulate.kit.spec import Setup

LABELS = pa.dictionary(pa.int8(), pa.string())
"""Arrow type of a category column: int8 codes into a list of labels."""
LABEL_LIST = pa.list_(pa.string())
"""Arrow type of a column holding a list of categories per row (a team of dinos ...): its
buffer is 2-D, ``width`` int8 codes into its labels per row, padded with -1. Stored as a list
of strings (Parquet dictionary-encodes them): a Parquet round trip of a *nested* dictionary
keeps only the labels a part uses, in the order they first appear, so a replayed game's rows
would not equal the logged ones."""


@dataclasses.dataclass(frozen=True)
class Derived:
    """A column the kernel fills but the Parquet part leaves out, derived on read
    (:mod:`simulate.logs`): the value of ``column`` in the row of ``source`` (another table of
    the run, or a data file beside the logs such as ``strength.parquet``) whose ``on``
    columns are equal to this row's; with ``equals``, whether that value equals this row's
    column ``equals``. A run that does not write ``source`` stores the column instead."""

    source: str
    on: tuple[str, ...]
    column: str
    equals: str = ""

    @property
    def from_file(self) -> bool:
        return self.source.endswith(".parquet")

    def to_dict(self) -> dict[str, Any]:
        """As the manifest records it (and :meth:`from_dict` reads it back)."""
        out = {"from": self.source, "on": list(self.on), "column": self.column}
        return out | ({"equals": self.equals} if self.equals else {})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Derived:
        return cls(d["from"], tuple(d["on"]), d["column"], d.get("equals", ""))

    def text(self) -> str:
        """One line for the schema docs."""
        match = f"{self.source}.{self.column} of the row with the same {', '.join(self.on)}"
        return f"{match} == {self.equals}" if self.equals else match


class Kind(Enum):
    """When a table is written."""

    GAME = "game"
    """Always (``games``, ``players``): results, and the kernel benchmark, need them."""
    DETAIL = "detail"
    """Logged runs (every table); skipped by the kernel benchmark's no-log measurement."""
    TRACE = "trace"
    """Replay only: what a person needs to follow one game; never written to Parquet."""


@dataclasses.dataclass(frozen=True)
class Column:
    """One logged column.

    ``labels``: for a category column (``type`` :data:`LABELS`), the labels its int8 codes index,
    as a tuple or a function of the setup (card names from the deck ...). ``buffer`` and
    ``index``: set by :func:`group` for columns that share a 2-D buffer.
    """

    name: str
    type: pa.DataType
    doc: str
    unit: str = ""
    labels: tuple[str, ...] | Callable[[Setup], Sequence[str]] | None = None
    buffer: str = ""
    index: int | None = None
    width: int | None = None
    lineup: bool = False
    """The buffer holds lineup positions; the column shows each position's strategy label."""
    fill: str = ""
    """Filled by the kit, not the kernel, in tables with a fixed count of rows per game (kind
    ``GAME``): ``"game_id"`` (the game of the row), ``"seat"`` (the row within its game) or
    ``"n_players"``. The kernel then writes nothing for it: fewer stores in the hot loop."""
    derived: Derived | None = None
    """Left out of the Parquet part and derived on read (a copy of another table's fact)."""

    def __post_init__(self) -> None:
        if not self.buffer:
            object.__setattr__(self, "buffer", self.name)
        categorical = pa.types.is_dictionary(self.type) or self.type == LABEL_LIST
        if categorical != (self.labels is not None or self.lineup):
            raise TypeError(f"column {self.name}: dictionary columns need labels, others none")
        if self.type == LABEL_LIST and (self.width is None or self.index is not None):
            raise TypeError(f"column {self.name}: a list column needs its width, no index")
        if not categorical and self.type not in NUMPY_OF:
            raise TypeError(f"column {self.name}: unsupported type {self.type}")
        if self.fill not in FILLS:
            raise TypeError(f"column {self.name}: fill must be one of {FILLS}")
        if self.derived is not None and (categorical or self.fill):
            raise TypeError(f"column {self.name}: only plain kernel columns can be derived")

    @property
    def dtype(self) -> type:
        """The numpy type of the column's buffer."""
        categorical = pa.types.is_dictionary(self.type) or self.type == LABEL_LIST
        return np.int8 if categorical else NUMPY_OF[self.type]

    def label_list(self, setup: Setup) -> list[str]:
        if self.lineup:
            return sorted(set(setup.labels))
        labels = self.labels
        return list(labels(setup) if callable(labels) else labels)

    def describe(self) -> str:
        """The column's doc with its unit, for schema docs."""
        text = f"{self.doc} ({self.unit})" if self.unit else self.doc
        return text + (f"; derived on read: {self.derived.text()}" if self.derived else "")


FILLS = ("", "game_id", "seat", "n_players")


def strategy(doc: str = "the bot in this seat (its label)") -> Column:
    """The shared ``strategy`` column: the kernel writes the seat's lineup position."""
    return Column("strategy", LABELS, doc, lineup=True)


def game_id(games: bool = False, fill: bool = False) -> Column:
    """The shared ``game_id`` column every table starts with (``games``: the games table's,
    which says how to replay the game; ``fill``: the kit fills it, in a table of ``GAME``
    kind)."""
    doc = "game index in the run; (seed, game_id) replays it" if games else "game index"
    return Column("game_id", pa.int64(), doc, fill="game_id" if games or fill else "")


def n_players(doc: str = "players at the table") -> Column:
    """The shared ``n_players`` column of the games table (the kit fills it)."""
    return Column("n_players", pa.int8(), doc, fill="n_players")


def winner_seat(doc: str = "the winner's seat, -1 when the victory is shared") -> Column:
    """The shared ``winner_seat`` column of the games table (the reports' outcome)."""
    return Column("winner_seat", pa.int8(), doc)


def n_winners(doc: str = "players sharing the victory (1 = outright)") -> Column:
    """The shared ``n_winners`` column of the games table (0: nobody won)."""
    return Column("n_winners", pa.int8(), doc)


def seat(doc: str = "seat, from 0") -> Column:
    """The shared ``seat`` column of the players table (the kit fills it)."""
    return Column("seat", pa.int8(), doc, fill="seat")


def winner(doc: str = "won or shared the victory") -> Column:
    """The shared ``winner`` column of the players table (seat shares count 1/k of them)."""
    return Column("winner", pa.bool_(), doc)


def rotation() -> Column:
    """The shared ``rotation`` column of the games table."""
    return Column("rotation", pa.int8(), "seats the lineup was rotated by (0 without --rotate)")


def group(
    buffer: str,
    names: Sequence[str],
    type: pa.DataType,
    doc: Callable[[str], str],
    unit: str = "",
    width: int | None = None,
) -> tuple[Column, ...]:
    """Columns ``names`` filled from one 2-D buffer ``buffer`` (column ``i`` from ``[:, i]``).

    ``width`` makes the buffer wider than the logged columns (scratch slots the kernel may
    fill but nobody logs).
    """
    width = len(names) if width is None else width
    if width < len(names):
        raise ValueError(f"buffer {buffer} is narrower than its columns")
    return tuple(
        Column(name, type, doc(name), unit, buffer=buffer, index=i, width=width)
        for i, name in enumerate(names)
    )


@dataclasses.dataclass(frozen=True)
class Buffer:
    """A numpy buffer behind one or more columns: 1-D, or 2-D with ``width`` columns."""

    name: str
    dtype: type
    width: int | Callable[[Setup], int] | None = None

    def shape(self, rows: int, setup: Setup) -> tuple[int, ...]:
        if self.width is None:
            return (rows,)
        width = self.width(setup) if callable(self.width) else self.width
        return (rows, width)


@dataclasses.dataclass(frozen=True)
class Table:
    """A logged table: one folder of Parquet parts under the run directory.

    ``rows_per_game(setup)``: most rows one game writes. ``expected_rows(setup)``: rows per game
    to allocate at first for tables that grow (``None``: allocate the most, never grow).
    ``buffers``: extra buffers a trace table needs (2-D, width by setup).
    """

    name: str
    doc: str
    columns: tuple[Column, ...]
    rows_per_game: Callable[[Setup], int]
    kind: Kind = Kind.DETAIL
    expected_rows: Callable[[Setup], float] | None = None
    buffers: tuple[Buffer, ...] = ()

    def __post_init__(self) -> None:
        names = [c.name for c in self.columns] + [b.name for b in self.buffers]
        if len(set(names)) != len(names) or "meta" in names:
            raise ValueError(f"table {self.name} declares a name twice (or 'meta')")
        if self.kind is not Kind.GAME and any(c.fill for c in self.columns):
            raise ValueError(f"table {self.name}: only per-game tables have kit-filled columns")

    def buffer_specs(self) -> tuple[Buffer, ...]:
        """Every buffer the kernel fills, in declaration order."""
        out: dict[str, Buffer] = {}
        for c in self.columns:
            if not c.fill:
                out.setdefault(c.buffer, Buffer(c.buffer, c.dtype, c.width))
        for b in self.buffers:
            out[b.name] = b
        return tuple(out.values())

    def arrow(self) -> pa.Schema:
        """The table's Arrow schema: every column, as readers see it."""
        return pa.schema([pa.field(c.name, c.type) for c in self.columns])

    def derived(self, written: Collection[str]) -> dict[str, Derived]:
        """The columns a run writing tables ``written`` leaves out of this table's parts:
        those derived from a data file or from a table it writes."""
        return {
            c.name: c.derived
            for c in self.columns
            if c.derived is not None and (c.derived.from_file or c.derived.source in written)
        }

    def stored(self, written: Collection[str]) -> pa.Schema:
        """The Arrow schema of this table's Parquet parts in a run writing ``written``, as
        ``verify`` checks every part against."""
        left_out = self.derived(written)
        return pa.schema([pa.field(c.name, c.type) for c in self.columns if c.name not in left_out])

    def to_dict(self, written: Collection[str] = ()) -> dict[str, Any]:
        """The table's documentation, as the manifest records it (with how each column left
        out of the parts of a run writing ``written`` is derived)."""
        left_out = self.derived(written)
        return {
            "doc": self.doc,
            "columns": [
                {
                    "name": c.name,
                    "type": str(c.type),
                    "doc": c.doc,
                    **({"unit": c.unit} if c.unit else {}),
                    **({"derived": left_out[c.name].to_dict()} if c.name in left_out else {}),
                }
                for c in self.columns
            ],
        }


SHARED_COLUMNS = {
    "games": ("game_id", "n_winners", "rounds"),
    "players": ("game_id", "seat", "strategy", "winner"),
}
"""Columns every game logs, so the shared analyses read every run the same way."""


def schema_digest(tables: Sequence[Table]) -> str:
    """A digest of the logged tables' names, columns, types and derivations (a changed schema,
    a new digest)."""

    def column(c: Column) -> list:
        return [c.name, str(c.type), *([c.derived.to_dict()] if c.derived else [])]

    text = json.dumps(
        [[t.name, [column(c) for c in t.columns]] for t in tables], separators=(",", ":")
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]
