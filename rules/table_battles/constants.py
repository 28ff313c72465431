"""Dinosaur Table Battles' vocabulary as small integers: templates, passives, decisions, limits.

The German rules page of the online version (seed ``003_af55512b40c5669e.txt``) is the
authority; the names follow the English spec (``shared/rules/dinosaur_table_battles.md``) and
its effect templates (``dinosaur_table_battles_effect_templates.csv``). Every code here is what
the compiled engine, the card files and the logs use.
"""

from __future__ import annotations

N_PLAYERS = 2
MAX_POOL = 32
"""Most dino cards a card file may hold (both sets, replacement versions included)."""
MAX_POOL_CARDS = 3 * MAX_POOL
MAX_TEAM = 6
"""Most dinos on one side (a draft hand of 7 places at most 6)."""
MAX_SLOTS = 12
"""Most action cards on one side (``card_cap`` is at most 12; the first game has 8)."""
MAX_HAND = 7
"""Largest draft hand (``draft_hand``)."""

# Dice areas: ``faces`` is a bit mask of the accepted faces (bit f for face f = 1..6);
# PAIR_AREA marks the "Pasch" area (two blank symbols: exactly two equal dice a turn).
ALL_FACES = 0b1111110
PAIR_AREA = 1

# Attack templates (shared/rules/dinosaur_table_battles_effect_templates.csv)
ATTACKS = ("", "ATK_FLAT1", "ATK_PER_DIE", "ATK_PER_DIE_PLUS1", "ATK_PER_DIE_MINUS1")
ATK_NONE, ATK_FLAT1, ATK_PER_DIE, ATK_PER_DIE_PLUS1, ATK_PER_DIE_MINUS1 = range(5)
ATTACK_TEXT = (
    "",
    "1 hit",
    "1 hit per die. 1 self.",
    "1 hit per die plus 1 hit. 1 self.",
    "1 hit per die minus 1 hit. 1 self.",
)

# Reaction templates, grouped by kind
REACTIONS = (
    "",
    "ABS_ONLY1",
    "ABS_MINUS1",
    "ABS_MINUS_DICE",
    "ABS_FULL",
    "BLK",
    "CTR_1_NORMAL",
    "CTR_PER_DIE_NORMAL",
    "CTR_1_MINUS_DICE",
    "CTR_1_MINUS1",
)
(
    R_NONE,
    ABS_ONLY1,
    ABS_MINUS1,
    ABS_MINUS_DICE,
    ABS_FULL,
    BLK,
    CTR_1_NORMAL,
    CTR_PER_DIE_NORMAL,
    CTR_1_MINUS_DICE,
    CTR_1_MINUS1,
) = range(10)
REACTION_TEXT = (
    "",
    "Suffers only 1 hit",
    "Suffers 1 less hit",
    "Suffers hits (reduced by dice)",
    "Suffers hits",
    "Block",
    "1 hit. Suffers normal hits.",
    "1 hit per die. Suffers normal hits.",
    "1 hit. Reduce hits by dice.",
    "1 hit. Suffers 1 less hit.",
)
# reaction kinds (also the first three restrictable options)
RK_NONE, RK_ABSORB, RK_BLOCK, RK_COUNTER, RK_TREETOPS = range(5)
REACTION_KINDS = ("none", "absorb", "block", "counter", "treetops")


def reaction_kind(template: int) -> int:
    """The kind of a reaction template (absorb, block, counter)."""
    if template == R_NONE:
        return RK_NONE
    if template <= ABS_FULL:
        return RK_ABSORB
    if template == BLK:
        return RK_BLOCK
    return RK_COUNTER


# Passive abilities, each coded once in the engine (see RULES.md for each one's text).
PASSIVES = (
    "",
    "tyrant",  # Tyrannosaurus Rex: +1 hit when its attack triggered no reaction (provisional)
    "water_lurker",  # Spinosaurus "Wasserlauerer": cannot be targeted (seed)
    "treetops",  # Brachiosaurus "Baumkronen": reaction by flipping this card (seed + provisional)
    "sky_watch",  # Pteranodon "Himmel beobachten": ignores Blocks; +1 vs a flipped dino (seed)
    "egg_thieves",  # Velociraptors "Eierdiebe": steals a marker when markers are removed (seed)
    "headbutt",  # Pachycephalosaurus "Klopfer": reaction texts ignored, no Treetops (seed)
    "three_horns",  # Triceratops: ignores targeting restrictions with 3+ dice (seed)
    "scythe",  # Therizinosaurus: ignores all targeting restrictions (seed)
    "taunt",  # Stygimoloch: targeting restriction, must be targeted (provisional text)
    "giant_claws",  # Deinocheirus: targeting restriction, not by small dinos (provisional text)
    "thagomizer",  # Stegosaurus: its counters inflict 1 more hit (provisional)
    "pack_hunter",  # Utahraptor: +1 hit against small dinos (provisional)
    "dive",  # Quetzalcoatlus: +1 hit against large dinos (provisional)
    "glide",  # Microraptor: never suffers "self" hits (provisional)
    "ambush",  # Mosasaurus: its attacks cannot be countered (provisional)
    "long_neck",  # Elasmosaurus: absorbs 1 hit less (provisional)
)
(
    P_NONE,
    P_TYRANT,
    P_WATER_LURKER,
    P_TREETOPS,
    P_SKY_WATCH,
    P_EGG_THIEVES,
    P_HEADBUTT,
    P_THREE_HORNS,
    P_SCYTHE,
    P_TAUNT,
    P_GIANT_CLAWS,
    P_THAGOMIZER,
    P_PACK_HUNTER,
    P_DIVE,
    P_GLIDE,
    P_AMBUSH,
    P_LONG_NECK,
) = range(17)
N_PASSIVES = len(PASSIVES)

CLASSES = ("none", "air", "water")
CL_NONE, CL_AIR, CL_WATER = range(3)
SETS = ("base", "expansion")

KIND_DICE, KIND_PASSIVE = 0, 1

# What advance() stops for. Actions are one int64 (see engine.actions); -1 = pass / stop /
# take the markers / no reaction.
NO_DECISION = 0
DRAFT = 1  # draft: (dino << 16) | mode (0 place, 1 remove openly, 2 remove secretly)
ATTACK = 2  # (card slot << 16) | target team index, or -1 = no attack
REACT = 3  # reacting card slot, or -1 where no reaction is mandatory
BREAK = 4  # card slot to flip, or -1 = remove the hit markers
PLACE = 5  # (card slot << 16) | (face << 8) | count, or -1 = stop placing
ROUND_DONE = 6  # not a decision: a turn ended (its record is complete)
GAME_OVER = 7
DECISIONS = ("none", "draft", "attack", "react", "break", "place", "turn done", "game over")
PASS = -1

# Draft modes (the draft events' ``action``)
D_PLACE, D_REMOVE_OPEN, D_REMOVE_SECRET = 0, 1, 2
DRAFT_ACTIONS = ("placed", "removed openly", "removed secretly")

# How a game ended (``st.end_reason``)
END_NONE, END_MARKERS, END_ONE_DINO, END_BOTH_ONE, END_TURN_CAP = range(5)
END_REASONS = ("", "markers", "one dino", "both at one marker", "turn cap")

# Setup modes
SETUP_DRAFT, SETUP_FIRST_GAME = 0, 1
SETUPS = ("draft", "first_game")

# When the one-marker rule's "ignore self hits" is judged (rule one_marker_self_at)
ONE_MARKER_AT_ATTACK, ONE_MARKER_AT_SELF_HIT = 0, 1
ONE_MARKER_TIMES = ("attack", "self_hit")
