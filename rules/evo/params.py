"""Every number of EVO a designer might change, with the rulebook value as default.

Sources: ``rulebook`` is the Hungarian seed; ``spec`` names a suggested default of
``shared/rules/evo.md`` for something the seed leaves open (with its question number).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import ClassVar

from rules.core.errors import RuleError
from rules.core.params import Parameters, param
from rules.evo.cards import N_CARDS
from rules.evo.constants import (
    MAX_BAG,
    MAX_CYCLE,
    MAX_DINOS,
    MAX_PLAYERS,
    MAX_SPACES,
    MIN_PLAYERS,
)
from rules.evo.maps import BUILTIN, EvoMap, load_map

GENE_NAMES = ("tail", "leg", "horn", "egg", "fur", "parasol", "mutation", "card")
"""The gene bag's tiles in order (``gene_bag.tail`` ...); the portrait has the first seven."""


@dataclasses.dataclass(frozen=True)
class EvoParameters(Parameters):
    """Rule parameters of EVO, first edition (seed ``000_bd50a0e2fc564912.txt``)."""

    GAME: ClassVar[str] = "evo"

    map: str = param(
        "provisional",
        "map: 'provisional' (by player count), provisional-3/-4/-4-mm/-5, or a map CSV path",
        source="provisional (the printed maps are not public; spec Q1)",
    )
    start_points: int = param(
        6,
        "evolution points each player starts with (10: the English/French first edition)",
        source="rulebook ('a 6-os mezőre'; the translator notes that the English rules say 10)",
        lo=0,
        hi=200,
    )
    dinos_per_player: int = param(10, "dinos in each player's colour", lo=1, hi=MAX_DINOS)
    cards_dealt: int = param(3, "event cards dealt to each player at setup", lo=0, hi=8)
    event_cards: tuple[int, ...] = param(
        tuple(range(1, N_CARDS + 1)),
        "numbers (1-26) of the event cards in the deck",
        lo=1,
        hi=N_CARDS,
    )
    gene_bag: tuple[int, ...] = param(
        (6, 12, 8, 8, 8, 8, 6, 6),
        "gene tiles in the bag: tail, leg, horn, egg, fur, parasol, mutation, card",
        lo=0,
        hi=40,
        names=GENE_NAMES,
    )
    portrait: tuple[int, ...] = param(
        (1, 1, 0, 1, 1, 1, 0),
        "genes printed on every portrait: tail, leg, horn, egg, fur, parasol, mutation",
        source="rulebook (horns 0: spec section 2)",
        lo=0,
        hi=20,
        names=GENE_NAMES[:7],
    )
    climate_cycle: tuple[int, ...] = param(
        (0, 1, 2, 3, 2, 1),
        "terrain (0 desert .. 3 mountains) of each field of the closed climate track",
        source="external (spec 5.3); consistent with the seed's card Bolond időjárás",
        lo=0,
        hi=3,
    )
    climate_start: int = param(
        0, "field of the climate track the marker starts on", lo=0, hi=MAX_CYCLE - 1
    )
    climate_die: tuple[int, ...] = param(
        (-1, 0, 1, 1, 1, 1),
        "climate marker steps for die faces 1-6 (1 back, 2 stay, 3-6 forward)",
        lo=-2,
        hi=2,
        names=tuple(f"face{f}" for f in range(1, 7)),
    )
    combat_odds: tuple[int, ...] = param(
        (0, 1, 2, 4, 5),
        "attacker wins on a roll up to this, for horn difference <=-2, -1, 0, +1, >=+2 "
        "(0: attack not allowed)",
        lo=0,
        hi=6,
        names=("minus2", "minus1", "even", "plus1", "plus2"),
    )
    initiative_tails: bool = param(
        True, "initiative is decided by tails first (false: by dinos, then the die)"
    )
    initiative_more_dinos_first: bool = param(
        True,
        "on equal tails the player with more dinos on the board goes first",
        source="rulebook (spec Q5; the English summary says fewer)",
    )
    meteor_start: int = param(
        0, "meteor start space; 0 = the number of players", lo=0, hi=MAX_SPACES - 1
    )
    meteor_last_space: int = param(
        14,
        "the game ends when the meteor reaches this space",
        source="spec default (Q3)",
        lo=2,
        hi=MAX_SPACES - 1,
    )
    meteor_die_spaces: tuple[int, ...] = param(
        (11, 12, 13),
        "meteor spaces that show a die",
        source="spec default (Q3)",
        lo=1,
        hi=MAX_SPACES - 1,
    )
    meteor_strikes_up_to: tuple[int, ...] = param(
        (1, 2, 3),
        "on each die space the meteor strikes on a roll up to this",
        source="spec default (Q3)",
        lo=0,
        hi=6,
    )
    harder: bool = param(
        False,
        "the seed's harder variant: one gene fewer, passing allowed, no meteor move in rounds 1-2",
    )
    no_card_rounds: int = param(
        2, "rounds at the start in which no card may be played", lo=0, hi=MAX_SPACES
    )
    climate_cards_per_round: int = param(1, "climate-changing cards allowed per round", lo=0, hi=3)
    bid_over_points: int = param(
        0,
        "a bid may cost up to this much more than the bidder's points (0: never more; "
        "points can then go negative)",
        source="spec default (Q6)",
        lo=0,
        hi=100,
    )
    victim_min_dinos: int = param(
        5, "Baleset / Kire ütött only hit a player with at least this many dinos", lo=0, hi=16
    )
    giant_horns: int = param(2, "Óriásgén: horns added on attack", lo=0, hi=10)
    big_brother_horns: int = param(2, "Nagytestvér: horns added on defence", lo=0, hi=10)
    tough_young_horns: int = param(1, "Kemény kölykök: horns of an attacking newborn", lo=0, hi=10)
    overflier_points: int = param(3, "Genetikai fölény: points it pays", lo=0, hi=20)
    gene_guard_raise: int = param(
        3,
        "Génorzás: a bid outbidding its player must be this much higher (normally 1)",
        source="spec 10.2 ('your bid + 3 instead of + 1')",
        lo=1,
        hi=20,
    )
    surprise_points: int = param(2, "Váratlan gén: points at the end", lo=0, hi=20)
    catastrophe_steps: int = param(2, "Katasztrófa: climate fields forward", lo=-5, hi=5)
    flood_dies_up_to: int = param(
        3, "Vízözön: a coast dino dies on d6 + parasols up to this", lo=0, hi=12
    )
    wander_reach: int = param(
        3, "Vándorló ivadékok: newborns up to this many regions away", lo=1, hi=10
    )
    survival_gene_all_losses: bool = param(
        False,
        "Túlélőgén counts every dino lost this round (default: only those lost in phase 5)",
        source="spec default (10.3)",
    )

    def __post_init__(self) -> None:
        # A map file is remembered by its absolute path so a run resumes from any folder.
        builtin = self.map == "provisional" or self.map in BUILTIN
        if not builtin and Path(self.map).is_file():
            object.__setattr__(self, "map", str(Path(self.map).resolve()))

    def check(self) -> None:
        """Cross-field checks with messages naming the keys."""
        if len(self.gene_bag) != 8:
            raise RuleError(f"rule 'gene_bag' needs 8 counts, got {len(self.gene_bag)}")
        if not 0 < sum(self.gene_bag) <= MAX_BAG:
            raise RuleError(
                f"rule 'gene_bag' must hold 1..{MAX_BAG} tiles, got {sum(self.gene_bag)}"
            )
        if len(self.portrait) != 7:
            raise RuleError(f"rule 'portrait' needs 7 counts, got {len(self.portrait)}")
        if not 2 <= len(self.climate_cycle) <= MAX_CYCLE:
            raise RuleError(
                f"rule 'climate_cycle' needs 2..{MAX_CYCLE} fields, got {len(self.climate_cycle)}"
            )
        if self.climate_start >= len(self.climate_cycle):
            raise RuleError(
                f"rule 'climate_start' must be 0..{len(self.climate_cycle) - 1} for a "
                f"{len(self.climate_cycle)}-field climate track, got {self.climate_start}"
            )
        if len(self.climate_die) != 6:
            raise RuleError(f"rule 'climate_die' needs 6 faces, got {len(self.climate_die)}")
        if len(self.combat_odds) != 5:
            raise RuleError(f"rule 'combat_odds' needs 5 values, got {len(self.combat_odds)}")
        if len(set(self.event_cards)) != len(self.event_cards):
            raise RuleError("rule 'event_cards' names a card twice")
        if len(self.meteor_die_spaces) != len(self.meteor_strikes_up_to):
            raise RuleError(
                "rules 'meteor_die_spaces' and 'meteor_strikes_up_to' need the same length, "
                f"got {len(self.meteor_die_spaces)} and {len(self.meteor_strikes_up_to)}"
            )
        if any(s >= self.meteor_last_space for s in self.meteor_die_spaces):
            raise RuleError(
                f"rule 'meteor_die_spaces' must lie before the last space "
                f"{self.meteor_last_space}, got {list(self.meteor_die_spaces)}"
            )
        if self.meteor_start and self.meteor_start >= self.meteor_last_space:
            raise RuleError(
                f"rule 'meteor_start' must be below meteor_last_space "
                f"({self.meteor_last_space}), got {self.meteor_start}"
            )

    def meteor_start_for(self, n_players: int) -> int:
        """The meteor's start space: the player count unless set."""
        return self.meteor_start or n_players

    def max_rounds(self, n_players: int) -> int:
        """Most rounds a game can last (the meteor moves once a round, not in rounds 1-2 when
        harder)."""
        return self.meteor_last_space - self.meteor_start_for(n_players) + 2 * self.harder

    def load_map(self, n_players: int) -> EvoMap:
        """The map this configuration plays on, checked for ``n_players``."""
        return load_map(self.map, n_players)

    def check_players(self, n_players: int) -> None:
        """Refuse a player count these rules cannot serve."""
        if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise RuleError(f"evo plays with {MIN_PLAYERS}-{MAX_PLAYERS} players, got {n_players}")
        if self.meteor_start_for(n_players) >= self.meteor_last_space:
            raise RuleError(
                f"the meteor starts on space {n_players} (the player count) but rule "
                f"'meteor_last_space' is {self.meteor_last_space}"
            )
        need = self.cards_dealt * n_players
        if need > len(self.event_cards):
            raise RuleError(
                f"dealing {self.cards_dealt} cards to {n_players} players needs {need} event "
                f"cards; rule 'event_cards' has {len(self.event_cards)}"
            )
