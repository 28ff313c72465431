"""Dinosaur Table Battles' log tables, each column declared once (see :mod:`simulate.kit.tables`).

Seats are numbered from 0 as the engine numbers them (the lineup's order without --rotate);
turns from 1, both players' turns counted (as ``max_turns`` counts them); draft picks from 0
(the secret removal). Dinos are logged by name (a replacement version, such as the expansion's
Spinosaurus, shares its name); action cards as ``<dino> <number>``, with the set where a name
has two versions. Where a turn had no attack, no reaction or no hits, the category columns
say ``none``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from rules.table_battles.constants import (
    DRAFT_ACTIONS,
    END_REASONS,
    MAX_HAND,
    MAX_TEAM,
    REACTION_KINDS,
)
from rules.table_battles.state import EVENTS
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
RESOLUTIONS = ("none", "markers", "flip")
"""How the defender resolved the attack's hits (turns.resolved): code = engine value + 1."""
DECISIONS_PER_TURN = 8
"""Most decisions of one turn: attack, reaction, two break-point choices, three placements."""


def dino_names(setup) -> list[str]:
    """Every dino name of the card file, once (the ``dinos`` and ``dino`` columns' labels)."""
    return setup.data.dino_names()


def dino_or_none(setup) -> list[str]:
    return ["none", *setup.data.dino_names()]


def card_or_none(setup) -> list[str]:
    return ["none", *setup.data.card_labels()]


def drafts_per_game(setup) -> int:
    """Every dealt dino card is placed or removed once; the first game's teams draft nothing."""
    return 2 * setup.params.draft_hand if setup.params.setup == "draft" else 0


def turns_cap(setup) -> int:
    return setup.params.max_turns


GAMES = Table(
    "games",
    "one row per game",
    (
        game_id(games=True),
        n_players("players at the table (always 2)"),
        Column(
            "rounds",
            I16,
            "rounds played: both players' turns make a round, the last may be half of one",
            "rounds",
        ),
        Column("turns", I16, "player turns played (both players' turns counted)", "turns"),
        winner_seat("the winner's seat, -1 when the turn cap stopped the game"),
        n_winners("1, or 0 when the turn cap stopped the game (nobody won)"),
        Column(
            "end_reason",
            LABELS,
            "why the game ended: markers (the opponent has none left), "
            "one dino (the opponent has one left), both at one marker (most face-up action "
            "cards win), turn cap (max_turns reached: no winner)",
            labels=END_REASONS[1:],
        ),
        Column(
            "first_seat",
            I8,
            "seat of the first player (fewest hit markers, else the alphabetical tie-break)",
        ),
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
            "dinos",
            LABEL_LIST,
            "the team, in the order it was drafted",
            labels=dino_names,
            width=MAX_TEAM,
        ),
        Column("n_dinos", I8, "dino cards in the team", "dinos"),
        Column("action_cards", I8, "action cards of the team at the start", "cards"),
        Column(
            "hit_markers", I16, "hit markers at the start (per dino, plus the bonuses)", "markers"
        ),
        Column(
            "fewer_dinos",
            BOOL,
            "had fewer dino cards than the opponent (bonus_markers extra hit markers)",
        ),
        Column(
            "fewer_cards",
            BOOL,
            "had fewer action cards than the opponent (bonus_markers extra hit markers)",
        ),
        Column("trex", BOOL, "has the Tyrannosaurus Rex (trex_markers extra hit markers)"),
        Column("draft_rating", I16, "sum of the team's printed draft ratings", "rating points"),
        Column("first", BOOL, "was the first player"),
        winner("won (false for both seats when the turn cap stopped the game)"),
        Column("markers_left", I16, "hit markers left at the end", "markers"),
        Column("dinos_left", I8, "dinos still in play at the end", "dinos"),
        Column(
            "cards_face_up", I8, "face-up action cards of the dinos in play at the end", "cards"
        ),
    ),
    rows_per_game=lambda s: 2,
    kind=Kind.GAME,
)
DRAFTS = Table(
    "drafts",
    "one row per game, seat and draft pick (every dealt dino card once)",
    (
        game_id(),
        Column("seat", I8, "seat"),
        Column(
            "pick",
            I8,
            "pick, from 0: 0 the secret removal, 1 the first placement, 2.. place "
            "or remove openly (both seats choose each pick at once)",
        ),
        Column("dino", LABELS, "the dino card", labels=dino_names),
        Column("action", LABELS, "what the seat did with it", labels=DRAFT_ACTIONS),
        Column("draft_rating", I8, "the dino's printed draft rating", "rating points"),
    ),
    rows_per_game=drafts_per_game,
)
TURNS = Table(
    "turns",
    "one row per game and player turn",
    (
        game_id(),
        Column("turn", I16, "turn, from 1 (both players' turns counted)"),
        Column("seat", I8, "the active seat"),
        Column(
            "attacker",
            LABELS,
            "the attacking dino (none: no attack this turn)",
            labels=dino_or_none,
        ),
        Column("attack_card", LABELS, "the attacking action card", labels=card_or_none),
        Column("attack_dice", I8, "dice on the attacking card when it attacked", "dice"),
        Column("target", LABELS, "the targeted dino", labels=dino_or_none),
        Column(
            "reaction",
            LABELS,
            "the defender's reacting card (Treetops: Brachiosaurus's passive card)",
            labels=card_or_none,
        ),
        Column(
            "reaction_kind",
            LABELS,
            "none, absorb, block, counter or treetops",
            labels=REACTION_KINDS,
        ),
        Column(
            "hit_dino",
            LABELS,
            "the dino that took the hits (the absorbing one, or none when blocked)",
            labels=dino_or_none,
        ),
        Column("hits", I8, "hits of the attack after every modifier and the reaction", "hits"),
        Column(
            "resolved",
            LABELS,
            "how the defender took the hits: markers removed, a card "
            "flipped (at the break point or at one marker), none",
            labels=RESOLUTIONS,
        ),
        Column("counter_hits", I8, "Counter (and Treetops) hits on the attacking dino", "hits"),
        Column("self_hits", I8, "'1 self' markers the attacker paid", "markers"),
        Column("stolen", I8, "markers the Velociraptors' Egg Thieves took back", "markers"),
        *group(
            "markers",
            ("markers_left_seat0", "markers_left_seat1"),
            I16,
            lambda c: f"hit markers seat {c[-1]} has left at the end of the turn",
            "markers",
        ),
        *group(
            "face_up",
            ("cards_face_up_seat0", "cards_face_up_seat1"),
            I8,
            lambda c: (
                f"face-up action cards of seat {c[-1]}'s dinos in play at the end of the turn"
            ),
            "cards",
        ),
        Column("dice_placed", I8, "dice the active seat placed in its dice phase", "dice"),
        *group(
            "dice_on_cards",
            ("dice_on_cards_seat0", "dice_on_cards_seat1"),
            I8,
            lambda c: (
                f"dice on the face-up action cards of seat {c[-1]}'s dinos in play at the end "
                "of the turn (its attacks in waiting)"
            ),
            "dice",
        ),
    ),
    rows_per_game=turns_cap,
    expected_rows=lambda s: 30,
)
HANDS = Table(
    "hands",
    "replay trace: each seat's draft hand as dealt (dino versions, -1 padded)",
    (),
    rows_per_game=lambda s: 2,
    kind=Kind.TRACE,
    buffers=(Buffer("hand", np.int16, MAX_HAND),),
)
DECISIONS = Table(
    "decisions",
    "replay trace: every decision, the action taken and the dice showing",
    (
        Column("turn", I16, "turn, from 1 (0 in the draft)"),
        Column("seat", I8, "the deciding seat"),
        Column("kind", I8, "decision kind (rules.table_battles.constants: DRAFT ... PLACE)"),
        Column("action", I64, "the action (engine encoding)"),
    ),
    rows_per_game=lambda s: 2 * MAX_HAND + DECISIONS_PER_TURN * s.params.max_turns,
    kind=Kind.TRACE,
    buffers=(Buffer("roll", np.int8, 7),),
)
TABLES = (GAMES, PLAYERS, DRAFTS, TURNS, HANDS, DECISIONS)

NAME_OR_NONE = "tb.d_name[{0}] + 1 if {0} >= 0 else 0"
"""A dino of an event (-1: none) as its code in a ``dino_or_none`` column."""
copy_draft = copier(
    EVENTS, "draft", DRAFTS, context=("game_id", "tb"), columns={"dino": "tb.d_name[dino]"}
)
copy_turn = copier(
    EVENTS,
    "turn",
    TURNS,
    context=("game_id", "tb"),
    columns={
        "turn": "turn + 1",
        "attacker": NAME_OR_NONE.format("attacker"),
        "attack_card": "attack_card + 1",
        "target": NAME_OR_NONE.format("target"),
        "reaction": "reaction + 1",
        "hit_dino": NAME_OR_NONE.format("hit_dino"),
        "resolved": "resolved + 1",
    },
)
"""The event records that become rows (:mod:`simulate.kit.events`), called by the kernel."""
