"""Origin of Species' log tables, each column declared once (see :mod:`simulate.kit.tables`).

Rounds are numbered from 1; seats from 0 in the engine's order (the lineup's order without
--rotate; the first player of round 1 is rolled, ``games.first_seat``). Trait ids are the order
of ``rules.origin_of_species.constants.TRAITS`` (``traits.parquet`` beside the logs lists them):
in every trait bitmask (``players.survivor_traits``, ``attacks.attacker_traits`` ...) bit ``i``
is the trait with ``trait_id`` ``i``.

Row bounds per game are exact upper bounds, not estimates: a game lasts at most
``max_rounds`` rounds (``OosParameters.max_rounds``, which the engine enforces); every trait
played uses a card (``traits``: at most the cards in play); each carnivore attacks at most once
a round (``attacks``: at most ``max_rounds`` times the Carnivore cards in play).
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa

from rules.origin_of_species.constants import (
    CARNIVORE,
    DEFENCES,
    N_TRAITS,
    OUTCOMES,
    TRAITS,
    USE_DOCS,
    USE_NAMES,
)
from rules.origin_of_species.state import EVENTS
from simulate.kit.events import copier
from simulate.kit.tables import (
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

I8, I16, I32, I64, BOOL = pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.bool_()


def snake(name: str) -> str:
    """``High Body Weight`` -> ``high_body_weight``."""
    return re.sub(r"\W+", "_", name.strip().lower())


USE_COLUMNS = tuple(
    f"used_{snake(u)}" if i < N_TRAITS else snake(u) for i, u in enumerate(USE_NAMES)
)
"""``players`` columns of the engine's use counters (``constants.USE_DOCS``), in counter order."""
DROPPED = ("none", *TRAITS)
"""Labels of ``attacks.dropped``: code = trait id + 1, 0 none."""


def rounds_cap(setup) -> int:
    """Most rounds a game of the setup lasts (the engine stops there)."""
    return setup.params.max_rounds(setup.n_players, setup.data)


def cards(setup) -> int:
    """Cards in play (every set mixed)."""
    return setup.params.sets_for(setup.n_players) * setup.data.n_cards


def carnivore_cards(setup) -> int:
    return setup.params.sets_for(setup.n_players) * setup.data.counts(CARNIVORE)


def card_names(setup) -> list[str]:
    """Every card type of the deck as played, ``Top / Bottom`` (``traits.card`` labels)."""
    return [setup.data.type_name(t) for t in range(setup.data.n_types)]


def events_cap(setup) -> int:
    """Generous bound on the engine's verbose events of one game (replay only; the kernel
    never writes past the trace buffer in any case)."""
    hi = setup.params.food_range(setup.n_players)[1]
    return rounds_cap(setup) * (4 * cards(setup) + 2 * hi + 8 * setup.n_players) + 2 * cards(setup)


def _mask_doc(whose: str) -> str:
    return (
        f"{whose} traits when the attack was declared, a bitmask: bit i is the trait with "
        "trait_id i in traits.parquet (Fat Tissue and the paired traits included)"
    )


GAMES = Table(
    "games",
    "one row per game",
    (
        game_id(games=True),
        n_players(),
        Column("rounds", I8, "rounds played", "rounds"),
        winner_seat("the sole winner's seat, -1 when the victory is shared"),
        n_winners(),
        Column(
            "tie_break",
            BOOL,
            "the top score was tied: the discard piles decided, or the tie "
            "stood and the victory is shared",
        ),
        Column(
            "margin", I16, "the winner's score minus the best other seat's (0 when tied)", "points"
        ),
        Column("first_seat", I8, "first player of round 1 (rolled, or rule first_player)"),
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
        Column(
            "score",
            I16,
            "final points: 2 per surviving animal, 1 per trait card on it, and "
            "the extra points of Carnivore, High Body Weight and Parasite",
            "points",
        ),
        Column("animals", I8, "surviving animals at the end", "animals"),
        Column(
            "traits",
            I16,
            "trait cards on the surviving animals (a paired card once per animal it joins)",
            "cards",
        ),
        Column(
            "extra_points",
            I16,
            "the part of score from Carnivore, High Body Weight and "
            "Parasite on surviving animals (a Parasite's to its host's owner)",
            "points",
        ),
        Column("discard", I16, "cards in the discard pile (the tie-break)", "cards"),
        winner(),
        Column(
            "survivor_traits",
            I32,
            "traits on at least one surviving animal at the end, a "
            "bitmask: bit i is the trait with trait_id i in traits.parquet",
        ),
        Column("carnivores", I8, "surviving animals with Carnivore at the end", "animals"),
        Column(
            "carnivore_points",
            I16,
            "the points of those carnivores (animal, trait cards, extras)",
            "points",
        ),
        Column("animals_played", I16, "cards played as animals during the game", "cards"),
        Column(
            "traits_played",
            I16,
            "cards played as traits (on own animals, or a Parasite on another's)",
            "cards",
        ),
        Column(
            "food_taken",
            I16,
            "red tokens taken from the food bank (Communication's included) over the game",
            "tokens",
        ),
        Column(
            "food_received",
            I16,
            "blue tokens received (kills, Tail Loss, Cooperation, Scavenger, Piracy) over the game",
            "tokens",
        ),
        Column("kills", I16, "animals the seat's carnivores ate", "animals"),
        *group(
            "uses",
            USE_COLUMNS,
            I16,
            lambda c: USE_DOCS[USE_COLUMNS.index(c)] + " (over the game)",
            "uses",
        ),
    ),
    rows_per_game=lambda s: s.n_players,
    kind=Kind.GAME,
)
ROUNDS = Table(
    "rounds",
    "one row per game and round",
    (
        game_id(),
        Column("round", I8, "round, from 1"),
        Column("first_seat", I8, "first player of the round"),
        Column("food_bank", I16, "red tokens rolled for this round's feeding phase", "tokens"),
        Column("deck_left", I16, "cards left in the deck after this round's draw", "cards"),
        Column("last", BOOL, "the last round of the game"),
    ),
    rows_per_game=rounds_cap,
    expected_rows=lambda s: rounds_cap(s) / 2 + 2,
)
TURNS = Table(
    "turns",
    "one row per game, round and seat",
    (
        game_id(),
        Column("round", I8, "round, from 1"),
        Column("seat", I8, "seat"),
        Column("animals", I8, "animals at the start of extinction", "animals"),
        Column("survivors", I8, "animals after extinction", "animals"),
        Column("traits", I16, "trait cards on the surviving animals", "cards"),
        Column(
            "need",
            I16,
            "food the seat's animals needed when the food bank was rolled (1 each, "
            "plus the extra food of Carnivore, High Body Weight and Parasite)",
            "tokens",
        ),
        Column(
            "food_taken",
            I16,
            "red tokens taken from the food bank (Communication's included)",
            "tokens",
        ),
        Column(
            "food_received",
            I16,
            "blue tokens received (kills, Tail Loss, Cooperation, Scavenger, Piracy)",
            "tokens",
        ),
        Column("starved", I8, "animals that died unfed at extinction", "animals"),
        Column("poisoned", I8, "carnivores that died of poison at extinction", "animals"),
        Column("kills", I8, "animals the seat's carnivores ate this round", "animals"),
        Column("cards_drawn", I8, "cards drawn at the end of the round", "cards"),
        Column("hand", I16, "cards in hand after drawing", "cards"),
        Column(
            "score",
            I16,
            "the points the seat would score if the game ended after this round",
            "points",
        ),
    ),
    rows_per_game=lambda s: rounds_cap(s) * s.n_players,
    expected_rows=lambda s: (rounds_cap(s) / 2 + 2) * s.n_players,
)
TRAITS_PLAYED = Table(
    "traits",
    "one row per trait played (a card laid face up)",
    (
        game_id(),
        Column("round", I8, "round, from 1"),
        Column("seat", I8, "the player who played the card"),
        Column(
            "trait",
            LABELS,
            "the trait played (its trait_id in traits.parquet is its code)",
            labels=TRAITS,
        ),
        Column(
            "target_owner", I8, "seat whose animal received it (another seat only for a Parasite)"
        ),
        Column("card", LABELS, "the card, Top / Bottom (deck.csv)", labels=card_names),
    ),
    rows_per_game=cards,
    expected_rows=lambda s: 0.8 * cards(s),
)
ATTACKS = Table(
    "attacks",
    "one row per attack, on its final target",
    (
        game_id(),
        Column("round", I8, "round, from 1"),
        Column("attacker_seat", I8, "seat of the carnivore"),
        Column("attacker_traits", I32, _mask_doc("the carnivore's")),
        Column("defender_seat", I8, "seat of the final target (after any Mimicry)"),
        Column(
            "defender_traits",
            I32,
            _mask_doc("the final target's") + "; after a Mimicry, the "
            "traits when the attack was redirected onto it",
        ),
        Column(
            "defence_used",
            LABELS,
            "the last defence used: none, running, mimicry or tail_loss",
            labels=DEFENCES,
        ),
        Column(
            "outcome",
            LABELS,
            "killed (eaten), escaped (Running) or tail_lost (Tail Loss)",
            labels=OUTCOMES,
        ),
        Column("redirects", I8, "times Mimicry redirected the attack"),
        Column("running_roll", I8, "Running's die on the final target (0: not rolled)"),
        Column("dropped", LABELS, "the trait Tail Loss dropped (none)", labels=DROPPED),
        Column("poisoned", BOOL, "the prey was Poisonous: the carnivore dies at extinction"),
        Column("scavenger_seat", I8, "seat whose Scavenger took food from the kill (-1: none)"),
    ),
    rows_per_game=lambda s: rounds_cap(s) * max(1, carnivore_cards(s)),
    expected_rows=lambda s: 4 * s.n_players,
)
TRACE = Table(
    "events",
    "replay trace: every event record the engine left (verbose)",
    (),
    rows_per_game=events_cap,
    kind=Kind.TRACE,
    buffers=(Buffer("data", np.int32, EVENTS.width),),
)
TABLES = (GAMES, PLAYERS, ROUNDS, TURNS, TRAITS_PLAYED, ATTACKS, TRACE)

copy_trait = copier(EVENTS, "trait", TRAITS_PLAYED, context=("game_id",))
copy_attack = copier(
    EVENTS, "attack", ATTACKS, context=("game_id",), columns={"dropped": "dropped + 1"}
)
"""The event records that become rows (:mod:`simulate.kit.events`), called by the kernel."""
