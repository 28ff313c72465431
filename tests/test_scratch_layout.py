"""A bot's scratch array is laid out by name and refuses a layout that does not fit."""

import pytest

from rules.origin_of_species.constants import MAX_ANIMALS, MAX_PLAYERS, N_TRAITS
from rules.origin_of_species.state import BOT_SCRATCH, STATE
from strategies.core.scratch import scratch_layout
from strategies.origin_of_species.heuristic import BF, BI


def test_regions_are_packed_in_order_by_name():
    lay = scratch_layout("buf", 10, a=3, b=0, c=4)
    assert lay._fields == ("a", "b", "c")
    assert (lay.a, lay.b, lay.c) == (0, 3, 3)


def test_a_layout_that_does_not_fit_names_its_array_and_sizes():
    scratch_layout("buf", 7, a=3, b=4)  # exactly full is fine
    with pytest.raises(ValueError, match=r"buf: the layout needs 8 slots \(a 3, b 5\); it has 7"):
        scratch_layout("buf", 7, a=3, b=5)
    with pytest.raises(ValueError, match="negative length for b"):
        scratch_layout("buf", 7, a=3, b=-1)


def test_origin_of_species_scratch_fits_the_state_and_grows_with_the_limits():
    assert STATE["bot_f"].shape == STATE["bot_i"].shape == (BOT_SCRATCH,)
    assert BF.fed + MAX_ANIMALS <= BOT_SCRATCH and BI.need + MAX_ANIMALS <= BOT_SCRATCH
    assert (BF.need, BF.trait_value, BF.stakes) == (0, MAX_PLAYERS, MAX_PLAYERS + N_TRAITS)
    assert (BI.place, BI.cached, BI.order) == (0, N_TRAITS, N_TRAITS + 1)
    with pytest.raises(ValueError, match="bot_f"):  # one more animal than the state lends room for
        scratch_layout(
            "bot_f",
            BOT_SCRATCH,
            need=MAX_PLAYERS,
            trait_value=N_TRAITS,
            stakes=MAX_ANIMALS,
            fed=BOT_SCRATCH - MAX_PLAYERS - N_TRAITS - MAX_ANIMALS + 1,
        )
