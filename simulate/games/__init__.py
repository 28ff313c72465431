"""The games the toolkit knows: one line per game, naming the module that declares its SPEC."""

from __future__ import annotations

from rules.core.errors import DinolabError
from simulate.kit.spec import GameSpec, load_spec

GAMES = [
    "simulate.games.dino_kontra_dino",
    "simulate.games.evo",
]
"""The registry. Adding a game: its folders, and one line here (docs/architecture.md)."""


def all_games() -> list[GameSpec]:
    """Every registered game, in registry order."""
    return [load_spec(module) for module in GAMES]


def get_game(name: str) -> GameSpec:
    """The game called ``name`` (or one of its aliases)."""
    games = all_games()
    for game in games:
        if name == game.name or name in game.aliases:
            return game
    known = ", ".join(g.name + (f" ({', '.join(g.aliases)})" if g.aliases else "") for g in games)
    raise DinolabError(f"unknown game '{name}' (known: {known})")
