"""EVO's own rules for the kit's step checker (:mod:`simulate.kit.check`): after every
engine step the board, the points ledger and the gene bag, and every card played. The kit plays
the game as :func:`simulate.games.evo.kernel.play_chunk` does and checks what every game shares
(legal actions, restricted play, the event records); a broken rule raises
:class:`~simulate.kit.check.RuleBroken` naming it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rules.evo import engine
from rules.evo.cards import CARDS, CLIMATE_CARDS, DOUBLING, SLEEP, WINDOW_PHASE, allowed_phases
from rules.evo.constants import CARD, GAME_OVER, MOVE, PLACE, ROUND_DONE
from rules.evo.options import option_of
from rules.evo.state import EVENTS
from simulate.kit.check import Checked, Referee, expect, sequential
from strategies.evo.bots import choose


@dataclasses.dataclass(frozen=True)
class CheckedGame(Checked):
    """What a checked game saw: its final state's numbers and every logged event."""

    points: list[int]
    bonus: list[int]
    dinos: list[int]
    cards: list  # the card events, each read with its round (EVENTS.read(row, round=...))
    bids: list  # the bid events, likewise (b.round, b.seat, b.gene, b.bid, b.paid, ...)
    combats: int


def check_board(tb, st) -> None:
    """At most ``max_dinos`` per player, one dino per region, pieces and owners agree."""
    n = int(tb.n_players)
    owners = np.asarray(st.owner[: tb.n_regions])
    for s in range(n):
        k = int(st.n_dinos[s])
        expect(0 <= k <= tb.max_dinos, f"seat {s} has {k} dinos")
        regions = [int(r) for r in st.pieces[s, :k]]
        expect(len(set(regions)) == k, f"seat {s} lists a region twice")
        for i, r in enumerate(regions):
            expect(owners[r] == s, f"seat {s}'s piece {i} on region {r} is owned by {owners[r]}")
            expect(st.slot[r] == i, f"region {r} has slot {st.slot[r]}, piece {i}")
        expect(int((owners == s).sum()) == k, f"seat {s}: owners and pieces disagree")
    expect(int((owners >= 0).sum()) == int(sum(st.n_dinos[:n])), "stray owner marks")


class EvoReferee(Referee):
    """EVO's own rules: the board after every step, the gene bag, the points ledger at every
    round's end, moves and births onto free or foreign regions, every card played."""

    def dealt(self) -> None:
        tb, st, n = self.tb, self.st, self.n
        self.ledger = [int(tb.start_points)] * n
        self.bought = 0
        self.genes0 = np.array(st.genes[:n], dtype=np.int64)
        self.genes_bought = np.zeros_like(self.genes0)
        self.cards: list = []
        self.bids: list = []
        self.combats = 0

    def event(self, row: np.ndarray) -> None:
        e = EVENTS.read(row, round=int(self.st.rnd) + 1)
        if e.kind == "card":
            self.cards.append(e)
        elif e.kind == "bid":
            self.bids.append(e)
            self.bought += 1
            self.genes_bought[e.seat, e.gene] += 1
        elif e.kind == "combat":
            self.combats += 1

    def step(self, kind: int) -> None:
        tb, st, n = self.tb, self.st, self.n
        check_board(tb, st)
        bag_size = int(tb.bag_size)
        expect(int(st.bag_len) == bag_size, "a gene went back into the bag")
        if kind != ROUND_DONE:
            return
        rnd = int(st.rnd) + 1
        drawn = int(st.bag_top)
        expect(drawn == self.bought, f"{drawn} genes drawn, {self.bought} bought")
        expect(int(st.bag_len) - drawn == bag_size - self.bought, "bag != 62 minus drawn")
        for s in range(n):
            self.ledger[s] += int(st.scored[s]) - int(st.penalty[s])
            expect(
                int(st.points_p5[s]) == self.ledger[s],
                f"round {rnd} seat {s}: points {st.points_p5[s]} != ledger {self.ledger[s]}",
            )
            self.ledger[s] -= int(st.paid[s])
            expect(int(st.points[s]) == self.ledger[s], f"seat {s}: payments do not add up")
        expected = self.genes0 + self.genes_bought
        expected[:, CARD] = self.genes_bought[:, CARD]
        expect((np.array(st.genes[:n]) == expected).all(), "portraits != bought genes")

    def decided(self, kind: int, seat: int, action: int) -> None:
        if kind == MOVE and action >= 0:
            expect(self.st.owner[action & 0xFFFF] != seat, "entered an own region")
        if kind == PLACE:
            expect(self.st.owner[action] != seat, "newborn on an own region")

    def result(self, winners: list[bool], decisions: int) -> CheckedGame:
        tb, st, n = self.tb, self.st, self.n
        check_cards(self.cards, int(tb.no_card_rounds), int(tb.climate_cards))
        return CheckedGame(
            points=[int(x) for x in st.points[:n]],
            bonus=[int(x) for x in st.bonus[:n]],
            dinos=[int(x) for x in st.n_dinos[:n]],
            winners=winners,
            rounds=int(st.rnd) + 1,
            decisions=decisions,
            cards=self.cards,
            bids=self.bids,
            combats=self.combats,
        )


def check_cards(cards: list, no_card_rounds: int, per_round: int = 1) -> None:
    """Every card event (read with its round) was played at a legal time: not in the first
    rounds, in one of its windows, one climate card a round, nothing after Alvógén in the
    same round."""
    climate: dict[int, int] = {}
    slept: set[int] = set()
    for e in cards:
        rnd, seat, card, window = e.round, e.seat, e.card, e.window
        expect(rnd > no_card_rounds, f"card {card} played in round {rnd}")
        expect(rnd not in slept, f"card {card} played after Alvógén in round {rnd}")
        expect(
            WINDOW_PHASE[window] in allowed_phases(card),
            f"card {card} played in phase {WINDOW_PHASE[window]}",
        )
        if card != DOUBLING:
            expect(window in CARDS[card - 1].windows, f"card {card} played in window {window}")
        if card in CLIMATE_CARDS:
            climate[rnd] = climate.get(rnd, 0) + 1
            expect(
                climate[rnd] <= per_round, f"too many climate cards in round {rnd} (seat {seat})"
            )
        if card == SLEEP:
            slept.add(rnd)


CHECK = sequential(
    engine,
    EvoReferee,
    option_of=option_of,
    choose=choose,
    game_over=GAME_OVER,
    passes=(ROUND_DONE,),
)
"""EVO's step checker (its spec's ``check``)."""
