"""A game compiles once per machine: a process's first kernel call of a game the machine has not
compiled runs under the game's file lock, then stamps it; later calls and stamped games skip
the lock (:func:`simulate.kit.compiled.first_call`)."""

from __future__ import annotations

import fcntl

import pytest

from simulate.games import get_game
from simulate.kit import compiled


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty cache folder and a process that has called no kernel yet."""
    monkeypatch.setenv("DINOLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(compiled, "_loaded", set())
    return tmp_path


def lock_is_free(folder, game: str) -> bool:
    with open(folder / f".compile-{game}.lock", "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(f, fcntl.LOCK_UN)
        return True


def setup_of(name: str, bots: str | None = None):
    game = get_game(name)
    return game.setup(game.parameters(), game.demo.players, bots)


def test_the_first_call_of_an_uncompiled_game_holds_its_lock_then_stamps_it(fresh):
    setup = setup_of("dkd")
    game = setup.game
    seen = []
    assert not compiled.is_compiled(game)
    assert compiled.first_call(setup, lambda: seen.append(lock_is_free(fresh, game.name)) or 7) == 7
    assert seen == [False], "the first call ran without the game's lock"
    assert compiled.is_compiled(game)
    assert lock_is_free(fresh, game.name)
    compiled.first_call(setup, lambda: seen.append(lock_is_free(fresh, game.name)))
    assert seen == [False, True], "a later call took the lock again"


def test_a_stamped_game_loads_without_waiting_for_the_lock(fresh):
    setup = setup_of("evo")
    compiled.mark_compiled(setup.game)
    with open(fresh / f".compile-{setup.game.name}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another process compiling the game
        assert compiled.first_call(setup, lambda: "loaded") == "loaded"


def test_the_kernel_with_the_search_bots_has_a_stamp_of_its_own(fresh):
    plain = setup_of("evo", "heuristic")
    searching = setup_of("evo", "heuristic,strong,heuristic,heuristic")
    assert (plain.searches, searching.searches) == (False, True)
    compiled.first_call(plain, lambda: None)
    assert compiled.is_compiled(plain.game) and not compiled.is_compiled(plain.game, True)
    assert compiled.compiling_notice(plain.game, True), "no notice for the uncompiled kernel"
    seen = []
    compiled.first_call(searching, lambda: seen.append(lock_is_free(fresh, "evo")))
    assert seen == [False], "the search bots' kernel compiled without the game's lock"
    assert compiled.is_compiled(plain.game, True)
    assert compiled.compiling_notice(plain.game, True) is None


def test_a_failed_first_call_leaves_no_stamp_and_the_next_call_compiles(fresh):
    setup = setup_of("dkd")
    game = setup.game

    def fail():
        raise RuntimeError("compile failed")

    with pytest.raises(RuntimeError):
        compiled.first_call(setup, fail)
    assert not compiled.is_compiled(game)
    assert lock_is_free(fresh, game.name)
    compiled.first_call(setup, lambda: None)
    assert compiled.is_compiled(game)


@pytest.mark.parametrize("workers", [1, 2, 3, 4, 5])
def test_the_test_processes_shares_cover_every_game_once(workers):
    from tests.conftest import share

    names = ["oos", "evo", "dtb", "dkd", "toy"]
    shares = [share(names, w, workers) for w in range(workers)]
    assert sorted(n for s in shares for n in s) == sorted(names)
    assert all(s for s in shares[: len(names)]), "a process got nothing while games remained"
    if workers == 2:  # the slowest and the fastest together, the two middle ones together
        assert shares[:2] == [["oos", "dkd", "toy"], ["evo", "dtb"]]


def test_a_study_says_it_compiles_when_a_kernel_its_setups_play_is_missing(fresh, capsys):
    from simulate.cli.common import say_if_compiling

    plain = setup_of("evo", "heuristic")
    searching = setup_of("evo", "heuristic,strong,heuristic,heuristic")
    compiled.mark_compiled(plain.game)
    say_if_compiling(plain.game, [plain])
    say_if_compiling(plain.game)
    assert capsys.readouterr().err == ""
    say_if_compiling(plain.game, [plain, searching])
    assert capsys.readouterr().err.strip() == compiled.compiling_notice(plain.game, True)
    compiled.mark_compiled(plain.game, True)
    say_if_compiling(plain.game, [plain, searching])
    assert capsys.readouterr().err == ""
