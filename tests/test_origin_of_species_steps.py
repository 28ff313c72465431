"""Origin of Species: each step of the round machine (``rules/origin_of_species/engine.py``) on
a hand-built table.

Every test calls one step function directly and checks what the rule says it must do: who is
asked, what changes, which step follows. The whole machine is checked by the rule tests
(through ``advance``) and by the conformance suite.
"""

from __future__ import annotations

import numpy as np

from rules.core.rng import bounded
from rules.origin_of_species.board import arm
from rules.origin_of_species.constants import (
    CARNIVORE,
    COMMUNICATION,
    COOPERATION,
    DEFEND,
    DEVELOP,
    FEED,
    GRAZING,
    HIGH_BODY_WEIGHT,
    LINK,
    NO_DECISION,
    OUT_KILLED,
    ROUND_DONE,
    SCAVENGE,
    SCAVENGER,
    TAIL_LOSS,
)
from rules.origin_of_species.engine import (
    GO_ON,
    ST_CHAIN,
    ST_DEV,
    ST_EXTINCT,
    ST_FOOD,
    ST_NEXT,
    ST_OVER,
    ST_ROUND,
    ST_ROUND_DONE,
    ST_SCAV,
    ST_TURN,
    ST_TURN_CONT,
    declare,
    defence,
    development,
    extinction,
    feeding_goes_on,
    feeding_turn,
    food_bank,
    link_chain,
    next_round,
    round_end,
    scavenge,
)
from rules.origin_of_species.state import S_FOOD
from tests.test_origin_of_species_rules import animal, events, game, hand_only, link


def table(n: int = 3, **rules):
    """A dealt game with no animals on the table."""
    tb, st = game(n, **rules)
    st.n_an[:] = 0
    return tb, st


def turn_of(tb, st, step: int, first: int = 0) -> None:
    """A phase under way from ``first``, nobody passed, nothing pending."""
    st.kind, st.step, st.first, st.pos, st.idle = NO_DECISION, step, first, 0, 0
    st.dev_passed[:] = 0
    st.f_passed[:] = 0
    st.bank = 5


# ---------------------------------------------------------------- development and food


def test_development_asks_each_player_in_turn_from_the_first():
    tb, st = table()
    turn_of(tb, st, ST_DEV, first=2)
    assert development(tb, st) == DEVELOP and st.actor == 2 and st.pos == 1
    st.kind = NO_DECISION
    assert development(tb, st) == DEVELOP and st.actor == 0 and st.pos == 2


def test_development_passes_for_a_player_with_nothing_to_play_and_skips_who_passed():
    tb, st = table()
    turn_of(tb, st, ST_DEV)
    hand_only(st, 0)  # no cards: passes for the whole phase at once
    st.dev_passed[1] = 1
    assert development(tb, st) == GO_ON and st.dev_passed[0] == 1 and st.kind == NO_DECISION
    assert development(tb, st) == GO_ON and st.pos == 2  # seat 1 had passed: skipped
    assert development(tb, st) == DEVELOP and st.actor == 2
    st.dev_passed[2] = 1
    assert development(tb, st) == GO_ON and st.step == ST_FOOD  # everybody has passed


def test_food_bank_rolls_the_dice_and_adds_the_red_tokens():
    tb, st = table(4)
    animal(tb, st, 1, CARNIVORE, HIGH_BODY_WEIGHT)  # needs 3
    animal(tb, st, 1)
    st.step, st.first, st.pos, st.idle, st.verbose = ST_FOOD, 2, 1, 3, 1
    copy = st.rng.copy()
    with np.errstate(over="ignore"):
        dice = sum(1 + bounded(copy, S_FOOD, 6) for _ in range(tb.food_dice))
    assert food_bank(tb, st) == GO_ON
    assert st.bank == st.r_bank == dice + tb.food_add
    assert list(st.r_need[:4]) == [0, 4, 0, 0]
    assert (st.pos, st.idle, st.step) == (0, 0, ST_TURN)
    assert [(e.bank, e.first) for e in events(st, "food")] == [(st.bank, 2)]


# ---------------------------------------------------------------- feeding


def test_feeding_turn_asks_the_player_in_turn_and_skips_who_cannot_feed():
    tb, st = table()
    for s in (0, 2):
        animal(tb, st, s)
    turn_of(tb, st, ST_TURN, first=1)
    st.grazed[2] = 1
    assert feeding_turn(tb, st) == GO_ON  # seat 1 has no animal
    assert (st.idle, st.pos) == (1, 1)
    assert feeding_turn(tb, st) == FEED and st.actor == 2 and st.turn == 2
    assert st.grazed[2] == 0 and st.turn_did == 0 and st.main_done == 0
    st.kind, st.f_passed[2], st.pos, st.idle = NO_DECISION, 1, 1, 0  # passed: final
    assert feeding_turn(tb, st) == GO_ON and st.idle == 1


def test_feeding_turn_ends_the_phase_after_a_silent_go_around_or_by_rule_an_empty_bank():
    tb, st = table()
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 1)
    turn_of(tb, st, ST_TURN)
    st.idle = 3
    assert feeding_turn(tb, st) == GO_ON and st.step == ST_EXTINCT
    turn_of(tb, st, ST_TURN)
    st.bank = 0  # the carnivore may still attack
    assert feeding_turn(tb, st) == FEED
    tb, st = table(feeding_ends="empty_bank")
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 1)
    turn_of(tb, st, ST_TURN)
    st.bank = 0
    assert feeding_turn(tb, st) == GO_ON and st.step == ST_EXTINCT


def test_feeding_turn_readies_paired_traits_per_action_or_per_go_around():
    for rule, pos, ready in (("action", 1, True), ("go-around", 1, False), ("go-around", 0, True)):
        tb, st = table(paired_once_per=rule)
        animal(tb, st, 0)
        animal(tb, st, 0)
        link(st, 0, COOPERATION, 0, 1)
        turn_of(tb, st, ST_TURN)
        st.pos, st.ln_used[0, 0], st.ln_dirty = pos, 1, 1
        feeding_turn(tb, st)
        assert (st.ln_used[0, 0] == 0) == ready, (rule, pos)


def test_feeding_goes_on_until_the_main_action_unless_free_traits_may_follow():
    for free, main, asked in ((True, 1, True), (False, 1, False), (False, 0, True)):
        tb, st = table(free_traits_after_main=free)
        animal(tb, st, 1, GRAZING)  # Grazing is a free trait; a red token the main action
        turn_of(tb, st, ST_TURN_CONT)
        st.turn, st.pos, st.main_done, st.turn_did, st.idle = 1, 1, main, 1, 2
        kind = feeding_goes_on(tb, st)
        if asked:
            assert kind == FEED and st.actor == 1, (free, main)
        else:  # the turn ends: it acted, so the go-around is not silent
            assert kind == GO_ON and (st.pos, st.idle, st.step) == (2, 0, ST_TURN), (free, main)


def test_link_chain_fires_the_only_link_and_returns_to_the_interrupted_step():
    tb, st = table(2)
    animal(tb, st, 0)
    animal(tb, st, 0)
    link(st, 0, COOPERATION, 0, 1)
    arm(st, 0, 0, False)  # animal 0 got a blue token
    st.turn, st.ch_i, st.ret, st.step = 0, 0, ST_SCAV, ST_CHAIN
    assert link_chain(tb, st) == GO_ON
    assert st.an_food[0, 1] == 1 and st.ln_used[0, 0] == 1 and st.step == ST_SCAV


def test_link_chain_asks_the_owner_when_several_links_can_fire_and_disarms_the_rest():
    tb, st = table(3)
    for _ in range(3):
        animal(tb, st, 0)
    link(st, 0, COMMUNICATION, 0, 1)
    link(st, 0, COMMUNICATION, 0, 2)
    arm(st, 0, 0, True)  # a red token from the bank: both Communications ready
    animal(tb, st, 2)
    animal(tb, st, 2)
    link(st, 2, COMMUNICATION, 0, 1)
    arm(st, 2, 0, True)
    st.turn, st.ch_i, st.ret, st.step, st.bank = 2, 0, ST_TURN_CONT, ST_CHAIN, 0
    assert link_chain(tb, st) == GO_ON  # an empty bank: no link can pass a red token on
    assert not st.ln_armed[0, :2].any() and st.ln_armed[2, 0] == 0 and st.step == ST_TURN_CONT
    arm(st, 0, 0, True)
    arm(st, 2, 0, True)
    st.ch_i, st.step, st.bank = 0, ST_CHAIN, 2
    assert link_chain(tb, st) == LINK and st.actor == 0 and st.ch_i == 1
    assert st.an_food[2, 1] == 1 and st.bank == 1  # seat 2, in turn, fired its link first


# ---------------------------------------------------------------- attacks


def attack(*prey, n: int = 3):
    """Seat 1's carnivore has declared an attack on seat 2's animal with ``prey`` traits."""
    tb, st = table(n)
    animal(tb, st, 1, CARNIVORE)
    animal(tb, st, 2, *prey)
    turn_of(tb, st, ST_TURN)
    st.turn = 1
    declare(tb, st, 1, 0, 2, 0)
    return tb, st


def test_defence_asks_the_target_owner_when_it_has_a_choice():
    tb, st = attack(TAIL_LOSS)  # drop Tail Loss, or accept the attack
    assert defence(tb, st) == DEFEND and st.actor == 2


def test_defence_takes_the_only_defence_for_its_owner():
    tb, st = attack()  # no defence: the attack is accepted, the prey eaten
    assert defence(tb, st) == GO_ON
    assert st.n_an[2] == 0 and st.an_food[1, 0] == 2 and st.step == ST_SCAV and st.sc_i == 0


def test_scavenge_feeds_the_next_scavenger_from_the_attacker_round_the_table():
    tb, st = attack(n=4)
    animal(tb, st, 3, SCAVENGER, food=1)  # fed: no room
    animal(tb, st, 0, SCAVENGER)
    st.step, st.sc_i = ST_SCAV, 0
    for i in range(3):  # seats 1 and 2 have no scavenger, seat 3's is fed
        assert scavenge(tb, st) == GO_ON and st.sc_i == i + 1
    assert scavenge(tb, st) == GO_ON and st.an_food[0, 0] == 1 and st.an_food[3, 0] == 1
    assert events(st, "attack")[-1].scavenger_seat == 0 and st.step == ST_CHAIN


def test_scavenge_asks_a_player_with_several_and_ends_the_attack_after_the_last():
    tb, st = attack()
    animal(tb, st, 0, SCAVENGER)
    animal(tb, st, 0, SCAVENGER)
    st.step, st.sc_i = ST_SCAV, 2
    assert scavenge(tb, st) == SCAVENGE and st.actor == 0
    st.kind, st.sc_i = NO_DECISION, 3
    assert scavenge(tb, st) == GO_ON and st.step == ST_CHAIN and st.ret == ST_TURN_CONT
    e = events(st, "attack")[-1]
    assert e.outcome == OUT_KILLED and e.scavenger_seat == -1


# ---------------------------------------------------------------- the end of a round


def test_extinction_pauses_once_for_checks_then_kills_the_unfed():
    tb, st = table(2)
    animal(tb, st, 0)
    animal(tb, st, 1, food=1)
    st.step, st.pause = ST_EXTINCT, 1
    assert extinction(tb, st) == NO_DECISION and st.step == ST_EXTINCT and st.n_an[0] == 1
    assert extinction(tb, st) == GO_ON and st.pause == 1
    assert list(st.n_an[:2]) == [0, 1] and st.step == ST_ROUND_DONE
    assert list(st.r_starved[:2]) == [1, 0]


def test_round_end_ends_after_the_last_round_by_rule():
    for rule, last, empty, ends in (
        ("next", 1, False, True),
        ("next", 0, True, False),
        ("same", 0, True, True),
        ("same", 1, False, False),
    ):
        tb, st = table(2, last_round=rule)
        animal(tb, st, 0, CARNIVORE)
        st.step, st.last, st.rnd = ST_ROUND_DONE, last, 3
        st.deck_top = st.deck_len if empty else 0
        assert round_end(tb, st) == ROUND_DONE
        assert st.step == (ST_OVER if ends else ST_NEXT), (rule, last, empty)
        assert st.over == ends and st.score[0] == (3 + tb.bonus[CARNIVORE] if ends else 0)


def test_round_end_stops_at_the_round_cap():
    tb, st = table(2)
    st.step, st.last, st.deck_top, st.rnd = ST_ROUND_DONE, 0, 0, tb.max_rounds - 1
    assert round_end(tb, st) == ROUND_DONE and st.step == ST_OVER


def test_next_round_moves_the_first_player_one_seat_clockwise():
    tb, st = table(3)
    st.step, st.rnd, st.first = ST_NEXT, 4, 2
    assert next_round(tb, st) == GO_ON
    assert (st.rnd, st.first, st.step) == (5, 0, ST_ROUND)
