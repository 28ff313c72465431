"""The two numpy records of a Dinosaur Table Battles game: the static TABLE and the STATE.

The table holds the card pool (every dino version and action card as small integers), the
draft pool, the first game's teams and the parameters; :func:`make_table` builds it once per
configuration. The state is everything that changes during a game; a search bot copies it
with one assignment (``pool[i] = st``). Field names avoid ``np.record`` methods.

Where the logged quantities live (the kit's logging kernel reads these):

* per seat: ``team[s, :n_team[s]]`` (dino ids = rows of the card file), ``cards0[s]`` (action
  cards at the start), ``markers0[s]`` (hit markers at the start), ``first[s]`` (1 for the
  first player), the winner from ``winner`` (seat, -1 when none) or ``final_result``;
* per game: ``turn`` (turns played), ``end_reason`` (constants.END_*);
* draft picks and turns: the event records (:data:`EVENTS`); the current turn's values are
  also in the state's fields until the next turn starts.
"""

from __future__ import annotations

import numpy as np

from rules.core.events import Event, Events, Field
from rules.core.jit import records
from rules.table_battles.cards import TREX_NAME, CardPool
from rules.table_battles.constants import (
    KIND_DICE,
    KIND_PASSIVE,
    MAX_HAND,
    MAX_POOL,
    MAX_POOL_CARDS,
    MAX_SLOTS,
    MAX_TEAM,
    ONE_MARKER_TIMES,
    SETUP_DRAFT,
    SETUP_FIRST_GAME,
    reaction_kind,
)
from rules.table_battles.params import TableBattlesParameters

P = 2
# Random streams: chance (the draft deal), the two bots, then one dice stream per seat, so
# a rule variant that rolls more or fewer dice for one player keeps the other's dice.
CHANCE = 0
S_DICE = 1 + P  # seat s rolls from S_DICE + s
N_STREAMS = 3 + P

EVENTS = Events(
    Event(
        "draft",
        (
            Field("seat", "the seat"),
            Field("pick", "0 the secret removal, 1 the first placement, 2.. place-or-remove"),
            Field("dino", "the dino (row of the card file)"),
            Field("action", "constants.D_PLACE / D_REMOVE_OPEN / D_REMOVE_SECRET"),
            Field("draft_rating", "its printed draft rating"),
        ),
        doc="a dino card drafted (placed or removed)",
    ),
    Event(
        "turn",
        (
            Field("turn", "turn, from 0 (both players' turns counted)"),
            Field("seat", "the active seat"),
            Field("attacker", "the attacking dino, -1 when there was no attack"),
            Field("attack_card", "the attacking action card (global card id), -1 none"),
            Field("attack_dice", "dice on the attacking card when it attacked"),
            Field("target", "the targeted dino, -1 none"),
            Field("reaction", "the reacting card (global card id), -1 none"),
            Field("reaction_kind", "constants.RK_*"),
            Field("reactor", "the reacting dino, -1 none"),
            Field("hit_dino", "the dino that took the hits, -1 none (blocked, no attack)"),
            Field("hits", "hits of the attack after every modifier and the reaction"),
            Field("resolved", "-1 no hits, 0 markers removed, 1 a card flipped"),
            Field("counter_hits", "counter hits on the attacking dino"),
            Field("self_hits", "'1 self' markers the attacker paid"),
            Field("markers_left_seat0", "hit markers left, seat 0"),
            Field("markers_left_seat1", "hit markers left, seat 1"),
            Field("cards_face_up_seat0", "face-up action cards of the dinos in play, seat 0"),
            Field("cards_face_up_seat1", "face-up action cards of the dinos in play, seat 1"),
            Field("dice_placed", "dice the active seat placed in its dice phase"),
            Field("dice_on_cards_seat0", "dice on the face-up action cards in play, seat 0"),
            Field("dice_on_cards_seat1", "dice on the face-up action cards in play, seat 1"),
            Field("stolen", "markers the Velociraptors' Egg Thieves took back"),
        ),
        doc="a player turn, finished",
    ),
    capacity=32,
)
"""The records the engine leaves in ``ev``, drained by the kernel after every
:func:`rules.table_battles.engine.advance` (:mod:`rules.core.events`)."""
DRAFT_EVENT, TURN_EVENT = EVENTS.layout("draft"), EVENTS.layout("turn")
emit_draft, emit_turn = EVENTS.emitter("draft"), EVENTS.emitter("turn")

TABLE = np.dtype(
    [
        ("n_dinos", np.int64),  # dino versions in the card file
        ("n_pool", np.int64),  # dinos in play (the draft pool)
        ("pool", np.int16, (MAX_POOL,)),
        ("d_cards", np.int8, (MAX_POOL,)),  # action cards (2 small, 3 large)
        ("d_first", np.int16, (MAX_POOL,)),  # global id of its first action card
        ("d_bp", np.int8, (MAX_POOL,)),  # break point
        ("d_rating", np.int8, (MAX_POOL,)),  # draft rating
        ("d_cls", np.int8, (MAX_POOL,)),  # CL_NONE / CL_AIR / CL_WATER
        ("d_large", np.int8, (MAX_POOL,)),
        ("d_trex", np.int8, (MAX_POOL,)),
        ("d_alpha", np.int8, (MAX_POOL,)),  # rank of the name, alphabetically
        ("d_option", np.int8, (MAX_POOL,)),  # restrictable option id of the dino, -1 none
        ("d_faces", np.int8, (MAX_POOL,)),  # union of the faces its dice areas accept
        ("d_name", np.int8, (MAX_POOL,)),  # code of its name in CardPool.dino_names()
        ("c_dino", np.int16, (MAX_POOL_CARDS,)),
        ("c_number", np.int8, (MAX_POOL_CARDS,)),  # 1.. within its dino
        ("c_kind", np.int8, (MAX_POOL_CARDS,)),  # KIND_DICE / KIND_PASSIVE
        ("c_faces", np.int8, (MAX_POOL_CARDS,)),  # face bit mask, or PAIR_AREA
        ("c_bracket", np.int8, (MAX_POOL_CARDS,)),
        ("c_attack", np.int8, (MAX_POOL_CARDS,)),  # ATK_*
        ("c_apair", np.int8, (MAX_POOL_CARDS,)),
        ("c_react", np.int8, (MAX_POOL_CARDS,)),  # reaction template
        ("c_rkind", np.int8, (MAX_POOL_CARDS,)),  # RK_*
        ("c_rpair", np.int8, (MAX_POOL_CARDS,)),
        ("c_passive", np.int8, (MAX_POOL_CARDS,)),  # P_*
        ("setup", np.int64),
        ("first_team", np.int16, (P, MAX_TEAM)),
        ("first_n", np.int64, (P,)),
        ("draft_hand", np.int64),
        ("card_cap", np.int64),
        ("dice", np.int64),
        ("markers_per_dino", np.int64),
        ("bonus_markers", np.int64),
        ("trex_markers", np.int64),
        ("max_turns", np.int64),
        ("pair_stack", np.int64),
        ("self_when_blocked", np.int64),
        ("counter_bp", np.int64),
        ("class_counters", np.int64),
        ("air_vs_water", np.int64),
        ("water_vs_air", np.int64),
        ("flip_returns", np.int64),
        ("treetops_mandatory", np.int64),
        ("treetops_hits", np.int64),
        ("tyrant_bonus", np.int64),
        ("egg_steal", np.int64),
        ("sky_bonus", np.int64),
        ("passive_bonus", np.int64),
        ("one_marker_counter", np.int64),
        ("one_marker_at", np.int64),  # ONE_MARKER_AT_ATTACK / ONE_MARKER_AT_SELF_HIT
    ],
    align=True,
)
"""The rules of one configuration: card pool and parameters, read-only during play."""

STATE = np.dtype(
    [
        # progress of the resumable engine
        ("step", np.int64),
        ("kind", np.int64),  # pending decision (constants.DRAFT ...), 0 when none
        ("actor", np.int64),  # seat that decides
        ("over", np.int64),
        ("end_reason", np.int64),  # constants.END_*
        ("winner", np.int64),  # seat, -1 none (turn cap or not over)
        ("turn", np.int64),  # turns played so far (from 0)
        ("active", np.int64),  # seat whose turn it is
        ("first_seat", np.int64),
        # draft
        ("deck", np.int16, (MAX_POOL,)),
        ("deck_len", np.int64),
        ("hand", np.int16, (P, MAX_HAND)),
        ("hand_len", np.int64, (P,)),
        ("dstep", np.int64),  # 0 secret removal, 1 first placement, 2.. place-or-remove
        ("pend", np.int64, (P,)),  # the simultaneous choice of each seat (hidden until both)
        ("has_pend", np.int64, (P,)),
        ("seen", np.int64, (P,)),  # bit d: seat has seen dino d (own hands, public cards)
        # teams and cards
        ("team", np.int16, (P, MAX_TEAM)),  # dino ids
        ("n_team", np.int64, (P,)),
        ("alive", np.int8, (P, MAX_TEAM)),  # still in play
        ("n_alive", np.int64, (P,)),
        ("team_slot", np.int8, (P, MAX_TEAM)),  # first card slot of each dino
        ("team_up", np.int8, (P, MAX_TEAM)),  # face-up action cards of each dino
        ("pmask", np.int64, (P, MAX_TEAM)),  # bit p: passive p face up on a dino in play
        ("n_slots", np.int64, (P,)),
        ("slot_card", np.int16, (P, MAX_SLOTS)),  # global card id
        ("slot_team", np.int8, (P, MAX_SLOTS)),  # team index of the card's dino
        ("up", np.int8, (P, MAX_SLOTS)),  # 1 face up, 0 flipped
        ("dice", np.int8, (P, MAX_SLOTS, 7)),  # [.., 0] dice on the card, [.., f] of face f
        ("free", np.int64, (P,)),  # dice in the player's pool (not on a card)
        ("rolled", np.int64, (7,)),  # the active player's roll not yet placed, by face
        ("skip", np.int64, (P,)),  # reacted: skips the next attack phase
        ("markers", np.int64, (P,)),
        ("markers0", np.int64, (P,)),
        ("cards0", np.int64, (P,)),
        ("first", np.int64, (P,)),
        # the current turn (also the turn record's values)
        ("a_slot", np.int64),  # attacking card slot, -1 none
        ("a_team", np.int64),
        ("a_dice", np.int64),  # dice on the attacking card when activated
        ("a_markers", np.int64),  # the attacker's hit markers when the attack was made
        ("tgt", np.int64),  # target team index
        ("r_slot", np.int64),  # reacting card slot, -1 none
        ("r_kind", np.int64),  # RK_*
        ("r_dice", np.int64),
        ("h_team", np.int64),  # team index taking the hits (-1: blocked / none)
        ("hits", np.int64),
        ("counter", np.int64),  # hits on the attacking dino
        ("self_hits", np.int64),
        ("resolved", np.int64),  # -1 no hits, 0 markers, 1 flip
        ("stolen", np.int64),
        ("placed_mask", np.int64),  # team bits that received dice this turn
        ("n_placed", np.int64),  # dinos that received dice this turn
        ("dice_placed", np.int64),
        ("bk_seat", np.int64),  # pending break-point choice
        ("bk_team", np.int64),
        ("bk_hits", np.int64),
        ("bk_kind", np.int64),  # 0 the attack's hits, 1 counter hits on the attacker
        # event records for the kernel
        *EVENTS.state_fields(),
        ("rng", np.uint64, (N_STREAMS,)),
    ],
    align=True,
)
"""One game in progress."""


def make_table(p: TableBattlesParameters, cards: CardPool, n_players: int = 2) -> np.ndarray:
    """The :data:`TABLE` record array (length 1) for a validated configuration."""
    from rules.table_battles.options import dino_option

    p.check_players(n_players, cards)
    tb = records(1, TABLE)
    t = tb[0]
    t.n_dinos = len(cards.dinos)
    pool = cards.pool(p.expansion)
    t.n_pool = len(pool)
    t.pool[: len(pool)] = pool
    order = sorted(range(len(cards.dinos)), key=lambda i: cards.dinos[i].name.lower())
    c = 0
    for i, d in enumerate(cards.dinos):
        t.d_cards[i] = d.n_cards
        t.d_first[i] = c
        t.d_bp[i] = d.break_point
        t.d_rating[i] = d.draft_rating
        t.d_cls[i] = d.cls
        t.d_large[i] = d.large
        t.d_trex[i] = d.name.lower() == TREX_NAME.lower()
        t.d_alpha[i] = order.index(i)
        t.d_option[i] = dino_option(d.name)
        t.d_name[i] = cards.name_code(i)
        mask = 0
        for k, card in enumerate(d.cards):
            t.c_dino[c] = i
            t.c_number[c] = k + 1
            t.c_kind[c] = KIND_DICE if card.kind == "dice" else KIND_PASSIVE
            t.c_faces[c] = card.faces
            t.c_bracket[c] = card.bracketed
            t.c_attack[c] = card.attack
            t.c_apair[c] = card.attack_pair
            t.c_react[c] = card.reaction
            t.c_rkind[c] = reaction_kind(card.reaction)
            t.c_rpair[c] = card.reaction_pair
            t.c_passive[c] = card.passive
            if card.kind == "dice":
                mask |= 0b1111110 if card.faces == 1 else card.faces
            c += 1
        t.d_faces[i] = mask
    t.setup = SETUP_FIRST_GAME if p.setup == "first_game" else SETUP_DRAFT
    if p.setup == "first_game":
        for s, names in enumerate(p.first_game_names()):
            t.first_n[s] = len(names)
            for k, name in enumerate(names):
                t.first_team[s, k] = cards.find(name, p.expansion)
    t.draft_hand, t.card_cap, t.dice = p.draft_hand, p.card_cap, p.dice
    t.markers_per_dino, t.bonus_markers = p.markers_per_dino, p.bonus_markers
    t.trex_markers, t.max_turns = p.trex_markers, p.max_turns
    t.pair_stack, t.self_when_blocked = p.pair_stack, p.self_hit_when_blocked
    t.counter_bp, t.class_counters = p.counter_break_point, p.class_rules_on_counters
    t.air_vs_water, t.water_vs_air = p.air_vs_water, p.water_vs_air
    t.flip_returns, t.treetops_mandatory = p.flip_returns_dice, p.treetops_mandatory
    t.treetops_hits, t.tyrant_bonus = p.treetops_hits, p.tyrant_bonus
    t.egg_steal, t.sky_bonus = p.egg_thieves_steal, p.sky_watch_bonus
    t.passive_bonus, t.one_marker_counter = p.passive_bonus, p.one_marker_flip_counter
    t.one_marker_at = ONE_MARKER_TIMES.index(p.one_marker_self_at)
    return tb


def new_states(n: int) -> np.ndarray:
    """``n`` game states (``states[i] = st`` copies one)."""
    return records(n, STATE)
