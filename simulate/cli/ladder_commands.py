"""``dinolab ladder``: a game's bots on one strength scale against its default heuristic."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from rules.core.errors import DinolabError
from simulate.cli.app import app, echo
from simulate.cli.common import Progress, Workers

POSITION_0 = "lineup_share[0]"
"""The metric of a rung: its bot's win share (lineup position 0) against the field."""


def rungs(specs: list[str], scale: float) -> list[tuple[str, int]]:
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


@app.command()
def ladder(
    game: Annotated[str, typer.Argument(help="Game name or alias, e.g. evo.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder of the rung runs and ratings.html.")
    ] = Path("runs/ladder"),
    rung: Annotated[
        list[str] | None,
        typer.Option(
            "--rung",
            help="A rung, BOT:GAMES (repeatable; default: the game's declared ladder).",
        ),
    ] = None,
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="Players (default: the ladder's).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Root seed of every rung's run.")] = 2027,
    scale: Annotated[
        float, typer.Option(help="Multiply every rung's games (0.05 for a quick look).")
    ] = 1.0,
    workers: Workers = None,
    progress: Progress = None,
    force: Annotated[bool, typer.Option(help="Replay rungs already in --out.")] = False,
) -> None:
    """Put a game's bots on one strength scale: each rung against the default heuristic.

    Each rung plays lineup position 0 against the game's default heuristic in every other
    seat, seats rotated, on the same seed; the runs go to OUT/GAME/<bot>/. Each rung's win
    share against the field is printed with its 95% interval, and `dinolab rate` puts every
    bot (the heuristic included) on one Plackett-Luce scale with 95% intervals,
    written to OUT/GAME/ratings.html and ratings.md. A rung already played with the same
    configuration is kept (the ladder resumes); a rung whose games changed needs --force.

    The declared ladder (`dinolab games GAME` shows it): random, the default heuristic (the
    field), tuned, and search at two budgets.

    Examples:

      dinolab ladder dkd

      dinolab ladder evo --scale 0.1 --rung tuned:20000 --rung "search\\[rollouts=2]:500"
    """
    from reports.measure import measure_run
    from reports.metrics import Context, resolve
    from simulate.cli.analysis_commands import rate
    from simulate.cli.run_commands import simulate
    from simulate.games import get_game
    from simulate.rundir import Run
    from simulate.storage import open_store

    g = get_game(game)
    if g.strength is None:
        raise DinolabError(f"{g.name} declares no strength ladder")
    if not scale > 0:
        raise DinolabError(f"--scale must be positive, got {scale}")
    n = g.strength.ladder_players if players is None else players
    if not g.min_players <= n <= g.max_players:
        raise DinolabError(
            f"--players {n}: {g.name} takes {g.min_players} to {g.max_players} players"
        )
    chosen = rungs(rung or list(g.strength.ladder), scale)
    field = g.strength.field
    lineups = [",".join([bot] + [field] * (n - 1)) for bot, _ in chosen]
    for text in lineups:  # every bot checked before anything is played
        g.registry.lineup(text, n)
    base = out / g.name
    dirs = []
    for (bot, games), lineup in zip(chosen, lineups, strict=True):
        run_dir = base / folder_name(bot)
        dirs.append(str(run_dir))
        done = open_store(str(run_dir)).exists("manifest.json") and not force
        echo(f"{bot}: {games:,} games against {n - 1} x {field}" + (" (kept)" if done else ""))
        simulate(
            g.name,
            games=games,
            players=n,
            seed=seed,
            strategy=lineup,
            rotate=True,
            assignments=None,
            rules_file=None,
            out=str(run_dir),
            workers=workers,
            backend="local",
            scheduler=None,
            chunk_size=None,
            tables="games,players",
            resume=done,
            force=force,
            progress=progress,
        )
    echo(f"\nwin share against {n - 1} x {field} (95% interval; fair {1 / n:.1%}):")
    for (bot, _), run_dir in zip(chosen, dirs, strict=True):
        run = Run(run_dir)
        e = measure_run(run, [resolve(POSITION_0, Context.of(run))])[POSITION_0]
        echo(f"  {bot:30s} {e.value:7.2%} [{e.lo:.2%}, {e.hi:.2%}]")
    echo()
    rate(dirs, out=str(base))
