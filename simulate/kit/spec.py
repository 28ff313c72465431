"""A game, declared once: the :class:`GameSpec` everything else derives from.

A game's module (``simulate/games/<pkg>/__init__.py``) builds one ``SPEC`` and the registry
(:mod:`simulate.games`) names that module in one line. The CLI's listing, the runner, ``bench``,
``verify``, ``replay``, the report, the column docs and the conformance suite read the spec;
nothing shared names a game.

A spec holds no mutable state: what a kernel mutates (its state records, the column buffers)
lives in a per-thread context (:mod:`simulate.kit.play`), so any executor shape (processes,
threads, Dask workers with many threads) plays the same rows.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import importlib.util
import json
from collections.abc import Callable, Collection, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from rules.core.errors import DinolabError, RuleError
from rules.core.params import Parameters
from simulate.kit.buffers import log_types
from simulate.kit.tables import SHARED_COLUMNS, Kind, Table, schema_digest
from strategies.core.registry import Registry, Strategy, StrategyError

if TYPE_CHECKING:
    from simulate.kit.check import Checker


class GameData(Protocol):
    """What a game's loaded data (deck, map, card pool ...) tells the toolkit."""

    sha256: str

    def describe(self) -> str:
        """One line naming the data set, saying PROVISIONAL where it is not the real one."""
        ...


def data_knobs(data: GameData) -> dict[str, Any]:
    """The entries of a game's data a study may change (``deck.Tyrannosaurus.size`` ->
    :class:`~rules.core.params.ParamInfo`), for games whose data declares ``knobs()``."""
    knobs = getattr(data, "knobs", None)
    return knobs() if knobs is not None else {}


@dataclasses.dataclass(frozen=True)
class Bench:
    """How ``dinolab bench GAME`` measures the game."""

    lineup: str
    players: int
    kernel_games: int
    """Games for the kernel measurement (a few seconds' worth)."""
    interpreted_games: int
    """Games played with ``NUMBA_DISABLE_JIT=1``: enough for a rate, not minutes of waiting."""
    extra: Callable[[int], list[tuple[str, str]]] | None = None
    """More rows for the bench table (Dino Kontra Dino: the C yardstick), given kernel_games."""
    study: tuple[str, ...] = ()
    """``--param`` specs of the study benchmark (``dinolab bench GAME --study``)."""
    study_games: int = 50_000
    """Games per point of the study benchmark."""
    scaling_games: int = 200_000
    """Games of ``dinolab bench GAME --scaling``'s run at each worker count: about a minute and a
    half for one worker (a run's start, about 2 s, must be small beside the time of 16
    workers), cut into chunks that fall evenly on 16 workers."""
    strong_games: int = 2_000
    """Games per player count of ``dinolab bench GAME --strong``'s head-to-head (``strong``
    against the strongest ladder rung)."""


@dataclasses.dataclass(frozen=True)
class Demo:
    """The configuration ``make run`` (``dinolab demo``) plays, and the tests' small runs."""

    players: int
    strategy: str
    games: int
    rotate: bool = True
    test_games: int = 400
    """Games of the small runs the tests (and notebooks) use."""
    robust_games: int | None = None
    """Games of the demo report's robustness companion (``None``: the report's default, at
    most :attr:`Strength.robust_games`); smaller for a slow robust bot, so that a first
    ``make run`` stays short."""


@dataclasses.dataclass(frozen=True)
class Symmetry:
    """A setup in which every seat has the same chances when every seat plays the same bot:
    the conformance suite plays it with each of ``strategies`` (the bots cheap enough for
    ``games`` games) and finds no seat effect, so no bot favours a seat by its number."""

    players: int
    strategies: tuple[str, ...]
    assignments: tuple[str, ...] = ()
    """Rule changes that make the seats alike (Dino Kontra Dino: a random first holder)."""
    games: int = 100_000


@dataclasses.dataclass(frozen=True)
class Strength:
    """The game's strength yardstick: the default heuristic ``field`` that stronger bots are
    measured against, at the game's usual player counts ``players`` (the shipped ``tuned`` bot
    must beat it at each, tests/test_tuned.py), and the ladder's rungs, each played against
    the field at ``ladder_players`` and put on one scale by ``dinolab rate``
    (``BOT:GAMES``, docs/<game>.md).

    The report's robustness companion (``simulate.robustness``) keeps the run's lineup and
    raises each position's bot to its *stronger counterpart*: :attr:`stronger` maps a bot's
    registered name to a strategy spec, and every bot it does not name goes to :attr:`robust`
    (the strongest practical bot: ``tuned``, or a spec such as ``search[rollouts=2]`` where
    tuning barely beats the field). The parameters a position's bot sets away from its own
    defaults are carried over to its counterpart when the counterpart declares parameters of
    the same names (``heuristic[aggression=2]`` -> ``tuned[aggression=2]``), and so are its
    file parameters and restricted options; the spec's own values win. Pointing every bot at
    another one (``strong``) is one line: ``robust="strong"``. Checked at registration:
    unknown bot names and specs that do not parse are refused. ``robust_games`` caps the
    companion's games for a slow bot (it plays the least of the run's games,
    ``--robustness-games`` and this)."""

    field: str
    players: tuple[int, ...]
    ladder: tuple[str, ...] = ()
    ladder_players: int = 4
    test_games: int = 20_000
    """Rotated games per player count in the test."""
    robust: str = "tuned"
    """The stronger counterpart of every bot :attr:`stronger` does not name (a strategy spec)."""
    stronger: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """A bot's registered name -> its stronger counterpart's spec, where that is not
    :attr:`robust` (``{"greedy": "montecarlo[rollouts=8]"}``)."""
    robust_games: int | None = None
    """At most this many companion games (``None``: no cap beyond ``--robustness-games``)."""
    tiers: tuple[str, ...] = ()
    """The strength curve's tiers (``dinolab strength``), weakest first: strategy specs, each
    played in every seat on the same deals. Empty: :attr:`curve_tiers` derives them."""

    @property
    def curve_tiers(self) -> tuple[str, ...]:
        """:attr:`tiers`, or when none are declared ``random``, the field, ``tuned`` and the
        strongest (last) ladder rung without its ``:GAMES``."""
        if self.tiers:
            return self.tiers
        top = [self.ladder[-1].rpartition(":")[0] or self.ladder[-1]] if self.ladder else []
        return tuple(dict.fromkeys(["random", self.field, "tuned", *top]))

    def counterpart(self, bot: str) -> str:
        """The spec of the stronger counterpart of the bot registered as ``bot``."""
        return self.stronger.get(bot, self.robust)

    def describe(self) -> str:
        """The declaration in one line (``dinolab games GAME``)."""
        named = [f"{bot} -> {spec}" for bot, spec in self.stronger.items()]
        rest = "every other bot" if named else "every bot"
        return ", ".join([*named, f"{rest} -> {self.robust}"])

    def check(self, game: str, registry: Registry) -> None:
        """Refuse a declaration naming a bot the game does not register, or a counterpart
        spec that does not parse (``TypeError``, one line)."""
        known = registry.names()
        for bot in self.stronger:
            if bot not in known:
                names = ", ".join(known)
                raise TypeError(
                    f"{game}: Strength.stronger names unknown bot '{bot}' (known: {names})"
                )
        for bot, spec in [*self.stronger.items(), ("every other bot", self.robust)]:
            try:
                registry.parse(spec)
            except StrategyError as e:
                raise TypeError(
                    f"{game}: the stronger counterpart of {bot}, '{spec}': {e}"
                ) from None


@dataclasses.dataclass(frozen=True)
class Variant:
    """A paired rule variant the game's report shows (played by ``dinolab report``)."""

    assignments: tuple[str, ...]
    note: str = ""
    """What the variant measures, added to its report section."""


@dataclasses.dataclass(frozen=True)
class FitRequest:
    """What ``dinolab fit GAME`` asks of a game's :attr:`GameSpec.fit` hook: fit the bots'
    valuations by simulation for these rules and write them to ``out``."""

    params: Parameters
    players: tuple[int, ...]
    games: int
    """Games per iteration."""
    iterations: int
    seed: int
    out: str
    workers: int | None
    measure: Callable[..., Any]
    """``measure(run, states, mapper)``: what the game's report measures of a finished run for
    the fit (its ``GameReport.fit``), handed over by the CLI since ``simulate`` never imports
    ``reports``; the hook says what it reads of the result (EVO:
    :class:`simulate.games.evo.fit.Measurement`)."""
    echo: Callable[[str], None]
    """Progress lines (one per iteration)."""
    start: str | None = None
    """A table to refine instead of fitting from scratch (EVO: ``--start values.csv``)."""
    refine: int = 0
    """Iterations of the price stage after the fit (EVO: premiums until prices match values)."""


@dataclasses.dataclass(frozen=True, eq=False)
class GameSpec:
    """Everything the toolkit knows about one game."""

    module: str
    """The module that defines this spec as ``SPEC`` (how workers find it again)."""
    name: str
    title: str
    aliases: tuple[str, ...]
    min_players: int
    max_players: int
    default_players: int
    parameters: type[Parameters]
    load_data: Callable[[Any, int], GameData]
    """``load_data(params, n_players)``: load and validate the data files the parameters name."""
    registry: Registry
    default_strategy: str
    default_chunk: int
    """The most games a planned chunk holds (bounded memory; ``--chunk-size`` may ask for more),
    and the chunk ``dinolab bench`` times the kernel in."""
    min_chunk: int
    """The fewest games of the heuristic a planned chunk holds, so that a chunk's fixed cost
    (its files, its journal line) stays small beside its play; divided by a slow lineup's
    :attr:`~strategies.core.registry.StrategyInfo.cost` (:func:`simulate.config.plan_chunk`)."""
    tables: tuple[Table, ...]
    build_inputs: Callable[[Setup], tuple]
    """The records a kernel reads for a setup (rules table, lineup, states, scratch)."""
    kernel: Callable[..., int]
    """The compiled chunk kernel (see :mod:`simulate.kit.support` for its signature)."""
    render: Callable[[Setup, int, int, Any], str]
    """``render(setup, seed, game_id, view)``: a traced game as text a person can follow."""
    data_files: Callable[[Setup], dict[str, bytes]]
    """Files stored beside the logs so the run describes itself (``deck.csv`` ...)."""
    check: Checker
    """The step checker (:mod:`simulate.kit.check`): ``check(setup, seed, game_id)`` plays one
    game (no rotation) decision by decision with every rule checked; the conformance suite
    compares it with the kernel's rows."""
    bench: Bench
    demo: Demo
    report: str
    """The module whose ``REPORT`` is the game's report plug-in (a ``reports.game.GameReport``:
    its sections, metrics, claims ...). The spec names it without importing it (workers never
    load the reports); registration checks that the module exists, and the CLI, which hands
    the report its runs, checks what ``REPORT`` is (``simulate.cli.common.game_report``)."""
    notebook: str | None
    """The game's notebook, relative to the project root (executed by the tests)."""
    report_variants: tuple[Variant, ...] = ()
    fit: Callable[[FitRequest], None] | None = None
    """Optional: fit the game's bot valuations for a rule variant (``dinolab fit GAME``)."""
    schema_version: int = 1
    """Bumped whenever a logged column changes; the manifest records it."""
    symmetry: Symmetry | None = None
    """The game's symmetric setup, if it has one (checked by tests/test_seat_symmetry.py)."""
    strength: Strength | None = None
    """The game's default heuristic, usual player counts and strength ladder."""
    log_type: type = dataclasses.field(init=False, repr=False)

    def __post_init__(self) -> None:
        names = [t.name for t in self.tables]
        for table, columns in SHARED_COLUMNS.items():
            if table not in names:
                raise TypeError(f"{self.name} lacks the shared table {table}")
            have = {c.name for c in self.tables[names.index(table)].columns}
            if missing := set(columns) - have:
                raise TypeError(f"{self.name}.{table} lacks {sorted(missing)}")
        _check_derived(self.name, self.tables)
        if importlib.util.find_spec(self.report) is None:
            raise TypeError(f"{self.name}: no report module {self.report}")
        if self.strength is not None:
            self.strength.check(self.name, self.registry)
        demo_n, cap = self.demo.robust_games, self.strength and self.strength.robust_games
        if demo_n is not None and not 1 <= demo_n <= (cap or demo_n):
            raise TypeError(f"{self.name}: Demo.robust_games {demo_n} is not in 1..{cap or 'any'}")
        for tier in self.strength.curve_tiers if self.strength else ():
            try:
                self.registry.parse(tier)
            except DinolabError as exc:
                raise TypeError(f"{self.name}: strength tier {tier!r}: {exc}") from None
        object.__setattr__(self, "log_type", log_types(self.name, self.tables))

    def __reduce__(self):  # workers import the spec's module instead of unpickling functions
        return (load_spec, (self.module,))

    @property
    def logged_tables(self) -> tuple[Table, ...]:
        return tuple(t for t in self.tables if t.kind is not Kind.TRACE)

    def written_tables(self, tables: Collection[str] | None) -> tuple[Table, ...]:
        """The tables a run logging ``tables`` (``None``: every one) writes."""
        return tuple(t for t in self.logged_tables if tables is None or t.name in tables)

    @property
    def schema(self) -> dict[str, Any]:
        """The log schema's version and digest, as the manifest records them."""
        return {"version": self.schema_version, "digest": schema_digest(self.logged_tables)}

    def setup(self, params: Parameters, n_players: int, strategies: str | None) -> Setup:
        """Validate everything about a configuration before anything is written."""
        if not self.min_players <= n_players <= self.max_players:
            raise RuleError(
                f"{self.name} plays with {self.min_players}-{self.max_players} players, "
                f"got {n_players}"
            )
        lineup = self.registry.lineup(strategies or self.default_strategy, n_players)
        data = self.load_data(params, n_players)
        return Setup(self, params, n_players, tuple(lineup), data)


def load_spec(module: str) -> GameSpec:
    """The ``SPEC`` of a game module."""
    return importlib.import_module(module).SPEC


@dataclasses.dataclass(frozen=True, eq=False)
class Setup:
    """A validated configuration of one game, ready to play: parameters, data and lineup."""

    game: GameSpec
    params: Parameters
    n_players: int
    lineup: tuple[Strategy, ...]
    data: GameData

    @property
    def labels(self) -> list[str]:
        return [s.label for s in self.lineup]

    @property
    def searches(self) -> bool:
        """Whether a bot of the lineup is a search bot: only then do the kernel's inputs carry
        spare states and its compiled code the search bots
        (:mod:`strategies.core.scratch`)."""
        return any(s.info.searches for s in self.lineup)

    @cached_property
    def key(self) -> str:
        """A digest of everything that decides how this setup plays (game, rules, players,
        lineup, data): workers keep setups by it."""
        text = json.dumps(
            [
                self.game.name,
                self.params.to_dict(),
                self.n_players,
                [s.spec for s in self.lineup],
                self.data.sha256,
            ],
            sort_keys=True,
        )
        return hashlib.sha256(text.encode()).hexdigest()

    def describe_data(self) -> str:
        return self.data.describe()


def _check_derived(game: str, tables: tuple[Table, ...]) -> None:
    """Every derived column names columns that exist: its keys and ``equals`` in its table,
    its keys and value in its source table (a data file is read as it is)."""
    columns = {t.name: {c.name for c in t.columns} for t in tables if t.kind is not Kind.TRACE}
    for t in tables:
        for c in t.columns:
            d = c.derived
            if d is None:
                continue
            here = {*d.on, *([d.equals] if d.equals else [])}
            there = set() if d.from_file else {*d.on, d.column}
            known = d.source != t.name and (d.from_file or d.source in columns)
            if not (known and here <= columns[t.name] and there <= columns.get(d.source, there)):
                raise TypeError(f"{game}.{t.name}.{c.name}: derived from unknown columns ({d})")
