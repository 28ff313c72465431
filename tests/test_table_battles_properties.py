"""Dinosaur Table Battles invariants over random seeds, rules and bots (hypothesis), and the
compiled engine against the same code run as plain Python.

Each example plays one game step by step with every check of the step checker on (the kit's,
:mod:`simulate.kit.check`, and Table Battles' referee): dice on cards always match their
areas, at most two dinos receive dice a turn (one card each), markers never negative, a
flipped card holds no dice, dice are conserved, the draft respects the action-card cap, every
action is legal, and the end reason matches the final state. The chunk kernel must then end
the same game the same way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.table_battles.constants import END_REASONS
from rules.table_battles.params import TableBattlesParameters
from simulate.games.table_battles import SPEC
from simulate.kit.play import play

ROOT = Path(__file__).resolve().parents[1]
BOTS = st.sampled_from(
    ["random", "heuristic", "heuristic[threshold=3,deny=1]", "heuristic[flip_value=0,react=2]"]
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**40),
    game_id=st.integers(0, 10**6),
    bots=st.lists(BOTS, min_size=2, max_size=2),
    setup=st.sampled_from(["draft", "draft", "first_game"]),
    expansion=st.booleans(),
    draft_hand=st.integers(4, 6),
    card_cap=st.integers(6, 10),
    dice=st.integers(3, 8),
    flags=st.lists(st.booleans(), min_size=7, max_size=7),
    max_turns=st.sampled_from([10, 60, 200]),
)
def test_invariants_hold_and_the_kernel_agrees(
    seed, game_id, bots, setup, expansion, draft_hand, card_cap, dice, flags, max_turns
):
    if not expansion and draft_hand > 5:
        draft_hand = 5  # the base set has 10 dinos: two hands of 5
    p = TableBattlesParameters().with_values(
        {
            "setup": setup,
            "expansion": expansion,
            "draft_hand": draft_hand,
            "card_cap": card_cap,
            "dice": dice,
            "pair_stack": flags[0],
            "self_hit_when_blocked": flags[1],
            "counter_break_point": flags[2],
            "class_rules_on_counters": flags[3],
            "flip_returns_dice": flags[4],
            "treetops_mandatory": flags[5],
            "one_marker_self_at": "attack" if flags[6] else "self_hit",
            "max_turns": max_turns,
        }
    )
    game_setup = SPEC.setup(p, 2, ",".join(bots))
    cards = game_setup.data
    game = SPEC.check(game_setup, seed, game_id)
    assert game.turns <= max_turns
    assert all(m >= 0 for m in game.markers)
    for s in range(2):
        assert sum(cards.dinos[d].n_cards for d in game.teams[s]) == game.cards0[s]
        if setup == "draft":
            assert game.cards0[s] <= card_cap
            assert 1 <= len(game.teams[s]) <= draft_hand - 1
    if setup == "draft":
        assert len(game.drafts) == 2 * draft_hand  # every dealt card is acted on once
    row = play(game_setup, seed, False, game_id, game_id + 1, tables=())["games"].to_pylist()[0]
    assert row["winner_seat"] == game.winner and row["turns"] == game.turns
    assert row["end_reason"] == END_REASONS[game.end_reason]


LINEUPS = [  # (lineup, rules, games): 200 games, the cheap lineups more often
    ("random,random", {"expansion": False}, 60),
    ("heuristic,random", {}, 60),
    ("random,heuristic", {"setup": "first_game"}, 40),
    ("heuristic,heuristic", {}, 20),
    ("heuristic[provoke=0.5,threshold=0],heuristic[deny=1]", {"expansion": False}, 20),
]


def results(lineup: str, rules: dict, n: int) -> dict[str, dict[str, list]]:
    """The ``games`` and ``players`` rows of ``n`` rotated games of seed 13."""
    setup = SPEC.setup(TableBattlesParameters().with_values(rules), 2, lineup)
    return {t: rows.to_pydict() for t, rows in play(setup, 13, True, 0, n, tables=()).items()}


@pytest.mark.slow
def test_interpreted_equals_compiled():
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(ROOT)!r})
        from tests.test_table_battles_properties import LINEUPS, results
        print(json.dumps([results(*x) for x in LINEUPS]))
    """)
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    interpreted = json.loads(run.stdout.strip().splitlines()[-1])
    compiled = [results(*x) for x in LINEUPS]
    assert len(interpreted) == len(compiled) == len(LINEUPS)
    for lu, a, b in zip(LINEUPS, interpreted, compiled, strict=True):
        assert a == b, lu
