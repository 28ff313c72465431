"""The heuristic's gene value table: what one more gene is worth, fitted by simulation.

A table says, per player count, auction round and gene, what one more gene bought at that
round's auction is worth in evolution points *relative to the average gene sold that round*
(every player buys exactly one gene per auction, so only relative worth matters to the choice,
and only relative worth is measurable from the logs: see ``reports/evo.py``), and how that
worth shifts with the buyer's state:

* its species' size against the round's median (``smaller``, ``median``, ``larger``: one dino
  or more below the median, at it, above it), and
* the climate marker's field at the auction (``field=0`` .. ``field=11``).

The bot adds both shifts to the round's value. ``price`` is the mean price paid that round
(the average gene's price): relative value plus it is the heuristic's absolute value, used only
where passing is allowed (the harder variant, Hiányzó láncszem).

The file is a CSV (``dinolab fit evo`` writes it; ``#`` lines are its provenance)::

    players,round,rounds_left,gene,state,value,se,median_dinos,price
    4,2,7.9,fur,all,1.62,0.11,3,0.9
    4,2,7.9,fur,smaller,1.80,0.25,3,0.9
    4,2,7.9,fur,field=1,2.10,0.31,3,0.9

Rows for ``all`` are required for every gene of every round 1..R the file covers; state rows
are optional (missing ones shift nothing). A round beyond R uses round R.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import hashlib
import io
import math
from pathlib import Path

import numpy as np

from rules.core.jit import jit_inline
from rules.evo.constants import GENES, MAX_CYCLE, MAX_PLAYERS, MIN_PLAYERS, N_GENES
from strategies.core.registry import StrategyError

VT_ROUNDS = 32
"""Rounds a table record holds (later rounds use the last)."""
SIZES = ("smaller", "median", "larger")
STATES = ("all", *SIZES, *(f"field={f}" for f in range(MAX_CYCLE)))
C_SIZE, C_FIELD = 1, 1 + len(SIZES)
N_COLS = len(STATES)
"""Column 0: the round's value; 1-3: shift by species size; 4-15: shift by climate field."""
COLUMNS = (
    "players",
    "round",
    "rounds_left",
    "gene",
    "state",
    "value",
    "se",
    "median_dinos",
    "price",
    "premium",
)
REQUIRED = ("players", "round", "gene", "state", "value", "median_dinos", "price")
BUILTIN = Path(__file__).with_name("data") / "values.csv"
"""The shipped table: fitted for the default rules, 3, 4 and 5 players."""

VALUES = np.dtype(
    [
        ("value", np.float64, (VT_ROUNDS, N_GENES, N_COLS)),
        ("price", np.float64, (VT_ROUNDS,)),
        ("median_dinos", np.float64, (VT_ROUNDS,)),
        ("rounds", np.int64),
    ],
    align=True,
)
"""One table as the kernel reads it (one player count)."""


@dataclasses.dataclass(frozen=True)
class ValueTable:
    """A loaded value table: per player count, values[round, gene, state] and prices."""

    path: str
    sha256: str
    provenance: tuple[str, ...]
    tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]
    """players -> (value [R, 8, N_COLS] with shifts in columns 1.., price [R], median [R])."""
    text: str = dataclasses.field(repr=False, default="")

    def check_players(self, n: int) -> None:
        if n not in self.tables:
            have = ", ".join(str(p) for p in sorted(self.tables))
            raise StrategyError(
                f"value table {self.path} has no rows for {n} players (it has {have}); "
                f"fit one with: dinolab fit evo --players {n}"
            )

    def describe(self) -> str:
        """One line: the file, and the rules and date its provenance names."""
        own = [line for line in self.provenance if not line.startswith("start:")]
        said = [line for line in own if line.startswith(("rules:", "made:"))] or own[:1]
        return f"{Path(self.path).name} (sha256 {self.sha256[:12]}): " + (
            "; ".join(said) or "no provenance"
        )

    def worth(self, n: int) -> np.ndarray:
        """Points each gene bought at each round's auction is worth for ``n`` players
        (``[round - 1, gene]``): the round's relative value plus its average price."""
        self.check_players(n)
        value, price, _ = self.tables[n]
        return value[:, :, 0] + price[:, None]

    def fill(self, rec, n: int) -> None:
        """Write the table for ``n`` players into the :data:`VALUES` record ``rec``."""
        self.check_players(n)
        value, price, median = self.tables[n]
        rounds = min(len(price), VT_ROUNDS)
        rec.rounds = rounds
        rec.value[:rounds] = value[:rounds]
        rec.price[:rounds] = price[:rounds]
        rec.median_dinos[:rounds] = median[:rounds]


def _number(text: str, what: str, where: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise StrategyError(f"{where}: {what} must be a number, got {text!r}") from None
    if not math.isfinite(v):
        raise StrategyError(f"{where}: {what} must be finite, got {text!r}")
    return v


def parse(text: str, path: str) -> ValueTable:
    """A :class:`ValueTable` from CSV text; one-line errors naming the file and line."""
    name = Path(path).name
    provenance = tuple(
        line[1:].strip() for line in text.splitlines() if line.startswith("#") and line[1:].strip()
    )
    body = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if not body:
        raise StrategyError(f"value table {name}: no header line ({', '.join(COLUMNS)})")
    reader = csv.DictReader(io.StringIO("\n".join(body)))
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise StrategyError(f"value table {name}: missing column(s) {', '.join(missing)}")
    cells: dict[int, dict[tuple[int, int, int], float]] = {}
    premiums: dict[int, dict[tuple[int, int], float]] = {}
    prices: dict[int, dict[int, float]] = {}
    medians: dict[int, dict[int, float]] = {}
    for i, row in enumerate(reader, start=2):
        where = f"value table {name} line {i}"
        players = _number(row["players"] or "", "players", where)
        if players != int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise StrategyError(f"{where}: players must be {MIN_PLAYERS}-{MAX_PLAYERS}")
        rnd = _number(row["round"] or "", "round", where)
        if rnd != int(rnd) or not 1 <= rnd <= VT_ROUNDS:
            raise StrategyError(f"{where}: round must be 1-{VT_ROUNDS}, got {row['round']!r}")
        gene = (row["gene"] or "").strip()
        if gene not in GENES:
            raise StrategyError(f"{where}: unknown gene {gene!r} (genes: {', '.join(GENES)})")
        state = (row["state"] or "").strip()
        if state not in STATES:
            raise StrategyError(f"{where}: unknown state {state!r} (all, smaller, ..., field=0)")
        p, r = int(players), int(rnd)
        key = (r, GENES.index(gene), STATES.index(state))
        if key in cells.setdefault(p, {}):
            raise StrategyError(f"{where}: a second row for {p} players, round {r}, {gene} {state}")
        cells[p][key] = _number(row["value"] or "", "value", where)
        if state == "all":
            bonus = _number(row.get("premium") or "0", "premium", where)
            premiums.setdefault(p, {})[(r, GENES.index(gene))] = bonus
        prices.setdefault(p, {})[r] = _number(row["price"] or "0", "price", where)
        medians.setdefault(p, {})[r] = _number(row["median_dinos"] or "0", "median_dinos", where)
    if not cells:
        raise StrategyError(f"value table {name}: no rows")
    tables = {}
    for p, cs in cells.items():
        last = max(r for r, _, _ in cs)
        value = np.zeros((last, N_GENES, N_COLS))
        for r in range(1, last + 1):
            for g in range(N_GENES):
                if (r, g, 0) not in cs:
                    raise StrategyError(
                        f"value table {name}: no 'all' row for {p} players, round {r}, {GENES[g]}"
                    )
                base = cs[(r, g, 0)]
                value[r - 1, g, 0] = base + premiums.get(p, {}).get((r, g), 0.0)
                for c in range(1, N_COLS):
                    if (r, g, c) in cs:
                        value[r - 1, g, c] = cs[(r, g, c)] - base  # stored as a shift
        price = np.array([prices[p][r] for r in range(1, last + 1)])
        median = np.array([medians[p][r] for r in range(1, last + 1)])
        tables[p] = (value, price, median)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return ValueTable(str(path), digest, provenance, tables, text)


def load(path: str) -> ValueTable:
    """Read a value table file (the registry's loader for ``heuristic[values=path]``)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise StrategyError(f"cannot read value table {path}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise StrategyError(f"value table {Path(path).name} is not UTF-8 text") from None
    return parse(text, path)


@functools.lru_cache(maxsize=1)
def builtin() -> ValueTable:
    """The shipped table (``strategies/evo/data/values.csv``); all zeros (every gene worth
    the round's average price) while none has been fitted yet."""
    if not BUILTIN.is_file():
        zero = (np.zeros((1, N_GENES, N_COLS)), np.zeros(1), np.zeros(1))
        tables = {p: zero for p in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
        return ValueTable(str(BUILTIN), "0" * 64, ("no fitted table yet: all zeros",), tables)
    return load(str(BUILTIN))


def table_of(strategy) -> ValueTable:
    """The value table a lineup entry plays with: its ``values`` file, else the shipped one."""
    data = strategy.file_data("values") if strategy.info.paths else None
    return data if data is not None else builtin()


def write(
    path: str, rows: list[dict], provenance: list[str], header: str = "dinolab EVO gene values"
) -> None:
    """Write ``rows`` (dicts with :data:`COLUMNS`) as a value table with its provenance."""
    buf = io.StringIO()
    buf.write(f"# {header}\n")
    for line in provenance:
        buf.write(f"# {line}\n")
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({k: _fmt(row[k]) for k in COLUMNS})
    Path(path).write_text(buf.getvalue(), encoding="utf-8")


def _fmt(v) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4f}"
    return str(v)


@jit_inline
def size_class(vt, rnd: int, dinos: int) -> int:
    """0 smaller (a dino or more below the round's median species), 1 median, 2 larger."""
    m = vt.median_dinos[min(rnd, vt.rounds - 1)]
    if dinos <= m - 1.0:
        return 0
    if dinos >= m + 1.0:
        return 2
    return 1


@jit_inline
def relative_value(vt, rnd: int, gene: int, dinos: int, field: int) -> float:
    """Relative worth (points) of one more ``gene`` at the auction of round ``rnd`` (from 0)
    for a species of ``dinos`` dinos with the climate marker on ``field``."""
    r = min(rnd, vt.rounds - 1)
    v = vt.value[r, gene, 0] + vt.value[r, gene, C_SIZE + size_class(vt, rnd, dinos)]
    if field < MAX_CYCLE:
        v += vt.value[r, gene, C_FIELD + field]
    return v
