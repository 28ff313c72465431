"""The games the toolkit knows, by name and alias."""

from __future__ import annotations

from rules.core.errors import DinolabError
from simulate.games.base import Game


def all_games() -> list[Game]:
    """Every registered game, in a stable order."""
    from simulate.games.dino_kontra_dino import GAME as DKD
    from simulate.games.evo import GAME as EVO

    return [DKD, EVO]


def get_game(name: str) -> Game:
    """The game called ``name`` (or one of its aliases)."""
    for game in all_games():
        if name == game.name or name in game.aliases:
            return game
    known = ", ".join(
        g.name + (f" ({', '.join(g.aliases)})" if g.aliases else "") for g in all_games()
    )
    raise DinolabError(f"unknown game '{name}' (known: {known})")
