"""Every number of Dinosaur Table Battles a designer might change, with the seed's value.

Sources: ``rulebook`` is the German seed (``003_af55512b40c5669e.txt``); ``spec Qn`` names the
suggested default of ``shared/rules/dinosaur_table_battles.md`` section 14 for something the
seed leaves open; ``provisional`` marks a value invented for an ability whose text is not
public. RULES.md gives each rule with the seed's words.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import ClassVar

from rules.core.errors import RuleError
from rules.core.params import Parameters, param
from rules.table_battles.cards import BUILTIN, CardPool, load_cards
from rules.table_battles.constants import (
    MAX_HAND,
    MAX_SLOTS,
    MAX_TEAM,
    N_PLAYERS,
    ONE_MARKER_TIMES,
    SETUPS,
)

FIRST_GAME = (
    "Stegosaurus|Triceratops|Utahraptor|Velociraptors;Pteranodon|Spinosaurus|Tyrannosaurus Rex"
)


@dataclasses.dataclass(frozen=True)
class TableBattlesParameters(Parameters):
    """Rule parameters of Dinosaur Table Battles (seed ``003_af55512b40c5669e.txt``)."""

    GAME: ClassVar[str] = "table-battles"
    DATA_KEYS: ClassVar[tuple[str, ...]] = ("cards",)

    cards: str = param(
        "provisional",
        "card file: built-in 'provisional' (or 'default'), or the path of a card CSV",
        source="provisional (the card list is not public; spec Q1)",
    )
    edits: str = param(
        "",
        "changes to dinos of the card file, cards.<dino>.<draft_rating|break_point>=<value> "
        "joined by ';' (or --set cards.<dino>.<field>=<value>); every version of the name",
        source="designer",
    )
    expansion: bool = param(
        True,
        "play with the expansion: its six dinos join, Spinosaurus and Pteranodon get their new "
        "(Water / Air) cards",
        source="rulebook (the seed's page includes the expansion)",
    )
    setup: str = param(
        "draft",
        "how teams are chosen: 'draft' (later games) or 'first_game' (the suggested teams)",
        choices=SETUPS,
    )
    first_game_teams: str = param(
        FIRST_GAME,
        "the first game's teams: seat 0's dinos, ';', seat 1's dinos, names joined by '|'",
    )
    draft_hand: int = param(5, "dino cards dealt to each player for the draft", lo=3, hi=MAX_HAND)
    card_cap: int = param(
        8, "most action cards a player may have after placing a dino", lo=4, hi=MAX_SLOTS
    )
    dice: int = param(6, "dice each player takes", lo=1, hi=12)
    markers_per_dino: int = param(3, "hit markers a player takes per dinosaur", lo=1, hi=10)
    bonus_markers: int = param(
        2, "extra hit markers for fewer dino cards, and again for fewer action cards", lo=0, hi=10
    )
    trex_markers: int = param(2, "extra hit markers for having the Tyrannosaurus Rex", lo=0, hi=10)
    max_turns: int = param(
        200,
        "turn cap (both players' turns counted): the game ends with end_reason 'turn cap' and "
        "no winner",
        source="simulation safeguard (the seed has no cap)",
        lo=2,
        hi=5000,
    )
    pair_stack: bool = param(
        True,
        "a 'pair' area may take another pair on a later turn",
        source="spec Q7 (the seed limits pairs per turn only)",
    )
    self_hit_when_blocked: bool = param(
        False,
        "'1 self' applies even when the attack is blocked",
        source="rulebook (Block: 'Keine Seite erleidet Treffer' - neither side suffers hits); "
        "true: the spec's Q4 suggestion",
    )
    counter_break_point: bool = param(
        True,
        "Counter hits on the attacking dino offer its owner the break-point choice",
        source="spec Q4 (they are hits on a dino)",
    )
    class_rules_on_counters: bool = param(
        False, "the Air/Water -1 rules also apply to Counter hits", source="spec Q14"
    )
    air_vs_water: int = param(
        1, "Air dinos' attacks inflict this many hits less on Water dinos", lo=0, hi=5
    )
    water_vs_air: int = param(
        1,
        "Water dinos' attacks inflict this many hits less on Air dinos",
        source="spec Q14 (the seed's fourth Air/Water line is garbled)",
        lo=0,
        hi=5,
    )
    flip_returns_dice: bool = param(
        True, "dice on a flipped card return to the owner's pool", source="spec Q6"
    )
    treetops_mandatory: bool = param(
        False,
        "Brachiosaurus's Treetops must be used when it is the only possible reaction",
        source="spec Q11 (the seed: 'darf nur verwendet werden' - may only be used when)",
    )
    treetops_hits: int = param(
        1, "Treetops: hits the attacking dino suffers", source="provisional (spec Q11)", lo=0, hi=5
    )
    tyrant_bonus: int = param(
        1,
        "T-Rex: extra hits of its attack when the attack triggered no reaction",
        source="provisional (spec Q12)",
        lo=0,
        hi=5,
    )
    egg_thieves_steal: int = param(
        1,
        "Velociraptors: markers gained when the opponent removes markers for their attack",
        source="spec Q13 (EXT-5: 'stealing a single hit token')",
        lo=0,
        hi=5,
    )
    sky_watch_bonus: int = param(
        1, "Pteranodon: extra hits against a dino that has a flipped card", lo=0, hi=5
    )
    passive_bonus: int = param(
        1,
        "the provisional passives' +/-1 (Stegosaurus, Utahraptor, Quetzalcoatlus, Elasmosaurus)",
        source="provisional",
        lo=0,
        hi=5,
    )
    one_marker_self_at: str = param(
        "attack",
        "when the one-marker rule ('ignore self hits') is judged: 'attack' - the attacker had "
        "one marker when the attack was made; 'self_hit' - it has one when the self hit is "
        "due, after any Counter hits",
        source="rulebook ('Wenn ein Spieler nur noch einen Treffer-Marker besitzt: Wenn seine "
        "Dinosaurier angreifen, ignorieren sie selbst-Treffer' - when his dinos attack)",
        choices=ONE_MARKER_TIMES,
    )
    one_marker_flip_counter: bool = param(
        False,
        "the one-marker flip also applies to Counter hits on the attacking dino",
        source="rulebook (the seed: 'wenn seine Dinosaurier angegriffen werden' - when attacked)",
    )

    def __post_init__(self) -> None:
        # A card file is remembered by its absolute path so a run resumes from any folder.
        builtin = self.cards in BUILTIN or self.cards == "default"
        if not builtin and Path(self.cards).is_file():
            object.__setattr__(self, "cards", str(Path(self.cards).resolve()))

    def check(self) -> None:
        """Cross-field checks with messages naming the keys."""
        sides = self.first_game_teams.split(";")
        if len(sides) != 2 or any(not s.strip() for s in sides):
            raise RuleError(
                "rule 'first_game_teams' needs two teams separated by ';', got "
                f"{self.first_game_teams!r}"
            )
        for s in sides:
            if len([n for n in s.split("|") if n.strip()]) > MAX_TEAM:
                raise RuleError(f"rule 'first_game_teams': a team has more than {MAX_TEAM} dinos")

    def load_cards(self) -> CardPool:
        """The card pool this configuration plays with, rule ``edits`` applied."""
        return load_cards(self.cards).edited(self.edit_values())

    def first_game_names(self) -> list[list[str]]:
        return [
            [n.strip() for n in s.split("|") if n.strip()] for s in self.first_game_teams.split(";")
        ]

    def check_players(self, n_players: int, cards: CardPool | None = None) -> None:
        """Refuse a player count (two only) or a card pool these rules cannot serve."""
        if n_players != N_PLAYERS:
            raise RuleError(f"table-battles plays with 2 players, got {n_players}")
        if cards is None:
            return
        pool = cards.pool(self.expansion)
        if self.setup == "draft" and len(pool) < 2 * self.draft_hand:
            raise RuleError(
                f"{cards.describe()} has {len(pool)} dinos in play; two draft hands of "
                f"{self.draft_hand} need {2 * self.draft_hand}"
            )
        if self.setup == "first_game":
            seen = set()
            for names in self.first_game_names():
                total = 0
                for name in names:
                    i = cards.find(name, self.expansion)
                    if i < 0:
                        raise RuleError(
                            f"rule 'first_game_teams' names {name!r}, not in the card pool "
                            f"({', '.join(sorted({cards.dinos[j].name for j in pool}))})"
                        )
                    if i in seen:
                        raise RuleError(f"rule 'first_game_teams' names {name!r} twice")
                    seen.add(i)
                    total += cards.dinos[i].n_cards
                if total > MAX_SLOTS:
                    raise RuleError(
                        f"rule 'first_game_teams': a team has {total} action cards, at most "
                        f"{MAX_SLOTS}"
                    )
