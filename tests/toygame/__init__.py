"""A throwaway game that exists only to show the kit: declared here, in its own folder, and
registered by the tests through ``$DINOLAB_GAMES`` (no shared module names it).

*High card*: every player is dealt ``hand`` cards from a shuffled deck holding three cards of each
value ``1..deck``; each round
all play one card at once, the highest card wins the round (a tie at the top: nobody wins it),
and after the hands are played out most rounds won wins (ties share the victory).
"""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import numpy as np
import pyarrow as pa

from simulate.kit.check import Checked, Checker, Referee, Simultaneous, expect
from simulate.kit.spec import Bench, Demo, GameSpec, Setup
from simulate.kit.tables import Buffer, Column, Kind, Table, game_id, strategy
from tests.toygame.bots import REGISTRY, choose
from tests.toygame.kernel import play_chunk
from tests.toygame.rules import (
    ToyParameters,
    deal,
    final_result,
    make_table,
    new_states,
    play_round,
)

I8, I64, BOOL = pa.int8(), pa.int64(), pa.bool_()


class ToyData:
    """The deck, which is just its size."""

    def __init__(self, deck: int):
        self.deck = deck
        self.sha256 = hashlib.sha256(f"high-card deck 1..{deck}".encode()).hexdigest()

    def describe(self) -> str:
        return f"three cards of each value 1..{self.deck} (a test game)"


def load_data(params: ToyParameters, n_players: int) -> ToyData:
    params.check_players(n_players)
    return ToyData(params.deck)


def build_inputs(setup: Setup) -> tuple:
    tb = make_table(setup.params, setup.n_players)
    return tb, REGISTRY.lineup_record(list(setup.lineup)), new_states(1)


def render(setup: Setup, seed: int, game_id: int, logs: SimpleNamespace) -> str:
    n = setup.n_players
    out = [f"High card, game {game_id} of seed {seed}: {n} players"]
    for r0 in range(0, logs.turns.rows, n):
        cards = [int(logs.turns.card[r0 + s]) for s in range(n)]
        hands = [[int(c) for c in logs.hands.hand[r0 + s] if c > 0] for s in range(n)]
        out.append(f"round {int(logs.turns.round[r0])}: hands {hands}, plays {cards}")
    winners = [s for s in range(n) if logs.players.winner[s]]
    out.append(f"winners: seats {winners}")
    return "\n".join(out)


def left(st) -> int:
    """Cards still in each hand (played cards leave zeros at the end; values start at 1)."""
    return int((st.hands[0] > 0).sum())


class ToyReferee(Referee):
    """Every card played from the own hand, the highest unique card wins, most rounds win."""

    def dealt(self) -> None:
        self.wins = [0] * self.n

    def step(self, kind: int) -> None:
        self.hands = [[int(c) for c in self.st.hands[s, : left(self.st)]] for s in range(self.n)]

    def resolved(self, slots: np.ndarray, result: int) -> None:
        plays = [self.hands[s][int(slots[s])] for s in range(self.n)]
        top = max(plays)
        expected = plays.index(top) if plays.count(top) == 1 else -1
        expect(result == expected, f"seat {result} won the round, the rules say {expected}")
        if result >= 0:
            self.wins[result] += 1

    def result(self, winners: list[bool], decisions: int) -> Checked:
        expect(winners == [w == max(self.wins) for w in self.wins], "most rounds won must win")
        return Checked(winners, int(self.tb.hand), decisions)


CHECK = Checker(
    Simultaneous(
        deal=deal,
        game_over=lambda tb, st: left(st) == 0,
        slots=lambda tb, st: left(st),
        play_round=lambda tb, st, slots: play_round(tb, st, slots, left(st)),
        final_result=final_result,
        choose=lambda lu, j, tb, st, seat, scratch: choose(lu, j, tb, st, seat, left(st)),
    ),
    ToyReferee,
)


def hand(setup) -> int:
    return setup.params.hand


TABLES = (
    Table(
        "games",
        "one row per game",
        (
            game_id(),
            Column("n_players", I8, "players"),
            Column("rounds", I8, "rounds played", "rounds"),
            Column("winner_seat", I8, "the winner, -1 when shared"),
            Column("n_winners", I8, "players sharing the victory"),
        ),
        rows_per_game=lambda s: 1,
        kind=Kind.GAME,
    ),
    Table(
        "players",
        "one row per game and seat",
        (
            game_id(),
            Column("seat", I8, "seat"),
            strategy(),
            Column("wins", I8, "rounds won", "rounds"),
            Column("winner", BOOL, "won or shared the victory"),
        ),
        rows_per_game=lambda s: s.n_players,
        kind=Kind.GAME,
    ),
    Table(
        "turns",
        "one row per game, round and seat",
        (
            game_id(),
            Column("round", I8, "round, from 0"),
            Column("seat", I8, "seat"),
            Column("card", I8, "card played"),
            Column("won", BOOL, "won the round"),
        ),
        rows_per_game=lambda s: hand(s) * s.n_players,
    ),
    Table(
        "ties",
        "one row per round tied at the top (nobody won it)",
        (
            game_id(),
            Column("round", I8, "round, from 0"),
            Column("card", I8, "the tied top card"),
        ),
        rows_per_game=hand,
        expected_rows=lambda s: 0.05,
    ),
    Table(
        "hands",
        "replay trace: hands before each round",
        (),
        rows_per_game=lambda s: hand(s) * s.n_players,
        kind=Kind.TRACE,
        buffers=(Buffer("hand", np.int8, hand),),
    ),
)

SPEC = GameSpec(
    module=__name__,
    name="high-card",
    title="High card (test game)",
    aliases=("toy",),
    min_players=2,
    max_players=4,
    default_players=3,
    parameters=ToyParameters,
    load_data=load_data,
    registry=REGISTRY,
    default_strategy="high",
    default_chunk=5_000,
    min_chunk=5_000,
    tables=TABLES,
    build_inputs=build_inputs,
    kernel=play_chunk,
    render=render,
    data_files=lambda setup: {"deck.txt": f"1..{setup.data.deck}\n".encode()},
    check=CHECK,
    bench=Bench("high", 3, kernel_games=20_000, interpreted_games=300),
    demo=Demo(3, "high,random,low", games=2_000, test_games=600),
    report="tests.toygame.report",
    notebook=None,
)
