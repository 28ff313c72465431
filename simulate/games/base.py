"""What the runner, CLI and reports need from a game: the seam every game plugs into.

A game module in ``simulate/games/<game>/`` builds one :class:`Game` instance describing its
names, player counts, parameters, bots, log tables, and how to play a chunk of games into
Arrow tables. Everything else (seeds, chunks, executors, Parquet, manifest, resume, progress,
CLI) is shared and lives in ``simulate/``.
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any, ClassVar

import pyarrow as pa

from rules.core.errors import RuleError
from rules.core.params import Parameters
from strategies.core.registry import Registry, Strategy


@dataclasses.dataclass(frozen=True)
class Column:
    """One logged column: its Arrow type and what it means."""

    name: str
    type: pa.DataType
    doc: str


@dataclasses.dataclass(frozen=True)
class TableSchema:
    """A logged table: one folder of Parquet parts under the run directory."""

    name: str
    doc: str
    columns: tuple[Column, ...]

    def arrow(self) -> pa.Schema:
        return pa.schema([pa.field(c.name, c.type) for c in self.columns])


@dataclasses.dataclass(frozen=True)
class Setup:
    """A validated configuration of one game, ready to play: parameters, data and lineup."""

    game: Game
    params: Parameters
    n_players: int
    lineup: tuple[Strategy, ...]
    data: Any  # the game's loaded data (deck, maps ...)

    @property
    def labels(self) -> list[str]:
        return [s.label for s in self.lineup]


class Game(abc.ABC):
    """A game as the toolkit sees it. Subclasses fill the class attributes and methods."""

    def kernel_inputs(self, setup: Setup) -> Any:
        """The records a kernel reads for ``setup`` (rules table, lineup ...), built once per
        setup and process: rebuilding them every chunk cost ~30 ms, a tenth of a chunk."""
        cache = self.__dict__.setdefault("_inputs_cache", {})
        hit = cache.get(id(setup))
        if hit is None or hit[0] is not setup:
            cache.clear()
            hit = cache[id(setup)] = (setup, self.build_inputs(setup))
        return hit[1]

    def build_inputs(self, setup: Setup) -> Any:
        """Build what :meth:`kernel_inputs` caches; games override it."""
        raise NotImplementedError

    @contextlib.contextmanager
    def reused_buffers(self) -> Iterator[None]:
        """Inside this block, each :meth:`play` may reuse the previous call's column buffers,
        so the tables it returned become invalid: the chunk runner, which writes each chunk's
        tables before playing the next, uses it to skip ~30 MB of fresh, page-faulting
        allocations per chunk. Games that do not reuse buffers ignore it."""
        self.__dict__["_reuse_buffers"] = True
        try:
            yield
        finally:
            self.__dict__["_reuse_buffers"] = False  # the buffers stay for the next chunk

    def buffers(self, key: tuple, make: Any) -> Any:
        """``make()``, or inside :meth:`reused_buffers` the buffers made for ``key`` before."""
        if not self.__dict__.get("_reuse_buffers"):
            return make()
        cache = self.__dict__.setdefault("_buffers", {})
        if key not in cache:
            cache.clear()
            cache[key] = make()
        return cache[key]

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]
    parameters: ClassVar[type[Parameters]]
    registry: ClassVar[Registry]
    default_strategy: ClassVar[str]
    default_chunk: ClassVar[int]
    """Games per chunk by default: bounded memory, several chunks per worker."""
    tables: ClassVar[tuple[TableSchema, ...]]

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

    @abc.abstractmethod
    def load_data(self, params: Parameters, n_players: int) -> Any:
        """Load and validate the data files the parameters name; raise on any problem."""

    @abc.abstractmethod
    def play(
        self, setup: Setup, seed: int, rotate: bool, start: int, stop: int
    ) -> dict[str, pa.Table]:
        """Play games ``start .. stop-1`` and return one Arrow table per logged table."""

    @abc.abstractmethod
    def replay(self, setup: Setup, seed: int, rotate: bool, game_id: int) -> str:
        """Game ``game_id`` played again in trace mode, as text a person can follow."""

    @abc.abstractmethod
    def data_files(self, setup: Setup) -> dict[str, bytes]:
        """Files to store beside the logs so the run describes itself (e.g. ``deck.csv``)."""

    @abc.abstractmethod
    def describe_data(self, setup: Setup) -> str:
        """One line naming the data set, saying PROVISIONAL where it is not the real one."""

    @abc.abstractmethod
    def data_digest(self, setup: Setup) -> str:
        """A digest of the data the setup plays with (a changed deck or map is a new run)."""

    def warmup(self, setup: Setup) -> None:
        """Compile the kernels (call in the parent before starting workers)."""
        self.play(setup, 0, False, 0, 2)

    def benchmark_kernel(self, setup: Setup, n_games: int, log: bool) -> float:
        """Seconds for the kernel alone to play ``n_games`` (with or without log buffers)."""
        raise NotImplementedError
