"""Commands that describe what is there: games (and the log schema as Markdown)."""

from __future__ import annotations

from typing import Annotated

import typer

from simulate.cli.app import app, echo


@app.command()
def games(
    game: Annotated[
        str | None, typer.Argument(help="Show one game in detail (name or alias).")
    ] = None,
    markdown: Annotated[
        bool,
        typer.Option(
            "--markdown", help="Print every game's log tables as Markdown (docs/schema.md)."
        ),
    ] = False,
) -> None:
    """List the games, their player counts, strategies and rule keys.

    With a GAME: every rule key with its default, allowed values and source (and the named
    elements and data entries a study may change: its knobs); every metric with its meaning,
    unit and scale; every strategy with its parameters; every logged table with its columns,
    types and units.
    """
    from simulate.games import all_games, get_game
    from simulate.kit.docs import schema_markdown

    if markdown:
        echo(schema_markdown([get_game(game)] if game else all_games()), nl=False)
        return
    if game is None:
        for g in all_games():
            aliases = f" (alias {', '.join(g.aliases)})" if g.aliases else ""
            echo(f"{g.name}{aliases}: {g.title}, {g.min_players}-{g.max_players} players")
            echo(f"  strategies: {', '.join(g.registry.names())}")
            echo(f"  rule keys:  {', '.join(g.parameters.info())}")
            echo(f"  tables:     {', '.join(t.name for t in g.logged_tables)}")
        echo("\n`dinolab games <game>` shows one game in detail.")
        return
    g = get_game(game)
    echo(f"{g.title} ({g.name}), {g.min_players}-{g.max_players} players")
    echo("\nrule keys (--set key=value, or key = value in a --rules TOML file):")
    for p in g.parameters.info().values():
        echo(f"  {p.name} = {p.default!r}  [{p.allowed()}]  {p.doc}  (source: {p.source})")
        if p.names:
            echo(f"      elements: {', '.join(f'{p.name}.{n}' for n in p.names)}")
    _knobs(g)
    _metrics(g)
    echo("\nstrategies (--strategy a,b,... one per seat; name[key=value,...] sets parameters):")
    for info in g.registry.by_name.values():
        echo(f"  {info.usage()}: {info.doc}")
        for sp in info.params:
            echo(f"      {sp.name} in {sp.lo:g}..{sp.hi:g}: {sp.doc}")
    if g.strength is not None:
        st = g.strength
        counts = ", ".join(map(str, st.players))
        echo(f"\nstrength: against {st.field} at {counts} players; ladder (dinolab ladder):")
        echo(f"  {st.ladder_players} players, each rung against {st.field}: {', '.join(st.ladder)}")
        cap = f" (at most {st.robust_games:,} games)" if st.robust_games else ""
        demo = f"; the demo plays {g.demo.robust_games:,}" if g.demo.robust_games else ""
        echo(
            "  report robustness companion (the lineup kept, each seat's bot raised): "
            f"{st.describe()}{cap}{demo}"
        )
        tiers = ", ".join(st.curve_tiers)
        echo(f"  strength curve tiers (dinolab strength), weakest first: {tiers}")
    if g.registry.options:
        echo("\nrestrictable options (restricted play): " + ", ".join(g.registry.options))
    echo(f"\ntables (log schema version {g.schema_version}):")
    for t in g.logged_tables:
        echo(f"  {t.name}/ ({t.doc})")
        for c in t.columns:
            echo(f"      {c.name} ({c.type}): {c.describe()}")


def _knobs(g) -> None:
    """The data entries a study (or --set) may change, summarised by field."""
    from simulate.kit.spec import data_knobs

    setup = g.setup(g.parameters(), g.default_players, None)
    entries = data_knobs(setup.data)
    if not entries:
        return
    fields: dict[tuple[str, str], list] = {}
    for key, info in entries.items():
        head, _, rest = key.partition(".")
        entry, _, field = rest.rpartition(".")
        fields.setdefault((head, field), []).append((entry, info))
    echo("\ndata entries (knobs: --set or --param KEY=..., e.g. in dinolab sweep and search):")
    for (head, field), items in fields.items():
        entry, info = items[0]
        names = ", ".join(e for e, _ in items[:4]) + (", ..." if len(items) > 4 else "")
        echo(f"  {head}.<entry>.{field}  [{info.allowed()}]  {len(items)} entries: {names}")


def _metrics(g) -> None:
    """The metrics of the game (shared and its own), as --target and --metrics name them."""
    from reports.metrics import catalogue
    from simulate.cli.common import game_report

    echo("\nmetrics (dinolab sweep --metrics, search --target, compare, the report's headline):")
    for m in catalogue(game_report(g)):
        kind = "per game" if m.is_mean else "model"
        echo(
            f"  {m.usage}: {m.meaning} ({m.unit}; scale {m.scale:g}; {kind}; "
            f"reads {', '.join(m.tables)})"
        )
