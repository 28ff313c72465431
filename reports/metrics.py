"""Metrics, declared once: what the report's headline, ``compare``, sweeps and searches measure.

A :class:`Metric` has a name (``balance``; a family takes an argument, ``seat_share[K]``), a
meaning, a unit and a *scale* (the difference a designer would call one unit of distance when
several targets are combined: one percentage point of win share, one round ...). Two kinds:

*Mean metrics* are a smooth function ``g`` of the means over games of per-game *features*
(``features(chunk)``: one row per game, in game order, with named columns). Their interval is
the delta method's with the features' cluster-robust covariance (a deal's rotated games are one
cluster), and two runs that played the same games (same seed) are compared game by game: the
features of both are summed per cluster together, so the difference's interval uses their
covariance (common random numbers). Every shared metric is of this kind, computed chunk by
chunk from the per-cluster sums (:class:`Features`), so memory does not grow with the run, and
a study's workers compute the sums where the rows are (:func:`measure_tables`).

*Run metrics* come from a whole-run analysis of the game's report (a fitted model: EVO's gene
surplus, Table Battles' rating correlation) with that analysis's own interval; runs are
compared with independent intervals.

The shared metrics are :data:`SHARED`; each game's report adds its own
(:attr:`reports.game.GameReport.metrics`) and names the player who moved first
(:attr:`~reports.game.GameReport.first_mover`) for ``first_share``.
:func:`catalogue` lists what a game offers; :func:`resolve` turns ``seat_share[2]`` into a
:class:`Ref` for a configuration, refusing unknown names in one line.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from reports.aggregate import (
    Chunk,
    Mapper,
)
from reports.source import RunData
from reports.stats import Z95

if TYPE_CHECKING:
    from reports.game import GameReport


class MetricError(ValueError):
    """An unknown metric, or one this game or configuration cannot measure."""


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A metric's value with its standard error and 95% interval, from ``games`` games."""

    value: float
    se: float
    lo: float
    hi: float
    games: int

    def to_dict(self) -> dict[str, Any]:
        """The JSON form studies write: ``{"value", "ci", "se", "games"}``."""
        return {"value": self.value, "ci": [self.lo, self.hi], "se": self.se, "games": self.games}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Estimate:
        return cls(d["value"], d["se"], d["ci"][0], d["ci"][1], d["games"])

    @classmethod
    def normal(
        cls,
        value: float,
        se: float,
        games: int,
        bounds: tuple[float | None, float | None] = (None, None),
    ) -> Estimate:
        """A normal 95% interval, cut to the quantity's ``bounds`` (a share is within 0..1)."""
        lo, hi = value - Z95 * se, value + Z95 * se
        if bounds[0] is not None:
            lo = max(lo, bounds[0])
        if bounds[1] is not None:
            hi = min(hi, bounds[1])
        return cls(value, se, lo, hi, games)


@dataclasses.dataclass(frozen=True)
class Feature:
    """Per-game columns: ``fn(chunk, *args)`` returns ``game_id`` and float columns, one row
    per game of the chunk in game order (module-level ``fn``: workers import it by name)."""

    fn: Callable[..., pl.DataFrame]
    args: tuple = ()

    def frame(self, chunk: Chunk) -> pl.DataFrame:
        key = f"feature:{self.fn.__module__}.{self.fn.__qualname__}{self.args!r}"
        return chunk.cached(key, lambda: self.fn(chunk, *self.args))


@dataclasses.dataclass(frozen=True)
class Context:
    """What a metric needs to know of a configuration (known before a run is played)."""

    game: str
    n_players: int
    labels: tuple[str, ...]
    """The lineup's strategy labels (as the players table writes them), each once."""
    columns: Mapping[str, tuple[str, ...]]
    """The columns of every table the run logs."""
    report: GameReport | None = None
    """The game's report (its own metrics and who moved first)."""

    @classmethod
    def of(cls, run: RunData, report: GameReport | None = None) -> Context:
        tables = run.manifest["tables"]
        return cls(
            run.game,
            run.n_players,
            tuple(run.manifest["strategies"]),
            {t: tuple(c["name"] for c in d["columns"]) for t, d in tables.items()},
            report,
        )


Formula = Callable[[Mapping[str, float], "str | None"], float]


@dataclasses.dataclass(frozen=True)
class Metric:
    """A metric's declaration (see the module docstring)."""

    name: str
    meaning: str
    unit: str
    scale: float
    """One unit of distance for targets on this metric (a difference a designer notices)."""
    tables: tuple[str, ...] = ("games", "players")
    """The tables it reads (a study logs these)."""
    arg: str | None = None
    """The argument of a family (``K`` in ``seat_share[K]``)."""
    args: Callable[[Context], Sequence[str]] | None = None
    """The family's arguments for a configuration."""
    features: Callable[[Context, str | None], Sequence[Feature]] | None = None
    """A mean metric's per-game features for a configuration and argument."""
    formula: Formula | None = None
    """A mean metric's value from its features' means."""
    measure: Callable[[RunData, str | None, Mapper | None], Estimate] | None = None
    """A run metric's estimate from a whole run."""
    unavailable: Callable[[Context], str | None] | None = None
    """Why the metric cannot be measured for a configuration (``None``: it can)."""
    more_tables: Callable[[Context], tuple[str, ...]] | None = None
    """Tables it reads besides :attr:`tables` that depend on the game."""
    bounds: tuple[float | None, float | None] = (0.0, 1.0)
    """The values it can take (intervals are cut to them); a share by default."""
    tolerance: float | None = None
    """Two measurements closer than this are the same answer (``None``: :attr:`scale`): a
    strength curve is *settled*, and a conclusion *holds* with stronger bots, when the paired
    difference's 95% interval lies within plus or minus this."""

    @property
    def within(self) -> float:
        """The tolerance in force: :attr:`tolerance`, or :attr:`scale` when none is declared."""
        return self.scale if self.tolerance is None else self.tolerance

    def tables_for(self, ctx: Context) -> tuple[str, ...]:
        extra = self.more_tables(ctx) if self.more_tables is not None else ()
        return tuple(dict.fromkeys([*self.tables, *extra]))

    @property
    def is_mean(self) -> bool:
        return self.formula is not None

    @property
    def usage(self) -> str:
        return f"{self.name}[{self.arg}]" if self.arg else self.name

    def why_not(self, ctx: Context) -> str | None:
        if self.unavailable is not None and (why := self.unavailable(ctx)) is not None:
            return why
        missing = [t for t in self.tables_for(ctx) if t not in ctx.columns]
        if missing:
            return f"it reads the {', '.join(missing)} table(s), which this run does not log"
        return None


@dataclasses.dataclass(frozen=True)
class Ref:
    """A metric made concrete for a configuration: ``seat_share[2]``."""

    metric: Metric
    arg: str | None
    features: tuple[Feature, ...] = ()
    tables: tuple[str, ...] = ()
    """The tables it reads."""

    @property
    def name(self) -> str:
        return f"{self.metric.name}[{self.arg}]" if self.arg is not None else self.metric.name

    def value(self, means: Mapping[str, float]) -> float:
        """The metric from its features' means (NaN where it is undefined, e.g. 0/0)."""
        assert self.metric.formula is not None
        try:
            return float(self.metric.formula(means, self.arg))
        except ZeroDivisionError:
            return float("nan")


@dataclasses.dataclass(frozen=True)
class Ranking:
    """A game's strength measure of its items (cards, genes, dinos, traits): what its report
    ranks as strongest and weakest (:attr:`reports.game.GameReport.ranking`).
    ``table(run, mapper)`` gives one row per item measured: ``name``, ``value``, ``lo``,
    ``hi`` (95%), from the report's own analysis."""

    items: str
    """What is ranked, plural (``cards``)."""
    measure: str
    """What ``value`` is (``share of rounds won when played``)."""
    unit: str
    """``share`` (shown in per cent), ``pp`` (win-share points, signed) or a unit name."""
    table: Callable[[RunData, Mapper | None], pl.DataFrame]
    tolerance: float | None = None
    """Two values closer than this are the same answer (``None``: one point of win share,
    0.01, for the ``share`` and ``pp`` units; required for any other unit): an item within it
    of the stronger bots' third stays in their top three (:mod:`reports.robustness`)."""

    def __post_init__(self) -> None:
        if self.tolerance is None and self.unit not in ("share", "pp"):
            raise ValueError(f"ranking of {self.items} in {self.unit}: declare its tolerance")

    @property
    def within(self) -> float:
        """The tolerance in force (:attr:`tolerance`, or 0.01 for shares and ``pp``)."""
        return 0.01 if self.tolerance is None else self.tolerance


@dataclasses.dataclass(frozen=True)
class Claim:
    """A headline conclusion of a game's report read off one metric: on which side of
    ``reference`` the metric's 95% interval lies, in words (``{arg}`` stands for a family's
    argument: every argument is a claim). Declared in the game's report
    (:attr:`reports.game.GameReport.claims`); the report's robustness check
    (:mod:`reports.robustness`) re-measures each with stronger bots."""

    metric: str
    """A metric of the game's catalogue (a family's bare name: every argument)."""
    reference: float
    above: str
    """What the run says when the interval lies above ``reference``."""
    below: str
    neither: str
    """What it says when the interval holds ``reference``."""


# ------------------------------------------------------------------ shared features


@dataclasses.dataclass(frozen=True)
class SeatGrid:
    """A chunk's outcomes as game x seat arrays (games in order, seats in order)."""

    game_id: np.ndarray
    share: np.ndarray
    """Win share: 1 for an outright win, 1/k for a k-way shared one, 0 otherwise."""
    strategy: np.ndarray
    """The strategy of every players row as a code into :attr:`labels`, game x seat."""
    labels: list[str]


def seat_grid(chunk: Chunk) -> SeatGrid:
    """The chunk's players rows as game x seat arrays (computed once per chunk)."""
    return chunk.cached("metrics.seat_grid", lambda: _seat_grid(chunk))


def _seat_grid(chunk: Chunk) -> SeatGrid:
    """Rows come game by game and seat by seat as the kernels write them; others are sorted
    first."""
    p = chunk.n_players
    players = chunk.table("players", ["game_id", "seat", "strategy", "winner"])
    games = chunk.table("games", ["game_id", "n_winners"])
    gid, seat = players["game_id"].to_numpy(), players["seat"].to_numpy()
    ordered = (
        len(gid) == p * games.height
        and np.array_equal(seat, np.tile(np.arange(p, dtype=seat.dtype), games.height))
        and np.array_equal(gid[::p], games["game_id"].to_numpy())
        and bool(np.all(np.diff(gid[::p]) > 0))
    )
    if not ordered:
        players = players.sort("game_id", "seat")
        games = games.sort("game_id")
        gid = players["game_id"].to_numpy()
    n = games["n_winners"].to_numpy().astype(np.float64)
    won = players["winner"].to_numpy().reshape(-1, p).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n[:, None] > 0, won / n[:, None], 0.0)
    strategy = players["strategy"]
    physical = strategy.to_physical().to_numpy() if strategy.dtype == pl.Categorical else None
    if physical is not None:  # the logs' dictionary: its codes, not its strings
        _, first, codes = np.unique(physical, return_index=True, return_inverse=True)
        labels = strategy.gather(first).cast(pl.String).to_list()
    else:
        labels = sorted(strategy.cast(pl.String).unique().to_list())
        codes = strategy.cast(pl.String).replace_strict(labels, range(len(labels)))
        codes = codes.cast(pl.Int64).to_numpy()
    return SeatGrid(gid[::p], share, codes.reshape(-1, p), labels)


def seat_features(chunk: Chunk) -> pl.DataFrame:
    """Each seat's win share in each game: ``share_0 .. share_{P-1}``."""
    g = seat_grid(chunk)
    out = {"game_id": g.game_id}
    out.update({f"share_{s}": g.share[:, s] for s in range(chunk.n_players)})
    return pl.DataFrame(out)


def outcome_features(chunk: Chunk) -> pl.DataFrame:
    """Per game: ``rounds``, ``shared`` (a shared victory) and ``capped`` (stopped by a cap;
    0 for a game that has no cap)."""
    cols = chunk.run.manifest["tables"]["games"]["columns"]
    names = {c["name"] for c in cols}
    wanted = ["game_id", "n_winners", "rounds"]
    wanted += [c for c in ("capped", "end_reason") if c in names]
    g = chunk.table("games", wanted)
    if "capped" in names:
        capped = pl.col("capped").cast(pl.Float64)
    elif "end_reason" in names:
        capped = (pl.col("end_reason").cast(pl.String) == "turn cap").cast(pl.Float64)
    else:
        capped = pl.lit(0.0)
    return g.select(
        "game_id",
        rounds=pl.col("rounds").cast(pl.Float64),
        shared=(pl.col("n_winners") > 1).cast(pl.Float64),
        capped=capped,
    )


def can_cap(ctx: Context) -> str | None:
    games = ctx.columns.get("games", ())
    if "capped" in games or "end_reason" in games:
        return None
    return f"{ctx.game} games cannot be capped (no turn cap in its rules)"


def first_features(chunk: Chunk, first_mover: Callable[[Chunk], pl.DataFrame]) -> pl.DataFrame:
    """Per game: ``first``, the win share of the seat that moved first (``first_mover``: the
    game's ``game_id, first_seat`` per game)."""
    seats = Feature(seat_features).frame(chunk)
    first = first_mover(chunk)
    if first.height != seats.height or not first["game_id"].equals(seats["game_id"]):
        first = seats.select("game_id").join(first, on="game_id", how="left")
    who = first["first_seat"].to_numpy().astype(np.int64)
    share = seats.select(f"share_{s}" for s in range(chunk.n_players)).to_numpy()
    return pl.DataFrame({"game_id": seats["game_id"], "first": share[np.arange(len(who)), who]})


def strategy_features(chunk: Chunk) -> pl.DataFrame:
    """Per game and strategy label L: ``won:L``, the summed win share of its seats, and
    ``seats:L``, how many seats it played."""
    g = seat_grid(chunk)
    out: dict[str, Any] = {"game_id": g.game_id}
    present = set(np.unique(g.strategy).tolist())
    for k, label in sorted(enumerate(g.labels), key=lambda kl: kl[1]):
        if k not in present:
            continue
        mine = g.strategy == k
        out[f"won:{label}"] = (g.share * mine).sum(axis=1)
        out[f"seats:{label}"] = mine.sum(axis=1).astype(np.float64)
    return pl.DataFrame(out)


def lineup_features(chunk: Chunk) -> pl.DataFrame:
    """Per game: ``position_J``, the win share of the seat lineup position J played (with
    ``--rotate`` position J sits at seat ``(J + rotation) mod P``): a bot's share whatever
    its label, so two lineups that differ in one bot's parameters compare game by game."""
    g = seat_grid(chunk)
    p = chunk.n_players
    rot = chunk.table("games", ["rotation"])["rotation"].to_numpy().astype(np.int64)
    rows = np.arange(len(rot))
    out: dict[str, Any] = {"game_id": g.game_id}
    for j in range(p):
        out[f"position_{j}"] = g.share[rows, (j + rot) % p]
    return pl.DataFrame(out)


def _has_rotation(ctx: Context) -> str | None:
    if "rotation" not in ctx.columns.get("games", ()):
        return f"{ctx.game}'s games table does not log the rotation"
    return None


def _seats(ctx: Context) -> list[str]:
    return [str(s) for s in range(ctx.n_players)]


def _gap(m: Mapping[str, float], _arg: str | None) -> float:
    shares = [v for k, v in m.items() if k.startswith("share_")]
    return max(shares) - min(shares)


def _no_first(ctx: Context) -> str | None:
    if ctx.report is None or ctx.report.first_mover is None:
        return f"{ctx.game}'s logs do not name the player who moved first"
    return None


def _first_features(ctx: Context, _arg: str | None) -> list[Feature]:
    assert ctx.report is not None and ctx.report.first_mover is not None
    return [Feature(first_features, (ctx.report.first_mover.rows,))]


def _first_tables(ctx: Context) -> tuple[str, ...]:
    first = ctx.report.first_mover if ctx.report is not None else None
    return first.tables if first is not None else ()


def _mean_of(column: str) -> Formula:
    return lambda m, _arg: m[column]


SEATS = (Feature(seat_features),)
OUTCOMES = (Feature(outcome_features),)

SHARED: tuple[Metric, ...] = (
    Metric(
        "balance",
        "1 minus the largest gap between two seats' win shares (Ludii's balance; 1 = equal "
        "seats); biased low by sampling noise on few games",
        "share",
        0.01,
        features=lambda ctx, arg: SEATS,
        formula=lambda m, arg: 1.0 - _gap(m, arg),
    ),
    Metric(
        "seat_gap",
        "the largest gap between two seats' win shares (0 = equal seats)",
        "share",
        0.01,
        features=lambda ctx, arg: SEATS,
        formula=_gap,
    ),
    Metric(
        "seat_share",
        "seat K's win share (1 for an outright win, 1/k for a k-way shared win); fair: 1/P",
        "share",
        0.01,
        arg="K",
        args=_seats,
        features=lambda ctx, arg: SEATS,
        formula=lambda m, arg: m[f"share_{arg}"],
    ),
    Metric(
        "first_share",
        "win share of the player who moved first (the game names who: first player, figure "
        "holder, first initiative); fair: 1/P",
        "share",
        0.01,
        features=_first_features,
        formula=_mean_of("first"),
        unavailable=_no_first,
        more_tables=_first_tables,
    ),
    Metric(
        "length",
        "mean game length in rounds",
        "rounds",
        1.0,
        bounds=(0.0, None),
        tables=("games",),
        features=lambda ctx, arg: OUTCOMES,
        formula=_mean_of("rounds"),
    ),
    Metric(
        "capped",
        "share of games stopped by a turn cap (no winner)",
        "share of games",
        0.001,
        tables=("games",),
        features=lambda ctx, arg: OUTCOMES,
        formula=_mean_of("capped"),
        unavailable=can_cap,
    ),
    Metric(
        "shared",
        "share of games ending in a shared victory",
        "share of games",
        0.01,
        tables=("games",),
        features=lambda ctx, arg: OUTCOMES,
        formula=_mean_of("shared"),
    ),
    Metric(
        "lineup_share",
        "win share of lineup position J (the J-th bot of --strategy) over every seat it "
        "played; fair: 1/P",
        "share",
        0.01,
        arg="J",
        args=_seats,
        features=lambda ctx, arg: (Feature(lineup_features),),
        formula=lambda m, arg: m[f"position_{arg}"],
        unavailable=_has_rotation,
    ),
    Metric(
        "strategy_share",
        "win share of strategy NAME per seat it played (fair: 1/P)",
        "share",
        0.01,
        arg="NAME",
        args=lambda ctx: list(ctx.labels),
        features=lambda ctx, arg: (Feature(strategy_features),),
        formula=lambda m, arg: m[f"won:{arg}"] / m[f"seats:{arg}"],
    ),
)


# ------------------------------------------------------------------ the catalogue


def catalogue(report: GameReport | None = None) -> list[Metric]:
    """Every metric of a game: the shared ones, then its report's own (their names are
    unique: :class:`~reports.game.GameReport` checks)."""
    return [*SHARED, *(report.metrics if report is not None else ())]


_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(.*)\])?\s*$")


def resolve(name: str, ctx: Context) -> Ref:
    """The metric ``name`` (``balance``, ``seat_share[2]``) for a configuration; one-line
    :class:`MetricError` for an unknown name or argument, or one it cannot measure."""
    found = _NAME.match(name)
    metrics = {m.name: m for m in catalogue(ctx.report)}
    if not found or found.group(1) not in metrics:
        known = ", ".join(m.usage for m in metrics.values())
        raise MetricError(f"unknown metric '{name.strip()}' for {ctx.game} (known: {known})")
    metric, arg = metrics[found.group(1)], found.group(2)
    if metric.arg is None and arg is not None:
        raise MetricError(f"metric '{metric.name}' takes no argument, got '{name.strip()}'")
    if metric.arg is not None:
        choices = [str(a) for a in metric.args(ctx)] if metric.args else []
        if arg is None or arg.strip() not in choices:
            raise MetricError(
                f"metric '{metric.usage}' needs {metric.arg} in {', '.join(choices) or 'nothing'}"
                f", got '{name.strip()}'"
            )
        arg = arg.strip()
    if (why := metric.why_not(ctx)) is not None:
        raise MetricError(f"metric '{metric.name}' cannot be measured here: {why}")
    features = tuple(metric.features(ctx, arg)) if metric.features is not None else ()
    return Ref(metric, arg, features, metric.tables_for(ctx))


def expand(ctx: Context, names: Sequence[str] | None = None, strict: bool = True) -> list[Ref]:
    """``names`` resolved (a family's bare name stands for every argument); by default every
    metric this configuration can measure. A named metric it cannot measure is refused, or
    left out when not ``strict``."""
    out: list[Ref] = []
    for metric in catalogue(ctx.report):
        if names is not None and metric.name not in names:
            continue
        if (why := metric.why_not(ctx)) is not None:
            if names is not None and strict:  # asked for by name: say why not
                raise MetricError(f"metric '{metric.name}' cannot be measured here: {why}")
            continue
        args = [str(a) for a in metric.args(ctx)] if metric.arg and metric.args else [None]
        out += [resolve(metric.name if a is None else f"{metric.name}[{a}]", ctx) for a in args]
    for name in names or ():
        if _NAME.match(name) and "[" in name:
            out.append(resolve(name, ctx))
        elif name not in {m.name for m in catalogue(ctx.report)}:
            resolve(name, ctx)  # raises, naming the known metrics
    return list({r.name: r for r in out}.values())


def split_names(text: str) -> list[str]:
    """``balance,seat_share[0],strategy_share[a,b]`` split on commas outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [n for n in out if n]


def tables_for(refs: Sequence[Ref]) -> tuple[str, ...]:
    """The tables these metrics read."""
    return tuple(dict.fromkeys(t for r in refs for t in r.tables))
