"""A lineup without a search bot gets a kernel without the search bots: its scratch record has no
spare states (:func:`strategies.core.scratch.scratch_dtype`), and ``choose`` reaches the search
bots through a call typed by that record (:func:`strategies.core.scratch.search_bots`). That
kernel must play what the kernel with every bot plays, and a bot that searches must be declared
so."""

from __future__ import annotations

import numpy as np
import pytest

from simulate.games import all_games
from simulate.kit.play import play
from simulate.kit.spec import Setup
from strategies.core.scratch import NOT_DECLARED, WORLDS, scratch_dtype

GAMES = [g for g in all_games() if any(i.searches for i in g.registry.by_name.values())]
"""The games whose kernels leave the search bots out (Dino Kontra Dino declares none)."""
N_GAMES = 3


def setup_of(game, bot: str) -> Setup:
    return game.setup(game.parameters(), game.demo.players, bot)


def scratch_of(setup: Setup) -> np.ndarray:
    return setup.game.build_inputs(setup)[-1]


def rows(setup: Setup) -> dict:
    return {name: t.to_pydict() for name, t in play(setup, 11, True, 0, N_GAMES).items()}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_only_a_lineup_with_a_search_bot_carries_spare_states(game):
    for name, info in game.registry.by_name.items():
        setup = setup_of(game, name)
        assert setup.searches == info.searches
        has_worlds = WORLDS in scratch_of(setup).dtype.names
        assert has_worlds == info.searches, f"{name}: spare states only for a search bot"
        mixed = "random," * (game.demo.players - 1) + name
        assert setup_of(game, mixed).searches == info.searches, "one seat decides"


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_kernel_without_the_search_bots_plays_as_the_one_with_every_bot(game, monkeypatch):
    """For every bot not declared a search bot, the rows of its lineup's kernel equal those of
    the kernel with every bot. A search bot declared as a plain one fails here: the kernel
    without the search bots cannot play it."""
    plain = {
        name: rows(setup_of(game, name))
        for name, info in game.registry.by_name.items()
        if not info.searches
    }
    monkeypatch.setattr(Setup, "searches", property(lambda self: True))
    for name, want in plain.items():
        setup = setup_of(game, name)
        assert WORLDS in scratch_of(setup).dtype.names
        assert rows(setup) == want, f"{game.name} {name}: the two kernels play differently"


def test_the_scratch_without_search_keeps_every_other_field():
    full = np.dtype([("work", np.int64, (3,)), (WORLDS, np.float64, (2,)), ("free", np.uint8)])
    assert scratch_dtype(full, True) == full
    plain = scratch_dtype(full, False)
    assert plain.names == ("work", "free")
    assert plain.fields["work"][0] == full.fields["work"][0]
    assert scratch_dtype(np.dtype([(WORLDS, np.float64, (2,))]), False).names == ("unused",)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_search_bot_in_the_kernel_without_spare_states_stops_the_run(game, monkeypatch):
    """Were a search bot not declared one, its lineup's kernel would reach it without spare
    states: the call raises instead of playing another bot."""
    bot = min((i for i in game.registry.by_name.values() if i.searches), key=lambda i: i.cost).name
    monkeypatch.setattr(Setup, "searches", property(lambda self: False))
    setup = setup_of(game, bot)
    assert WORLDS not in scratch_of(setup).dtype.names
    with pytest.raises(RuntimeError, match=NOT_DECLARED):
        play(setup, 11, True, 0, 1)


def test_every_game_but_dino_kontra_dino_leaves_its_search_bots_out():
    assert sorted(g.name for g in GAMES) == ["evo", "origin-of-species", "table-battles"]
