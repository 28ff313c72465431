"""Play one EVO game step by step from Python, checking the rules' invariants at every step.

This is the debugging and testing twin of the kernel: it seeds and deals exactly as
:func:`simulate.games.evo.kernel.play_chunk` does, asks the same bots, and after every engine
call checks the board, the points ledger, the gene bag and every card played. A broken
invariant raises :class:`AssertionError` naming it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rules.evo.cards import CARDS, CLIMATE_CARDS, DOUBLING, SLEEP, WINDOW_PHASE, allowed_phases
from rules.evo.constants import CARD, GAME_OVER, MOVE, PLACE, ROUND_DONE
from rules.evo.engine import actions, advance, apply, deal, final_result, is_legal
from rules.evo.options import OPTIONS, option_of
from rules.evo.state import EVENTS
from simulate.kit.spec import Checked, Setup, expect
from simulate.kit.support import start_game
from strategies.evo.allowed import forbidden
from strategies.evo.bots import choose


@dataclasses.dataclass(frozen=True)
class CheckedGame(Checked):
    """What a checked game saw: its final state's numbers and every logged event."""

    points: list[int]
    bonus: list[int]
    dinos: list[int]
    cards: list[tuple[int, int, int, int]]  # (round, seat, card, window)
    bids: list[tuple[int, int, int, int, int, int]]  # (round, seat, gene, bid, paid, mutations)
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


def play_checked(
    setup: Setup, seed: int, game_id: int, forbid: dict[int, tuple[str, ...]] | None = None
) -> CheckedGame:
    """Play game ``game_id`` of ``seed`` (no seat rotation) with every check on; ``forbid``
    restricts lineup positions (restricted play): a position never takes an action that uses
    a forbidden option while another legal action does not."""
    tbs, lus, states, scratches = setup.game.build_inputs(setup)  # fresh, not a kernel's
    if forbid:
        lus = setup.game.registry.lineup_record(list(setup.lineup), forbid)
    tb, lu, st, scratch = tbs[0], lus[0], states[0], scratches[0]
    n = setup.n_players
    cards: list[tuple[int, int, int, int]] = []
    bids: list[tuple[int, int, int, int, int, int]] = []
    combats = 0
    decisions = 0
    with np.errstate(over="ignore"):
        start_game(st.rng, n, np.uint64(seed), game_id, False)
        deal(tb, st)
        start_points = int(tb.start_points)
        ledger = [start_points] * n
        bought = 0
        bag_size = int(tb.bag_size)
        genes0 = np.array(st.genes[:n], dtype=np.int64)
        genes_bought = np.zeros_like(genes0)
        while True:
            kind = advance(tb, st)
            rnd = int(st.rnd) + 1
            for e in EVENTS.pending(st):
                if e.kind == "card":
                    cards.append((rnd, e.seat, e.card, e.window))
                elif e.kind == "bid":
                    bids.append((rnd, *e[1:]))
                    bought += 1
                    genes_bought[e.seat, e.gene] += 1
                elif e.kind == "combat":
                    combats += 1
            st.n_ev = 0
            check_board(tb, st)
            expect(int(st.bag_len) == bag_size, "a gene went back into the bag")
            if kind == ROUND_DONE:
                drawn = int(st.bag_top)
                expect(drawn == bought, f"{drawn} genes drawn, {bought} bought")
                expect(int(st.bag_len) - drawn == bag_size - bought, "bag != 62 minus drawn")
                for s in range(n):
                    ledger[s] += int(st.scored[s]) - int(st.penalty[s])
                    expect(
                        int(st.points_p5[s]) == ledger[s],
                        f"round {rnd} seat {s}: points {st.points_p5[s]} != ledger {ledger[s]}",
                    )
                    ledger[s] -= int(st.paid[s])
                    expect(int(st.points[s]) == ledger[s], f"seat {s}: payments do not add up")
                expected = genes0 + genes_bought
                expected[:, CARD] = genes_bought[:, CARD]
                expect((np.array(st.genes[:n]) == expected).all(), "portraits != bought genes")
                continue
            if kind == GAME_OVER:
                break
            decisions += 1
            seat = int(st.actor)
            action = int(choose(lu, seat, tb, st, seat, scratch))
            expect(is_legal(tb, st, action), f"illegal action {action} for decision {kind}")
            expect(
                not forbidden(lu, seat, tb, st, action),
                f"seat {seat} took forbidden option {OPTIONS[option_of(tb, st, action)]}",
            )
            expect(actions(tb, st, -1) >= 1, f"no legal action for decision {kind}")
            if kind == MOVE and action >= 0:
                expect(st.owner[action & 0xFFFF] != seat, "entered an own region")
            if kind == PLACE:
                expect(st.owner[action] != seat, "newborn on an own region")
            apply(tb, st, action)
        winners = np.zeros(n, dtype=np.bool_)
        final_result(tb, st, winners)
    check_cards(cards, int(tb.no_card_rounds), int(tb.climate_cards))
    return CheckedGame(
        points=[int(x) for x in st.points[:n]],
        bonus=[int(x) for x in st.bonus[:n]],
        dinos=[int(x) for x in st.n_dinos[:n]],
        winners=[bool(x) for x in winners],
        rounds=int(st.rnd) + 1,
        decisions=decisions,
        cards=cards,
        bids=bids,
        combats=combats,
    )


def check_cards(
    cards: list[tuple[int, int, int, int]], no_card_rounds: int, per_round: int = 1
) -> None:
    """Every card was played at a legal time: not in the first rounds, in one of its windows,
    one climate card a round, nothing after Alvógén in the same round."""
    climate: dict[int, int] = {}
    slept: set[int] = set()
    for rnd, seat, card, window in cards:
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
