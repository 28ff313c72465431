"""The games the toolkit knows: one line per game, naming the module that declares its SPEC.

``$DINOLAB_GAMES`` adds game modules from outside this list (comma-separated module names, e.g.
a designer's own game, or the tests' throwaway game): they are registered the same way.
"""

from __future__ import annotations

import os

from rules.core.errors import DinolabError
from simulate.kit.spec import GameSpec, load_spec

GAMES = [
    "simulate.games.dino_kontra_dino",
    "simulate.games.evo",
    "simulate.games.table_battles",
    "simulate.games.origin_of_species",
]
"""The registry. Adding a game: its folders, and one line here (docs/architecture.md)."""


EXTRA_ENV = "DINOLAB_GAMES"


def all_games() -> list[GameSpec]:
    """Every registered game, in registry order, then those named by ``$DINOLAB_GAMES``."""
    extra = [m.strip() for m in os.environ.get(EXTRA_ENV, "").split(",") if m.strip()]
    modules = GAMES + [m for m in extra if m not in GAMES]
    try:
        return [load_spec(module) for module in modules]
    except ImportError as exc:
        raise DinolabError(f"cannot load a game module ({exc}); check ${EXTRA_ENV}") from None


def get_game(name: str) -> GameSpec:
    """The game called ``name`` (or one of its aliases)."""
    games = all_games()
    for game in games:
        if name == game.name or name in game.aliases:
            return game
    known = ", ".join(g.name + (f" ({', '.join(g.aliases)})" if g.aliases else "") for g in games)
    raise DinolabError(f"unknown game '{name}' (known: {known})")
