"""Event records declared once: kinds, fields, named emitters and reading by name.

An engine leaves *event records* in its state for the kernel to log: ``st.ev[:st.n_ev]``, one
int32 row each, the kind number in column 0 and the event's fields after it. A game declares
its events beside its state records::

    EVENTS = Events(
        Event("bid", (Field("seat", "buyer"), Field("gene", "gene kind (constants.GENES)")),
              doc="a gene bought in the auction"),
        ...,
        capacity=64,
    )
    BID = EVENTS.layout("bid")  # BID.kind, BID.seat, BID.gene: numba folds them to constants
    emit_bid = EVENTS.emitter("bid")  # emit_bid(st, seat=s, gene=g)

From the declaration come the kind numbers (1.. in declaration order) and each field's column
(:meth:`Events.layout`), the state fields that hold the records (:meth:`Events.state_fields`),
an emitter per event with one named parameter per field (:meth:`Events.emitter`: generated
source compiled to be inlined, so a misspelled or missing field fails when the caller
compiles) and Python access by name for replays, checkers and tests (:meth:`Events.read`,
:meth:`Events.pending`). The copy of event fields into log columns is declared with the
tables (:func:`simulate.kit.events.copier`).

Options of the declaration, one per behaviour a game needs:

* ``stamp_round``: every record starts with a ``round`` field (the state's ``rnd`` + 1) that
  the emitter writes itself;
* ``count_lost``: a record that finds the buffer full is counted in ``st.ev_lost`` (else it
  is dropped silently);
* ``Event(verbose=True)``: emitted only while ``st.verbose`` is set (replay traces);
* ``Field(default=...)``: the value written when the call site leaves the field out.
"""

from __future__ import annotations

import collections
import dataclasses
import keyword
from collections.abc import Sequence
from typing import Any

import numpy as np

from rules.core.jit import compile_generated, jit_inline

MAX_FIELDS = 31
"""Most fields one event may have: every state carries ``capacity`` records of the widest
event's width, and search bots copy states by the thousand."""
RESERVED = frozenset({"kind", "st"})
"""Names no field may take: column 0 is the kind; ``st`` is the emitters' state."""


@dataclasses.dataclass(frozen=True)
class Field:
    """One field of an event record: its name, its meaning and, if the emitter may be called
    without it, the value written then."""

    name: str
    doc: str
    default: int | None = None


@dataclasses.dataclass(frozen=True)
class Event:
    """One kind of event record: its fields in record order, what it records and whether it
    is emitted only while the state is ``verbose`` (replay traces)."""

    name: str
    fields: tuple[Field, ...]
    doc: str
    verbose: bool = False


ROUND = Field("round", "round, from 1 (written by the emitter from the state's rnd)")
"""The leading field of every event of a declaration with ``stamp_round``."""


def _identifier(name: str, what: str) -> None:
    """Reject a name that cannot be a parameter (a field) or a suffix of one (``emit_<event>``)."""
    if (
        not name.isidentifier()
        or name.startswith("_")
        or (what != "event" and keyword.iskeyword(name))
    ):
        raise ValueError(f"{what} {name!r} is not a plain identifier")


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


class Events:
    """A game's event declaration: the kinds, their fields, and what is generated from them."""

    def __init__(
        self,
        *events: Event,
        capacity: int,
        stamp_round: bool = False,
        count_lost: bool = False,
    ) -> None:
        if capacity < 1:
            raise ValueError("an event buffer needs room for at least one record")
        names = [e.name for e in events]
        if len(set(names)) != len(names):
            raise ValueError(f"an event name is declared twice: {names}")
        full = []
        for e in events:
            _identifier(e.name, "event")
            fields = (ROUND, *e.fields) if stamp_round else e.fields
            seen = [f.name for f in fields]
            if len(set(seen)) != len(seen):
                raise ValueError(f"event {e.name}: a field name is declared twice: {seen}")
            for f in fields:
                _identifier(f.name, f"event {e.name}: field")
                if f.name in RESERVED:
                    raise ValueError(f"event {e.name}: {f.name!r} is reserved")
            if len(fields) > MAX_FIELDS:
                raise ValueError(f"event {e.name} has {len(fields)} fields, more than {MAX_FIELDS}")
            full.append(dataclasses.replace(e, fields=fields))
        self.events: tuple[Event, ...] = tuple(full)
        """The events in declaration order (kind ``k`` is ``events[k - 1]``), with ``round``
        first when stamped."""
        self.capacity = capacity
        self.stamp_round = stamp_round
        self.count_lost = count_lost
        self.width = 1 + max((len(e.fields) for e in self.events), default=0)
        """Columns of one record: the kind and the widest event's fields."""
        self._kind = {e.name: k for k, e in enumerate(self.events, 1)}
        self._layouts = {}
        self._records = {}
        self._stamped = {}
        for e in self.events:
            names = [f.name for f in e.fields]
            layout = collections.namedtuple(f"{_camel(e.name)}Columns", ["kind", *names])
            self._layouts[e.name] = layout(self._kind[e.name], *range(1, 1 + len(names)))
            self._records[e.name] = collections.namedtuple(_camel(e.name), ["kind", *names])
            if not stamp_round:
                record = collections.namedtuple(_camel(e.name), ["kind", "round", *names])
                self._stamped[e.name] = record

    def event(self, name: str) -> Event:
        """The declaration of event ``name``."""
        return self.events[self.kind(name) - 1]

    def kind(self, name: str) -> int:
        """The kind number of event ``name`` (column 0 of its records)."""
        try:
            return self._kind[name]
        except KeyError:
            raise ValueError(f"no event {name!r}; declared: {', '.join(self._kind)}") from None

    def layout(self, name: str) -> Any:
        """Event ``name``'s kind number and the column of each of its fields, as a named tuple
        (``COMBAT.kind``, ``COMBAT.roll``); compiled code reading a module-global layout gets
        constants, so ``st.ev[i, COMBAT.roll]`` costs what ``st.ev[i, 5]`` did."""
        self.kind(name)
        return self._layouts[name]

    def state_fields(self) -> list[tuple]:
        """The state record's fields that hold the records: ``ev`` (capacity x width int32),
        ``n_ev`` (records pending), ``ev_lost`` (with ``count_lost``), ``verbose`` (when an
        event is verbose only)."""
        out: list[tuple] = [("ev", np.int32, (self.capacity, self.width)), ("n_ev", np.int64)]
        if self.count_lost:
            out.append(("ev_lost", np.int64))
        if any(e.verbose for e in self.events):
            out.append(("verbose", np.int64))
        return out

    def emitter(self, name: str) -> Any:
        """The compiled function that appends an event ``name`` record: ``emit(st, field=...)``
        with one parameter per field (those with a default last), inlined into its callers.
        Call it with keywords: a misspelled field fails to compile, a missing one too unless
        it has a default. (numba cannot compile a call with that many keywords when one of
        them is a conditional expression: compute such a value first.)"""
        event = self.event(name)
        given = [f for f in event.fields if not (self.stamp_round and f is ROUND)]
        params = [f.name for f in given if f.default is None]
        params += [f"{f.name}={int(f.default)}" for f in given if f.default is not None]
        body = [f"st.ev[_n, 0] = {self.kind(name)}"]
        for col, f in enumerate(event.fields, 1):
            value = "st.rnd + 1" if self.stamp_round and f is ROUND else f.name
            body.append(f"st.ev[_n, {col}] = {value}")
        body.append("st.n_ev = _n + 1")
        lines = ["_n = st.n_ev", f"if _n < {self.capacity}:", *("    " + b for b in body)]
        if self.count_lost:
            lines += ["else:", "    st.ev_lost += 1"]
        if event.verbose:
            lines = ["if st.verbose:", *("    " + line for line in lines)]
        fn = f"emit_{name}"
        source = "\n".join(
            [
                f"def {fn}({', '.join(['st', *params])}):",
                f"    {event.doc!r}",
                *("    " + line for line in lines),
            ]
        )
        return compile_generated(source, fn, {})

    def read(self, row: Sequence[int], round: int | None = None) -> Any:
        """One record as a named tuple of its event: ``kind`` (the event's name), then its
        fields by name, as Python ints. ``round`` (for a declaration without
        ``stamp_round``, whose records do not hold it) is kept after ``kind`` as the
        record's ``round``, so a reader that knows when it was emitted reads it by name too."""
        k = int(row[0])
        if not 1 <= k <= len(self.events):
            raise ValueError(f"no event of kind {k}")
        event = self.events[k - 1]
        values = (int(row[col]) for col in range(1, 1 + len(event.fields)))
        if round is None:
            return self._records[event.name](event.name, *values)
        if self.stamp_round:
            raise ValueError("these records hold their round: read them without one")
        return self._stamped[event.name](event.name, int(round), *values)

    def pending(self, st: Any) -> list[Any]:
        """The records an engine call left in state ``st`` (:meth:`read` of each)."""
        return [self.read(row) for row in np.asarray(st.ev[: st.n_ev])]


@jit_inline
def event_kind(st, i: int) -> int:
    """The kind number of the state's pending record ``i``."""
    return st.ev[i, 0]


@jit_inline
def event_field(st, i: int, column: int) -> int:
    """A field of the state's pending record ``i``, by its layout's column
    (``event_field(st, i, TRAIT.seat)``)."""
    return st.ev[i, column]


@jit_inline
def copy_record(row, st, i: int) -> None:
    """The whole pending record ``i`` into ``row`` (a trace table's buffer row)."""
    for k in range(st.ev.shape[1]):
        row[k] = st.ev[i, k]
