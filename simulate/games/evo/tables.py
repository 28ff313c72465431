"""EVO's log tables, each column declared once (see :mod:`simulate.kit.tables`).

Rounds are numbered from 1 in every table, as the rulebook counts them ("no cards in rounds 1
and 2"); seats from 0 in turn order of the table (the lineup's seat numbers).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from rules.evo.cards import CARDS, T_NEWBORN, T_VICTIM, WINDOW_NAMES, WINDOW_PHASE
from rules.evo.constants import GENES, N_GENES, TERRAINS
from rules.evo.state import EVENTS
from simulate.kit.events import copier
from simulate.kit.tables import (
    LABEL_LIST,
    LABELS,
    Buffer,
    Column,
    Kind,
    Table,
    game_id,
    group,
    n_players,
    n_winners,
    rotation,
    seat,
    strategy,
    winner,
    winner_seat,
)

I8, I16, I64, BOOL = pa.int8(), pa.int16(), pa.int64(), pa.bool_()
GENE_COLUMNS = ("tails", "legs", "horns", "eggs", "furs", "parasols", "mutations")
TIE_NAMES = ("tails", "dinos", "die")
CARD_NAMES = tuple(c.hungarian for c in CARDS)


def rounds(setup) -> int:
    """Most rounds a game of the setup can last."""
    return setup.params.max_rounds(setup.n_players)


def _moves(setup) -> int:
    p = setup.params
    return max(p.portrait[1] + p.gene_bag[1], p.dinos_per_player)


def _eggs(setup) -> int:
    p = setup.params
    return p.portrait[3] + p.gene_bag[3]


def _cards(setup) -> int:
    return 2 * len(setup.params.event_cards) + 2


GAMES = Table(
    "games",
    "one row per game",
    (
        game_id(games=True),
        n_players(),
        Column("rounds", I8, "rounds played (the last one has no auction)", "rounds"),
        winner_seat(),
        n_winners(),
        Column("impact", BOOL, "the meteor struck on a die roll (else it reached the last space)"),
        Column("meteor_space", I8, "meteor space at the end"),
        rotation(),
    ),
    rows_per_game=lambda s: 1,
    kind=Kind.GAME,
)
PLAYERS = Table(
    "players",
    "one row per game and seat",
    (
        game_id(fill=True),
        seat(),
        strategy(),
        Column("points", I16, "evolution points at the end", "points"),
        Column("bonus", I8, "Váratlan gén points added for the final count", "points"),
        Column("score", I16, "points + bonus: what decides the winner", "points"),
        Column("dinos", I8, "dinos on the board at the end (the tie-break)"),
        winner(),
        *group(
            "genes",
            (*GENE_COLUMNS, "cards_bought"),
            I8,
            lambda g: (
                "card genes bought" if g == "cards_bought" else f"{g} on the portrait at the end"
            ),
        ),
        Column("cards_played", I8, "event cards played (Osztódás takes count)"),
        Column("cards_held", I8, "event cards in hand at the end"),
        Column(
            "cards_seen",
            LABEL_LIST,
            "every event card that reached the hand (dealt, drawn with a card gene, taken with "
            "Osztódás), by card number",
            labels=CARD_NAMES,
            width=len(CARDS),
        ),
        Column("start_region", I16, "region number of the start star"),
    ),
    rows_per_game=lambda s: s.n_players,
    kind=Kind.GAME,
)
TURNS = Table(
    "turns",
    "one row per game, round and seat",
    (
        game_id(),
        Column("round", I8, "round, from 1"),
        Column("seat", I8, "seat"),
        Column("initiative", I8, "position in player order from phase 1 (0 = first player)"),
        Column(
            "initiative_by",
            LABELS,
            "what placed the seat: tails (unique tail count), dinos (tails tied) or die",
            labels=TIE_NAMES,
        ),
        Column("order", I8, "position at the end of the round (after Én jövök előbb!)"),
        Column("dinos", I8, "dinos on the board after survival"),
        Column("points", I16, "points after scoring (phase 5, after Túlélőgén)", "points"),
        *group(
            "genes",
            GENE_COLUMNS,
            I8,
            lambda g: f"{g} this round (before this round's auction)",
            width=N_GENES,
        ),
        Column("born", I8, "newborns placed in phase 4 (and dinos swapped in by Kire ütött)"),
        Column("died_climate", I8, "dinos lost in phase 5"),
        Column("died_combat", I8, "dinos lost in combat (phases 3 and 4)"),
        Column("died_card", I8, "dinos lost to Baleset, Vízözön or Kire ütött"),
        Column("scored", I8, "points scored in phase 5", "points"),
        Column("paid", I16, "points paid in this round's auction", "points"),
        Column("penalty", I8, "points lost to another player's Túlélőgén", "points"),
        Column("cards_held", I8, "event cards in hand at the end of the round"),
    ),
    rows_per_game=lambda s: rounds(s) * s.n_players,
)
ROUNDS = Table(
    "rounds",
    "one row per game and round",
    (
        game_id(),
        Column("round", I8, "round, from 1"),
        Column("first_seat", I8, "first player at the end of the round"),
        Column("climate_roll", I8, "climate die (0 when a card decided the climate)"),
        Column("climate_card", I8, "climate card played (number 1-26) or -1"),
        Column(
            "temperate",
            LABELS,
            "terrain of the temperate zone after the climate phase",
            labels=TERRAINS,
        ),
        Column("climate_field", I8, "field of the climate track under the marker (0 = start)"),
        Column("meteor_space", I8, "meteor space after phase 6"),
        Column("meteor_roll", I8, "meteor die (0 when the space shows none)"),
        Column("impact", BOOL, "the meteor struck this round"),
    ),
    rows_per_game=rounds,
)
COMBATS = Table(
    "combats",
    "one row per attack",
    (
        game_id(),
        Column("round", I8, "round, from 1"),
        Column("phase", I8, "3 movement, 4 a newborn with Kemény kölykök"),
        Column("attacker_seat", I8, "attacking seat"),
        Column("defender_seat", I8, "defending seat"),
        Column("attacker_horns", I8, "effective horns (with Óriásgén, Kemény kölykök)"),
        Column("defender_horns", I8, "effective horns (with Nagytestvér)"),
        Column("roll", I8, "the attacker's die"),
        Column("attacker_won", BOOL, "the defender was removed"),
        Column("region", I16, "contested region number"),
    ),
    rows_per_game=lambda s: rounds(s) * s.n_players * (_moves(s) + _eggs(s)),
    expected_rows=lambda s: 12,
)
BIDS = Table(
    "bids",
    "one row per gene bought",
    (
        game_id(),
        Column("round", I8, "round, from 1"),
        Column("seat", I8, "buyer"),
        Column("gene", LABELS, "gene kind", labels=GENES),
        Column("bid", I16, "final winning bid", "points"),
        Column(
            "paid",
            I16,
            "points paid (bid minus mutations and Genetikai fölény, at least 0)",
            "points",
        ),
        Column("mutations", I8, "mutation genes owned before paying"),
    ),
    rows_per_game=lambda s: rounds(s) * s.n_players,
)
CARDS_PLAYED = Table(
    "cards",
    "one row per event card played",
    (
        game_id(),
        Column("round", I8, "round, from 1"),
        Column("seat", I8, "player"),
        Column("card", I8, "card number 1-26 (the seed's order)"),
        Column("card_name", LABELS, "Hungarian name", labels=CARD_NAMES),
        Column("phase", I8, "rulebook phase 1-6"),
        Column("window", LABELS, "the moment in the round it was played", labels=WINDOW_NAMES),
        Column("target", I16, "region number, die face, seat or (Osztódás) card taken; 0 if none"),
        Column("reaction", BOOL, "played as Osztódás right after another card"),
    ),
    rows_per_game=_cards,
    expected_rows=lambda s: 16,
)
TRACE = Table(
    "events",
    "replay trace: every event record the engine left, with its round",
    (Column("round", I8, "round, from 1"),),
    rows_per_game=lambda s: (
        rounds(s) * s.n_players * (2 * _moves(s) + 2 * _eggs(s) + 2 * s.params.dinos_per_player + 4)
        + 2 * _cards(s)
    ),
    kind=Kind.TRACE,
    buffers=(Buffer("data", np.int32, EVENTS.width),),
)
TABLES = (GAMES, PLAYERS, TURNS, ROUNDS, COMBATS, BIDS, CARDS_PLAYED, TRACE)

PHASE_OF_WINDOW = np.array(WINDOW_PHASE, dtype=np.int8)
REGION_TARGET = np.array([c.target in (T_VICTIM, T_NEWBORN) for c in CARDS], dtype=np.int8)
"""1 for the cards whose target is a region (by card number - 1): logged from 1, as the map
numbers regions."""
ROW = ("game_id", "round")
copy_combat = copier(EVENTS, "combat", COMBATS, context=ROW, columns={"region": "region + 1"})
copy_bid = copier(EVENTS, "bid", BIDS, context=ROW)
copy_card = copier(
    EVENTS,
    "card",
    CARDS_PLAYED,
    context=ROW,
    columns={
        "card_name": "card - 1",
        "phase": "PHASE_OF_WINDOW[window]",
        "target": "target + REGION_TARGET[card - 1]",
    },
    env={"PHASE_OF_WINDOW": PHASE_OF_WINDOW, "REGION_TARGET": REGION_TARGET},
)
"""The event records that become rows (:mod:`simulate.kit.events`), called by the kernel."""
