"""The kit's step checker (``simulate/kit/check.py``): every game's checked games end as the
kernel's rows say, over a few hundred games with several bots, and a broken game is caught:
an action the engine refuses, an illegal action a broken legality lets through, a decision
with no legal action, a bot that ignores its forbids, event records dropped or left over, a
result that contradicts its winners, and (through a game's referee) a round the engine gets
wrong. Table Battles stands for the games that ask one seat at a time, the test game of
``tests/toygame`` for those where every seat plays at once.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from simulate.games import get_game
from simulate.kit.check import Checker, RuleBroken, restrict
from simulate.kit.play import play
from strategies.core.registry import StrategyError
from tests.toygame import SPEC as TOY

TB = get_game("dtb")
OOS = get_game("oos")

CHECKED = [  # (game, players, lineups, games per lineup): a few hundred games each
    ("dkd", 4, ("greedy,random,cautious,odds", "blind", "random"), 100),
    ("dtb", 2, ("heuristic,random", "random,heuristic", "heuristic"), 60),
    ("evo", 4, ("heuristic,random,heuristic-v1,random", "random", "heuristic"), 30),
    ("oos", 3, ("heuristic,random,heuristic-v1", "random", "heuristic"), 30),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players", "lineups", "games"), CHECKED)
def test_checked_games_end_as_the_kernel_says(name, players, lineups, games):
    game = get_game(name)
    for i, lineup in enumerate(lineups):
        setup = game.setup(game.parameters(), players, lineup)
        rows = play(setup, 30 + i, False, 0, games, tables=())
        winners = np.array(rows["players"]["winner"].to_pylist()).reshape(games, players)
        rounds = rows["games"]["rounds"].to_pylist()
        for gid in range(games):
            checked = game.check(setup, 30 + i, gid)
            assert checked.winners == winners[gid].tolist(), (lineup, gid)
            assert checked.rounds == rounds[gid], (lineup, gid)
            assert checked.decisions >= players, (lineup, gid)


def broken(game, **engine) -> Checker:
    """The game's checker with some of its engine's functions replaced."""
    return dataclasses.replace(game.check, engine=dataclasses.replace(game.check.engine, **engine))


def tb_setup(lineup: str = "heuristic,random"):
    return TB.setup(TB.parameters(), 2, lineup)


def test_every_event_record_reaches_the_referee_once_as_the_kernel_logs_it():
    setup = tb_setup()
    for gid in range(6):
        checked = TB.check(setup, 8, gid)
        rows = play(setup, 8, False, gid, gid + 1)
        assert len(checked.drafts) == rows["drafts"].num_rows > 0
        assert len(checked.turn_records) == rows["turns"].num_rows == checked.turns


def test_an_action_the_engine_refuses_is_caught():
    check = broken(TB, choose=lambda lu, j, tb, st, seat, scratch: -12345)
    with pytest.raises(RuleBroken, match=r"took action -12345 .*, which is illegal"):
        check(tb_setup(), 1, 0)


def test_an_illegal_action_let_through_by_a_broken_legality_is_caught():
    """``is_legal`` says yes to anything: the action is still not among those the engine
    lists for the decision."""
    check = broken(
        TB,
        is_legal=lambda tb, st, action: True,
        choose=lambda lu, j, tb, st, seat, scratch: 999_999,
    )
    with pytest.raises(RuleBroken, match=r"not among the .* legal actions the engine lists"):
        check(tb_setup(), 1, 0)


def test_a_decision_with_no_legal_action_is_caught():
    real = TB.check.engine.actions

    def none_listed(tb, st, k):
        return 0 if k < 0 else real(tb, st, k)

    with pytest.raises(RuleBroken, match="no legal action"):
        broken(TB, actions=none_listed)(tb_setup(), 1, 0)


def test_a_bot_that_ignores_its_forbids_is_caught():
    forbid = {0: ("block", "counter", "tyrannosaurus-rex", "spinosaurus")}
    setup = tb_setup("random,heuristic")
    for gid in range(4):  # honoured by the real bot
        TB.check(setup, 3, gid, forbid=forbid)
    free = TB.registry.lineup_record(list(setup.lineup))[0]  # no forbids
    real = TB.check.engine.choose
    check = broken(
        TB, choose=lambda lu, j, tb, st, seat, scratch: real(free, j, tb, st, seat, scratch)
    )
    with pytest.raises(RuleBroken, match=r"using forbidden .* while another legal action"):
        for gid in range(40):
            check(setup, 3, gid, forbid=forbid)


def test_event_records_filling_the_buffer_or_left_at_the_end_are_caught():
    advance, final_result = TB.check.engine.advance, TB.check.engine.final_result

    def overflowing(tb, st):
        kind = advance(tb, st)
        st.n_ev = st.ev.shape[0]  # as full as an engine that emitted one record too many
        return kind

    def leaving_one(tb, st, winners):
        st.n_ev = 1
        return final_result(tb, st, winners)

    with pytest.raises(RuleBroken, match="filled the buffer"):
        broken(TB, advance=overflowing)(tb_setup(), 1, 0)
    with pytest.raises(RuleBroken, match="1 event records left after the game"):
        broken(TB, final_result=leaving_one)(tb_setup(), 1, 0)


def test_dropped_event_records_are_caught():
    advance = OOS.check.engine.advance

    def dropping(tb, st):
        kind = advance(tb, st)
        st.ev_lost = 2
        return kind

    setup = OOS.setup(OOS.parameters(), 3, "random")
    with pytest.raises(RuleBroken, match="2 event records were dropped"):
        broken(OOS, advance=dropping)(setup, 1, 0)


def test_a_result_that_contradicts_its_winners_is_caught():
    final_result = TB.check.engine.final_result

    def wrong(tb, st, winners):
        return 1 - final_result(tb, st, winners)

    with pytest.raises(RuleBroken, match="sole winner"):
        broken(TB, final_result=wrong)(tb_setup(), 1, 0)


def toy_setup():
    return TOY.setup(TOY.parameters(), 3, "high,random,low")


def test_a_simultaneous_game_is_checked_round_by_round():
    checked = TOY.check(toy_setup(), 4, 0)
    rows = play(toy_setup(), 4, False, 0, 1, tables=())
    assert checked.winners == rows["players"]["winner"].to_pylist()
    assert checked.decisions == 3 * TOY.parameters().hand


def test_a_simultaneous_game_catches_a_slot_outside_the_hand_and_an_empty_hand():
    slots = TOY.check.engine.slots
    past_the_end = broken(TOY, choose=lambda lu, j, tb, st, seat, scratch: slots(tb, st))
    with pytest.raises(RuleBroken, match="which is illegal"):
        past_the_end(toy_setup(), 1, 0)
    with pytest.raises(RuleBroken, match="no legal action"):
        broken(TOY, slots=lambda tb, st: 0)(toy_setup(), 1, 0)


def test_the_referee_catches_a_round_the_engine_resolves_wrongly():
    play_round = TOY.check.engine.play_round

    def nobody_wins(tb, st, slots):
        play_round(tb, st, slots)
        return -1

    with pytest.raises(RuleBroken, match="won the round, the rules say"):
        for gid in range(5):
            broken(TOY, play_round=nobody_wins)(toy_setup(), 1, gid)


def test_a_restricted_setup_is_the_setup_its_spec_spells():
    setup = restrict(tb_setup("random[forbid=counter],heuristic"), {0: ("block",), 1: ("block",)})
    again = tb_setup("random[forbid=block+counter],heuristic[forbid=block]")
    assert [s.spec for s in setup.lineup] == [s.spec for s in again.lineup]
    assert setup.key == again.key
    with pytest.raises(StrategyError, match="unknown option 'wings'"):
        restrict(setup, {0: ("wings",)})
