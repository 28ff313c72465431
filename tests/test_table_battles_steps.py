"""Dinosaur Table Battles: each step of the turn machine (``rules/table_battles/engine.py``) on
a hand-built battle.

Every test calls one step function directly and checks what the rule says it must do: who is
asked, what changes, which step follows. The whole machine is checked by the rule tests
(through ``advance``) and by the conformance suite.
"""

from __future__ import annotations

import numpy as np

from rules.core.rng import bounded, seed_streams
from rules.table_battles.constants import (
    ATTACK,
    BREAK,
    D_REMOVE_SECRET,
    DRAFT,
    END_MARKERS,
    END_TURN_CAP,
    NO_DECISION,
    PLACE,
    RK_BLOCK,
    ROUND_DONE,
)
from rules.table_battles.engine import (
    ST_ATTACK_ASK,
    ST_COUNTER,
    ST_DRAFT,
    ST_OVER,
    ST_PLACE_ASK,
    ST_ROLL,
    ST_SELF,
    ST_SETUP,
    ST_TURN_END,
    ST_TURN_START,
    ask_attack,
    ask_place,
    counter_hits,
    deal,
    draft,
    pack,
    reset_turn,
    roll_dice,
    self_hits,
    take_hits,
    turn_end,
    turn_start,
)
from rules.table_battles.state import EVENTS, S_DICE, make_table, new_states
from tests.test_table_battles_rules import CARDS, duel, params, put, slot_of, team_of


def drafting():
    """A dealt draft: five dino cards in each hand, nobody has chosen."""
    tb = make_table(params(), CARDS)[0]
    st = new_states(1)[0]
    with np.errstate(over="ignore"):
        seed_streams(st.rng[:3], np.uint64(7), np.uint64(7))
        deal(tb, st)
    assert st.step == ST_DRAFT
    return tb, st


def fight(tmp_path, bp: int = 3, **rules):
    """Seat 0's A (a per-die attack with "1 self") has attacked seat 1's T; nothing resolved."""
    tb, st = duel(tmp_path, "ATK_PER_DIE", "", bp=bp, **rules)
    reset_turn(st)
    st.active = 0
    st.a_team, st.a_slot = team_of(st, 0, tb, "A"), slot_of(tb, st, 0, "A")
    st.h_team = team_of(st, 1, tb, "T")
    st.markers[:] = [9, 9]
    st.a_markers = 9
    return tb, st


# ---------------------------------------------------------------- the draft


def test_draft_asks_both_players_in_secret_then_reveals_both():
    tb, st = drafting()
    assert draft(tb, st) == DRAFT and st.actor == 0
    st.kind, st.has_pend[0] = NO_DECISION, 1
    st.pend[0] = pack(st.hand[0, 0], D_REMOVE_SECRET)
    assert draft(tb, st) == DRAFT and st.actor == 1  # seat 0's choice stays hidden
    st.kind, st.has_pend[1] = NO_DECISION, 1
    st.pend[1] = pack(st.hand[1, 0], D_REMOVE_SECRET)
    assert draft(tb, st) == NO_DECISION
    assert list(st.hand_len) == [4, 4] and not st.has_pend.any() and st.dstep == 1


def test_draft_skips_an_empty_hand_and_ends_when_both_are_empty():
    tb, st = drafting()
    st.hand_len[0] = 0
    assert draft(tb, st) == DRAFT and st.actor == 1
    st.kind, st.hand_len[1] = NO_DECISION, 0
    assert draft(tb, st) == NO_DECISION and st.step == ST_SETUP


# ---------------------------------------------------------------- the start of a turn


def test_turn_start_clears_the_last_turn_and_goes_to_the_attack_phase(tmp_path):
    tb, st = fight(tmp_path)
    st.hits, st.counter, st.step = 4, 2, ST_TURN_START
    turn_start(tb, st)
    assert (st.hits, st.counter, st.a_slot, st.h_team) == (0, 0, -1, -1)
    assert st.step == ST_ATTACK_ASK and not st.over


def test_turn_start_skips_the_attack_phase_after_a_reaction(tmp_path):
    tb, st = fight(tmp_path)
    st.skip[0] = 1
    turn_start(tb, st)
    assert st.step == ST_ROLL and st.skip[0] == 0


def test_turn_start_ends_the_game_on_no_markers_or_the_turn_cap(tmp_path):
    tb, st = fight(tmp_path)
    st.markers[1] = 0
    turn_start(tb, st)
    assert st.step == ST_OVER and (st.over, st.winner, st.end_reason) == (1, 0, END_MARKERS)
    tb, st = fight(tmp_path)
    st.turn = tb.max_turns
    turn_start(tb, st)
    assert st.step == ST_OVER and (st.winner, st.end_reason) == (-1, END_TURN_CAP)


# ---------------------------------------------------------------- attack and hits


def test_ask_attack_asks_only_with_dice_on_an_attack_card(tmp_path):
    tb, st = fight(tmp_path)
    assert ask_attack(tb, st) == NO_DECISION and st.step == ST_ROLL
    put(tb, st, 0, "A", 1, 6, 2)
    st.step = ST_ATTACK_ASK
    assert ask_attack(tb, st) == ATTACK and st.actor == 0 and st.step == ST_ROLL


def test_take_hits_removes_markers_below_the_break_point(tmp_path):
    tb, st = fight(tmp_path, bp=3)
    st.hits = 2
    assert take_hits(tb, st) == NO_DECISION
    assert st.markers[1] == 7 and st.resolved == 0 and st.step == ST_COUNTER


def test_take_hits_offers_a_flip_at_the_break_point_or_at_one_marker(tmp_path):
    tb, st = fight(tmp_path, bp=3)
    st.hits = 3
    assert take_hits(tb, st) == BREAK and st.actor == 1
    assert (st.bk_seat, st.bk_team, st.bk_hits, st.bk_kind) == (1, st.h_team, 3, 0)
    assert st.markers[1] == 9
    tb, st = fight(tmp_path, bp=3)
    st.hits, st.markers[1] = 1, 1
    assert take_hits(tb, st) == BREAK and st.actor == 1


def test_take_hits_ends_the_turn_when_the_last_marker_goes(tmp_path):
    tb, st = fight(tmp_path, bp=9)
    st.hits, st.markers[1] = 4, 3
    assert take_hits(tb, st) == NO_DECISION
    assert st.markers[1] == 0 and st.over and st.step == ST_TURN_END


def test_counter_hits_hit_the_attacker_with_the_break_point_by_rule(tmp_path):
    tb, st = fight(tmp_path, bp=3)
    st.counter = 2
    assert counter_hits(tb, st) == NO_DECISION and st.markers[0] == 7 and st.step == ST_SELF
    tb, st = fight(tmp_path, bp=3)
    st.counter = 3
    assert counter_hits(tb, st) == BREAK and st.actor == 0 and st.bk_kind == 1
    tb, st = fight(tmp_path, bp=3, counter_break_point=False)
    st.counter = 3
    assert counter_hits(tb, st) == NO_DECISION and st.markers[0] == 6


def test_counter_hits_at_one_marker_flip_only_by_rule_and_spare_a_dead_attacker(tmp_path):
    tb, st = fight(tmp_path, bp=3)
    st.counter, st.markers[0] = 1, 1
    assert counter_hits(tb, st) == NO_DECISION and st.markers[0] == 0
    tb, st = fight(tmp_path, bp=3, one_marker_flip_counter=True)
    st.counter, st.markers[0] = 1, 1
    assert counter_hits(tb, st) == BREAK and st.actor == 0
    tb, st = fight(tmp_path, bp=3)
    st.counter, st.alive[0, st.a_team] = 2, 0
    assert counter_hits(tb, st) == NO_DECISION and st.markers[0] == 9


def test_self_hits_cost_the_attacker_one_marker(tmp_path):
    tb, st = fight(tmp_path)
    self_hits(tb, st)
    assert st.self_hits == 1 and st.markers[0] == 8 and st.step == ST_ROLL
    tb, st = fight(tmp_path)
    st.a_slot = slot_of(tb, st, 0, "A", 2)  # a flat one-hit card: no "1 self"
    self_hits(tb, st)
    assert st.self_hits == 0 and st.markers[0] == 9


def test_self_hits_spare_a_blocked_attack_unless_the_rule_says_otherwise(tmp_path):
    for rule, paid in ((False, 0), (True, 1)):
        tb, st = fight(tmp_path, self_hit_when_blocked=rule)
        st.r_kind, st.h_team = RK_BLOCK, -1
        self_hits(tb, st)
        assert st.self_hits == paid, rule


def test_self_hits_spare_an_attack_made_at_one_marker_judged_by_rule(tmp_path):
    for rule, paid in (("attack", 0), ("self_hit", 1)):
        tb, st = fight(tmp_path, one_marker_self_at=rule)
        st.a_markers, st.markers[0] = 1, 2  # attacked at one marker, stole one back since
        self_hits(tb, st)
        assert st.self_hits == paid, rule


# ---------------------------------------------------------------- dice and the end of a turn


def test_roll_dice_rolls_every_free_die_on_the_active_players_stream(tmp_path):
    tb, st = fight(tmp_path)
    st.active, st.free[1] = 1, 4
    other = st.rng[S_DICE]
    copy = st.rng.copy()
    with np.errstate(over="ignore"):
        faces = [1 + bounded(copy, S_DICE + 1, 6) for _ in range(4)]
    roll_dice(tb, st)
    assert list(st.rolled[1:]) == [faces.count(f) for f in range(1, 7)]
    assert st.rng[S_DICE] == other and st.step == ST_PLACE_ASK


def test_ask_place_asks_while_a_die_can_go_on_a_card(tmp_path):
    tb, st = fight(tmp_path)
    st.rolled[3] = 2
    assert ask_place(tb, st) == PLACE and st.actor == 0
    st.kind, st.n_placed = NO_DECISION, 2  # dice on two dinos already
    assert ask_place(tb, st) == NO_DECISION and st.step == ST_TURN_END


def test_turn_end_records_the_turn_and_passes_it_on_unless_the_game_is_over(tmp_path):
    tb, st = fight(tmp_path)
    st.active, st.turn, st.n_ev = 1, 4, 0
    assert turn_end(tb, st) == ROUND_DONE
    assert (st.turn, st.active, st.step) == (5, 0, ST_TURN_START)
    turns = [e for e in EVENTS.pending(st) if e.kind == "turn"]
    assert [(e.turn, e.seat) for e in turns] == [(4, 1)]
    st.over = 1
    assert turn_end(tb, st) == ROUND_DONE and st.step == ST_OVER and st.active == 0
