"""The 26 event cards of EVO: names, when they may be played, what they target.

Cards are numbered 1-26 in the order of the seed's list (alphabetical in Hungarian), as in the
spec's table (section 10.2). In the kernel a card is its number minus one, a bit of a hand mask.

Cards are played in *windows*: at fixed moments of a round every player, in player order, may
play any number of cards allowed in that window before passing (seed: "if several players play
cards at once they play in player order; later players may change their minds after seeing the
earlier cards"). The windows and the cards each one allows:

========================  =================================================================
window                    cards
========================  =================================================================
phase 1 (after order)     4 Én jövök előbb!, 1 Alvógén
phase 2 start             2 Baleset, 3 Bolond időjárás, 11 Katasztrófa!, 14 Meteorológus-gén,
                          26 Vízözön, 4, 1
phase 3 start             15 Nagytestvér, 17 Óriásgén, 18 Ősi ösztönök, 24 Vegetáriánus étrend,
                          25 Védelmi gáz, 4, 1
phase 4 start             20 Születés-túlszabályozás, 12 Kemény kölykök, 22 Vándorló ivadékok, 4, 1
phase 4 end               13 Kire ütött ez a gyerek?, 1
phase 5 start             7 Gyilkos fagy, 8 Gyilkos sugarak, 10 Hőálló bőr, 19 Pthermodactylus, 4, 1
phase 5 end               21 Túlélőgén, 1
phase 6 (before draw)     9 Hiányzó láncszem, 1  (after the meteor; it decides the draw)
phase 6 (genes drawn)     6 Génorzás, 4, 1       (the genes lie on the board, no bid yet)
phase 6 payment           5 Genetikai fölény, 1
end of the last round     23 Váratlan gén, 1
========================  =================================================================

16 Osztódás is played as a *reaction*, immediately after another player's card. Timing
choices the seed leaves open are listed in ``DEVIATIONS.md``.
"""

from __future__ import annotations

import dataclasses

W_INITIATIVE, W_CLIMATE, W_MOVEMENT, W_BIRTHS, W_BIRTHS_END = range(5)
W_SURVIVAL, W_SURVIVAL_END, W_AUCTION, W_BIDDING, W_PAYMENT, W_GAME_END = range(5, 11)
N_WINDOWS = 11
WINDOW_NAMES = (
    "phase 1",
    "phase 2 start",
    "phase 3 start",
    "phase 4 start",
    "phase 4 end",
    "phase 5 start",
    "phase 5 end",
    "phase 6 before the draw",
    "phase 6 genes drawn",
    "phase 6 payment",
    "end of the last round",
)
WINDOW_PHASE = (1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6)
"""The rulebook phase (1-6) of each window, as logged in the ``cards`` table."""

# What a card's target number means.
T_NONE, T_VICTIM, T_DIE, T_SEAT, T_NEWBORN, T_CARD = range(6)

SLEEP, ACCIDENT, WEATHER_SWAP, ME_FIRST, OVERFLIER, GENE_GUARD = 1, 2, 3, 4, 5, 6
FROST, RAYS, MISSING_LINK, HEAT_SKIN, CATASTROPHE, TOUGH_YOUNG = 7, 8, 9, 10, 11, 12
CHANGELING, WEATHER_GENE, BIG_BROTHER, DOUBLING, GIANT, INSTINCT = 13, 14, 15, 16, 17, 18
NEOPRENE, NO_BIRTHS, SURVIVAL_GENE, WANDERERS, SURPRISE, PEACE = 19, 20, 21, 22, 23, 24
TRUCE, FLOOD = 25, 26
N_CARDS = 26
CLIMATE_CARDS = (WEATHER_SWAP, CATASTROPHE, WEATHER_GENE)
"""The cards that change the climate: one per round (spec Q7)."""


@dataclasses.dataclass(frozen=True)
class Card:
    """One event card as printed, with the windows it may be played in."""

    number: int
    hungarian: str
    german: str
    english: str
    timing: str
    effect: str
    windows: tuple[int, ...]
    target: int = T_NONE


ANY = tuple(range(N_WINDOWS))
PHASE_STARTS = (W_INITIATIVE, W_CLIMATE, W_MOVEMENT, W_BIRTHS, W_SURVIVAL, W_BIDDING)
"""Én jövök előbb!'s windows: the start of phases 1-5, and in phase 6 the start of the bidding
(the genes drawn), where going first is something a player can judge."""

CARDS = (
    Card(
        1,
        "Alvógén",
        "Schlafgen",
        "Sleep gene",
        "any time",
        "no more cards may be played this round",
        ANY,
    ),
    Card(
        2,
        "Baleset",
        "Unfall",
        "Accident",
        "start of phase 2",
        "remove one dino of a player with at least 5 dinos on the board",
        (W_CLIMATE,),
        T_VICTIM,
    ),
    Card(
        3,
        "Bolond időjárás",
        "Wetterumschwung",
        "Crazy weather",
        "start of phase 2, before the roll",
        "a climate marker on green or brown moves to the other field of that colour",
        (W_CLIMATE,),
    ),
    Card(
        4,
        "Én jövök előbb!",
        "Ich zuerst!",
        "Me first!",
        "start of any phase",
        "you are first in player order until the end of the round",
        PHASE_STARTS,
    ),
    Card(
        5,
        "Genetikai fölény",
        "Genetischer Überflieger",
        "Genetic edge",
        "phase 6, when paying",
        "worth 3 evolution points towards paying your bid",
        (W_PAYMENT,),
    ),
    Card(
        6,
        "Génorzás",
        "Genteilung",
        "Gene theft",
        "phase 6",
        "whoever outbids you must offer 3 more",
        (W_BIDDING,),
    ),
    Card(
        7,
        "Gyilkos fagy",
        "Eiskalt!",
        "Killing frost",
        "phase 5",
        "every species has one fur fewer this round",
        (W_SURVIVAL,),
    ),
    Card(
        8,
        "Gyilkos sugarak",
        "Nichts anbrennen lassen",
        "Killing rays",
        "phase 5",
        "every species has one parasol fewer this round",
        (W_SURVIVAL,),
    ),
    Card(
        9,
        "Hiányzó láncszem",
        "Missratene Entwicklung",
        "Missing link",
        "phase 6",
        "one gene fewer than players is drawn; the first player to pass gets none",
        (W_AUCTION,),
    ),
    Card(
        10,
        "Hőálló bőr",
        "Zusätzlicher Sonnenschutz",
        "Heat-proof skin",
        "phase 5",
        "all your dinos in warm regions survive this round",
        (W_SURVIVAL,),
    ),
    Card(
        11,
        "Katasztrófa!",
        "Katastrophe!",
        "Catastrophe!",
        "start of phase 2",
        "no climate roll: the marker moves two fields forward",
        (W_CLIMATE,),
    ),
    Card(
        12,
        "Kemény kölykök",
        "Robuste Jugend",
        "Tough youngsters",
        "phase 4",
        "newborns may be placed on foreign dinos and fight them with +1 horn",
        (W_BIRTHS,),
    ),
    Card(
        13,
        "Kire ütött ez a gyerek?",
        "Mein Mann kommt!",
        "Changeling",
        "end of phase 4",
        "replace a dino placed this round by a player with at least 5 dinos by one of yours",
        (W_BIRTHS_END,),
        T_NEWBORN,
    ),
    Card(
        14,
        "Meteorológus-gén",
        "Wettergen",
        "Weather gene",
        "start of phase 2",
        "you choose the climate die result",
        (W_CLIMATE,),
        T_DIE,
    ),
    Card(
        15,
        "Nagytestvér",
        "Grosser Bruder",
        "Big brother",
        "start of phase 3",
        "your attacked dinos get +2 horns on defence this round",
        (W_MOVEMENT,),
    ),
    Card(
        16,
        "Osztódás",
        "Verdopplung",
        "Doubling",
        "right after another card",
        "the card just played becomes yours, playable from next round",
        (),
        T_CARD,
    ),
    Card(
        17,
        "Óriásgén",
        "Riesengen",
        "Giant gene",
        "start of phase 3",
        "all your dinos get +2 horns on attack this round",
        (W_MOVEMENT,),
    ),
    Card(
        18,
        "Ősi ösztönök",
        "Urtrieb",
        "Primal instinct",
        "start of phase 3",
        "your movement points equal your dinos on the board this round",
        (W_MOVEMENT,),
    ),
    Card(
        19,
        "Pthermodactylus",
        "Neopren",
        "Pthermodactylus",
        "phase 5",
        "all your dinos in cold regions survive this round",
        (W_SURVIVAL,),
    ),
    Card(
        20,
        "Születés-túlszabályozás",
        "Entwicklung der Verhütung",
        "Birth control",
        "start of phase 4",
        "phase 4 is skipped this round",
        (W_BIRTHS,),
    ),
    Card(
        21,
        "Túlélőgén",
        "Überlebensgen",
        "Survival gene",
        "end of phase 5",
        "every other player loses 1 point per dino lost this phase",
        (W_SURVIVAL_END,),
    ),
    Card(
        22,
        "Vándorló ivadékok",
        "Sportlicher Nachwuchs",
        "Wandering young",
        "phase 4",
        "your newborns may be placed 2 or 3 regions from your dinos",
        (W_BIRTHS,),
    ),
    Card(
        23,
        "Váratlan gén",
        "Unerwartetes Gen",
        "Unexpected gene",
        "end of the last round",
        "worth 2 points when the winner is decided",
        (W_GAME_END,),
    ),
    Card(
        24,
        "Vegetáriánus étrend",
        "Friedfertige Dinos",
        "Vegetarian diet",
        "start of phase 3",
        "no combat this round",
        (W_MOVEMENT,),
    ),
    Card(
        25,
        "Védelmi gáz",
        "Verteidigungsgas",
        "Defence gas",
        "start of phase 3",
        "truce with one chosen player: neither may attack the other",
        (W_MOVEMENT,),
        T_SEAT,
    ),
    Card(
        26,
        "Vízözön",
        "Fluß",
        "Flood",
        "start of phase 2",
        "every dino on the coast dies on a d6 + its parasols of 3 or less",
        (W_CLIMATE,),
    ),
)
"""All 26 cards; ``CARDS[n - 1].number == n``."""


def bit(number: int) -> int:
    """The hand-mask bit of card ``number`` (1-26)."""
    return 1 << (number - 1)


def window_masks(deck: tuple[int, ...]) -> list[int]:
    """For each window, the mask of cards of ``deck`` that may be played in it."""
    masks = [0] * N_WINDOWS
    for number in deck:
        for w in CARDS[number - 1].windows:
            masks[w] |= bit(number)
    return masks


def climate_mask() -> int:
    """Mask of the climate-changing cards."""
    return sum(bit(c) for c in CLIMATE_CARDS)


def allowed_phases(number: int) -> set[int]:
    """Rulebook phases a card may be played in (16: any phase, after another card)."""
    if number == DOUBLING:
        return set(range(1, 7))
    return {WINDOW_PHASE[w] for w in CARDS[number - 1].windows}
