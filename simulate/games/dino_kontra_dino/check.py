"""Dino Kontra Dino's own rules for the kit's step checker (:mod:`simulate.kit.check`).

The kit plays the game as :func:`simulate.games.dino_kontra_dino.kernel.play_chunk` does (every
seat picks a slot of its own hand, then the round is resolved) and checks each pick and
restricted play; the referee here checks every round against the rulebook recomputed in plain
Python: no card is in two places, the strongest card wins with ties to the figure holder and
then clockwise, the winner takes the figure, hands refill while the pile serves everyone, the
final ranking. What a play uses, for restricted play, is recomputed here from the card names
and strengths (:func:`options_used`; see :mod:`rules.dino_kontra_dino.options`).
"""

from __future__ import annotations

from typing import Any

from rules.dino_kontra_dino.engine import deal, final_result, game_over, play_round
from rules.dino_kontra_dino.options import CARD_OPTIONS, FIGURE
from simulate.kit.check import Checked, Checker, Referee, Simultaneous, expect
from simulate.kit.spec import Setup
from strategies.dino_kontra_dino.dispatch import choose


def options_used(setup: Setup, tb: Any, st: Any, seat: int, slot: int) -> set[int]:
    """The options ``seat`` uses by playing hand slot ``slot``: its card (by name, if the
    default deck has it) and, for the figure holder playing below its hand's best strength for
    this round's event, the figure."""
    options = setup.game.registry.options
    hand = [int(c) for c in st.hands[seat, : int(st.hand_len)]]
    used = set()
    name = setup.data.dino_names[hand[slot]]
    if name in CARD_OPTIONS:
        used.add(options.index(name))
    event = int(st.events[st.turn])
    power = [int(tb.power[c, event]) for c in hand]
    if int(st.holder) == seat and power[slot] < max(power):
        used.add(options.index(FIGURE))
    return used


class DkdReferee(Referee):
    """Every round recomputed: the cards' whereabouts before it, the winner, the figure, the
    plays and the event counts after it, and the final ranking."""

    def dealt(self) -> None:
        self.wins = [0] * self.n

    def step(self, kind: int) -> None:
        tb, st, n = self.tb, self.st, self.n
        n_dinos = int(tb.n_dinos)
        hl = int(st.hand_len)
        self.hands = [[int(c) for c in st.hands[s, :hl]] for s in range(n)]
        held = [c for h in self.hands for c in h]
        pile = [int(c) for c in st.deck[int(st.draw) : n_dinos]] if st.drawing else []
        seen = [d for d in range(n_dinos) if st.revealed[d] >= 0]
        expect(len(set(held)) == len(held), "a card is in two hands")
        expect(not set(held) & set(seen), "a played card came back into a hand")
        if st.drawing:
            expect(sorted(held + pile + seen) == list(range(n_dinos)), "cards are lost")
        self.holder, self.event = int(st.holder), int(st.events[st.turn])

    def resolved(self, slots: Any, result: int) -> None:
        tb, st, n = self.tb, self.st, self.n
        plays = [self.hands[s][int(slots[s])] for s in range(n)]
        power = [int(tb.power[c, self.event]) for c in plays]
        best = max(power)
        holder = self.holder
        expected = next((holder + k) % n for k in range(n) if power[(holder + k) % n] == best)
        expect(result == expected, f"seat {result} won, the rules give it to seat {expected}")
        expect(int(st.holder) == result, "the figure did not go to the round's winner")
        expect(list(st.plays[:n]) == plays, "the played cards differ from the choices")
        self.wins[result] += 1
        expect(list(st.wins[:n]) == self.wins, "event counts do not add up")

    def result(self, winners: list[bool], decisions: int) -> Checked:
        st, n = self.st, self.n
        order = [(self.wins[s], *(int(x) for x in st.trait_wins[s, :4])) for s in range(n)]
        expect(winners == [o == max(order) for o in order], "the final ranking is wrong")
        return Checked(winners, int(st.turn), decisions)


CHECK = Checker(
    Simultaneous(
        deal=deal,
        game_over=game_over,
        slots=lambda tb, st: int(st.hand_len),
        play_round=play_round,
        final_result=final_result,
        choose=choose,
        options=options_used,
    ),
    DkdReferee,
)
"""Dino Kontra Dino's step checker (its spec's ``check``)."""
