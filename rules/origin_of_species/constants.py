"""The vocabulary of Evolution: The Origin of Species as small integers.

``TRAITS`` is the one place that fixes the trait ids: a trait's id is its index, bit ``i`` of
every trait bitmask (``STATE.an_tr``, the attack events' trait columns) is trait ``i``.
English names follow the spec (``shared/rules/evolution.md``); the Slovak seed names the same
traits (``SK`` below; ``-`` where the seed never names the trait).
"""

from __future__ import annotations

TRAITS = (
    "Carnivore",
    "High Body Weight",
    "Parasite",
    "Burrowing",
    "Camouflage",
    "Sharp Vision",
    "Swimming",
    "Running",
    "Mimicry",
    "Tail Loss",
    "Poisonous",
    "Scavenger",
    "Piracy",
    "Hibernation",
    "Grazing",
    "Fat Tissue",
    "Communication",
    "Cooperation",
    "Symbiosis",
)
"""Trait names by id (bit ``i`` of a trait mask is ``TRAITS[i]``)."""
SK = (
    "Mäsožravec",
    "Vysoká hmotnosť",
    "Parazit",
    "-",
    "-",
    "-",
    "Plávanie",
    "Beh",
    "Mimikry",
    "Strata chvosta",
    "-",
    "-",
    "Zlodejstvo",
    "Schopnosť hibernácie",
    "-",
    "Tukové tkanivo",
    "Komunikácia",
    "Spolupráca",
    "Symbióza",
)
N_TRAITS = len(TRAITS)
(
    CARNIVORE,
    HIGH_BODY_WEIGHT,
    PARASITE,
    BURROWING,
    CAMOUFLAGE,
    SHARP_VISION,
    SWIMMING,
    RUNNING,
    MIMICRY,
    TAIL_LOSS,
    POISONOUS,
    SCAVENGER,
    PIRACY,
    HIBERNATION,
    GRAZING,
    FAT_TISSUE,
    COMMUNICATION,
    COOPERATION,
    SYMBIOSIS,
) = range(N_TRAITS)

PRINTED_FOOD = (1, 1, 2) + (0,) * (N_TRAITS - 3)
"""Extra food printed in each trait's corner (seed: Carnivore and High Body Weight +1, Parasite
+2); the deck loader checks a deck file's food columns against it."""
PAIRED = (COMMUNICATION, COOPERATION, SYMBIOSIS)
"""Traits played between two animals (``ln_kind`` of a link is ``trait - COMMUNICATION``)."""
LINK_COMM, LINK_COOP, LINK_SYMB = 0, 1, 2


def bit(trait: int) -> int:
    """The mask bit of ``trait``."""
    return 1 << trait


def trait_id(name: str) -> int:
    """The id of a trait named in English (case and spaces ignored); -1 when unknown."""
    key = name.strip().lower().replace("_", " ")
    for i, t in enumerate(TRAITS):
        if t.lower() == key:
            return i
    return -1


def mask_names(mask: int) -> list[str]:
    """The trait names of a bitmask, in id order."""
    return [t for i, t in enumerate(TRAITS) if mask >> i & 1]


MIN_PLAYERS = 2
MAX_PLAYERS = 8
"""2-4 players with one set, up to 8 with two sets mixed (seed)."""
MAX_TYPES = 32
"""Most distinct cards (top/bottom trait combinations) a deck may have."""
MAX_CARDS = 256
"""Most cards in play (all sets mixed)."""
MAX_ANIMALS = 32
"""Most animals one player may have at once (an engine limit: playing an animal is refused at
it; no game with the base deck came near it, see RULES.md)."""
MAX_LINKS = 32
"""Most paired-trait cards one player may have on the table at once (an engine limit)."""
MAX_FAT = 15
"""Most Fat Tissue cards on one animal (an engine limit)."""

# What advance() stops for (st.kind); st.actor decides.
NO_DECISION = 0
DEVELOP = 1  # play a card as an animal or a trait, or pass (final)
FEED = 2  # a feeding turn: main action (red token, attack, fat), free traits, or end the turn
DEFEND = 3  # the attacked animal's owner: Running, Mimicry, Tail Loss, or accept
LINK = 4  # several paired traits could pass food on: which fires next
SCAVENGE = 5  # several own scavengers could eat: which one
ROUND_DONE = 6  # not a decision: a round ended, its counters can be logged
GAME_OVER = 7
DECISIONS = ("none", "develop", "feed", "defend", "link", "scavenge", "round done", "game over")

# Actions are int64: (op << 32) | (card type << 24) | (seat << 16) | (a << 8) | b; PASS = -1
# (pass in development, end the turn in feeding).
PASS = -1
# development
OP_ANIMAL = 1  # play card type as a new animal
OP_TOP = 2  # play the top trait of card type on (seat, a[, b])
OP_BOTTOM = 3  # play the bottom trait
# feeding: main actions (end the turn's main action)
OP_RED = 4  # take a red token from the food bank for animal a
OP_ATTACK = 5  # carnivore a attacks (seat, b)
OP_FAT = 6  # convert b fat tokens of animal a into food
# feeding: free actions (with or instead of the main action)
OP_HIBERNATE = 7  # animal a hibernates
OP_PIRACY = 8  # pirate a takes a token from (seat, b)
OP_GRAZE = 9  # grazer a destroys a red token in the bank
# defence (the defender's owner decides)
OP_RUN = 10  # roll Running's die
OP_MIMIC = 11  # redirect to own animal b
OP_TAIL = 12  # drop trait (card type field = trait id; b = link index for a paired trait)
OP_ACCEPT = 13  # no (more) defence: the animal is eaten
# chains
OP_LINK = 14  # fire link b
OP_SCAVENGE = 15  # scavenger a takes the food
OPS = (
    "pass",
    "animal",
    "top",
    "bottom",
    "red",
    "attack",
    "fat",
    "hibernate",
    "piracy",
    "graze",
    "run",
    "mimic",
    "tail",
    "accept",
    "link",
    "scavenge",
)

# Attack outcomes and defences (attack events)
OUT_KILLED, OUT_ESCAPED, OUT_TAIL_LOST = 0, 1, 2
OUTCOMES = ("killed", "escaped", "tail_lost")
DEF_NONE, DEF_RUNNING, DEF_MIMICRY, DEF_TAIL_LOSS = 0, 1, 2, 3
DEFENCES = ("none", "running", "mimicry", "tail_loss")

# Use counters (STATE.uses[seat, u]): u < N_TRAITS counts uses of that trait (see USE_DOCS),
# then a few extra counters.
U_FAT_STORED = N_TRAITS
U_RUN_ESCAPES = N_TRAITS + 1
N_USES = N_TRAITS + 2
USE_NAMES = (*TRAITS, "fat stored", "running escapes")
USE_DOCS = (
    "attacks made by the seat's carnivores",
    "attacks on High Body Weight targets by the seat's carnivores, plus the seat's High Body "
    "Weight animals shielded from a carnivore without it when an attack was declared",
    "hosts of the seat (it holds the card) that starved with a Parasite",
    "the seat's fed burrowers shielded when an attack was declared",
    "the seat's camouflaged animals shielded when an attack was declared",
    "attacks on camouflaged targets by the seat's carnivores",
    "attacks swimmer on swimmer by the seat's carnivores, plus the seat's animals shielded by "
    "a Swimming mismatch when an attack was declared",
    "Running dice rolled for the seat's animals",
    "attacks redirected by the seat's Mimicry",
    "traits dropped by the seat's Tail Loss",
    "carnivores poisoned by the seat's animals",
    "food tokens the seat's scavengers took",
    "tokens the seat's pirates took",
    "hibernations of the seat's animals",
    "red tokens the seat's grazers destroyed",
    "fat tokens the seat converted into food",
    "tokens passed on by the seat's Communication",
    "tokens passed on by the seat's Cooperation",
    "the seat's Symbiosis partners shielded when an attack was declared",
    "food tokens stored as fat by the seat's animals",
    "attacks the seat's animals escaped by Running",
)
