"""The two numpy records of an EVO game: the static TABLE and the STATE of one game.

The table holds the map, the parameters and a few derived facts (climate zones by marker
field, same-colour twins, expected rounds left by meteor space) and is built once per
configuration by :func:`make_table`. The state is everything that changes during a game; a
search bot copies it with one assignment (``pool[i] = st``). Both are fixed-size records (see
:func:`rules.core.jit.records`); field names avoid ``np.record`` methods.
"""

from __future__ import annotations

import numpy as np

from rules.core.events import Event, Events, Field
from rules.core.jit import records
from rules.evo.cards import N_CARDS, N_WINDOWS, climate_mask, window_masks
from rules.evo.constants import (
    COLD,
    FREEZING,
    MAX_BAG,
    MAX_CYCLE,
    MAX_DEGREE,
    MAX_DINOS,
    MAX_PLAYERS,
    MAX_REGIONS,
    MAX_ROWS,
    MAX_SPACES,
    SCORCHING,
    TEMPERATE,
    WARM,
)
from rules.evo.maps import EvoMap
from rules.evo.params import EvoParameters

R, P = MAX_REGIONS, MAX_PLAYERS

# Random streams of a game: chance (setup, card dice), the bots 1..5, then dedicated chance
# streams so that a rule variant which rolls more or fewer initiative or combat dice keeps the
# climate and meteor dice of the same seed (common random numbers for paired comparisons).
CHANCE = 0
S_CLIMATE, S_COMBAT, S_METEOR, S_ORDER = 1 + P, 2 + P, 3 + P, 4 + P
N_STREAMS = 5 + P

# Own effects of the current round (bits of ``eff``), set by event cards.
E_OVERFLIER, E_GENE_GUARD, E_HEAT_SKIN, E_TOUGH_YOUNG = 1, 2, 4, 8
E_BIG_BROTHER, E_GIANT, E_INSTINCT, E_NEOPRENE, E_WANDERERS = 16, 32, 64, 128, 256

EVENTS = Events(
    Event(
        "combat",
        (
            Field("attacker_seat", "attacking seat"),
            Field("defender_seat", "defending seat"),
            Field("attacker_horns", "effective horns (with Óriásgén, Kemény kölykök)"),
            Field("defender_horns", "effective horns (with Nagytestvér)"),
            Field("roll", "the attacker's die"),
            Field("attacker_won", "1 when the defender is removed"),
            Field("region", "the contested region (from 0)"),
            Field("phase", "3 movement, 4 a newborn with Kemény kölykök"),
        ),
        doc="an attack, phase 3 or 4",
    ),
    Event(
        "card",
        (
            Field("seat", "the player"),
            Field("card", "card number 1-26"),
            Field("window", "the moment in the round (cards.W_*)"),
            Field(
                "target",
                "region (from 0), die face, seat or (Osztódás) card number taken; 0 "
                "when the card has none",
            ),
            Field("reaction", "1 for Osztódás played right after another card", default=0),
        ),
        doc="an event card played",
    ),
    Event(
        "bid",
        (
            Field("seat", "the buyer"),
            Field("gene", "the gene kind (constants.GENES)"),
            Field("bid", "the final winning bid"),
            Field("paid", "points paid (bid minus mutations and Genetikai fölény, at least 0)"),
            Field("mutations", "mutation genes owned before paying"),
        ),
        doc="a gene bought in the auction",
    ),
    Event(
        "move",
        (
            Field("seat", "the moving seat"),
            Field("origin", "the region left (from 0)"),
            Field("destination", "the empty region entered (from 0)"),
        ),
        doc="a dino moves without a fight",
        verbose=True,
    ),
    Event(
        "place",
        (
            Field("seat", "the seat"),
            Field("region", "the empty region (from 0)"),
        ),
        doc="a newborn placed without a fight",
        verbose=True,
    ),
    Event(
        "death",
        (
            Field("seat", "the dino's owner"),
            Field("region", "its region (from 0)"),
            Field("cause", "0 the climate, 1 combat, 2 an event card"),
        ),
        doc="a dino removed",
        verbose=True,
    ),
    Event("pass", (Field("seat", "the seat"),), doc="a seat passes in the auction", verbose=True),
    capacity=64,
)
"""The records the engine leaves in ``ev`` for the kernel (:mod:`rules.core.events`)."""
COMBAT_EVENT, CARD_EVENT, BID_EVENT = (EVENTS.layout(e) for e in ("combat", "card", "bid"))
emit_combat, emit_card, emit_bid = (EVENTS.emitter(e) for e in ("combat", "card", "bid"))
emit_move, emit_place, emit_death = (EVENTS.emitter(e) for e in ("move", "place", "death"))
emit_pass = EVENTS.emitter("pass")

TABLE = np.dtype(
    [
        ("n_players", np.int64),
        ("n_regions", np.int64),
        ("max_dinos", np.int64),
        ("start_points", np.int64),
        ("cards_dealt", np.int64),
        ("terrain", np.int8, (R,)),
        ("coast", np.int8, (R,)),
        ("deg", np.int64, (R,)),
        ("adj", np.int16, (R, MAX_DEGREE)),
        ("dist", np.int8, (R, R)),  # shortest path lengths, capped at 127
        ("starts", np.int16, (P,)),  # the start regions (white stars)
        ("cycle", np.int8, (MAX_CYCLE,)),  # terrain of each climate field
        ("cycle_len", np.int64),
        ("climate_start", np.int64),
        ("die_step", np.int64, (6,)),  # climate steps by die face 1..6
        ("twin", np.int64, (MAX_CYCLE,)),  # the other field of the same colour, or -1
        ("zone", np.int8, (MAX_CYCLE, 4)),  # zone of each terrain by marker field
        ("combat_odds", np.int64, (5,)),
        ("portrait", np.int64, (8,)),
        ("bag_counts", np.int64, (8,)),
        ("bag_size", np.int64),
        ("deck", np.int8, (N_CARDS,)),  # card numbers minus one
        ("deck_size", np.int64),
        ("meteor_start", np.int64),
        ("meteor_last", np.int64),
        ("strike", np.int64, (MAX_SPACES,)),  # strike on a roll <= this (0: no die)
        ("max_rounds", np.int64),
        ("harder", np.int64),
        ("init_tails", np.int64),
        ("more_dinos_first", np.int64),
        ("no_card_rounds", np.int64),
        ("climate_cards", np.int64),
        ("bid_over", np.int64),
        ("window_mask", np.int64, (N_WINDOWS,)),
        ("climate_mask", np.int64),
        ("victim_min", np.int64),
        ("giant_horns", np.int64),
        ("big_brother_horns", np.int64),
        ("tough_young_horns", np.int64),
        ("overflier_points", np.int64),
        ("guard_raise", np.int64),
        ("surprise_points", np.int64),
        ("catastrophe_steps", np.int64),
        ("flood_dies_up_to", np.int64),
        ("wander_reach", np.int64),
        ("survival_all", np.int64),
        # Derived facts for bots (public knowledge of the rules, no hidden information).
        ("rounds_after", np.float64, (MAX_SPACES,)),  # expected rounds after an auction
        ("climate_next", np.float64, (MAX_CYCLE, MAX_CYCLE)),  # P(field a -> b) by the die
    ],
    align=True,
)
"""The rules of one configuration: map and parameters, read-only during play."""

STATE = np.dtype(
    [
        # progress of the resumable engine
        ("step", np.int64),
        ("rnd", np.int64),  # round, from 0
        ("kind", np.int64),  # pending decision (constants.CARD_PLAY ...), 0 when none
        ("actor", np.int64),  # seat that decides
        ("over", np.int64),
        ("impact", np.int64),
        # board
        ("owner", np.int8, (R,)),  # seat of the dino in a region, -1 empty
        ("fresh", np.int8, (R,)),  # 1: placed this round in phase 4
        ("slot", np.int8, (R,)),  # index of that dino in its owner's pieces
        ("pieces", np.int16, (P, MAX_DINOS)),  # regions of each seat's dinos
        ("n_dinos", np.int64, (P,)),
        # species and points
        ("genes", np.int64, (P, 8)),  # tail, leg, horn, egg, fur, parasol, mutation, cards bought
        ("points", np.int64, (P,)),
        ("bonus", np.int64, (P,)),  # Váratlan gén points for the final count
        # player order
        ("order", np.int8, (P,)),  # seat at each position, 0 = first player
        ("init_pos", np.int8, (P,)),  # position from phase 1 (before Én jövök előbb!)
        ("init_key", np.int64, (P,)),  # phase 1 scratch: tails and dinos
        ("init_roll", np.int64, (P,)),  # phase 1 scratch: die roll-offs
        ("init_tie", np.int64, (P,)),  # phase 1 scratch: still tied
        ("tie_how", np.int8, (P,)),  # what placed a seat: 0 tails, 1 dinos, 2 the die
        # climate and meteor
        ("climate", np.int64),  # field of the climate track under the marker
        ("rzone", np.int8, (R,)),  # climate zone of every region for ``climate`` (set_climate)
        ("meteor", np.int64),  # meteor space
        ("climate_roll", np.int64),  # 0 when a card decided the climate
        ("climate_card", np.int64),  # card number or -1
        ("meteor_roll", np.int64),
        ("forced_roll", np.int64),  # Meteorológus-gén: the chosen die face, else 0
        ("catastrophe", np.int64),
        # bag and cards
        ("bag", np.int8, (MAX_BAG,)),
        ("bag_top", np.int64),
        ("bag_len", np.int64),
        ("deck", np.int8, (N_CARDS,)),
        ("deck_top", np.int64),
        ("deck_len", np.int64),
        ("hand", np.int64, (P,)),  # bit c: holds card number c + 1
        ("locked", np.int64, (P,)),  # stolen this round (Osztódás): playable next round
        ("played", np.int64, (P,)),  # cards played so far
        ("seen", np.int64, (P,)),  # every card that reached the hand (dealt, drawn, taken)
        # round effects
        ("sleep", np.int64),
        ("climate_used", np.int64),
        ("peace", np.int64),
        ("no_births", np.int64),
        ("fur_minus", np.int64),
        ("parasol_minus", np.int64),
        ("missing_link", np.int64),
        ("eff", np.int64, (P,)),  # E_* bits
        ("truce", np.int8, (P,)),  # Védelmi gáz partner or -1
        # card windows
        ("window", np.int64),
        ("win_i", np.int64),
        ("win_next", np.int64),
        ("win_order", np.int8, (P,)),
        ("react", np.int64),  # card just played (number - 1) that Osztódás may take, or -1
        ("react_by", np.int64),
        ("options", np.int64),  # cards the pending CARD_PLAY decision may play (a hand mask)
        # phases 3-5
        ("seq", np.int64),  # position in player order of the seat in turn
        ("mp", np.int64),  # movement points left
        ("eggs_left", np.int64),
        ("wiped", np.int64),  # the seat had no dinos when its reproduction began
        ("cull_zone", np.int64),
        ("stamp", np.int64),
        ("mark", np.int32, (R,)),  # mark[r] == stamp: a legal newborn region
        ("marked", np.int16, (R,)),  # those regions, in the order found
        ("n_marked", np.int64),
        # auction
        ("offer", np.int8, (MAX_ROWS,)),  # gene of each row
        ("n_rows", np.int64),
        ("max_pass", np.int64),
        ("n_passed", np.int64),
        ("holder", np.int8, (MAX_ROWS,)),
        ("bid_row", np.int8, (P,)),
        ("bid_val", np.int64, (P,)),
        ("passed", np.int8, (P,)),
        ("auction_next", np.int64),
        ("pending", np.int64),  # outbid seat that must bid again, or -1
        ("bought", np.int8, (P,)),  # gene bought this round or -1
        ("paid", np.int64, (P,)),
        # per-round counters for the logs
        ("born", np.int64, (P,)),
        ("died_climate", np.int64, (P,)),
        ("died_combat", np.int64, (P,)),
        ("died_card", np.int64, (P,)),
        ("scored", np.int64, (P,)),
        ("penalty", np.int64, (P,)),
        ("points_p5", np.int64, (P,)),  # points after phase 5
        # event records for the kernel
        *EVENTS.state_fields(),
        ("rng", np.uint64, (N_STREAMS,)),
    ],
    align=True,
)
"""One game in progress."""


def _zone(delta: int) -> int:
    if delta == 0:
        return TEMPERATE
    if delta == -1:
        return WARM
    if delta == 1:
        return COLD
    return SCORCHING if delta < 0 else FREEZING


def rounds_after(strike: np.ndarray, last: int) -> np.ndarray:
    """Expected rounds still to come after an auction held with the meteor on space ``m``.

    The next round is sure; after it the meteor moves to ``m + 1``: the game ends there on the
    last space or on a strike (a roll up to ``strike[m + 1]``), else continues.
    """
    out = np.zeros(MAX_SPACES)
    for m in range(last - 1, -1, -1):
        nxt = m + 1
        if nxt >= last:
            out[m] = 1.0
        else:
            go_on = 1.0 - strike[nxt] / 6.0
            out[m] = 1.0 + go_on * out[nxt]
    return out


def make_table(p: EvoParameters, evo_map: EvoMap, n_players: int) -> np.ndarray:
    """The :data:`TABLE` record array (length 1) for a validated configuration."""
    tb = records(1, TABLE)
    t = tb[0]
    n = evo_map.n_regions
    t.n_players, t.n_regions = n_players, n
    t.max_dinos, t.start_points, t.cards_dealt = p.dinos_per_player, p.start_points, p.cards_dealt
    t.terrain[:n] = evo_map.terrain
    t.coast[:n] = evo_map.coast
    for i, nbs in enumerate(evo_map.neighbours):
        t.deg[i] = len(nbs)
        t.adj[i, : len(nbs)] = nbs
    t.dist[:n, :n] = np.minimum(evo_map.distances(), 127)
    t.starts[:n_players] = np.flatnonzero(evo_map.start)[:n_players]
    cyc = p.climate_cycle
    t.cycle_len, t.climate_start = len(cyc), p.climate_start
    t.cycle[: len(cyc)] = cyc
    t.die_step[:] = p.climate_die
    for i, terr in enumerate(cyc):
        same = [j for j, u in enumerate(cyc) if u == terr and j != i]
        t.twin[i] = same[0] if len(same) == 1 else -1
        for k in range(4):
            t.zone[i, k] = _zone(k - terr)
        for face in range(6):
            t.climate_next[i, (i + p.climate_die[face]) % len(cyc)] += 1.0 / 6.0
    t.combat_odds[:] = p.combat_odds
    t.portrait[:7] = p.portrait
    t.bag_counts[:] = p.gene_bag
    t.bag_size = sum(p.gene_bag)
    t.deck_size = len(p.event_cards)
    t.deck[: t.deck_size] = [c - 1 for c in p.event_cards]
    t.meteor_start = p.meteor_start_for(n_players)
    t.meteor_last = p.meteor_last_space
    for space, up_to in zip(p.meteor_die_spaces, p.meteor_strikes_up_to, strict=True):
        t.strike[space] = up_to
    t.max_rounds = p.max_rounds(n_players)
    t.harder, t.init_tails = int(p.harder), int(p.initiative_tails)
    t.more_dinos_first = int(p.initiative_more_dinos_first)
    t.no_card_rounds, t.climate_cards = p.no_card_rounds, p.climate_cards_per_round
    t.bid_over = p.bid_over_points
    t.window_mask[:] = window_masks(tuple(p.event_cards))
    t.climate_mask = climate_mask()
    t.victim_min = p.victim_min_dinos
    t.giant_horns, t.big_brother_horns = p.giant_horns, p.big_brother_horns
    t.tough_young_horns, t.overflier_points = p.tough_young_horns, p.overflier_points
    t.guard_raise, t.surprise_points = p.gene_guard_raise, p.surprise_points
    t.catastrophe_steps, t.flood_dies_up_to = p.catastrophe_steps, p.flood_dies_up_to
    t.wander_reach, t.survival_all = p.wander_reach, int(p.survival_gene_all_losses)
    t.rounds_after[:] = rounds_after(t.strike, p.meteor_last_space)
    return tb


def new_states(n: int) -> np.ndarray:
    """``n`` game states (``states[i] = st`` copies one)."""
    return records(n, STATE)
