"""Origin of Species invariants over random seeds, player counts, rules and bots (hypothesis).

Each example plays one game with every check of the step checker on (the kit's,
:mod:`simulate.kit.check`, and Origin of Species' referee): the cards are conserved (84 or
168 across the deck, hands, tableaux and discard piles, and by card type), no animal holds
more food than its need or more fat than its Fat Tissue, extinction removes exactly the unfed
and poisoned animals, every food bank lies within its formula's range, every action is legal,
every attack is legal for the traits it records, and every trait was played where the rules
allow. The last test plays the same games compiled and as plain Python and compares them.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from rules.origin_of_species.params import OosParameters
from simulate.games.origin_of_species import SPEC
from simulate.games.origin_of_species.check import attack_problem, setup_of
from simulate.kit.play import play
from strategies.origin_of_species import REGISTRY

P0 = OosParameters()
DECK = P0.load_deck()
ROOT = Path(__file__).resolve().parents[1]

BOTS = hs.sampled_from(
    [
        "random",
        "heuristic",
        "heuristic[aggression=2,utility=3,carnivore=3]",
        "heuristic[animals=2,pass_at=-1,parasite=3]",
        "heuristic[tail_first=1,fat_bank=5,links=3,defence=3]",
    ]
)
VARIANTS = hs.fixed_dictionaries(
    {},
    optional={
        "last_round": hs.sampled_from(["next", "same"]),
        "carnivore_once_per_phase": hs.booleans(),
        "red_after_attack": hs.booleans(),
        "mimicry_mandatory": hs.booleans(),
        "mimicry_chain": hs.booleans(),
        "tail_loss_parasite": hs.booleans(),
        "feeding_pass_final": hs.booleans(),
        "paired_once_per": hs.sampled_from(["action", "go-around"]),
        "paired_direction": hs.sampled_from(["either", "first"]),
        "free_traits_after_main": hs.booleans(),
        "fat_conversion": hs.sampled_from(["any", "need"]),
        "feeding_ends": hs.sampled_from(["silence", "empty_bank"]),
        "piracy_needs_hunger": hs.booleans(),
        "piracy_into_fat": hs.booleans(),
        "hibernation_in_last_round": hs.booleans(),
        "symbiosis_blocks_fat": hs.booleans(),
        "running_escape_from": hs.integers(1, 7),
        "kill_food": hs.integers(0, 4),
        "hand_size": hs.integers(2, 8),
        "n_sets": hs.integers(0, 2),
        "first_player": hs.just(0),
    },
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    seed=hs.integers(0, 2**40),
    game_id=hs.integers(0, 10**6),
    n=hs.integers(2, 8),
    bots=hs.lists(BOTS, min_size=8, max_size=8),
    rules=VARIANTS,
)
def test_invariants_hold(seed, game_id, n, bots, rules):
    params = P0.with_values({k: str(v) for k, v in rules.items()})
    if params.sets_for(n) * DECK.n_cards < params.hand_size * n:
        params = params.with_values({"n_sets": "2"})
    lineup = REGISTRY.lineup(",".join(bots[:n]), n)
    game = SPEC.check(setup_of(params, DECK, n, lineup), seed, game_id)
    assert 1 <= game.rounds <= params.max_rounds(n, DECK)
    best = max(game.scores)
    tied = [q for q in range(n) if game.scores[q] == best]
    most = max(game.discards[q] for q in tied)
    assert game.winners == [q in tied and game.discards[q] == most for q in range(n)]
    for q in range(n):
        assert game.scores[q] == 2 * game.animals[q] + game.traits[q] + game.extra[q]
    assert game.max_animals <= 32


@settings(max_examples=12, deadline=None)
@given(
    seed=hs.integers(0, 2**40),
    n=hs.integers(2, 8),
    bots=hs.lists(BOTS, min_size=8, max_size=8),
    rules=VARIANTS,
    rotate=hs.booleans(),
)
def test_every_logged_attack_is_legal_for_the_traits_in_its_row(seed, n, bots, rules, rotate):
    """The ``attacks`` table a run writes (the kernel's rows, as stored): every attacker has
    Carnivore, swims when its prey swims and only then, has High Body Weight when the prey has
    it and Sharp Vision when the prey is camouflaged; defences and outcomes agree."""
    params = P0.with_values({k: str(v) for k, v in rules.items()})
    if params.sets_for(n) * DECK.n_cards < params.hand_size * n:
        params = params.with_values({"n_sets": "2"})
    setup = setup_of(params, DECK, n, REGISTRY.lineup(",".join(bots[:n]), n))
    a = play(setup, seed, rotate, 0, 12)["attacks"].to_pylist()
    for row in a:
        problem = attack_problem(row["attacker_traits"], row["defender_traits"])
        assert not problem, (problem, row)
        assert row["attacker_seat"] in range(n) and row["defender_seat"] in range(n)
        if row["outcome"] == "escaped":
            assert row["defence_used"] == "running" and row["running_roll"] > 0
        if row["outcome"] == "tail_lost":
            assert row["defence_used"] == "tail_loss" and row["dropped"] != "none"
            assert row["defender_traits"] >> 9 & 1, "Tail Loss used by an animal without it"
        if row["defence_used"] == "running":
            assert row["defender_traits"] >> 7 & 1, "Running used by an animal without it"
        if row["redirects"]:
            assert row["defence_used"] != "none"
    assert SPEC.name == "origin-of-species"


def test_same_seed_same_game_and_bots_do_not_change_the_dice():
    lineup = REGISTRY.lineup("heuristic,random,heuristic", 3)
    a = SPEC.check(setup_of(P0, DECK, 3, lineup), 5, 17)
    b = SPEC.check(setup_of(P0, DECK, 3, lineup), 5, 17)
    assert a.scores == b.scores and a.attack_events == b.attack_events
    c = SPEC.check(setup_of(P0, DECK, 3, REGISTRY.lineup("random", 3)), 5, 17)
    assert a.round_rows[0]["food_bank"] == c.round_rows[0]["food_bank"], "own dice stream"


SCRIPT = """
import hashlib
import numpy as np
from rules.core.jit import records
from rules.origin_of_species.params import OosParameters
from rules.origin_of_species.state import make_table, new_states
from simulate.games.origin_of_species import SPEC
from simulate.games.origin_of_species.check import setup_of
from simulate.kit.play import play
from strategies.origin_of_species import REGISTRY
from strategies.origin_of_species.search import SCRATCH
p = OosParameters(); d = p.load_deck()
h = hashlib.sha256()
runs = ((4, "heuristic,random,heuristic[aggression=2],random", 3), (2, "heuristic", 2))
for n, lineup, games in runs:
    tables = play(setup_of(p, d, n, REGISTRY.lineup(lineup, n)), 3, False, 0, games)
    h.update(repr({t: rows.to_pydict() for t, rows in sorted(tables.items())}).encode())
lu3 = REGISTRY.lineup("heuristic[tail_first=1],random,heuristic", 3)
g = SPEC.check(setup_of(p, d, 3, lu3), 9, 2)
h.update(repr((g.scores, g.attack_events, g.trait_events, g.uses.tolist())).encode())
# one search decision (its rollouts are whole games: slow as plain Python)
from rules.core.rng import game_key, seed_streams
from rules.origin_of_species.engine import advance, apply, deal
from strategies.origin_of_species.bots import choose
tb = make_table(p, d, 3)[0]
spec = "search[rollouts=2,candidates=4],heuristic,heuristic"
lu = REGISTRY.lineup_record(REGISTRY.lineup(spec, 3))[0]
st = new_states(1)[0]
scratch = records(1, SCRATCH)[0]
with np.errstate(over="ignore"):
    key = np.uint64(game_key(np.uint64(4), np.uint64(0)))
    seed_streams(st.rng[:4], key, key)
    deal(tb, st)
    kind = advance(tb, st)
    while st.actor != 0:
        apply(tb, st, choose(lu, st.actor, tb, st, st.actor, scratch))
        kind = advance(tb, st)
    h.update(repr((int(kind), int(choose(lu, 0, tb, st, 0, scratch)), st.rng.tolist())).encode())
print(h.hexdigest())
"""


def _run(disable_jit: bool) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_DISABLE_JIT": "1" if disable_jit else "0"}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_compiled_equals_interpreted():
    compiled, interpreted = _run(False), _run(True)
    assert len(compiled) == len(hashlib.sha256().hexdigest())
    assert compiled == interpreted
