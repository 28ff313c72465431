"""Play Dinosaur Table Battles games step by step from Python with every invariant checked,
and a small compiled loop that plays many games for speed measurements and strength ladders.

:func:`play_checked` is the debugging and testing twin of the (later) chunk kernel: it seeds,
deals, asks the bots and applies their actions exactly as a kernel does, and after every
engine call checks the rules' invariants (markers never negative, dice conserved, the dice on
every card allowed by its dice area, no dice on a flipped card, at most two dinos receiving
dice a turn with one card each, the draft's action-card cap, every action legal, the end
condition the state reports). A broken invariant raises :class:`AssertionError` naming it.

:func:`play_games` is the compiled loop (no logging): game ``gid`` is keyed by
``game_key(seed, gid)``; with ``rotate`` the two games ``2k, 2k+1`` share the deal key ``k``
and swap the seats of the two lineup positions.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rules.core.jit import jit
from rules.core.rng import game_key, seed_streams
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
from rules.table_battles.state import EV_DRAFT, EV_TURN, EV_WIDTH, make_table, new_states
from strategies.core.registry import Strategy
from strategies.table_battles import REGISTRY
from strategies.table_battles.bots import choose


@dataclasses.dataclass
class CheckedGame:
    """What a checked game saw: its final numbers and every event record."""

    winner: int
    winners: list[bool]
    end_reason: int
    turns: int
    markers: list[int]
    markers0: list[int]
    cards0: list[int]
    first: list[int]
    teams: list[list[int]]
    decisions: int
    drafts: list[tuple[int, ...]]  # seat, pick, dino, action, rating
    turn_records: list[tuple[int, ...]]  # the EV_TURN columns 1..
    options_used: list[tuple[int, int]]  # (seat, option) of every action taken


def check_state(tb, st, total_dice: int) -> None:
    """The invariants that hold after every engine call."""
    for s in range(2):
        assert st.markers[s] >= 0, f"seat {s} has {st.markers[s]} markers"
        on_cards = 0
        n_alive = 0
        for t in range(int(st.n_team[s])):
            d = int(st.team[s, t])
            first = int(st.team_slot[s, t])
            ups = sum(int(st.up[s, first + k]) for k in range(int(tb.d_cards[d])))
            assert ups == st.team_up[s, t], f"seat {s} dino {d}: face-up count {ups}"
            assert bool(st.alive[s, t]) == (ups > 0), f"seat {s} dino {d}: alive but all flipped"
            n_alive += int(st.alive[s, t])
        assert n_alive == st.n_alive[s], f"seat {s}: {n_alive} dinos alive, n_alive {st.n_alive[s]}"
        for slot in range(int(st.n_slots[s])):
            card = int(st.slot_card[s, slot])
            dice = [int(x) for x in st.dice[s, slot]]
            assert dice[0] == sum(dice[1:]), f"seat {s} card {card}: dice total {dice}"
            assert min(dice) >= 0, f"seat {s} card {card}: negative dice"
            on_cards += dice[0]
            if not st.up[s, slot]:
                assert dice[0] == 0, f"seat {s} card {card}: a flipped card holds dice"
            faces = int(tb.c_faces[card])
            if dice[0] and faces != PAIR_AREA:
                for f in range(1, 7):
                    assert not dice[f] or faces >> f & 1, f"card {card} holds a {f} off its area"
        assert st.free[s] >= 0, f"seat {s}: {st.free[s]} free dice"
        if tb.flip_returns:
            assert on_cards + st.free[s] == total_dice, f"seat {s}: dice not conserved"
        else:
            assert on_cards + st.free[s] <= total_dice, f"seat {s}: dice appeared"
        if st.n_slots[s]:
            assert team_cards(tb, st, s) <= max(tb.card_cap, st.cards0[s]), "card cap broken"
    assert 0 <= st.n_placed <= 2, f"{st.n_placed} dinos received dice this turn"


def build(params: TableBattlesParameters, data: CardPool, lineup: list[Strategy], forbid=None):
    """Table, lineup record and states (the game plus spare states for search rollouts)."""
    tb = make_table(params, data, 2)
    lu = REGISTRY.lineup_record(lineup, forbid)
    return tb, lu, new_states(3)


def play_checked(
    params: TableBattlesParameters,
    data: CardPool,
    n_players: int,
    lineup: list[Strategy],
    seed: int,
    game_id: int,
    forbid: dict[int, tuple[str, ...]] | None = None,
) -> CheckedGame:
    """Play game ``game_id`` of ``seed`` (lineup position = seat) with every check on."""
    params.check_players(n_players, data)
    tbs, lus, states = build(params, data, lineup, forbid)
    tb, lu, st = tbs[0], lus[0], states[0]
    pool = states[1:]
    drafts: list[tuple[int, ...]] = []
    turns: list[tuple[int, ...]] = []
    used: list[tuple[int, int]] = []
    decisions = 0
    total = int(tb.dice)
    with np.errstate(over="ignore"):
        key = np.uint64(game_key(np.uint64(seed), np.uint64(game_id)))
        seed_streams(st.rng[:3], key, key)
        deal(tb, st)
        placed_teams: set[int] = set()
        while True:
            kind = advance(tb, st)
            for e in np.array(st.ev[: st.n_ev]):
                if e[0] == EV_DRAFT:
                    drafts.append(tuple(int(x) for x in e[1:6]))
                elif e[0] == EV_TURN:
                    turns.append(tuple(int(x) for x in e[1:EV_WIDTH]))
                    placed_teams = set()
            st.n_ev = 0
            if st.n_slots[0] or st.n_slots[1]:
                check_state(tb, st, total)
            if kind == GAME_OVER:
                break
            if kind == ROUND_DONE:
                continue
            decisions += 1
            seat = int(st.actor)
            n = int(actions(tb, st, -1))
            assert n >= 1, f"decision {kind} with no legal action"
            action = int(choose(lu, seat, tb, st, pool))
            assert is_legal(tb, st, action), f"illegal action {action} for decision {kind}"
            opt = int(option_of(tb, st, action))
            if opt >= 0:
                used.append((seat, opt))
            if kind == PLACE and action >= 0:
                t = int(st.slot_team[seat, action >> 16])
                assert t not in placed_teams, "dice placed twice on one dino in a turn"
                placed_teams.add(t)
                assert len(placed_teams) <= 2, "dice placed on more than two dinos"
            if kind == DRAFT:
                assert st.dstep < tb.draft_hand, "draft went on too long"
            apply(tb, st, action)
        winners = np.zeros(2, dtype=np.bool_)
        winner = int(final_result(tb, st, winners))
    reason = int(st.end_reason)
    a = int(st.active)
    if reason == END_TURN_CAP:
        assert winner == -1 and int(st.turn) == tb.max_turns, "capped game with a winner"
    elif reason == END_MARKERS:
        assert st.markers[1 - winner] <= 0, "markers win with markers left"
    elif reason == END_ONE_DINO:
        assert st.n_alive[1 - winner] <= 1, "one-dino win with more dinos"
    elif reason == END_BOTH_ONE:
        assert st.markers[0] == st.markers[1] == 1, "both-at-one end without one marker each"
        u = [int(face_up_cards(tb, st, s)) for s in range(2)]
        expect = 0 if u[0] > u[1] else 1 if u[1] > u[0] else 1 - int(st.first_seat)
        assert winner == expect, "both-at-one winner is not the one with more face-up cards"
    else:
        raise AssertionError(f"game ended without a reason (active {a})")
    for s in range(2):
        assert team_cards(tb, st, s) <= max(tb.card_cap, int(st.cards0[s]))
    return CheckedGame(
        winner=winner,
        winners=[bool(x) for x in winners],
        end_reason=reason,
        turns=int(st.turn),
        markers=[int(x) for x in st.markers],
        markers0=[int(x) for x in st.markers0],
        cards0=[int(x) for x in st.cards0],
        first=[int(x) for x in st.first],
        teams=[[int(d) for d in st.team[s, : st.n_team[s]]] for s in range(2)],
        decisions=decisions,
        drafts=drafts,
        turn_records=turns,
        options_used=used,
    )


@jit
def play_games(tb, lu, states, seed, start: int, stop: int, rotate: bool, out) -> None:
    """Play games ``start .. stop-1``; ``out[g - start]`` = (winning lineup position or -1,
    end reason, turns, seat of lineup position 0, lineup position of the first player)."""
    st = states[0]
    pool = states[1:]
    for gid in range(start, stop):
        rot = gid % 2 if rotate else 0
        key = game_key(seed, np.uint64(gid // 2 if rotate else gid))
        seed_streams(st.rng[:3], key, game_key(seed, np.uint64(gid)) if rotate else key)
        deal(tb, st)
        while True:
            kind = advance(tb, st)
            st.n_ev = 0
            if kind == GAME_OVER:
                break
            if kind != ROUND_DONE:
                j = st.actor ^ rot
                apply(tb, st, choose(lu, j, tb, st, pool))
        g = gid - start
        out[g, 0] = st.winner ^ rot if st.winner >= 0 else -1
        out[g, 1] = st.end_reason
        out[g, 2] = st.turn
        out[g, 3] = rot
        out[g, 4] = st.first_seat ^ rot


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
    tbs, lus, states = build(params, data, lineup, forbid)
    out = np.zeros((n_games, 5), dtype=np.int64)
    with np.errstate(over="ignore"):
        play_games(tbs[0], lus[0], states, np.uint64(seed), 0, n_games, rotate, out)
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
