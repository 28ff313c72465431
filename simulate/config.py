"""A run's configuration: everything that decides its games and the layout of its files.

Two runs with the same :class:`RunConfig` write the same rows; the worker count, executor and
progress display are *not* part of it. ``--resume`` refuses a directory whose configuration
differs, naming the keys that differ.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator, Sequence
from typing import Any

from rules.core.errors import DinolabError
from rules.core.params import parse_assignments, read_rules_file
from simulate.games import get_game
from simulate.kit.spec import GameSpec, Setup
from strategies.core.registry import Strategy

MAX_SEED = 2**64 - 1
MAX_GAMES = 10**15
"""Thirty years at a million games a second; larger numbers are typos (and game ids are int64)."""


@dataclasses.dataclass(frozen=True)
class RunConfig:
    game: str
    n_players: int
    strategies: tuple[str, ...]
    rotate: bool
    seed: int
    games: int
    chunk_size: int
    params: dict[str, Any]
    data_digest: str
    """Digest of the data files the parameters name (deck, maps): a changed file is a new run."""
    tables: tuple[str, ...] | None = None
    """The tables the run logs (``--tables``; the shared ``games`` and ``players`` always);
    ``None``: every logged table of the game."""

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["strategies"] = list(self.strategies)
        if self.tables is None:  # runs logging every table keep the fingerprint they had
            del d["tables"]
        else:
            d["tables"] = list(self.tables)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunConfig:
        fields = {f.name for f in dataclasses.fields(cls)}
        missing = fields - set(d) - {"tables"}
        if missing:
            raise DinolabError(f"manifest config lacks {', '.join(sorted(missing))}")
        values = {k: d[k] for k in fields if k in d}
        tables = d.get("tables")
        return cls(
            **{
                **values,
                "strategies": tuple(d["strategies"]),
                "tables": None if tables is None else tuple(tables),
            }
        )

    def fingerprint(self) -> str:
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def differences(self, other: RunConfig) -> list[str]:
        """Keys whose values differ, with both values, for error messages."""
        a, b = self.to_dict(), other.to_dict()
        out = []
        for k in dict.fromkeys([*a, *b]):
            if k == "params":
                for pk in sorted(set(a[k]) | set(b[k])):
                    if a[k].get(pk) != b[k].get(pk):
                        out.append(f"{pk}: {b[k].get(pk)!r} -> {a[k].get(pk)!r}")
            elif a.get(k) != b.get(k):
                out.append(f"{k}: {b.get(k)!r} -> {a.get(k)!r}")
        return out

    @property
    def n_chunks(self) -> int:
        return -(-self.games // self.chunk_size)

    def chunks(self) -> Iterator[tuple[int, int, int]]:
        """(index, start, stop) of every chunk, lazily: a run's plan never holds them all."""
        for i in range(self.n_chunks):
            start = i * self.chunk_size
            yield i, start, min(start + self.chunk_size, self.games)

    def setup(self) -> Setup:
        """Rebuild and validate the game setup this configuration describes."""
        game = get_game(self.game)
        params = game.parameters.from_dict(self.params)
        setup = game.setup(params, self.n_players, ",".join(self.strategies))
        if setup.data.sha256 != self.data_digest:
            raise DinolabError(
                f"the data files of this run changed since it started ({setup.describe_data()})"
            )
        return setup


PLANNED_CHUNKS = 32
"""Chunks a big run is cut into: two for each worker of a 16-core machine, so that no worker
waits while another finishes a long last chunk."""


def plan_chunk(game: GameSpec, games: int, lineup: Sequence[Strategy] = ()) -> int:
    """Games per chunk for a run of ``games`` when none is asked for: a
    :data:`PLANNED_CHUNKS`-th of the run, at least the game's :attr:`~GameSpec.min_chunk`
    divided by the lineup's slowest bot's cost (so a chunk of ``strong`` games is small) and at
    most its :attr:`~GameSpec.default_chunk` (bounded memory).

    It depends on the run alone, never on the worker count: the same command writes the same
    files on a laptop and on a cluster."""
    cost = max((s.info.cost for s in lineup), default=1.0)
    floor = max(1, int(game.min_chunk / max(cost, 1.0)))
    return max(1, min(game.default_chunk, max(floor, -(-games // PLANNED_CHUNKS))))


def build_config(
    game_name: str,
    *,
    n_players: int | None,
    strategies: str | None,
    rotate: bool,
    seed: int,
    games: int,
    chunk_size: int | None,
    assignments: list[str] | None = None,
    rules_file: str | None = None,
    tables: str | None = None,
) -> tuple[RunConfig, Setup]:
    """Validate a configuration from command-line values; nothing is written. ``tables``:
    ``--tables games,players,...`` (the tables to log)."""
    game = get_game(game_name)
    players = game.default_players if n_players is None else n_players
    values: dict[str, Any] = {}
    if rules_file:
        values.update(read_rules_file(rules_file, (game.name, *game.aliases)))
    values.update(parse_assignments(assignments or []))
    params = game.parameters().with_values(values)
    setup = game.setup(params, players, strategies)
    if not 1 <= games <= MAX_GAMES:
        raise DinolabError(f"--games must be in 1..10**15, got {games}")
    if not 0 <= seed <= MAX_SEED:
        raise DinolabError(f"--seed must be in 0..2**64-1, got {seed}")
    chunk = plan_chunk(game, games, setup.lineup) if chunk_size is None else chunk_size
    if chunk < 1:
        raise DinolabError(f"--chunk-size must be at least 1, got {chunk}")
    config = RunConfig(
        game=game.name,
        n_players=players,
        strategies=tuple(s.spec for s in setup.lineup),
        rotate=rotate,
        seed=seed,
        games=games,
        chunk_size=chunk,
        params=params.to_dict(),
        data_digest=setup.data.sha256,
        tables=parse_tables(game, tables),
    )
    return config, setup


def parse_tables(game: GameSpec, text: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``--tables games,players,turns`` as the tuple a configuration records (in the game's
    table order, the shared ``games`` and ``players`` always in); ``None`` for every table."""
    if text is None:
        return None
    names = [n.strip() for n in (text.split(",") if isinstance(text, str) else text)]
    names = [n for n in names if n]
    logged = [t.name for t in game.logged_tables]
    if not names:
        raise DinolabError(f"--tables needs table names separated by commas ({', '.join(logged)})")
    if unknown := [n for n in names if n not in logged]:
        raise DinolabError(
            f"{game.name} logs no table {unknown[0]!r} (its tables: {', '.join(logged)})"
        )
    chosen = {*names, "games", "players"}
    if chosen == set(logged):
        return None
    return tuple(n for n in logged if n in chosen)
