"""Play one Dino Kontra Dino game step by step from Python, checking the rules at every round.

The debugging and testing twin of the kernel: it seeds and deals exactly as
:func:`simulate.games.dino_kontra_dino.kernel.play_chunk` does, asks the same bots, and checks
every round against the rulebook recomputed here in plain Python: each seat plays a card of its
own hand, no card is in two places, the strongest card wins with ties to the figure holder and
then clockwise, the winner takes the figure, hands refill while the pile serves everyone; and
restricted play: a seat forbidden options (in its strategy spec or through ``forbid``) plays a
card using one only when every card of its hand does (what a card uses is recomputed here from
the card names and strengths, see :mod:`rules.dino_kontra_dino.options`).
"""

from __future__ import annotations

import numpy as np

from rules.dino_kontra_dino.engine import deal, final_result, game_over, play_round
from rules.dino_kontra_dino.options import CARD_OPTIONS, FIGURE
from simulate.kit.spec import Checked, Setup, expect
from simulate.kit.support import start_game
from strategies.dino_kontra_dino.allowed import mark_free
from strategies.dino_kontra_dino.dispatch import choose


def _options_used(setup: Setup, hand: list[int], slot: int, holds: bool, power: list[int]):
    """The options playing ``hand[slot]`` uses: its card (by name, if the default deck has
    it) and, for the figure holder playing below its hand's best strength, the figure."""
    used = set()
    name = setup.data.dino_names[hand[slot]]
    if name in CARD_OPTIONS:
        used.add(name)
    if holds and power[slot] < max(power):
        used.add(FIGURE)
    return used


def play_checked(
    setup: Setup, seed: int, game_id: int, forbid: dict[int, tuple[str, ...]] | None = None
) -> Checked:
    """Play game ``game_id`` of ``seed`` (no seat rotation) with every check on; ``forbid``
    restricts lineup positions as :meth:`Registry.lineup_record` does (on top of the
    strategies' own ``forbid=``)."""
    tables, lineups, states, scratches = setup.game.build_inputs(setup)  # fresh, not a kernel's
    if forbid:
        lineups = setup.game.registry.lineup_record(list(setup.lineup), forbid)
        mark_free(lineups, scratches)
    tb, lu, st, scratch = tables[0], lineups[0], states[0], scratches[0]
    options = setup.game.registry.options
    banned = [{options[o] for o in range(len(options)) if lu.forbid[s, o]} for s in range(8)]
    n, n_dinos = setup.n_players, int(tb.n_dinos)
    slots = np.zeros(n, dtype=np.int64)
    decisions = 0
    with np.errstate(over="ignore"):
        start_game(st.rng, n, np.uint64(seed), game_id, False)
        deal(tb, st)
        wins = [0] * n
        while not game_over(tb, st):
            hl = int(st.hand_len)
            hands = [[int(c) for c in st.hands[s, :hl]] for s in range(n)]
            held = [c for h in hands for c in h]
            pile = [int(c) for c in st.deck[int(st.draw) : n_dinos]] if st.drawing else []
            seen = [d for d in range(n_dinos) if st.revealed[d] >= 0]
            expect(len(set(held)) == len(held), "a card is in two hands")
            expect(not set(held) & set(seen), "a played card came back into a hand")
            if st.drawing:
                expect(sorted(held + pile + seen) == list(range(n_dinos)), "cards are lost")
            holder, ev = int(st.holder), int(st.events[st.turn])
            for s in range(n):
                slots[s] = choose(lu, s, tb, st, s, scratch)
                expect(0 <= slots[s] < hl, f"seat {s} plays slot {slots[s]} of a hand of {hl}")
                decisions += 1
                if banned[s]:
                    power = [int(tb.power[c, ev]) for c in hands[s]]
                    used = [
                        _options_used(setup, hands[s], k, holder == s, power) & banned[s]
                        for k in range(hl)
                    ]
                    k = int(slots[s])
                    expect(
                        not used[k] or all(used),
                        f"seat {s} played {setup.data.dino_names[hands[s][k]]}, using forbidden "
                        f"{' and '.join(sorted(used[k]))}, while another card was allowed",
                    )
            plays = [hands[s][int(slots[s])] for s in range(n)]
            power = [int(tb.power[c, ev]) for c in plays]
            best = max(power)
            expected = next((holder + k) % n for k in range(n) if power[(holder + k) % n] == best)
            w = play_round(tb, st, slots)
            expect(w == expected, f"seat {w} won, the rules give it to seat {expected}")
            expect(int(st.holder) == w, "the figure did not go to the round's winner")
            expect(list(st.plays[:n]) == plays, "the played cards differ from the choices")
            wins[w] += 1
            expect(list(st.wins[:n]) == wins, "event counts do not add up")
        winners = np.zeros(n, dtype=np.bool_)
        final_result(tb, st, winners)
    order = [(wins[s], *(int(x) for x in st.trait_wins[s, :4])) for s in range(n)]
    expect(list(winners) == [o == max(order) for o in order], "the final ranking is wrong")
    return Checked([bool(x) for x in winners], int(st.turn), decisions)
