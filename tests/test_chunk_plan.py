"""How a run is cut into chunks when no ``--chunk-size`` is given (issue 25: every worker busy)."""

from __future__ import annotations

import dataclasses

import pytest

from simulate.config import PLANNED_CHUNKS, build_config, plan_chunk
from simulate.games import get_game


def _chunks(game: str, games: int, strategies: str | None = None) -> tuple[int, int]:
    config, _ = build_config(
        game, n_players=None, strategies=strategies, rotate=True, seed=1, games=games,
        chunk_size=None,
    )  # fmt: skip
    return config.chunk_size, config.n_chunks


def test_a_small_run_is_one_chunk():
    # one chunk plays in-process: a 1,000-game run starts in about a second
    for game in ("dkd", "evo", "dtb", "oos"):
        assert _chunks(game, 1_000)[1] == 1


@pytest.mark.parametrize("game,games", [("evo", 200_000), ("dtb", 1_000_000), ("oos", 200_000)])
def test_a_big_run_gives_sixteen_workers_two_chunks_each(game, games):
    size, n = _chunks(game, games)
    assert n == PLANNED_CHUNKS
    assert size * (n - 1) < games <= size * n


def test_chunks_never_exceed_the_games_memory_bound():
    spec = get_game("dkd")
    size, n = _chunks("dkd", 10_000_000)
    assert size == spec.default_chunk and n == 10_000_000 // spec.default_chunk


def test_slow_bots_get_small_chunks():
    # a chunk plays about the game's min_chunk heuristic games' worth of the slowest seat's
    # declared cost: search (850) gets many small chunks, strong (21) fewer, larger ones
    assert _chunks("dtb", 4_000)[1] == 1
    search, n = _chunks("dtb", 4_000, "search")
    assert search < 4_000 // 16 and n >= 16
    strong, m = _chunks("dtb", 4_000, "strong")
    assert search < strong < 4_000 and 2 <= m < n


def test_the_plan_follows_the_slowest_seat_and_the_declared_floor():
    spec = get_game("dkd")
    setup = spec.setup(spec.parameters(), 4, "greedy,greedy,greedy,montecarlo")
    cost = max(s.info.cost for s in setup.lineup)
    assert cost > 1
    assert plan_chunk(spec, 10, setup.lineup) == int(spec.min_chunk / cost)
    tiny = dataclasses.replace(spec, min_chunk=1)
    assert plan_chunk(tiny, 3_200) == 3_200 // PLANNED_CHUNKS
    assert plan_chunk(tiny, 1) == 1
