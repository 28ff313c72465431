"""The two numpy records of an Origin of Species game: the static TABLE and the STATE.

The table holds the deck (card types and copies, all sets mixed) and every rule parameter as a
number; :func:`make_table` builds it once per configuration. The state is one game in
progress; a search bot copies it with one assignment (``pool[i] = st``). Both are fixed-size
records (:func:`rules.core.jit.records`); field names avoid ``np.record`` methods.

Where the logged quantities live (the kit reads them; see ``docs/origin_of_species.md``):

* per game: ``rnd + 1`` rounds played; at the end ``score``, ``end_animals``, ``end_traits``,
  ``extra``, ``discard_n`` per seat, winners from
  :func:`rules.origin_of_species.engine.final_result`.
* per round (complete when ``advance`` returns ROUND_DONE): ``r_bank`` (tokens rolled for the
  food bank), ``r_deck_left``; per seat ``r_animals`` (at the start of extinction),
  ``r_survivors``, ``r_traits`` (trait cards on survivors), ``r_red`` (red tokens taken from
  the bank, ``food_taken``), ``r_blue`` (blue tokens received), ``r_kills``, ``r_drawn``,
  ``r_hand`` (cards in hand after the draw), ``r_need`` (food the seat's animals needed when
  the bank was rolled), ``r_starved`` and ``r_poisoned`` (animals lost at extinction),
  ``r_score`` (the points the seat would score if the game ended after this extinction),
  ``uses_r`` (trait uses this round).
* per game and seat: ``uses`` (trait uses, :data:`~rules.origin_of_species.constants.USE_DOCS`).
* event records (:data:`EVENTS`; the kernel copies and clears them after each engine call).
"""

from __future__ import annotations

import numpy as np

from rules.core.events import Event, Events, Field
from rules.core.jit import records
from rules.origin_of_species.constants import (
    CARNIVORE,
    HIGH_BODY_WEIGHT,
    MAX_ANIMALS,
    MAX_CARDS,
    MAX_LINKS,
    MAX_PLAYERS,
    MAX_TYPES,
    MIN_PLAYERS,
    N_TRAITS,
    N_USES,
    PARASITE,
)
from rules.origin_of_species.deck import Deck
from rules.origin_of_species.params import OosParameters

P, A, L, T = MAX_PLAYERS, MAX_ANIMALS, MAX_LINKS, MAX_TYPES

# Random streams: chance (deck shuffle), the bots 1..8, then dedicated chance streams so that a
# rule variant rolling more or fewer dice of one kind keeps the others (paired comparisons).
CHANCE = 0
S_FOOD, S_RUN, S_ORDER = 1 + P, 2 + P, 3 + P
N_STREAMS = 4 + P

# Animal flags (an_flags bits).
F_ATTACKED = 1  # its Carnivore was used this round
F_NO_RED = 2  # attacked this round: takes no more red tokens (unless red_after_attack)
F_PIRATED = 4  # its Piracy was used this round
F_HIB = 8  # hibernating this round
F_HIB_PREV = 16  # hibernated last round
F_POISONED = 32  # ate a Poisonous animal: dies at extinction
F_MIMIC = 64  # its Mimicry was used this round
BOT_SCRATCH = 96
"""Slots of each of the bots' scratch arrays ``bot_f`` and ``bot_i``; the bots lay them out
by name and check that their layout fits (:func:`strategies.core.scratch.scratch_layout`)."""

EVENTS = Events(
    Event(
        "trait",
        (
            Field("seat", "the player who played the card"),
            Field("trait", "the trait played (constants.TRAITS)"),
            Field("target_owner", "seat whose animal received it (another only for a Parasite)"),
            Field("card", "the card type (deck order)"),
            Field("side", "0 its top, 1 its bottom"),
            Field("animal", "the animal (from 0, in its owner's row)"),
            Field("partner", "the second animal of a paired trait, -1 none"),
        ),
        doc="a trait card laid face up",
    ),
    Event(
        "attack",
        (
            Field("attacker_seat", "seat of the carnivore"),
            Field("attacker_traits", "the carnivore's trait mask"),
            Field("defender_seat", "seat of the final target (after any Mimicry)"),
            Field("defender_traits", "the final target's trait mask"),
            Field("defence_used", "the last defence used (constants.DEFENCES)"),
            Field("outcome", "constants.OUTCOMES"),
            Field("defences", "every defence used: bits 1 Running, 2 Mimicry, 4 Tail Loss"),
            Field("redirects", "times Mimicry redirected the attack"),
            Field("running_roll", "Running's die on the final target, 0 not rolled"),
            Field("scavenger_seat", "seat whose Scavenger took food from the kill, -1 none"),
            Field("poisoned", "1: the prey was Poisonous"),
            Field("dropped", "the trait Tail Loss dropped, -1 none"),
        ),
        doc="an attack, on its final target",
    ),
    Event(
        "animal",
        (Field("seat", "the player"), Field("card", "the card type played as an animal")),
        doc="a new animal",
    ),
    Event(
        "red",
        (
            Field("seat", "the animal's owner"),
            Field("animal", "the animal"),
            Field("via", "0 its owner's turn, 1 Communication"),
            Field("into_fat", "1: stored as fat"),
        ),
        doc="a red token taken from the food bank",
        verbose=True,
    ),
    Event(
        "fat",
        (
            Field("seat", "the owner"),
            Field("animal", "the animal"),
            Field("tokens", "fat tokens converted"),
        ),
        doc="fat converted to food",
        verbose=True,
    ),
    Event(
        "hibernate",
        (Field("seat", "the owner"), Field("animal", "the animal")),
        doc="Hibernation used",
        verbose=True,
    ),
    Event(
        "piracy",
        (
            Field("seat", "the pirate's owner"),
            Field("pirate", "the pirate"),
            Field("victim_seat", "the victim's owner"),
            Field("victim", "the victim"),
        ),
        doc="Piracy steals a token",
        verbose=True,
    ),
    Event(
        "graze",
        (Field("seat", "the owner"), Field("grazer", "the grazer")),
        doc="Grazing destroys a red token in the bank",
        verbose=True,
    ),
    Event(
        "link",
        (
            Field("seat", "the owner"),
            Field("link", "0 Communication, 1 Cooperation"),
            Field("origin", "the animal passing the token on"),
            Field("destination", "the animal receiving it"),
        ),
        doc="a paired trait passes a token on",
        verbose=True,
    ),
    Event(
        "scavenge",
        (Field("seat", "the owner"), Field("scavenger", "the scavenger")),
        doc="a Scavenger takes a token from the kill",
        verbose=True,
    ),
    Event(
        "pass",
        (Field("seat", "the seat"), Field("phase", "0 development, 1 feeding")),
        doc="a seat passes (development) or ends its feeding",
        verbose=True,
    ),
    Event(
        "extinct",
        (
            Field("seat", "the seat"),
            Field("starved", "animals that starved"),
            Field("poisoned", "animals that died of poison"),
            Field("survivors", "animals left"),
        ),
        doc="a seat's extinction",
        verbose=True,
    ),
    Event(
        "draw",
        (Field("seat", "the seat"), Field("drawn", "cards drawn"), Field("hand", "hand after")),
        doc="a seat's draw",
        verbose=True,
    ),
    Event(
        "food",
        (Field("bank", "red tokens rolled for the food bank"), Field("first", "first player")),
        doc="the food bank rolled",
        verbose=True,
    ),
    capacity=96,
    stamp_round=True,
    count_lost=True,
)
"""The records the engine leaves in ``ev`` (:mod:`rules.core.events`): ``trait``, ``attack``
and ``animal`` always, the others only while ``verbose``; a record that finds the buffer full
is counted in ``ev_lost``."""
TRAIT_EVENT, ATTACK_EVENT, ANIMAL_EVENT = (EVENTS.layout(e) for e in ("trait", "attack", "animal"))
emit_trait, emit_attack, emit_animal = (EVENTS.emitter(e) for e in ("trait", "attack", "animal"))
emit_red, emit_fat, emit_hibernate = (EVENTS.emitter(e) for e in ("red", "fat", "hibernate"))
emit_piracy, emit_graze, emit_link = (EVENTS.emitter(e) for e in ("piracy", "graze", "link"))
emit_scavenge, emit_pass, emit_extinct = (
    EVENTS.emitter(e) for e in ("scavenge", "pass", "extinct")
)
emit_draw, emit_food = EVENTS.emitter("draw"), EVENTS.emitter("food")

TABLE = np.dtype(
    [
        ("n_players", np.int64),
        ("n_types", np.int64),
        ("n_cards", np.int64),  # all sets
        ("n_sets", np.int64),
        ("type_top", np.int64, (T,)),
        ("type_bot", np.int64, (T,)),  # -1: one-trait card
        ("type_copies", np.int64, (T,)),  # all sets
        ("hand_size", np.int64),
        ("empty_draw", np.int64),
        ("food_dice", np.int64),
        ("food_add", np.int64),
        ("first_player", np.int64),
        ("last_next", np.int64),
        ("food", np.int64, (N_TRAITS,)),  # extra food need per trait
        ("bonus", np.int64, (N_TRAITS,)),  # extra points per trait
        ("animal_points", np.int64),
        ("trait_points", np.int64),
        ("paired_per_animal", np.int64),
        ("one_carn_phase", np.int64),
        ("red_after_attack", np.int64),
        ("kill_food", np.int64),
        ("tail_food", np.int64),
        ("scav_food", np.int64),
        ("scav_fat", np.int64),
        ("run_from", np.int64),
        ("mimic_mandatory", np.int64),
        ("mimic_chain", np.int64),
        ("tail_parasite", np.int64),
        ("pass_final", np.int64),
        ("link_per_action", np.int64),
        ("pirate_hunger", np.int64),
        ("pirate_fat", np.int64),
        ("hib_last", np.int64),
        ("hib_burrow", np.int64),
        ("symb_fat", np.int64),
        ("end_empty_bank", np.int64),  # feeding_ends == "empty_bank"
        ("free_after", np.int64),  # free_traits_after_main
        ("fat_any", np.int64),  # fat_conversion == "any"
        ("link_either", np.int64),  # paired_direction == "either"
        ("max_rounds", np.int64),
        ("food_lo", np.int64),
        ("food_hi", np.int64),
    ],
    align=True,
)
"""The rules of one configuration, read-only during play."""

STATE = np.dtype(
    [
        # progress of the resumable engine
        ("step", np.int64),
        ("rnd", np.int64),  # round, from 0
        ("kind", np.int64),  # pending decision (constants.DEVELOP ...), 0 when none
        ("actor", np.int64),  # seat that decides
        ("over", np.int64),
        ("last", np.int64),  # this round is the last (the deck was empty when it began)
        ("first", np.int64),  # first player of this round
        ("pos", np.int64),  # development / feeding: position (from the first player) next
        ("turn", np.int64),  # feeding: seat whose turn it is
        ("turn_did", np.int64),  # the turn has done something
        ("main_done", np.int64),  # the turn's main action is done
        ("idle", np.int64),  # feeding: consecutive turns without an action
        ("ret", np.int64),  # step to resume after a chain
        ("ch_i", np.int64),  # chain: seat offset being processed
        ("sc_i", np.int64),  # scavenger search: seat offset being asked
        ("first_roll", np.int64, (P,)),  # setup scratch: die rolls for the first player
        # cards
        ("deck", np.int8, (MAX_CARDS,)),  # card types, drawn from deck_top
        ("deck_top", np.int64),
        ("deck_len", np.int64),
        ("hand", np.int16, (P, T)),  # cards of each type in each hand
        ("n_hand", np.int64, (P,)),
        ("public_out", np.int16, (T,)),  # cards ever played face up (traits): public
        ("animal_out", np.int16, (P, T)),  # cards each seat played as animals (its own secret)
        ("discard_n", np.int64, (P,)),
        ("dev_passed", np.int8, (P,)),
        # animals, left to right
        ("n_an", np.int64, (P,)),
        ("an_tr", np.int64, (P, A)),  # bits of single traits (not Fat Tissue, not paired)
        ("an_fat_cards", np.int8, (P, A)),
        ("an_fat", np.int8, (P, A)),  # fat tokens stored (persist across rounds)
        ("an_food", np.int8, (P, A)),  # red and blue tokens this round
        ("an_need", np.int8, (P, A)),
        ("an_flags", np.int64, (P, A)),
        ("an_links", np.int8, (P, A)),  # paired-trait cards touching it
        ("an_prot", np.int8, (P, A)),  # Symbiosis links protecting it (it is the partner)
        # paired traits (links), per seat
        ("n_ln", np.int64, (P,)),
        ("ln_kind", np.int8, (P, L)),  # 0 Communication, 1 Cooperation, 2 Symbiosis
        ("ln_a", np.int8, (P, L)),  # Symbiosis: the symbiont (protector)
        ("ln_b", np.int8, (P, L)),  # Symbiosis: the protected partner
        ("ln_used", np.int8, (P, L)),
        ("ln_armed", np.int8, (P, L)),  # 0, 1: pass food a -> b, 2: b -> a (first trigger)
        ("ln_also", np.int8, (P, L)),  # 1: armed, and then triggered from its other end too
        ("ln_dirty", np.int64),  # some ln_used is set
        # feeding
        ("bank", np.int64),
        ("f_passed", np.int8, (P,)),
        ("carn_phase", np.int8, (P,)),  # a carnivore of the seat attacked this phase
        ("grazed", np.int64, (P,)),  # bits: animals that grazed this turn
        # attack in progress
        ("at_s", np.int64),
        ("at_a", np.int64),
        ("tg_s", np.int64),
        ("tg_a", np.int64),
        ("at_mask", np.int64),  # attacker's traits when declared
        ("tg_mask", np.int64),  # current target's traits when (re)declared on it
        ("at_used", np.int64),  # defences used on the current target (bits 1 run, 4 tail)
        ("at_all", np.int64),  # every defence used in this attack (1 run, 2 mimicry, 4 tail)
        ("at_last", np.int64),  # the last defence used (DEF_*)
        ("at_redirects", np.int64),
        ("at_roll", np.int64),
        ("at_dropped", np.int64),
        ("at_scav", np.int64),
        ("at_poison", np.int64),
        # per-round counters for the logs
        ("r_bank", np.int64),
        ("r_deck_left", np.int64),
        ("r_animals", np.int64, (P,)),
        ("r_survivors", np.int64, (P,)),
        ("r_traits", np.int64, (P,)),
        ("r_red", np.int64, (P,)),
        ("r_blue", np.int64, (P,)),
        ("r_kills", np.int64, (P,)),
        ("r_drawn", np.int64, (P,)),
        ("r_hand", np.int64, (P,)),
        ("r_need", np.int64, (P,)),  # food the seat's animals needed when the bank was rolled
        ("r_starved", np.int64, (P,)),  # animals that died unfed at extinction
        ("r_poisoned", np.int64, (P,)),  # animals that died of poison at extinction
        ("r_score", np.int64, (P,)),  # points if the game ended after this extinction
        ("uses_r", np.int32, (P, N_USES)),
        ("uses", np.int32, (P, N_USES)),
        # the end
        ("score", np.int64, (P,)),
        ("extra", np.int64, (P,)),  # extra points for Carnivore, High Body Weight, Parasite
        ("end_animals", np.int64, (P,)),
        ("end_traits", np.int64, (P,)),
        # scratch space of the bots (no game meaning; lets them allocate nothing per decision)
        ("bot_f", np.float64, (BOT_SCRATCH,)),
        ("bot_i", np.int64, (BOT_SCRATCH,)),
        # event records for the kernel
        *EVENTS.state_fields(),
        ("pause", np.int64),  # 1: advance stops (returns NO_DECISION) before each extinction
        ("rng", np.uint64, (N_STREAMS,)),
    ],
    align=True,
)
"""One game in progress."""


def make_table(p: OosParameters, deck: Deck, n_players: int) -> np.ndarray:
    """The :data:`TABLE` record array (length 1) for a validated configuration."""
    p.check_players(n_players, deck)
    tb = records(1, TABLE)
    t = tb[0]
    sets = p.sets_for(n_players)
    t.n_players = n_players
    t.n_types = deck.n_types
    t.n_sets = sets
    t.n_cards = sets * deck.n_cards
    top, bot, copies = deck.kernel_types()
    t.type_top[: deck.n_types] = top
    t.type_bot[: deck.n_types] = bot
    t.type_copies[: deck.n_types] = copies * sets
    t.hand_size, t.empty_draw = p.hand_size, p.empty_draw
    t.food_dice = p.food_dice[n_players - MIN_PLAYERS]
    t.food_add = p.food_add[n_players - MIN_PLAYERS]
    t.food_lo, t.food_hi = p.food_range(n_players)
    t.first_player = p.first_player
    t.last_next = int(p.last_round == "next")
    for i, trait in enumerate((CARNIVORE, HIGH_BODY_WEIGHT, PARASITE)):
        t.food[trait] = p.extra_food[i]
        t.bonus[trait] = p.extra_points[i]
    t.animal_points, t.trait_points = p.animal_points, p.trait_points
    t.paired_per_animal = int(p.paired_points_per_animal)
    t.one_carn_phase = int(p.carnivore_once_per_phase)
    t.red_after_attack = int(p.red_after_attack)
    t.kill_food, t.tail_food, t.scav_food = p.kill_food, p.tail_loss_food, p.scavenger_food
    t.scav_fat = int(p.scavenger_into_fat)
    t.run_from = p.running_escape_from
    t.mimic_mandatory, t.mimic_chain = int(p.mimicry_mandatory), int(p.mimicry_chain)
    t.tail_parasite = int(p.tail_loss_parasite)
    t.pass_final = int(p.feeding_pass_final)
    t.link_per_action = int(p.paired_once_per == "action")
    t.pirate_hunger, t.pirate_fat = int(p.piracy_needs_hunger), int(p.piracy_into_fat)
    t.hib_last = int(p.hibernation_in_last_round)
    t.hib_burrow = int(p.hibernating_is_fed_for_burrowing)
    t.symb_fat = int(p.symbiosis_blocks_fat)
    t.end_empty_bank = int(p.feeding_ends == "empty_bank")
    t.free_after = int(p.free_traits_after_main)
    t.fat_any = int(p.fat_conversion == "any")
    t.link_either = int(p.paired_direction == "either")
    t.max_rounds = p.max_rounds(n_players, deck)
    return tb


def new_states(n: int) -> np.ndarray:
    """``n`` game states (``states[i] = st`` copies one)."""
    return records(n, STATE)
