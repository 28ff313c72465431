"""A game's kernel reaches its search bots through the address of their own compiled entry
(:func:`strategies.core.scratch.search_bots`): one kernel plays every lineup, the search bots
compile on their own the first time a lineup plays one, a search bot must be declared so, and
an error inside the entry stops the run."""

from __future__ import annotations

import numpy as np
import pytest

from rules.core.jit import jit, records
from simulate.games import all_games
from simulate.kit.play import play
from simulate.kit.spec import Setup
from strategies.core.scratch import (
    ENTRY,
    FAILED,
    FAILED_MESSAGE,
    NOT_DECLARED,
    record_at,
    scratch_dtype,
    search_bots,
)

GAMES = [g for g in all_games() if any(i.searches for i in g.registry.by_name.values())]
"""The games whose kernels call their search bots by address (Dino Kontra Dino declares none)."""
N_GAMES = 3


def setup_of(game, bot: str) -> Setup:
    return game.setup(game.parameters(), game.demo.players, bot)


def entry_of(setup: Setup) -> int:
    return int(setup.game.build_inputs(setup)[-1][0][ENTRY])


def rows(setup: Setup) -> dict:
    return {name: t.to_pydict() for name, t in play(setup, 11, True, 0, N_GAMES).items()}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_only_a_lineup_with_a_search_bot_gets_the_entry(game):
    for name, info in game.registry.by_name.items():
        setup = setup_of(game, name)
        assert setup.searches == info.searches
        assert (entry_of(setup) != 0) == info.searches, f"{name}: the entry only for a search bot"
        mixed = "random," * (game.demo.players - 1) + name
        assert setup_of(game, mixed).searches == info.searches, "one seat decides"


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_one_kernel_plays_every_lineup(game, monkeypatch):
    """A lineup with a search bot compiles no second kernel, and a cheap bot plays the same
    rows whether or not its lineup was lent the search bots' entry."""
    plain = {
        name: rows(setup_of(game, name))
        for name, info in game.registry.by_name.items()
        if not info.searches
    }
    kernels = set(game.kernel.signatures)
    bot = min((i for i in game.registry.by_name.values() if i.searches), key=lambda i: i.cost)
    rows(setup_of(game, bot.name))
    assert set(game.kernel.signatures) == kernels, "a search bot compiled another kernel"
    monkeypatch.setattr(Setup, "searches", property(lambda self: True))
    for name, want in plain.items():
        setup = setup_of(game, name)
        assert entry_of(setup) != 0
        assert rows(setup) == want, f"{game.name} {name}: the entry changed a cheap bot's play"


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_search_bot_without_the_entry_stops_the_run(game, monkeypatch):
    """Were a search bot not declared one, its lineup would get no entry: the call raises
    instead of playing another bot (or jumping to address 0)."""
    bot = min((i for i in game.registry.by_name.values() if i.searches), key=lambda i: i.cost).name
    monkeypatch.setattr(Setup, "searches", property(lambda self: False))
    setup = setup_of(game, bot)
    assert entry_of(setup) == 0
    with pytest.raises(RuntimeError, match=NOT_DECLARED):
        play(setup, 11, True, 0, 1)


def test_every_game_but_dino_kontra_dino_calls_its_search_bots_by_address():
    assert sorted(g.name for g in GAMES) == ["evo", "origin-of-species", "table-battles"]


def test_the_scratch_record_keeps_the_games_fields_and_adds_the_entry():
    fields = [("work", np.int64, (3,)), ("worlds", np.float64, (2,))]
    dtype = scratch_dtype(fields)
    assert dtype.names == ("work", "worlds", ENTRY)
    assert dtype.fields["work"][0] == np.dtype((np.int64, (3,)))
    assert dtype.fields[ENTRY][0] == np.int64


# A toy game for the call itself: records passed by pointer, written through, errors kept.
TOY = np.dtype([("a", np.int64), ("seen", np.int64, (4,))], align=True)
TOY_SCRATCH = scratch_dtype([("calls", np.int64)])


@jit
def toy_play(lineup, j, tb, st, seat, scratch) -> np.int64:
    if seat == 3:
        raise ValueError("seat three")
    st.a += 10 * tb.a + seat
    lineup.seen[j] += 1
    scratch.calls += 1
    return st.a


def toy_play_entry(lineup, j, tb, st, seat, scratch) -> np.int64:
    try:
        out = toy_play(record_at(lineup), j, record_at(tb), record_at(st), seat, record_at(scratch))
    except Exception:
        out = FAILED
    return out


toy_search = search_bots(toy_play, toy_play_entry)


@jit
def toy_kernel(lineups, tables, states, scratches, j, seat) -> np.int64:
    return toy_search(lineups[0], j, tables[0], states[0], seat, scratches[0])


def toy_inputs() -> tuple:
    lineup, tb, st, scratch = (
        records(1, TOY),
        records(1, TOY),
        records(1, TOY),
        records(1, TOY_SCRATCH),
    )
    tb[0].a = 4
    return lineup, tb, st, scratch


def test_the_call_passes_each_record_and_its_writes_come_back():
    lineup, tb, st, scratch = toy_inputs()
    with pytest.raises(RuntimeError, match=NOT_DECLARED):
        toy_kernel(lineup, tb, st, scratch, 2, 1)
    toy_search.lend(tb, lineup, st, scratch)
    assert toy_kernel(lineup, tb, st, scratch, 2, 1) == 41
    assert toy_kernel(lineup, tb, st, scratch, 2, 2) == 83
    assert int(st[0].a) == 83 and int(scratch[0].calls) == 2
    assert list(lineup[0].seen) == [0, 0, 2, 0]
    assert int(tb[0].a) == 4


def test_an_error_inside_the_entry_stops_the_run_with_a_message():
    lineup, tb, st, scratch = toy_inputs()
    toy_search.lend(tb, lineup, st, scratch)
    with pytest.raises(RuntimeError, match="NUMBA_DISABLE_JIT=1") as raised:
        toy_kernel(lineup, tb, st, scratch, 0, 3)
    assert str(raised.value) == FAILED_MESSAGE
    assert int(scratch[0].calls) == 0
