"""The shared Monte Carlo search (strategies/core/montecarlo.py) and the ``strong`` bots on it.

* The core on synthetic hooks, where the best candidate is known: flat Monte Carlo and
  sequential halving both find it, halving spends about its budget, and a tie is broken by the
  seat's own stream, not by the list's order.
* The four games' ``search`` (Dino Kontra Dino: ``montecarlo``) rows are pinned: the digests
  below were taken before the per-game loops became users of the core and are unchanged after.
* ``strong`` is registered for every game and, in a head-to-head against the strongest rung at
  a size that fits the suite, its win share's 95% interval reaches the fair share (the full
  figures: ``dinolab bench GAME --strong``, docs/benchmarks.md).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from rules.core.jit import jit_inline, records
from simulate.bench_strong import STRONG, head_to_head, strongest_rung
from simulate.games import all_games, get_game
from simulate.kit.play import play
from strategies.core.montecarlo import instantiate

# ------------------------------------------------------------------ the core, on toy hooks

TOY = np.dtype([("rng", np.uint64, (3,)), ("x", np.float64)])
"""A toy state: the streams (0 chance, 1 + seat each seat's bot) and a scratch number."""


@jit_inline
def toy_base(st, seat):
    return np.uint64(0)


@jit_inline
def toy_world(tb, st, sim, seat, base, i):
    sim.x = float(i)  # the i-th determinisation


@jit_inline
def toy_play(tb, sim, a, seat, ctx):
    """Candidate ``a``'s true value ``tb[a]`` plus noise of half-width ``ctx[0]`` from the
    determinisation and the candidate; counts every playout in ``ctx[1]``."""
    noise, count = ctx
    count[0] += 1
    u = ((sim.x * 7919.0 + a * 104729.0) % 1000.0) / 1000.0
    return tb[a] + noise * (2.0 * u - 1.0)


@jit_inline
def toy_best(st, seat, value, m):
    """The first best: enough for the toy, whose candidates are never equal."""
    best = 0
    for c in range(1, m):
        if value[c] > value[best]:
            best = c
    return best


TOY_FLAT, TOY_HALVING = instantiate(
    mc_base=toy_base, mc_world=toy_world, mc_play=toy_play, mc_best=toy_best
)


def _toy(values: list[float]):
    st = records(1, TOY)
    st[0].rng[:] = [1, 2, 3]
    worlds = records(2, TOY)
    cand = np.arange(len(values), dtype=np.int64)
    return np.asarray(values), st[0], worlds, cand


@pytest.mark.parametrize("best", [0, 3, 6])
def test_flat_and_halving_find_the_best_candidate(best):
    values = [0.2] * 7
    values[best] = 0.6
    tb, st, worlds, cand = _toy(values)
    count = np.zeros(1, np.int64)
    assert TOY_FLAT(tb, st, worlds, cand, 7, 0, 8, (0.3, count)) == best
    assert count[0] == 7 * 8  # every candidate, every playout
    count[0] = 0
    assert TOY_HALVING(tb, st, worlds, cand, 7, 0, 64, (0.3, count)) == best
    # about the budget: at most one playout more per alive candidate and round
    assert 0.5 * 64 <= count[0] <= 64 + 7 + 4 + 2


def test_halving_spends_more_on_contenders_than_flat_for_the_same_choice():
    """Sequential halving drops the clearly bad half early: with one strong candidate among
    many weak ones it needs far fewer playouts than flat Monte Carlo's ``m * rollouts``."""
    values = [0.1] * 16
    values[11] = 0.9
    tb, st, worlds, cand = _toy(values)
    count = np.zeros(1, np.int64)
    assert TOY_HALVING(tb, st, worlds, cand, 16, 0, 32, (0.05, count)) == 11
    assert count[0] < 16 * 8


def test_instantiate_names_a_missing_hook():
    with pytest.raises(TypeError, match="mc_best"):
        instantiate(mc_base=toy_base, mc_world=toy_world, mc_play=toy_play)


# ------------------------------------------------------------------ search rows pinned

PINS = {
    # game, players, lineup, seed, rotate, games: digest of every logged table's values
    # Table Battles re-pinned when its turns table gained dice_on_cards_seat0/1 (schema 2);
    # without those two columns the digest is the old d60845f675530428: search plays the same
    ("table-battles", 2, "search,search", 7, False, 20): "8d34c0d4f980f8dc",
    ("evo", 4, "search[rollouts=2],heuristic,heuristic,heuristic", 5, True, 8): (
        "d2c1f25c5c6008e3"
    ),
    ("origin-of-species", 4, "search[rollouts=2],heuristic,heuristic,heuristic", 5, True, 8): (
        "fae69ef1bc641ed2"
    ),
    ("dino-kontra-dino", 4, "montecarlo[rollouts=4],greedy,greedy,greedy", 5, True, 200): (
        "dd7222a19c8d297c"
    ),
}


def _digest(tables) -> str:
    h = hashlib.sha256()
    for name in sorted(tables):
        for col in tables[name].column_names:
            h.update(name.encode())
            h.update(col.encode())
            h.update(json.dumps(tables[name][col].to_pylist(), default=str).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("case", list(PINS), ids=[c[0] for c in PINS])
def test_search_rows_are_unchanged_by_the_shared_search(case):
    game, players, lineup, seed, rotate, games = case
    g = get_game(game)
    setup = g.setup(g.parameters(), players, lineup)
    with np.errstate(over="ignore"):
        assert _digest(play(setup, seed, rotate, 0, games)) == PINS[case]


# ------------------------------------------------------------------ strong


@pytest.mark.parametrize("game", [g.name for g in all_games() if g.strength.ladder])
def test_strong_is_registered_with_its_parameters(game):
    g = get_game(game)
    info = g.registry.by_name[STRONG]
    names = {p.name for p in info.params}
    assert {"playouts", "horizon"} <= names
    assert strongest_rung(g) in {"search", "montecarlo"}
    # a budget in playouts, never in time: the same seed plays the same rows twice
    setup = g.setup(g.parameters(), g.strength.players[0], STRONG)
    with np.errstate(over="ignore"):
        assert _digest(play(setup, 3, False, 0, 2)) == _digest(play(setup, 3, False, 0, 2))


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players", "games"), [("dkd", 4, 2000), ("dtb", 2, 600)])
def test_strong_is_not_clearly_weaker_than_the_strongest_rung(game, players, games):
    """``strong`` in one seat against the rung in the others, rotated, fresh seeds: the 95%
    interval of its win share reaches the fair share (a test that fails for a clearly weaker
    bot; the heuristic, for one, wins about 23% against Table Battles' search)."""
    g = get_game(game)
    share = head_to_head(g, players, strongest_rung(g), games)
    assert share.games >= games * 0.9
    assert share.high >= 1 / players, share


# ------------------------------------------------------------------ the fitted evaluations


def _refit(game: str, run_dir: str):
    """The fit that made ``game``'s shipped evaluation, on the run in ``run_dir``."""
    from reports.evaluation import fit_battle, fit_evo, fit_margin
    from simulate.rundir import Run
    from strategies.evo.values import builtin

    run = Run(run_dir)
    if game == "evo":
        return fit_evo(run, builtin().worth(run.n_players))
    if game == "table-battles":
        return fit_battle(run)
    return fit_margin(
        run, *{"origin-of-species": ("score",), "dino-kontra-dino": ("won", True)}[game]
    )


FITS = [
    # game, players, games, the bots the fit was made on (the default's, or these in every
    # seat), the bot's parameters it ships as
    ("evo", 4, 2000, (), ("lead", "slope", "slope_round", "dinos", "dinos_round")),
    ("origin-of-species", 4, 2000, (), ("slope", "lead")),
    ("dino-kontra-dino", 4, 5000, (), ("slope", "lead")),
    ("table-battles", 2, 5000, ("-s", STRONG), ("w_markers", "w_cards", "w_dice", "w_turn")),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", FITS, ids=[f[0] for f in FITS])
def test_shipped_evaluations_match_a_fit_on_fresh_logged_games(case, tmp_path, cli):
    """The evaluation weights ``strong`` ships were fitted on logged games
    (:mod:`reports.evaluation`: the heuristic's, Table Battles' on ``strong``'s own); a fit on
    other games of the same bots agrees within five standard errors of the fresh fit (which has
    the fewer games)."""
    game, players, games, bots, names = case
    out = tmp_path / game
    args = ["simulate", game, "-n", str(games), "-p", str(players), "--seed", "99", *bots]
    assert cli(*args, "--out", str(out), "--workers", "1", "--no-progress").code == 0
    fit = _refit(game, str(out))
    shipped = {p.name: p.default for p in get_game(game).registry.by_name[STRONG].params}
    for name in names:
        assert abs(shipped[name] - fit.coef[name]) <= 5 * fit.se[name], (name, fit)


SYMMETRY_GAMES = {
    "dino-kontra-dino": 20_000,
    "table-battles": 4_000,
    "evo": 800,
    "origin-of-species": 1_600,
}
"""Games of the seat-symmetry check per game: fewer than the cheap bots' 100,000
(tests/test_seat_symmetry.py), enough for ``strong`` to show a seat it favoured by a few points."""


@pytest.mark.slow
@pytest.mark.parametrize("game", list(SYMMETRY_GAMES))
def test_strong_gives_every_seat_its_fair_share(game, tmp_path):
    """``strong`` in every seat of the game's symmetric setup: no seat effect (the report's
    Wald test of equal seats, p > 0.001), so it favours no seat by its number."""
    from reports import common
    from simulate.backends import make_executor
    from simulate.config import build_config
    from simulate.rundir import Run
    from simulate.runner import run

    g = get_game(game)
    sym = g.symmetry
    cfg, setup = build_config(
        g.name,
        n_players=sym.players,
        strategies=STRONG,
        rotate=False,
        seed=16,
        games=SYMMETRY_GAMES[game],
        chunk_size=max(1, SYMMETRY_GAMES[game] // 8),
        assignments=list(sym.assignments),
        tables="games,players",
    )
    run(cfg, setup, tmp_path / "run", make_executor(2))
    balance = common.seat_balance(Run(tmp_path / "run"))
    assert balance["p_value"] > 0.001, balance


def test_bench_strong_refuses_a_game_without_a_ladder_in_one_line(cli, monkeypatch):
    monkeypatch.setenv("DINOLAB_GAMES", "tests.toygame")
    r = cli("bench", "high-card", "--strong")
    assert r.code == 2 and r.err.strip().count("\n") == 0
    assert "declares no ladder" in r.err
