"""Dinosaur Table Battles' own rules for the kit's step checker (:mod:`simulate.kit.check`).

The kit plays the game as :func:`simulate.games.table_battles.kernel.play_chunk` does and checks
what every game shares (legal actions, restricted play, the event records); the referee here
checks after every engine step the rules' invariants (markers never negative, dice conserved,
the dice on every card allowed by its dice area, no dice on a flipped card, at most two dinos
receiving dice a turn with one card each, the draft's action-card cap, the hit markers each side
starts with, the first player, every turn record's markers, the end condition the state
reports). A broken rule raises :class:`~simulate.kit.check.RuleBroken` naming it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rules.table_battles import engine
from rules.table_battles.constants import (
    DRAFT,
    END_BOTH_ONE,
    END_MARKERS,
    END_ONE_DINO,
    END_TURN_CAP,
    GAME_OVER,
    PAIR_AREA,
    PLACE,
    ROUND_DONE,
)
from rules.table_battles.engine import face_up_cards, team_cards
from rules.table_battles.options import option_of
from rules.table_battles.state import EVENTS
from simulate.kit.check import Checked, Referee, expect, sequential
from strategies.table_battles.bots import choose


@dataclasses.dataclass(frozen=True)
class CheckedGame(Checked):
    """What a checked game saw: its final numbers and every event record."""

    winner: int
    end_reason: int
    turns: int
    markers: list[int]
    markers0: list[int]
    cards0: list[int]
    first: list[int]
    teams: list[list[int]]
    drafts: list  # the draft event records (EVENTS.read: d.seat, d.dino, d.draft_rating ...)
    turn_records: list  # the turn event records, likewise
    options_used: list[tuple[int, int]]  # (seat, option) of every action taken


def check_state(tb, st, total_dice: int) -> None:
    """The invariants that hold after every engine call."""
    for s in range(2):
        expect(st.markers[s] >= 0, f"seat {s} has {st.markers[s]} markers")
        on_cards = 0
        n_alive = 0
        for t in range(int(st.n_team[s])):
            d = int(st.team[s, t])
            first = int(st.team_slot[s, t])
            ups = sum(int(st.up[s, first + k]) for k in range(int(tb.d_cards[d])))
            expect(ups == st.team_up[s, t], f"seat {s} dino {d}: face-up count {ups}")
            expect(bool(st.alive[s, t]) == (ups > 0), f"seat {s} dino {d}: alive but all flipped")
            n_alive += int(st.alive[s, t])
        expect(n_alive == st.n_alive[s], f"seat {s}: {n_alive} alive, n_alive {st.n_alive[s]}")
        for slot in range(int(st.n_slots[s])):
            card = int(st.slot_card[s, slot])
            dice = [int(x) for x in st.dice[s, slot]]
            expect(dice[0] == sum(dice[1:]), f"seat {s} card {card}: dice total {dice}")
            expect(min(dice) >= 0, f"seat {s} card {card}: negative dice")
            on_cards += dice[0]
            if not st.up[s, slot]:
                expect(dice[0] == 0, f"seat {s} card {card}: a flipped card holds dice")
            faces = int(tb.c_faces[card])
            if dice[0] and faces != PAIR_AREA:
                for f in range(1, 7):
                    expect(not dice[f] or faces >> f & 1, f"card {card} holds a {f} off its area")
        expect(st.free[s] >= 0, f"seat {s}: {st.free[s]} free dice")
        if tb.flip_returns:
            expect(on_cards + st.free[s] == total_dice, f"seat {s}: dice not conserved")
        else:
            expect(on_cards + st.free[s] <= total_dice, f"seat {s}: dice appeared")
        if st.n_slots[s]:
            cap = max(tb.card_cap, st.cards0[s])
            expect(team_cards(tb, st, s) <= cap, "card cap broken")
    expect(0 <= st.n_placed <= 2, f"{st.n_placed} dinos received dice this turn")


def check_setup(tb, st) -> None:
    """Hit markers at the start (per dino, the two bonuses, the T-Rex) and the first player
    (fewest markers, else the side whose dino comes first alphabetically)."""
    n = [int(st.n_team[s]) for s in range(2)]
    cards = [int(st.cards0[s]) for s in range(2)]
    markers = []
    for s in range(2):
        o = 1 - s
        team = [int(d) for d in st.team[s, : n[s]]]
        expect(cards[s] == sum(int(tb.d_cards[d]) for d in team), f"seat {s}: card count")
        m = int(tb.markers_per_dino) * n[s]
        m += int(tb.bonus_markers) * ((n[s] < n[o]) + (cards[s] < cards[o]))
        m += int(tb.trex_markers) * sum(int(tb.d_trex[d]) for d in team)
        expect(int(st.markers0[s]) == m, f"seat {s} starts with {st.markers0[s]} markers, not {m}")
        markers.append(m)
    if markers[0] != markers[1]:
        first = 0 if markers[0] < markers[1] else 1
    else:
        alpha = [min(int(tb.d_alpha[d]) for d in st.team[s, : n[s]]) for s in range(2)]
        first = 0 if alpha[0] <= alpha[1] else 1
    expect(int(st.first_seat) == first, f"seat {st.first_seat} moves first, the rules say {first}")
    expect([int(x) for x in st.first] == [int(first == 0), int(first == 1)], "first flags")


class TableBattlesReferee(Referee):
    """Table Battles' own rules: the hit markers and the first player at the setup, the
    invariants after every engine step, the draft and turn records, dice on at most two dinos
    a turn, the draft's length and the end condition the state reports."""

    def dealt(self) -> None:
        self.drafts: list = []
        self.turns: list = []
        self.used: list[tuple[int, int]] = []
        self.placed_teams: set[int] = set()
        self.set_up = False

    def event(self, row: np.ndarray) -> None:
        tb, st = self.tb, self.st
        e = EVENTS.read(row)
        if e.kind == "draft":
            self.drafts.append(e)
            expect(e.draft_rating == int(tb.d_rating[e.dino]), "draft rating misreported")
        elif e.kind == "turn":
            self.turns.append(e)
            left = [e.markers_left_seat0, e.markers_left_seat1]
            expect(left == list(st.markers[:2]), "the turn record's markers differ from the state")
            up = [int(face_up_cards(tb, st, s)) for s in range(2)]
            face_up = [e.cards_face_up_seat0, e.cards_face_up_seat1]
            expect(face_up == up, "face-up cards misreported")
            self.placed_teams = set()

    def step(self, kind: int) -> None:
        if self.st.n_slots[0] or self.st.n_slots[1]:
            if not self.set_up:
                check_setup(self.tb, self.st)
                self.set_up = True
            check_state(self.tb, self.st, int(self.tb.dice))

    def decided(self, kind: int, seat: int, action: int) -> None:
        tb, st = self.tb, self.st
        opt = int(option_of(tb, st, action))
        if opt >= 0:
            self.used.append((seat, opt))
        if kind == PLACE and action >= 0:
            t = int(st.slot_team[seat, action >> 16])
            expect(t not in self.placed_teams, "dice placed twice on one dino in a turn")
            self.placed_teams.add(t)
            expect(len(self.placed_teams) <= 2, "dice placed on more than two dinos")
        if kind == DRAFT:
            expect(st.dstep < tb.draft_hand, "draft went on too long")

    def result(self, winners: list[bool], decisions: int) -> CheckedGame:
        tb, st = self.tb, self.st
        winner = winners.index(True) if True in winners else -1
        reason = int(st.end_reason)
        if reason == END_TURN_CAP:
            expect(winner == -1 and int(st.turn) == tb.max_turns, "capped game with a winner")
        elif reason == END_MARKERS:
            expect(st.markers[1 - winner] <= 0, "markers win with markers left")
        elif reason == END_ONE_DINO:
            expect(st.n_alive[1 - winner] <= 1, "one-dino win with more dinos")
        elif reason == END_BOTH_ONE:
            expect(st.markers[0] == st.markers[1] == 1, "both-at-one end without one marker each")
            u = [int(face_up_cards(tb, st, s)) for s in range(2)]
            want = 0 if u[0] > u[1] else 1 if u[1] > u[0] else 1 - int(st.first_seat)
            expect(winner == want, "both-at-one winner is not the one with more face-up cards")
        else:
            expect(False, f"game ended without a reason (active {int(st.active)})")
        turns = self.turns
        expect(len(turns) == int(st.turn), f"{len(turns)} turn records for {int(st.turn)} turns")
        for s in range(2):
            cap = max(tb.card_cap, int(st.cards0[s]))
            expect(team_cards(tb, st, s) <= cap, "card cap broken")
        return CheckedGame(
            winners=winners,
            rounds=(int(st.turn) + 1) // 2,
            decisions=decisions,
            winner=winner,
            end_reason=reason,
            turns=int(st.turn),
            markers=[int(x) for x in st.markers],
            markers0=[int(x) for x in st.markers0],
            cards0=[int(x) for x in st.cards0],
            first=[int(x) for x in st.first],
            teams=[[int(d) for d in st.team[s, : st.n_team[s]]] for s in range(2)],
            drafts=self.drafts,
            turn_records=turns,
            options_used=self.used,
        )


CHECK = sequential(
    engine,
    TableBattlesReferee,
    option_of=option_of,
    choose=choose,
    game_over=GAME_OVER,
    passes=(ROUND_DONE,),
)
"""Table Battles' step checker (its spec's ``check``)."""
