"""Every number and open rule of Evolution: The Origin of Species a designer might change.

Sources: ``rulebook`` is the Slovak seed (``shared/seeds/004_d8053942f5e78187.txt``); ``spec
Qn`` names the suggested default of question n in section 11 of ``shared/rules/evolution.md``
for something the seed leaves open; ``card text`` is the printed card text the spec transcribes
(CARD-RU). ``RULES.md`` explains every choice with the seed's words.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import ClassVar

from rules.core.errors import RuleError
from rules.core.params import Parameters, param
from rules.origin_of_species.constants import MAX_CARDS, MAX_PLAYERS, MIN_PLAYERS
from rules.origin_of_species.deck import BUILTIN, Deck, load_deck

BY_PLAYERS = tuple(f"p{n}" for n in range(MIN_PLAYERS, MAX_PLAYERS + 1))
"""Element names of the per-player-count keys (``food_dice.p4``)."""
EXTRA_TRAITS = ("carnivore", "high_body_weight", "parasite")
"""Element names of the extra food and points keys (``extra_points.carnivore``)."""
FEEDING_ENDS = ("silence", "empty_bank")
FAT_CONVERSIONS = ("any", "need")
PAIRED_DIRECTIONS = ("either", "first")


@dataclasses.dataclass(frozen=True)
class OosParameters(Parameters):
    """Rule parameters of Evolution: The Origin of Species (seed ``004_d8053942f5e78187``)."""

    GAME: ClassVar[str] = "origin-of-species"
    DATA_KEYS: ClassVar[tuple[str, ...]] = ("deck",)

    deck: str = param(
        "default",
        "deck: 'default' (the spec's reconstructed 84-card deck) or the path of a deck CSV",
        source="spec section 1 / evolution_deck.csv (Q1; reconstructed, unverified print)",
    )
    edits: str = param(
        "",
        "changes to copies of the deck file's cards, deck.<card_id>.copies=<1..64> joined by "
        "';' (or --set deck.<card_id>.copies=<value>)",
        source="designer",
    )
    n_sets: int = param(
        0,
        "copies of the deck mixed together; 0 = one set for 2-4 players, two for 5-8",
        source="rulebook (two sets for up to 8 players)",
        lo=0,
        hi=3,
    )
    hand_size: int = param(6, "cards dealt to each player at setup", lo=1, hi=20)
    empty_draw: int = param(
        6,
        "cards drawn by a player with no surviving animals and no cards in hand",
        lo=0,
        hi=20,
    )
    food_dice: tuple[int, ...] = param(
        (1, 2, 2, 3, 3, 4, 4),
        "d6 rolled for the food bank with 2, 3, ..., 8 players",
        source="rulebook (5-8 players: two sets)",
        lo=0,
        hi=10,
        names=BY_PLAYERS,
    )
    food_add: tuple[int, ...] = param(
        (2, 0, 2, 2, 4, 2, 4),
        "added to the food-bank roll with 2, 3, ..., 8 players",
        source="rulebook",
        lo=0,
        hi=40,
        names=BY_PLAYERS,
    )
    first_player: int = param(
        -1,
        "seat of the first player; -1 = everyone rolls a die, highest starts, ties re-roll",
        source="rulebook (die roll); ties re-roll: spec Q15",
        lo=-1,
        hi=MAX_PLAYERS - 1,
    )
    last_round: str = param(
        "next",
        "'next': when the draw empties the deck the next round is the last; 'same': the "
        "game ends after the round whose draw empties the deck",
        source="spec Q2 (recommended 'next'); rulebook: 'when the deck is empty the last round "
        "begins'",
        choices=("next", "same"),
    )
    extra_food: tuple[int, ...] = param(
        (1, 1, 2),
        "extra food needed by Carnivore, High Body Weight, Parasite",
        lo=0,
        hi=5,
        names=EXTRA_TRAITS,
    )
    animal_points: int = param(2, "points per surviving animal", lo=0, hi=20)
    trait_points: int = param(1, "points per trait card on a surviving animal", lo=0, hi=20)
    extra_points: tuple[int, ...] = param(
        (1, 1, 2),
        "extra points for Carnivore, High Body Weight, Parasite on a surviving animal",
        lo=0,
        hi=20,
        names=EXTRA_TRAITS,
    )
    paired_points_per_animal: bool = param(
        True,
        "a paired trait scores for each surviving animal it joins (false: once per pair)",
        source="spec Q11 (recommended)",
    )
    carnivore_once_per_phase: bool = param(
        False,
        "only one of a player's carnivores may attack in the whole feeding phase (false: one "
        "per go-around, each carnivore once per round)",
        source="spec Q3 / card text (go-around); true reads the seed's sentence literally",
    )
    red_after_attack: bool = param(
        False,
        "a carnivore that attacked may still take red tokens from the bank this round",
        source="rulebook ('V tomto kole si pre tohto živočícha z potravinovej banky neberiete "
        "žetóny'); spec Q3",
    )
    kill_food: int = param(2, "blue tokens a carnivore gets for eating an animal", lo=0, hi=10)
    tail_loss_food: int = param(
        1,
        "blue tokens a carnivore gets when its prey drops a trait (Tail Loss)",
        source="card text",
        lo=0,
        hi=10,
    )
    scavenger_food: int = param(
        1,
        "blue tokens the scavenger gets when another animal is eaten",
        source="card text",
        lo=0,
        hi=10,
    )
    scavenger_into_fat: bool = param(
        True, "a fed scavenger may store its token as fat", source="spec section 7 (EW)"
    )
    running_escape_from: int = param(
        4,
        "Running: the prey escapes on a d6 roll of at least this (7: never)",
        source="card text (4, 5 or 6); spec Q14",
        lo=1,
        hi=7,
    )
    mimicry_mandatory: bool = param(
        True,
        "Mimicry must redirect the attack when it can (false: the owner may decline)",
        source="spec Q8 (card text and EW: mandatory)",
    )
    mimicry_chain: bool = param(
        True,
        "a redirected attack may be redirected again by another Mimicry animal",
        source="spec Q8 (EW allows it; each animal's Mimicry once per round)",
    )
    tail_loss_parasite: bool = param(
        True,
        "Tail Loss may drop a Parasite (and any paired trait)",
        source="card text; spec Q9",
    )
    feeding_pass_final: bool = param(
        True,
        "ending a feeding turn without any action is final for the phase",
        source="spec Q5; rulebook: a player who will not act 'je vynechaný' (is skipped)",
    )
    feeding_ends: str = param(
        "silence",
        "the feeding phase ends after a go-around in which nobody acts ('silence') or with the "
        "turn that leaves the food bank empty ('empty_bank')",
        source="rulebook, read whole: it ends once all have used the traits they wanted "
        "('využili rysy ..., ktoré využiť chceli'), as Carnivore, fat and feeding-time traits "
        "work with an empty bank; 'empty_bank' reads 'alebo ak je potravinová banka prázdna' "
        "alone",
        choices=FEEDING_ENDS,
    )
    free_traits_after_main: bool = param(
        True,
        "Piracy, Hibernation and Grazing may also be used after the turn's main action (a red "
        "token, an attack or a fat conversion); false: only before it",
        source="rulebook ('môžete daný rys použiť spolu so ziskom žetónu alebo namiesto neho' - "
        "together with the token or instead of it, in no order); spec Q4",
    )
    fat_conversion: str = param(
        "any",
        "fat one animal may convert instead of a red token: 'any' number of its fat tokens "
        "(food beyond its need goes back to the supply), or only up to what it still 'need's "
        "while it is not fed",
        source="rulebook ('odoberiete ľubovoľný počet žltých žetónov tuku' - any number of fat "
        "tokens; 'Táto premena sa nepovažuje za zisk žetónov potravy' - not a gain of food)",
        choices=FAT_CONVERSIONS,
    )
    paired_direction: str = param(
        "either",
        "a paired trait triggered from both its animals in one action passes food either way "
        "('either', the owner chooses) or only away from the animal that triggered it first "
        "('first')",
        source="card text ('when one animal receives a token, the other ... receives one'); "
        "rulebook: the owner orders the paired traits; each once per action",
        choices=PAIRED_DIRECTIONS,
    )
    paired_once_per: str = param(
        "action",
        "each paired trait passes food on at most once per player 'action' (seed) or per "
        "'go-around' of the table (card text)",
        source="rulebook ('Pri akcii každého hráča ... každý párový rys iba raz'); spec 6.6",
        choices=("action", "go-around"),
    )
    piracy_needs_hunger: bool = param(
        True, "only an animal that is not fed may use Piracy", source="spec Q7 (EW)"
    )
    piracy_into_fat: bool = param(
        False, "Piracy may put the stolen token into fat", source="spec Q7 (EW: no)"
    )
    hibernation_in_last_round: bool = param(
        False,
        "Hibernation may be used in the last round",
        source="card text ('nor in the last turn of the game'); spec Q2",
    )
    hibernating_is_fed_for_burrowing: bool = param(
        True,
        "a hibernating animal counts as fed for Burrowing's protection",
        source="spec Q13 ('probably yes')",
    )
    symbiosis_blocks_fat: bool = param(
        False,
        "a protected Symbiosis partner may not convert its own fat before its symbiont is fed",
        source="spec Q12 (EW: it may)",
    )

    def __post_init__(self) -> None:
        # A deck file is remembered by its absolute path so a run resumes from any folder.
        if self.deck not in BUILTIN and Path(self.deck).is_file():
            object.__setattr__(self, "deck", str(Path(self.deck).resolve()))

    def check(self) -> None:
        """Cross-field checks with messages naming the keys."""
        n = MAX_PLAYERS - MIN_PLAYERS + 1
        for key in ("food_dice", "food_add"):
            v = getattr(self, key)
            if len(v) != n:
                raise RuleError(
                    f"rule '{key}' needs {n} values (2..{MAX_PLAYERS} players), got {len(v)}"
                )
        for key in ("extra_food", "extra_points"):
            v = getattr(self, key)
            if len(v) != 3:
                raise RuleError(
                    f"rule '{key}' needs 3 values (Carnivore, High Body Weight, Parasite), "
                    f"got {len(v)}"
                )

    def load_deck(self) -> Deck:
        """The deck (one set) this configuration plays with, rule ``edits`` applied."""
        return load_deck(self.deck).edited(self.edit_values())

    def sets_for(self, n_players: int) -> int:
        """Sets mixed for ``n_players``: ``n_sets``, or 1 up to 4 players and 2 above."""
        if self.n_sets:
            return self.n_sets
        return 1 if n_players <= 4 else 2

    def food_range(self, n_players: int) -> tuple[int, int]:
        """Smallest and largest food bank for ``n_players``."""
        d = self.food_dice[n_players - MIN_PLAYERS]
        a = self.food_add[n_players - MIN_PLAYERS]
        return d + a, 6 * d + a

    def max_rounds(self, n_players: int, deck: Deck) -> int:
        """Most rounds a game can last: every round before the last draws at least one card a
        player while the deck lasts (with ``empty_draw = 0`` at least one card, unless nobody
        holds anything; the engine ends the game at this many rounds in any case)."""
        left = self.sets_for(n_players) * deck.n_cards - self.hand_size * n_players
        draws = -(-left // n_players) if self.empty_draw > 0 else left
        return draws + 1 if self.last_round == "next" else max(1, draws)

    def check_players(self, n_players: int, deck: Deck) -> None:
        """Refuse a player count these rules and this deck cannot serve."""
        if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise RuleError(
                f"origin-of-species plays with {MIN_PLAYERS}-{MAX_PLAYERS} players, got {n_players}"
            )
        if self.first_player >= n_players:
            raise RuleError(
                f"rule 'first_player' must be -1..{n_players - 1} for {n_players} players, "
                f"got {self.first_player}"
            )
        sets = self.sets_for(n_players)
        total = sets * deck.n_cards
        if total > MAX_CARDS:
            raise RuleError(
                f"{sets} sets of {deck.describe()} make {total} cards; at most {MAX_CARDS}"
            )
        need = self.hand_size * n_players
        if total < need:
            raise RuleError(
                f"{n_players} hands of {self.hand_size} need {need} cards; {sets} set(s) of "
                f"{deck.describe()} have {total} (rule 'n_sets')"
            )
