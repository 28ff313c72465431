"""``dinolab fit``: fit a game's bot valuations by simulation for a rule variant.

The game declares the method (``GameSpec.fit``); this module only validates the request and
hands the hook what the game's report measures of a run for it (``GameReport.fit``), since a
fit measures with the report's own analyses and ``simulate`` itself never imports
``reports``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rules.core.errors import DinolabError
from simulate.cli.app import app, echo


@app.command()
def fit(
    game: Annotated[str, typer.Argument(help="Game name or alias, e.g. evo.")],
    out: Annotated[
        str, typer.Option("--out", "-o", help="The file to write (EVO: a value table CSV).")
    ] = "values.csv",
    players: Annotated[
        list[int] | None,
        typer.Option("--players", "-p", help="Player count (repeatable; default: the game's)."),
    ] = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per iteration.")] = 50_000,
    iterations: Annotated[
        int, typer.Option(help="Iterations of the value fit after the first (not with --start).")
    ] = 12,
    refine: Annotated[
        int,
        typer.Option(
            help="Iterations of the price stage after it: bidding premiums moved until every "
            "gene's price matches its measured worth (0: none)."
        ),
    ] = 12,
    seed: Annotated[int, typer.Option(help="Seed of the first iteration (+1 each).")] = 1,
    assignments: Annotated[
        list[str] | None,
        typer.Option("--set", help="Change a rule: --set start_points=10 (repeatable)."),
    ] = None,
    rules_file: Annotated[
        Path | None, typer.Option("--rules", help="A TOML file of rule changes.")
    ] = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    start: Annotated[
        Path | None,
        typer.Option(
            "--start",
            help="Start from this table instead of fitting from scratch: keep its measured "
            "values and run only the price stage (--refine) on its premiums.",
        ),
    ] = None,
) -> None:
    """Fit the bots' valuations by self-play for these rules and write them to --out.

    EVO fits in two stages: the values (--iterations of self-play, each measured with the
    report's gene value model), then the prices (--refine: bidding premiums moved until no
    gene is a bargain).

    Example: dinolab fit evo --set start_points=10 --out values10.csv, then dinolab simulate
    evo --set start_points=10 --strategy "heuristic\\[values=values10.csv]".

    Only the price stage, on an existing table: dinolab fit evo --start values10.csv --refine
    16 --out values10b.csv.
    """
    from rules.core.params import parse_assignments, read_rules_file
    from simulate.cli.common import game_report
    from simulate.games import get_game
    from simulate.kit.spec import FitRequest

    g = get_game(game)
    measure = game_report(g).fit
    if g.fit is None or measure is None:
        raise DinolabError(f"{g.name} has no fitting method (dinolab fit works for: evo)")
    values: dict = {}
    if rules_file:
        values.update(read_rules_file(str(rules_file), (g.name, *g.aliases)))
    values.update(parse_assignments(assignments or []))
    params = g.parameters().with_values(values)
    counts = tuple(players or [g.default_players])
    for n in counts:
        if not g.min_players <= n <= g.max_players:
            raise DinolabError(
                f"{g.name} plays with {g.min_players}-{g.max_players} players, got {n}"
            )
    if not 1 <= iterations <= 100 or not 0 <= refine <= 100 or not 100 <= games <= 10**9:
        raise DinolabError(
            "fit: --iterations must be 1..100, --refine 0..100 and --games 100..10**9"
        )
    parent = Path(out).expanduser().resolve().parent
    if not parent.is_dir():
        raise DinolabError(f"fit: no folder {parent} for --out")
    request = FitRequest(
        params=params,
        players=counts,
        games=games,
        iterations=iterations,
        seed=seed,
        out=out,
        workers=workers,
        measure=measure,
        echo=echo,
        start=str(start) if start else None,
        refine=refine,
    )
    g.fit(request)
