"""The games the toolkit knows: one line per game, naming the module that declares its SPEC.

``$DINOLAB_GAMES`` adds game modules from outside this list (comma-separated module names, e.g.
a designer's own game, or the tests' throwaway game): they are registered the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

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


def _specs() -> Iterator[GameSpec]:
    """Every registered game's spec, loaded one at a time, in registry order, then those
    named by ``$DINOLAB_GAMES``."""
    extra = [m.strip() for m in os.environ.get(EXTRA_ENV, "").split(",") if m.strip()]
    for module in GAMES + [m for m in extra if m not in GAMES]:
        try:
            yield load_spec(module)
        except ImportError as exc:
            raise DinolabError(f"cannot load a game module ({exc}); check ${EXTRA_ENV}") from None


def all_games() -> list[GameSpec]:
    """Every registered game, in registry order, then those named by ``$DINOLAB_GAMES``."""
    return list(_specs())


def get_game(name: str) -> GameSpec:
    """The game called ``name`` (or one of its aliases). The specs load in registry order
    only until it is found: a game module imports its kernels' dispatchers, so a run of the
    first game starts without importing the other three (0.3-0.5 s)."""
    games = []
    for game in _specs():
        if name == game.name or name in game.aliases:
            return game
        games.append(game)
    known = ", ".join(g.name + (f" ({', '.join(g.aliases)})" if g.aliases else "") for g in games)
    raise DinolabError(f"unknown game '{name}' (known: {known})")
