"""EVO invariants over random seeds, player counts, rules and bots (hypothesis).

Each example plays one game step by step with every check of the step checker on (the kit's,
:mod:`simulate.kit.check`, and EVO's referee): at most ``dinos_per_player`` dinos per player,
one dino per region, never a move or a newborn into an own region, every action legal,
points equal to the scoring history minus payments and Túlélőgén losses, the bag holding its
tiles minus those drawn (bought tiles never return), portraits equal to the genes bought, and
every card played at a legal time. The same game from the kernel must end the same way.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.evo.params import EvoParameters
from simulate.games.evo import SPEC as GAME
from simulate.kit.play import play

BOTS = st.sampled_from(
    ["random", "heuristic", "heuristic[cards=0,aggression=1]", "heuristic[foresight=0,bid=3]"]
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**40),
    game_id=st.integers(0, 10**6),
    n=st.integers(3, 5),
    bots=st.lists(BOTS, min_size=5, max_size=5),
    start_points=st.sampled_from([0, 6, 10, 30]),
    harder=st.booleans(),
    tails=st.booleans(),
    dinos=st.integers(2, 12),
    dealt=st.integers(0, 5),
    track=st.sampled_from([(9, "6,7,8", "1,2,3"), (14, "11,12,13", "1,2,3"), (12, "8,11", "2,4")]),
    climate_cards=st.integers(0, 2),
)
def test_invariants_hold_and_the_kernel_agrees(
    seed, game_id, n, bots, start_points, harder, tails, dinos, dealt, track, climate_cards
):
    params = EvoParameters().with_values(
        {
            "start_points": start_points,
            "harder": harder,
            "initiative_tails": tails,
            "dinos_per_player": dinos,
            "cards_dealt": dealt,
            "meteor_last_space": track[0],
            "meteor_die_spaces": track[1],
            "meteor_strikes_up_to": track[2],
            "climate_cards_per_round": climate_cards,
        }
    )
    setup = GAME.setup(params, n, ",".join(bots[:n]))
    game = GAME.check(setup, seed, game_id)
    assert 1 <= game.rounds <= params.max_rounds(n)
    assert all(0 <= d <= dinos for d in game.dinos)
    players = play(setup, seed, False, game_id, game_id + 1)["players"].to_pydict()
    assert players["points"] == game.points
    assert players["winner"] == game.winners
    assert sum(game.winners) >= 1
