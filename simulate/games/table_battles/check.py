"""Play Dinosaur Table Battles games step by step from Python with every rule checked, and a
small compiled loop that plays many games for strength ladders and speed measurements.

:func:`play_checked` is the debugging and testing twin of the chunk kernel
(:func:`simulate.games.table_battles.kernel.play_chunk`): it seeds, deals, asks the bots and
applies their actions exactly as the kernel does, and after every engine call checks the rules'
invariants through :func:`simulate.kit.spec.expect` (markers never negative, dice conserved, the
dice on every card allowed by its dice area, no dice on a flipped card, at most two dinos
receiving dice a turn with one card each, the draft's action-card cap, every action legal, the
hit markers each side starts with, the first player, every turn record's markers, the end
condition the state reports). A broken rule raises :class:`~simulate.kit.spec.RuleBroken`
naming it. The conformance suite compares its winners and rounds with the kernel's rows.

:func:`play_games` is the compiled loop without logs: game ``gid`` is seeded as the kernel
seeds it (:func:`simulate.kit.support.start_game`); with ``rotate`` the two games ``2k, 2k+1``
share the deal key ``k`` and swap the seats of the two lineup positions.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rules.core.jit import jit
from rules.table_battles.cards import CardPool
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
from rules.table_battles.engine import (
    actions,
    advance,
    apply,
    deal,
    face_up_cards,
    final_result,
    is_legal,
    team_cards,
)
from rules.table_battles.options import option_of
from rules.table_battles.params import TableBattlesParameters
from rules.table_battles.state import EVENTS
from simulate.games.table_battles.kernel import kernel_inputs
from simulate.kit.spec import Checked, Setup, expect
from simulate.kit.support import position, start_game
from strategies.core.registry import Strategy
from strategies.table_battles import REGISTRY
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
    drafts: list[tuple[int, ...]]  # the fields of every draft event
    turn_records: list[tuple[int, ...]]  # the fields of every turn event
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


def build(setup: Setup, forbid: dict[int, tuple[str, ...]] | None = None) -> tuple:
    """Fresh kernel inputs for ``setup`` (not a kernel's), with optional restricted options."""
    return kernel_inputs(setup.params, setup.data, setup.lineup, forbid)


def play_checked(
    setup: Setup, seed: int, game_id: int, forbid: dict[int, tuple[str, ...]] | None = None
) -> CheckedGame:
    """Play game ``game_id`` of ``seed`` (no seat rotation: lineup position = seat) with every
    check on; ``forbid`` restricts lineup positions as :meth:`Registry.lineup_record` does."""
    tbs, lus, states, scratches = build(setup, forbid)
    tb, lu, st, scratch = tbs[0], lus[0], states[0], scratches[0]
    drafts: list[tuple[int, ...]] = []
    turns: list[tuple[int, ...]] = []
    used: list[tuple[int, int]] = []
    decisions = 0
    total = int(tb.dice)
    with np.errstate(over="ignore"):
        start_game(st.rng, 2, np.uint64(seed), game_id, False)
        deal(tb, st)
        placed_teams: set[int] = set()
        set_up = False
        while True:
            kind = advance(tb, st)
            for e in EVENTS.pending(st):
                if e.kind == "draft":
                    drafts.append(e[1:])
                    expect(e.draft_rating == int(tb.d_rating[e.dino]), "draft rating misreported")
                elif e.kind == "turn":
                    turns.append(e[1:])
                    left = [e.markers_left_seat0, e.markers_left_seat1]
                    expect(left == list(st.markers[:2]), "the turn record's markers differ")
                    up = [int(face_up_cards(tb, st, s)) for s in range(2)]
                    face_up = [e.cards_face_up_seat0, e.cards_face_up_seat1]
                    expect(face_up == up, "face-up cards misreported")
                    placed_teams = set()
            st.n_ev = 0
            if st.n_slots[0] or st.n_slots[1]:
                if not set_up:
                    check_setup(tb, st)
                    set_up = True
                check_state(tb, st, total)
            if kind == GAME_OVER:
                break
            if kind == ROUND_DONE:
                continue
            decisions += 1
            seat = int(st.actor)
            n = int(actions(tb, st, -1))
            expect(n >= 1, f"decision {kind} with no legal action")
            action = int(choose(lu, position(seat, 0, 2), tb, st, seat, scratch))
            expect(is_legal(tb, st, action), f"illegal action {action} for decision {kind}")
            opt = int(option_of(tb, st, action))
            if opt >= 0:
                used.append((seat, opt))
            if kind == PLACE and action >= 0:
                t = int(st.slot_team[seat, action >> 16])
                expect(t not in placed_teams, "dice placed twice on one dino in a turn")
                placed_teams.add(t)
                expect(len(placed_teams) <= 2, "dice placed on more than two dinos")
            if kind == DRAFT:
                expect(st.dstep < tb.draft_hand, "draft went on too long")
            apply(tb, st, action)
        winners = np.zeros(2, dtype=np.bool_)
        winner = int(final_result(tb, st, winners))
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
    expect(len(turns) == int(st.turn), f"{len(turns)} turn records for {int(st.turn)} turns")
    for s in range(2):
        expect(team_cards(tb, st, s) <= max(tb.card_cap, int(st.cards0[s])), "card cap broken")
    return CheckedGame(
        winners=[bool(x) for x in winners],
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
        drafts=drafts,
        turn_records=turns,
        options_used=used,
    )


@jit
def play_games(tables, lineups, states, scratches, seed, start: int, stop: int, rotate: bool, out):
    """Play games ``start .. stop-1`` without logs; ``out[g - start]`` = (winning lineup
    position or -1, end reason, turns, seat of lineup position 0, lineup position of the first
    player). Seeded and dispatched as the chunk kernel does."""
    tb, lu, st, scratch = tables[0], lineups[0], states[0], scratches[0]
    for gid in range(start, stop):
        rot = start_game(st.rng, 2, seed, gid, rotate)
        deal(tb, st)
        while True:
            kind = advance(tb, st)
            st.n_ev = 0
            if kind == GAME_OVER:
                break
            if kind != ROUND_DONE:
                s = st.actor
                apply(tb, st, choose(lu, position(s, rot, 2), tb, st, s, scratch))
        g = gid - start
        out[g, 0] = position(st.winner, rot, 2) if st.winner >= 0 else -1
        out[g, 1] = st.end_reason
        out[g, 2] = st.turn
        out[g, 3] = rot
        out[g, 4] = position(st.first_seat, rot, 2)


def match(
    params: TableBattlesParameters,
    data: CardPool,
    lineup: list[Strategy],
    seed: int,
    n_games: int,
    rotate: bool = True,
    forbid: dict[int, tuple[str, ...]] | None = None,
) -> np.ndarray:
    """Play ``n_games`` compiled games; rows as :func:`play_games` writes them."""
    inputs = kernel_inputs(params, data, lineup, forbid)
    out = np.zeros((n_games, 5), dtype=np.int64)
    with np.errstate(over="ignore"):
        play_games(*inputs, np.uint64(seed), 0, n_games, rotate, out)
    return out


def main(argv: list[str] | None = None) -> None:
    """``python -m simulate.games.table_battles.check match LINEUP [--games N] [--seed S]
    [--set key=value ...]`` prints the first lineup position's win share with its 95%
    interval (seats rotated; a capped game counts half); ``speed LINEUP`` prints games per second
    of the compiled loop on one core, wall clock and CPU time (best of five runs each)."""
    import argparse
    import time

    from rules.core.params import parse_assignments

    ap = argparse.ArgumentParser(prog="python -m simulate.games.table_battles.check")
    ap.add_argument("what", choices=("match", "speed"))
    ap.add_argument("lineup")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=77)
    ap.add_argument("--set", action="append", default=[], dest="rules")
    args = ap.parse_args(argv)
    p = TableBattlesParameters().with_values(parse_assignments(args.rules))
    data = p.load_cards()
    lineup = REGISTRY.lineup(args.lineup, 2)
    match(p, data, lineup, args.seed, 4)  # compile (or load) first
    if args.what == "speed":
        wall = cpu = float("inf")
        for _ in range(5):
            t0, c0 = time.perf_counter(), time.process_time()
            match(p, data, lineup, args.seed, args.games)
            wall = min(wall, time.perf_counter() - t0)
            cpu = min(cpu, time.process_time() - c0)
        print(
            f"{args.lineup}: {args.games / wall:,.0f} games/s wall, {args.games / cpu:,.0f} per "
            f"CPU-second ({args.games} games, best of 5)"
        )
        return
    t0 = time.perf_counter()
    out = match(p, data, lineup, args.seed, args.games)
    dt = time.perf_counter() - t0
    n = args.games
    wins, losses, capped = (int((out[:, 0] == v).sum()) for v in (0, 1, -1))
    share = (wins + 0.5 * capped) / n
    half = 1.96 * (share * (1 - share) / n) ** 0.5
    decided = out[out[:, 0] >= 0]
    first = float((decided[:, 0] == decided[:, 4]).mean()) if len(decided) else 0.0
    print(
        f"{args.lineup}: first position {100 * share:.1f}% ± {100 * half:.1f} "
        f"({wins} wins, {losses} losses, {capped} capped; {n} games, seed {args.seed}, "
        f"{dt:.1f} s); the first player won {100 * first:.1f}% of decided games"
    )


if __name__ == "__main__":
    main()
