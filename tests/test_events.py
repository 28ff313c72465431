"""Event records declared once (rules.core.events, simulate.kit.events): the declaration's
checks, emitters writing named fields where reading finds them, copiers filling log columns by
name, and every call site in the code passing fields by name."""

from __future__ import annotations

import ast
from pathlib import Path

import numba
import numpy as np
import pyarrow as pa
import pytest
from numba.core.errors import TypingError

import simulate.kit.buffers
from rules.core.events import MAX_FIELDS, Event, Events, Field, copy_record, event_kind
from rules.core.jit import records
from simulate.kit.buffers import log_types
from simulate.kit.events import copier
from simulate.kit.tables import Buffer, Column, Kind, Table, group

ROOT = Path(__file__).resolve().parents[1]
I8, I16, I64, BOOL = pa.int8(), pa.int16(), pa.int64(), pa.bool_()

HIT = Event(
    "hit",
    (
        Field("seat", "the attacker"),
        Field("dino", "the dino hit"),
        Field("damage", "markers lost"),
        Field("fatal", "1: the dino died"),
    ),
    doc="a dino is hit",
)
NOTE = Event(
    "note", (Field("seat", "who"), Field("mood", "how", default=-1)), doc="a remark", verbose=True
)
EVENTS = Events(HIT, NOTE, capacity=3, stamp_round=True, count_lost=True)
HIT_EVENT, NOTE_EVENT = EVENTS.layout("hit"), EVENTS.layout("note")
emit_hit, emit_note = EVENTS.emitter("hit"), EVENTS.emitter("note")
STATE = np.dtype([("rnd", np.int64), *EVENTS.state_fields()], align=True)

HITS = Table(
    "hits",
    "one row per hit",
    (
        Column("game_id", I64, "game index"),
        Column("round", I8, "round, from 1"),
        Column("dino", I16, "the dino hit, from 1"),
        Column("seat", I8, "the attacker"),
        Column("fatal", BOOL, "the dino died"),
        *group("lost", ("damage", "damage_twice"), I8, lambda c: c),
    ),
    rows_per_game=lambda s: 10,
)
TRACE = Table(
    "trace",
    "every record",
    (),
    rows_per_game=lambda s: 10,
    kind=Kind.TRACE,
    buffers=(Buffer("data", np.int32, EVENTS.width),),
)
copy_hit = copier(
    EVENTS,
    "hit",
    HITS,
    context=("game_id",),
    columns={"dino": "dino + 1", "damage_twice": "twice(damage)"},
    env={"twice": numba.njit(lambda x: 2 * x)},
)
LOGS = log_types("test_events", (HITS, TRACE))


def state():
    return records(1, STATE)


def buffers(rows: int = 4):
    """The named tuples a kernel receives: ``logs.hits``, ``logs.trace``."""
    meta = np.zeros((2, 3), dtype=np.int64)
    meta[:, 1] = rows
    tables = []
    for i, t in enumerate((HITS, TRACE)):
        cls = getattr(simulate.kit.buffers, f"test_events__{t.name}")
        tables.append(
            cls(meta[i], *(np.zeros(b.shape(rows, None), b.dtype) for b in t.buffer_specs()))
        )
    return LOGS(meta, np.zeros(0, np.int64), *tables)


@numba.njit
def play(sts, logs, verbose):
    """Emit by keyword (fields in another order than declared), then drain as a kernel does."""
    st = sts[0]
    st.rnd = 4
    st.verbose = verbose
    emit_hit(st, damage=2, fatal=1, dino=7, seat=1)
    emit_note(st, seat=0)
    emit_hit(st, seat=0, dino=3, damage=1, fatal=0)
    emit_note(st, seat=1, mood=5)  # the fourth record: full
    for i in range(st.n_ev):
        if event_kind(st, i) == HIT_EVENT.kind:
            copy_hit(logs.hits, st, i, game_id=9)
        r = logs.trace.meta[0]
        logs.trace.meta[0] = r + 1
        copy_record(logs.trace.data[r], st, i)


def test_emitters_write_the_named_fields_where_read_finds_them():
    sts, logs = state(), buffers()
    play(sts, logs, 1)
    st = sts[0]
    got = EVENTS.pending(st)
    assert got == [
        ("hit", 5, 1, 7, 2, 1),
        ("note", 5, 0, -1),
        ("hit", 5, 0, 3, 1, 0),
    ]
    assert (got[0].kind, got[0].round, got[0].dino, got[0].damage) == ("hit", 5, 7, 2)
    assert got[1].mood == -1, "the declared default"
    assert int(st.ev_lost) == 1, "count_lost: the record that found the buffer full"
    assert [EVENTS.read(row) for row in logs.trace.data[:3]] == got


def test_verbose_events_need_the_state_verbose():
    sts, logs = state(), buffers()
    play(sts, logs, 0)
    assert [e.kind for e in EVENTS.pending(sts[0])] == ["hit", "hit"]
    assert int(sts[0].ev_lost) == 0


def test_a_copier_fills_each_column_from_its_field():
    sts, logs = state(), buffers()
    play(sts, logs, 1)
    h = logs.hits
    assert int(h.meta[0]) == 2
    assert h.game_id[:2].tolist() == [9, 9]
    assert h.round[:2].tolist() == [5, 5]
    assert h.seat[:2].tolist() == [1, 0]
    assert h.dino[:2].tolist() == [8, 4], "dino + 1"
    assert h.fatal[:2].tolist() == [True, False]
    assert h.lost[:2].tolist() == [[2, 4], [1, 2]], "a group column, an env function"


def test_emitting_or_reading_the_same_fields_in_another_order_logs_the_same_rows():
    """Swap two fields in the declaration: call sites and copies go by name, so the records'
    columns move and the logged rows do not."""
    swapped = Event("hit", (HIT.fields[1], HIT.fields[0], *HIT.fields[2:]), doc=HIT.doc)
    other = Events(swapped, NOTE, capacity=3, stamp_round=True, count_lost=True)
    assert other.layout("hit").seat != HIT_EVENT.seat
    emit = other.emitter("hit")
    columns = {"dino": "dino + 1", "damage_twice": "damage * 2"}
    copy = copier(other, "hit", HITS, context=("game_id",), columns=columns)

    @numba.njit
    def one(sts, logs):
        st = sts[0]
        st.rnd = 4
        emit(st, seat=1, dino=7, damage=2, fatal=1)
        copy(logs.hits, st, 0, game_id=9)

    sts, logs = records(1, np.dtype([("rnd", np.int64), *other.state_fields()])), buffers()
    one(sts, logs)
    assert other.pending(sts[0])[0]._asdict() == EVENTS.read([1, 5, 1, 7, 2, 1])._asdict()
    assert (logs.hits.seat[0], logs.hits.dino[0], logs.hits.lost[0].tolist()) == (1, 8, [2, 4])


def test_a_misspelled_or_missing_field_fails_to_compile():
    @numba.njit
    def misspelled(sts):
        emit_hit(sts[0], seat=0, dino=1, damage=1, fatl=1)

    @numba.njit
    def missing(sts):
        emit_hit(sts[0], seat=0, dino=1, damage=1)

    for fn in (misspelled, missing):
        with pytest.raises(TypingError):
            fn(state())


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ((HIT, HIT), "declared twice"),
        ((Event("x", (Field("a", ""), Field("a", "")), ""),), "declared twice"),
        ((Event("x", (Field("kind", ""),), ""),), "reserved"),
        ((Event("x", (Field("round", ""),), ""),), "declared twice"),  # stamped already
        ((Event("x", (Field("from", ""),), ""),), "identifier"),
        ((Event("x", tuple(Field(f"f{k}", "") for k in range(MAX_FIELDS)), ""),), "more than"),
    ],
)
def test_the_declaration_rejects(events, message):
    with pytest.raises(ValueError, match=message):
        Events(*events, capacity=4, stamp_round=True)


def test_one_event_may_take_the_widest_record():
    fields = tuple(Field(f"f{k}", "") for k in range(MAX_FIELDS))
    assert Events(Event("x", fields, ""), capacity=1).width == MAX_FIELDS + 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"columns": {"nope": "seat"}}, "no column"),
        ({"columns": {"dino": "dinosaur + 1"}}, "unknown 'dinosaur'"),
        ({"context": ("game_id", "tb")}, "used by no column"),
        ({"context": ("game_id", "seat")}, "named twice"),
        ({"context": ()}, "nothing fills column game_id"),
    ],
)
def test_a_copier_declaration_rejects(kwargs, message):
    base = {"context": ("game_id",), "columns": {"damage_twice": "damage * 2"}}
    with pytest.raises(ValueError, match=message):
        copier(EVENTS, "hit", HITS, **{**base, **kwargs})


def test_reading_an_unknown_kind_or_event_fails():
    with pytest.raises(ValueError, match="no event of kind 7"):
        EVENTS.read([7, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="no event 'hits'"):
        EVENTS.layout("hits")


def _calls(prefix: str):
    for room in ("rules", "simulate", "strategies"):
        for path in (ROOT / room).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id.startswith(prefix)
                ):
                    yield path.relative_to(ROOT), node


def test_every_emitter_and_copier_call_names_its_fields():
    """numba has no keyword-only parameters: this keeps a positional (swappable) field out."""
    emitters = list(_calls("emit_"))
    assert len(emitters) > 20
    for path, call in emitters:
        assert len(call.args) == 1, f"{path}:{call.lineno}: fields by keyword only"
    copies = [(p, c) for p, c in _calls("copy_") if c.func.id != "copy_record"]
    assert len(copies) >= 7
    for path, call in copies:
        assert len(call.args) == 3, f"{path}:{call.lineno}: context by keyword only"
