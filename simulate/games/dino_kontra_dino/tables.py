"""Dino Kontra Dino's log tables, each column declared once (see :mod:`simulate.kit.tables`)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from rules.dino_kontra_dino.deck import TRAITS
from rules.dino_kontra_dino.params import game_rounds
from simulate.kit.tables import (
    Buffer,
    Column,
    Derived,
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

I8, I64, BOOL = pa.int8(), pa.int64(), pa.bool_()
ROUND = ("game_id", "round")
STRENGTH_FILE = "strength.parquet"
"""The data file of every (event_id, card_id)'s strength, from which turns' is derived."""


def rounds(setup) -> int:
    """Rounds of every game of the setup (the deck lasts as long in every game)."""
    return game_rounds(setup.data.n_dinos, setup.n_players, setup.params.hand_size)


GAMES = Table(
    "games",
    "one row per game",
    (
        game_id(games=True),
        n_players(),
        Column("rounds", I8, "events resolved", "rounds"),
        winner_seat(),
        n_winners(),
        Column("first_holder", I8, "seat that started with the dinosaur figure"),
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
        seat("seat, numbered clockwise from 0"),
        strategy(),
        Column("events_won", I8, "event cards collected", "cards"),
        *group(
            "trait_events",
            [f"{t}_events" for t in TRAITS],
            I8,
            lambda name: f"won events bearing the {name.removesuffix('_events')} icon",
            "cards",
        ),
        winner(),
        Column("figure_at_end", BOOL, "held the dinosaur figure at the end"),
    ),
    rows_per_game=lambda s: s.n_players,
    kind=Kind.GAME,
)
ROUNDS = Table(
    "rounds",
    "one row per game and round",
    (
        game_id(),
        Column("round", I8, "round, from 0"),
        Column("event_id", I8, "event resolved this round (deck number, from 1)"),
        Column("holder", I8, "seat holding the figure before the round"),
        Column("winner", I8, "seat that won the event (and takes the figure)"),
        Column("top_strength", I8, "the highest strength played", "trait points"),
        Column("n_top", I8, "seats that played the highest strength; above 1 the figure decided"),
    ),
    rows_per_game=rounds,
)
TURNS = Table(
    "turns",
    "one row per game, round and seat",
    (
        game_id(),
        Column("round", I8, "round, from 0"),
        Column("seat", I8, "seat"),
        Column(
            "event_id",
            I8,
            "event resolved this round (deck number, from 1)",
            derived=Derived("rounds", ROUND, "event_id"),
        ),
        Column("card_id", I8, "dinosaur the seat played (deck number, from 1)"),
        Column(
            "strength",
            I8,
            "the card's total in the event's required traits",
            "trait points",
            derived=Derived(STRENGTH_FILE, ("event_id", "card_id"), "strength"),
        ),
        Column(
            "holder",
            I8,
            "seat holding the figure before the round",
            derived=Derived("rounds", ROUND, "holder"),
        ),
        Column(
            "won",
            BOOL,
            "this seat won the event",
            derived=Derived("rounds", ROUND, "winner", equals="seat"),
        ),
    ),
    rows_per_game=lambda s: rounds(s) * s.n_players,
)
HANDS = Table(
    "hands",
    "replay trace: each seat's hand before each round, one row per turns row",
    (),
    rows_per_game=lambda s: rounds(s) * s.n_players,
    kind=Kind.TRACE,
    buffers=(Buffer("hand", np.int8, lambda s: s.params.hand_size),),
)
TABLES = (GAMES, PLAYERS, ROUNDS, TURNS, HANDS)
