"""``dinolab ladder``: a game's bots on one strength scale, each rung against the default
heuristic.

Each rung is an ordinary run folder ``OUT/GAME/<bot>/``: lineup position 0 plays the rung's
bot, every other seat the game's field (its default heuristic), seats rotated, every rung on
the same seed, logging only ``games`` and ``players``. A rung already played with the same
configuration is kept (the ladder resumes); ``force`` plays it again. The rungs stream through
one executor (warm workers). What a rung's win share is and how the bots are rated is
``reports``' business (``reports.measure``, ``reports.ratings``): the caller measures the runs
:func:`ladder` returns.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from rules.core.errors import DinolabError
from simulate.executors import Executor
from simulate.kit.spec import GameSpec
from simulate.session import RunOutcome, RunRequest, simulate

POSITION_0 = "lineup_share[0]"
"""The metric of a rung: its bot's win share (lineup position 0) against the field."""
TABLES = "games,players"
"""What a rung logs: enough for win shares and ratings."""


@dataclasses.dataclass(frozen=True)
class LadderRequest:
    """What ``dinolab ladder`` asks for (the same arguments from Python)."""

    game: str
    out: str = "runs/ladder"
    """The folder of the ladders: a game's rungs go to ``OUT/GAME/<bot>/``."""
    rungs: tuple[str, ...] = ()
    """``BOT:GAMES`` specs; empty: the game's declared ladder."""
    players: int | None = None
    """Players (default: the ladder's)."""
    seed: int = 2027
    scale: float = 1.0
    """Multiplies every rung's games (at least 1)."""
    force: bool = False
    """Play the rungs already in ``out`` again."""


@dataclasses.dataclass(frozen=True)
class Rung:
    """One rung: its bot, games, lineup (the bot against the field) and run folder."""

    bot: str
    games: int
    lineup: str
    out: str
    kept: bool
    """Played before with a run folder there (resumed; finished ones are kept as they are)."""


@dataclasses.dataclass(frozen=True)
class LadderPlan:
    """A checked ladder, nothing played yet."""

    request: LadderRequest
    game: GameSpec
    players: int
    field: str
    rungs: tuple[Rung, ...]
    base: str
    """``OUT/GAME``: the rungs' parent folder, where the ratings go."""

    @property
    def dirs(self) -> list[str]:
        return [r.out for r in self.rungs]


def rungs(specs: list[str] | tuple[str, ...], scale: float) -> list[tuple[str, int]]:
    """``BOT:GAMES`` specs as (bot, games), the games scaled (at least 1)."""
    out = []
    for spec in specs:
        bot, sep, games = spec.rpartition(":")
        if not sep or not bot.strip() or not games.strip().isdigit() or int(games) < 1:
            raise DinolabError(f"--rung {spec!r}: write BOT:GAMES, e.g. tuned:20000")
        out.append((bot.strip(), max(1, round(int(games) * scale))))
    if len({b for b, _ in out}) != len(out):
        raise DinolabError("--rung names a bot twice")
    return out


def folder_name(bot: str) -> str:
    """A run folder's name for a rung: ``search[rollouts=4]`` -> ``search-rollouts=4``."""
    return re.sub(r"[^A-Za-z0-9=.]+", "-", bot).strip("-")


def plan_ladder(request: LadderRequest) -> LadderPlan:
    """Check the whole ladder (game, players, scale, every rung's bot) before anything is
    played; nothing is written."""
    from pathlib import Path

    from simulate.games import get_game
    from simulate.storage import open_store

    g = get_game(request.game)
    if g.strength is None:
        raise DinolabError(f"{g.name} declares no strength ladder")
    if not request.scale > 0:
        raise DinolabError(f"--scale must be positive, got {request.scale}")
    n = g.strength.ladder_players if request.players is None else request.players
    if not g.min_players <= n <= g.max_players:
        raise DinolabError(
            f"--players {n}: {g.name} takes {g.min_players} to {g.max_players} players"
        )
    chosen = rungs(request.rungs or list(g.strength.ladder), request.scale)
    field = g.strength.field
    lineups = [",".join([bot] + [field] * (n - 1)) for bot, _ in chosen]
    for text in lineups:  # every bot checked before anything is played
        g.registry.lineup(text, n)
    base = Path(request.out) / g.name
    planned = []
    for (bot, games), lineup in zip(chosen, lineups, strict=True):
        out = str(base / folder_name(bot))
        kept = open_store(out).exists("manifest.json") and not request.force
        planned.append(Rung(bot, games, lineup, out, kept))
    return LadderPlan(request, g, n, field, tuple(planned), str(base))


def play_ladder(
    plan: LadderPlan,
    executor: Executor,
    *,
    progress: bool | None = False,
    echo: Callable[[str], None] = lambda line: None,
    warn: Callable[[str], None] = lambda line: None,
) -> list[RunOutcome]:
    """Play (or finish) every rung through ``executor`` (left open), in order; ``echo`` gets
    each rung's lines as ``dinolab simulate`` prints them."""
    done = []
    for r in plan.rungs:
        echo(
            f"{r.bot}: {r.games:,} games against {plan.players - 1} x {plan.field}"
            + (" (kept)" if r.kept else "")
        )
        request = RunRequest(
            plan.game.name,
            games=r.games,
            players=plan.players,
            seed=plan.request.seed,
            strategy=r.lineup,
            rotate=True,
            out=r.out,
            tables=TABLES,
            resume=r.kept,
            force=plan.request.force,
        )
        outcome = simulate(request, executor, progress=progress, echo=echo, warn=warn)
        for line in outcome.lines():
            echo(line)
        done.append(outcome)
    return done


def ladder(
    request: LadderRequest,
    executor: Executor | None = None,
    *,
    workers: int | None = None,
    progress: bool | None = False,
    echo: Callable[[str], None] = lambda line: None,
    warn: Callable[[str], None] = lambda line: None,
) -> LadderPlan:
    """Plan and play a ladder (from Python as from ``dinolab ladder``), through ``executor``
    or, by default, one pool of ``workers`` for every rung; returns the plan, whose
    :attr:`LadderPlan.dirs` are the rungs' runs."""
    from simulate.backends import WarmPool

    plan = plan_ladder(request)
    with WarmPool(workers) as own:
        used = executor if executor is not None else own()
        play_ladder(plan, used, progress=progress, echo=echo, warn=warn)
    return plan
