"""Every number of Dino Kontra Dino a designer might change, with the rulebook value as default."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import ClassVar

from rules.core.errors import RuleError
from rules.core.params import Parameters, param
from rules.dino_kontra_dino.deck import BUILTIN, Deck, load_deck

MIN_PLAYERS = 2
MAX_PLAYERS = 6
"""The seed does not state a player count; the deck sizes work for 2-6 (spec section 6)."""


@dataclasses.dataclass(frozen=True)
class DkdParameters(Parameters):
    """Rule parameters of Dino Kontra Dino (seed ``001_ed1e5b3d059557ca.txt``)."""

    GAME: ClassVar[str] = "dino-kontra-dino"
    DATA_KEYS: ClassVar[tuple[str, ...]] = ("deck",)

    deck: str = param(
        "provisional",
        "deck: built-in 'provisional' or 'yardstick', or the path of a deck CSV",
        source="provisional (the real card list is not public)",
    )
    edits: str = param(
        "",
        "changes to traits of the deck file, deck.<dino>.<trait>=<1..5> joined by ';' "
        "(or --set deck.<dino>.<trait>=<value>)",
        source="designer",
    )
    hand_size: int = param(3, "dinosaur cards in each hand while the pile lasts", lo=1, hi=10)
    first_holder: int = param(
        0,
        "seat that starts with the dinosaur figure ('the youngest player'); -1 = a random seat",
        source="rulebook (youngest player); seat 0 by convention",
        lo=-1,
        hi=MAX_PLAYERS - 1,
    )
    two_trait_counts_both: bool = param(
        True,
        "in the final tie-break a two-trait event counts for both of its traits",
        source="rulebook ('event cards bearing the predation icon')",
    )

    def __post_init__(self) -> None:
        # A deck file is remembered by its absolute path so a run resumes from any folder.
        if self.deck not in BUILTIN and Path(self.deck).is_file():
            object.__setattr__(self, "deck", str(Path(self.deck).resolve()))

    def load_deck(self) -> Deck:
        """The deck this configuration plays with, rule ``edits`` applied."""
        return load_deck(self.deck).edited(self.edit_values())

    def check_players(self, n_players: int, deck: Deck) -> None:
        """Refuse a player count the deck or the figure rule cannot serve."""
        if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise RuleError(
                f"dino-kontra-dino plays with {MIN_PLAYERS}-{MAX_PLAYERS} players, got {n_players}"
            )
        if self.first_holder >= n_players:
            raise RuleError(
                f"rule 'first_holder' must be -1..{n_players - 1} for {n_players} players, "
                f"got {self.first_holder}"
            )
        need = self.hand_size * n_players
        if deck.n_dinos < need:
            raise RuleError(
                f"{deck.describe()} has {deck.n_dinos} dinosaurs; {n_players} hands of "
                f"{self.hand_size} need at least {need}"
            )
        rounds = game_rounds(deck.n_dinos, n_players, self.hand_size)
        if deck.n_events < rounds:
            raise RuleError(
                f"{deck.describe()} has {deck.n_events} events; {n_players} players with hands "
                f"of {self.hand_size} play {rounds} rounds"
            )


def game_rounds(n_dinos: int, n_players: int, hand_size: int) -> int:
    """Rounds in every game: one per full refill, then the hand runs down to empty.

    With the rulebook deck: 2 players 22 rounds, 3: 15, 4: 11, 5: 9, 6: 7 (spec section 6).
    """
    refills = (n_dinos - hand_size * n_players) // n_players
    return refills + hand_size
