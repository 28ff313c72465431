"""The report's robustness section: a companion that keeps the run's lineup and raises each
seat's bot (as the game's ``Strength`` declares), played once and reused; the three verdict
states and the games that would decide, on planted cases and on small run pairs."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy.stats import norm

import simulate.games.dino_kontra_dino as dkd_game
from reports.measure import Difference, FirstGames, measure_run
from reports.metrics import Estimate
from reports.robustness import (
    CHANGES,
    HOLDS,
    POWER,
    UNDECIDED,
    about,
    conclusions,
    decided,
    estimate_verdict,
    games_to_decide,
    item_decided,
    ranking_verdict,
    refs,
    section,
    side,
    state,
)
from reports.stats import Z95
from simulate.config import RunConfig, build_config
from simulate.executors import InlineExecutor
from simulate.games import all_games
from simulate.robustness import (
    FOLDER,
    companion_config,
    companion_games,
    describe_lineup,
    ensure_companion,
    raise_lineup,
)
from simulate.rundir import Run
from simulate.runner import run as play_run

TITLE = "## Robustness: with stronger bots"
ROBUST = dkd_game.SPEC.strength.robust
"""Dino Kontra Dino's robust bot: every seat the declaration does not map is raised to it."""


def simulate(cli, out: Path, games: int, strategy: str) -> Path:
    r = cli(
        "simulate",
        "dkd",
        "--games",
        games,
        "--players",
        4,
        "--seed",
        5,
        "--strategy",
        strategy,
        "--rotate",
        "--chunk-size",
        700,
        "--workers",
        1,
        "--out",
        out,
        "--no-progress",
    )
    assert r.code == 0, r.err
    return out


@pytest.fixture(scope="module")
def dkd(tmp_path_factory, cli_module) -> Path:
    """2,000 four-player Dino Kontra Dino games, mixed bots, rotated seats, no report yet."""
    out = tmp_path_factory.mktemp("robust") / "dkd"
    return simulate(cli_module, out, 2000, "greedy,cautious,blind,random")


def test_bad_games_is_one_line_and_writes_nothing(dkd, cli, tmp_path):
    run = shutil.copytree(dkd, tmp_path / "copy")
    r = cli("report", run, "--robustness-games", 0)
    assert r.code == 2
    assert r.err.strip().count("\n") == 0 and "--robustness-games" in r.err
    assert not (run / "report.html").exists() and not (run / FOLDER).exists()


@pytest.mark.slow
def test_companion_played_once_reused_and_replayed_when_asked_for_another(dkd, cli):
    r = cli("report", dkd, "--no-robustness", "--workers", 1)
    assert r.code == 0, r.err
    assert TITLE not in (dkd / "report.md").read_text()
    assert not (dkd / FOLDER).exists()

    r = cli("report", dkd, "--robustness-games", 1002, "--workers", 1)
    assert r.code == 0, r.err
    assert "playing the robustness companion" in r.out
    md = (dkd / "report.md").read_text()
    section = md[md.index(TITLE) :]
    assert "first_share" in section and "strongest three cards" in section
    assert any(state in section for state in (HOLDS, CHANGES, UNDECIDED))
    assert "run, first 1,000 games" in section and "(paired)" in section
    assert "id='robustness'" in (dkd / "report.html").read_text()
    manifest = json.loads((dkd / FOLDER / "manifest.json").read_text())
    config = manifest["config"]
    base = json.loads((dkd / "manifest.json").read_text())["config"]
    assert config["games"] == 1000  # whole deals of 4 rotated games
    assert config["chunk_size"] == 63  # a 16th of them, so every worker gets a share
    assert len(manifest["chunks"]) == 16
    assert {s.split("[")[0] for s in config["strategies"]} == {ROBUST}
    assert (config["seed"], config["rotate"], config["params"]) == (
        base["seed"],
        base["rotate"],
        base["params"],
    )
    stamp = (dkd / FOLDER / "manifest.json").stat().st_mtime_ns

    r = cli("report", dkd, "--robustness-games", 1000, "--workers", 1)
    assert r.code == 0, r.err
    assert "robustness companion" not in r.out  # reused, not replayed
    assert (dkd / FOLDER / "manifest.json").stat().st_mtime_ns == stamp
    assert TITLE in (dkd / "report.md").read_text()

    r = cli("report", dkd, "--robustness-games", 500, "--workers", 1)
    assert r.code == 0, r.err
    assert "another configuration (games: 1000 -> 500; chunk_size: 63 -> 32)" in r.out
    assert json.loads((dkd / FOLDER / "manifest.json").read_text())["config"]["games"] == 500


def test_a_robust_lineup_is_not_checked_against_itself(cli, tmp_path):
    run = simulate(cli, tmp_path / "robust", 200, ROBUST)
    r = cli("report", run, "--workers", 1)
    assert r.code == 0, r.err
    md = (run / "report.md").read_text()
    assert f"already '{ROBUST}' in every position" in md[md.index(TITLE) :]
    assert not (run / FOLDER).exists()


def declare(monkeypatch, robust: str, robust_games: int | None = None) -> None:
    """Dino Kontra Dino with another robust bot declared in its ``Strength``."""
    spec = dkd_game.SPEC
    strength = dataclasses.replace(spec.strength, robust=robust, robust_games=robust_games)
    monkeypatch.setattr(dkd_game, "SPEC", dataclasses.replace(spec, strength=strength))


@pytest.mark.slow
def test_a_declared_robust_bot_is_played_capped_and_named(dkd, cli, monkeypatch, tmp_path):
    run = shutil.copytree(dkd, tmp_path / "copy", ignore=shutil.ignore_patterns(FOLDER))
    declare(monkeypatch, "cautious", 302)
    r = cli("report", run, "--workers", 1)  # --robustness-games 20,000: the cap decides
    assert r.code == 0, r.err
    assert "'cautious' in every seat on the run's first 300 games" in r.out
    config = json.loads((run / FOLDER / "manifest.json").read_text())["config"]
    assert config["games"] == 300  # the cap, in whole deals of 4 rotated games
    assert {s.split("[")[0] for s in config["strategies"]} == {"cautious"}
    md = (run / "report.md").read_text()
    section = md[md.index(TITLE) :]
    assert "with stronger bots on the run's first 300 games" in section
    assert "raised to its stronger counterpart (cautious in every seat)" in section
    assert "stronger bots, same 300 games" in section  # the table's header
    assert "tuned" not in section

    r = cli("report", run, "--workers", 1, "--robustness-games", 100)  # now the option decides
    assert r.code == 0, r.err
    assert "another configuration (games: 300 -> 100; chunk_size: 19 -> 7)" in r.out
    assert "'cautious' in every seat on the run's first 100 games" in r.out


@pytest.mark.slow
def test_the_demo_plays_the_companion_size_its_game_declares(cli, monkeypatch, tmp_path):
    spec = dkd_game.SPEC
    demo = dataclasses.replace(spec.demo, robust_games=200)
    monkeypatch.setattr(dkd_game, "SPEC", dataclasses.replace(spec, demo=demo))
    r = cli("demo", "--game", "dkd", "--scale", 0.002, "--out-dir", tmp_path, "--no-progress")
    assert r.code == 0, r.err
    assert f"'{ROBUST}' in every seat on the run's first 200 games" in r.out
    run = tmp_path / "demo-dino-kontra-dino"
    assert json.loads((run / FOLDER / "manifest.json").read_text())["config"]["games"] == 200
    assert TITLE in (run / "report.md").read_text()


def test_a_demo_companion_size_outside_the_games_cap_is_refused():
    spec = dkd_game.SPEC
    with pytest.raises(TypeError, match=r"Demo\.robust_games 0 is not in 1\.\.any"):
        dataclasses.replace(spec, demo=dataclasses.replace(spec.demo, robust_games=0))
    strength = dataclasses.replace(spec.strength, robust_games=400)
    with pytest.raises(TypeError, match=r"Demo\.robust_games 401 is not in 1\.\.400"):
        dataclasses.replace(
            spec, strength=strength, demo=dataclasses.replace(spec.demo, robust_games=401)
        )
    assert dataclasses.replace(spec, strength=strength).demo.robust_games is None


def test_a_declared_bot_unknown_is_refused_at_registration():
    strength = dkd_game.SPEC.strength
    for bad in (
        {"robust": "nosuch"},
        {"stronger": {"nosuch": "tuned"}},
        {"stronger": {"greedy": "tuned[nokey=1]"}},
    ):
        with pytest.raises(TypeError, match=r"^dino-kontra-dino: .*'no"):
            dataclasses.replace(dkd_game.SPEC, strength=dataclasses.replace(strength, **bad))


def test_a_lineup_already_at_its_counterparts_is_skipped(cli, monkeypatch, tmp_path):
    run = simulate(cli, tmp_path / "cautious", 40, "cautious")
    recorded = json.loads((run / "manifest.json").read_text())["config"]["strategies"][0]
    for bot in ("cautious", recorded):  # the bare name, and the very values the run played
        declare(monkeypatch, bot)
        found = ensure_companion(run, dkd_game.SPEC, 1000, lambda: None, print)
        assert found.store is None
        assert found.why_not == f"this run's lineup is already '{bot}' in every position"
    assert not (run / FOLDER).exists()


@pytest.mark.parametrize("game", [g for g in all_games() if g.strength], ids=lambda g: g.name)
def test_every_declared_robust_bot_plays(game):
    st = game.strength
    for bot in [st.robust, *st.stronger.values()]:
        setup = game.setup(game.parameters.from_dict({}), st.players[0], bot)
        assert {s.info.name for s in setup.lineup} == {bot.split("[")[0]}
    assert set(st.stronger) <= set(game.registry.names())
    assert st.robust_games is None or st.robust_games >= 1


def config_of(game: str, lineup: str, players: int = 4) -> RunConfig:
    return build_config(
        game,
        n_players=players,
        strategies=lineup,
        rotate=True,
        seed=3,
        games=1000,
        chunk_size=None,
    )[0]


@pytest.mark.parametrize("game", [g for g in all_games() if g.strength], ids=lambda g: g.name)
def test_a_lineup_of_one_bot_keeps_its_companion(game):
    """One bot in every seat: the counterpart in every seat, as before lineups were kept, so
    the companions stored for such runs are reused."""
    base = config_of(game.name, game.strength.field, game.demo.players)
    config = companion_config(base, game, 100)
    every = game.setup(game.parameters(), base.n_players, game.strength.robust)
    assert config.strategies == tuple(s.spec for s in every.lineup)
    assert describe_lineup(raise_lineup(base, game)) == f"'{game.strength.robust}' in every seat"


def test_a_mixed_lineup_keeps_its_positions_and_raises_each(monkeypatch):
    """Each position is raised to its own counterpart; the parameters its bot sets are
    carried where the counterpart declares them, with its restricted options; the others
    are named as not carried."""
    spec = dkd_game.SPEC
    declared = {"odds": "tuned", "cautious": "montecarlo[rollouts=8]", "blind": "blind"}
    strength = dataclasses.replace(spec.strength, stronger=declared)
    monkeypatch.setattr(dkd_game, "SPEC", dataclasses.replace(spec, strength=strength))
    lineup = "odds[keep=2,forbid=figure],cautious[aim=0.7],blind[memory=0.5],greedy"
    base = config_of("dkd", lineup)
    config = companion_config(base, dkd_game.SPEC, 400)
    got = spec.registry.lineup(",".join(config.strategies), 4)
    assert [s.info.name for s in got] == ["tuned", "montecarlo", "blind", ROBUST]
    tuned = spec.registry.parse("tuned", 4)
    assert got[0].values == (2.0, tuned.values[1]) and got[0].forbid == ("figure",)
    assert got[1].values == (8.0,)  # aim is not a montecarlo parameter
    assert got[2].values == (0.5,)  # the same bot keeps its own values
    assert got[3].spec == spec.registry.parse(ROBUST, 4).spec
    assert (config.seed, config.rotate, config.n_players) == (base.seed, base.rotate, 4)
    words = describe_lineup(raise_lineup(base, dkd_game.SPEC))
    assert "odds[keep=2,forbid=figure] -> tuned[keep=2,forbid=figure]" in words
    assert "cautious[aim=0.7] -> montecarlo[rollouts=8] (aim=0.7 not carried)" in words
    assert f"greedy -> {ROBUST}" in words


def test_companion_games_keeps_whole_deals():
    assert companion_games(2000, 20_000, 4, True) == 2000
    assert companion_games(2000, 1002, 4, True) == 1000
    assert companion_games(2000, 1002, 4, False) == 1002
    assert companion_games(3, 20_000, 4, True) == 3


# ------------------------------------------------------------------ the rules, planted


def est(value: float, half: float, games: int = 1000) -> Estimate:
    return Estimate(value, half / Z95, value - half, value + half, games)


def diff(d: float, half: float, paired: bool = True, games: int = 1000) -> Difference:
    same = est(0, 0, games)
    return Difference(same, same, d, half / Z95, d - half, d + half, paired)


WORDS = {1: "favoured", -1: "at a disadvantage", 0: "fair"}
T = 0.01  # one point of win share, the shares' declared tolerance


def verdict(whole, same, stronger, change, reference=0.25, unit="share", logged=None):
    return estimate_verdict(
        "first", whole, same, stronger, change, reference, WORDS, unit, T, logged
    )


def test_side_of_a_reference():
    assert side(est(0.30, 0.01), 0.25) == 1
    assert side(est(0.20, 0.01), 0.25) == -1
    assert side(est(0.26, 0.02), 0.25) == 0
    assert side(est(float("nan"), 0.01), 0.25) is None


def test_the_three_states_of_a_change():
    assert state(-0.004, 0.006, T, sides_differ=False) == HOLDS
    assert state(-0.004, 0.006, T, sides_differ=True) == HOLDS  # within tolerance comes first
    assert state(0.002, 0.03, T, sides_differ=True) == CHANGES  # another side, moved
    assert state(0.002, 0.03, T, sides_differ=False) == UNDECIDED  # same side, maybe by 0.2 pp
    assert state(0.012, 0.03, T, sides_differ=False) == CHANGES  # same side, beyond tolerance
    assert state(-0.03, 0.03, T, sides_differ=True) == UNDECIDED  # holds 0: not shown moved
    assert state(float("nan"), 0.1, T, sides_differ=False) is None


def test_a_conclusion_that_holds_shows_the_figures_on_the_same_games():
    v = verdict(est(0.30, 0.002), est(0.31, 0.02), est(0.309, 0.02), diff(-0.001, 0.006))
    assert v.state == HOLDS and v.verdict == f"{HOLDS} (change within ±1.00 pp)"
    assert v.reported == "favoured: 30.00% [29.80%, 30.20%]"
    assert v.same == "favoured: 31.00% [29.00%, 33.00%]"
    assert v.stronger == "favoured: 30.90% [28.90%, 32.90%]"
    assert v.change == "-0.10 pp [-0.70, +0.50] (paired)"


def test_a_conclusion_that_changes():
    v = verdict(est(0.30, 0.01), est(0.31, 0.03), est(0.27, 0.03), diff(-0.04, 0.02))
    assert v.state == CHANGES
    assert v.verdict == f"{CHANGES}: favoured becomes fair: -4.00 pp [-6.00, -2.00] (paired)"
    v = verdict(est(0.70, 0.004), est(0.74, 0.03), est(0.57, 0.03), diff(-0.17, 0.04), 0.5)
    assert v.state == CHANGES and "the same side, but moved beyond ±1.00 pp" in v.verdict
    rho = estimate_verdict(
        "rho",
        est(-0.4, 0.2),
        est(-0.4, 0.3),
        est(0.3, 0.2),
        diff(0.7, 0.3, False),
        0.0,
        WORDS,
        "rank correlation",
        0.1,
    )
    assert rho.state == CHANGES and "at a disadvantage becomes favoured" in rho.verdict
    assert "+0.70 [+0.40, +1.00] (independent fits)" in rho.verdict
    v = verdict(est(0.25, 0.01), est(0.25, 0.01), est(float("nan"), 0.1), None)
    assert v.state is None and v.verdict.startswith("not measurable")


def test_an_undecided_conclusion_names_the_games_that_would_decide():
    # Origin of Species' first mover: at a disadvantage on the whole run, fair within noise on
    # both sides of 200 games, a change of +0.25 pp [-8.81, +9.31]: not shown to hold or move
    change = diff(0.0025, 0.0906, games=200)
    v = verdict(est(0.2424, 0.006), est(0.295, 0.062), est(0.2975, 0.07), change, logged=20_000)
    n = games_to_decide(0.0025, 0.0906 / Z95, 200, T, True)
    assert v.state == UNDECIDED and v.games == n and n > 200
    assert v.verdict == (
        f"{UNDECIDED}: about {about(n)} companion games would decide (200 played; more than "
        "the run's 20,000: a longer run)"
    )


@pytest.mark.parametrize(
    ("d", "sides_differ"),
    [(0.0, False), (0.004, True), (0.02, False), (-0.03, True), (0.011, False)],
)
def test_the_games_that_would_decide_decide_with_the_declared_power(d, sides_differ):
    """At the games named, a change drawn around the observed one is decided by the rules
    with probability POWER (Monte Carlo, within four binomial standard errors); at half of
    them, clearly less often."""
    se, played, draws = 0.02, 400, 40_000
    n = games_to_decide(d, se, played, T, sides_differ)
    assert n is not None and n > played
    rng = np.random.default_rng(7)
    for games, lo, hi in ((n, POWER, POWER), (n // 2, 0.0, POWER - 0.1)):
        s = se * np.sqrt(played / games)
        drawn = rng.normal(d, s, draws)
        got = np.mean(
            [state(x - Z95 * s, x + Z95 * s, T, sides_differ) != UNDECIDED for x in drawn]
        )
        slack = 4 * np.sqrt(POWER * (1 - POWER) / draws)
        assert lo - slack <= got <= hi + slack, (games, got)
        assert abs(decided(d, s, T, sides_differ) - got) < slack


def test_far_from_the_tolerance_the_count_is_the_textbook_sample_size():
    """One-sided far from every other boundary: n = n0 ((z_0.975 + z_0.8) se / margin)^2."""
    se, played = 0.02, 400
    for d, margin in ((0.05, 0.05 - T), (0.008, T - 0.008)):
        textbook = played * ((Z95 + norm.ppf(POWER)) * se / margin) ** 2
        got = games_to_decide(d, se, played, T, sides_differ=False)
        assert got == pytest.approx(textbook, rel=0.02)
    assert games_to_decide(T, se, played, T, sides_differ=False) is None  # on the tolerance


def test_an_items_decision_probability_matches_its_rule():
    rng = np.random.default_rng(3)
    for x in (-0.02, -0.006, 0.004):
        s = 0.008
        drawn = rng.normal(x, s, 40_000)
        stays = drawn - Z95 * s >= -T
        leaves = drawn + Z95 * s < 0
        assert abs(np.mean(stays | leaves) - item_decided(x, s, T)) < 0.01


def table(values: dict[str, float], half: float = 0.005) -> pl.DataFrame:
    names = list(values)
    v = [values[n] for n in names]
    return pl.DataFrame(
        {"name": names, "value": v, "lo": [x - half for x in v], "hi": [x + half for x in v]}
    )


RUN = table({c: 0.1 * k for k, c in enumerate("abcdefgh")})  # h strongest, a weakest


def rank(b: pl.DataFrame, strongest: bool = True, same: pl.DataFrame | None = RUN):
    return ranking_verdict("three", RUN, same, b, strongest, "share", T, 1000)


def test_rankings_that_hold():
    v = rank(table({**{c: 0.1 * k for k, c in enumerate("abcdefgh")}, "h": 0.0}))
    assert v.state == HOLDS and "leave: h is " in v.verdict  # h leaves, g and f stay
    close = {"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.4, "e": 0.5, "f": 0.6, "g": 0.695, "h": 0.7}
    assert rank(table(close, half=0.003)).state == HOLDS  # the same three on top
    near = {**close, "f": 0.69, "z": 0.71}  # f 4th, within the tolerance of the third
    v = rank(table(near, half=0.004))
    assert v.state == HOLDS and "stay: h, g, f" in v.verdict
    assert "f +19.00 pp [" in v.change  # against the run's 0.5 on the same games


def test_rankings_that_change():
    flipped = table({c: -0.1 * k for k, c in enumerate("abcdefgh")})
    v = rank(flipped)
    assert v.state == CHANGES and v.verdict.startswith(f"{CHANGES}: leave: h is 8th")
    assert rank(flipped, strongest=False).state == CHANGES
    gone = table({"a": 0.0, "b": 0.1})
    assert rank(gone).state is None


def test_rankings_undecided_name_the_games():
    # g and f 4th and 5th, 1.5 and 3 points below the third, intervals of +-2 points
    wide = table({"h": 0.9, "x": 0.8, "y": 0.72, "g": 0.705, "f": 0.69, "a": 0.1}, half=0.02)
    v = rank(wide, same=None)
    assert v.state == UNDECIDED and v.games is not None and v.games > 1000
    assert f"about {about(v.games)} companion games would decide (1,000 played)" in v.verdict
    assert "unclear: g is 4th" in v.verdict and v.same == "n/a"


def test_an_item_neither_run_measures_on_the_same_games_is_unclear_not_gone():
    b = table({"x": 0.9, "g": 0.8, "f": 0.75, "z": 0.7})  # h not measured, g and f stay
    v = rank(b)  # the run measures h on the same games: the stronger bots lost it
    assert v.state == HOLDS and "leave: h is not measured with stronger bots" in v.verdict
    b = table({"x": 0.9, "y": 0.8, "z": 0.7, "g": 0.1, "f": 0.75})
    same = RUN.filter(pl.col("name") != "h")
    v = rank(b, same=same)  # nobody measures h on these games: no count can be given
    assert v.state == UNDECIDED and v.games is None
    assert "how many is unknown (h not measured on the run's first 1,000 games)" in v.verdict
    assert "h is not measured on these games (by either)" in v.verdict


# ------------------------------------------------------------------ small run pairs


def play(game: str, out: Path, lineup: str, games: int, players: int, rotate: bool) -> Run:
    config, setup = build_config(
        game,
        n_players=players,
        strategies=lineup,
        rotate=rotate,
        seed=17,
        games=games,
        chunk_size=max(games // 3, 1),
    )
    play_run(config, setup, out, InlineExecutor(), force=True)
    return Run(out)


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setenv("DINOLAB_GAMES", "tests.toygame")
    from tests.toygame.report import REPORT

    return REPORT


def test_the_run_on_the_companions_games_is_the_first_games_of_the_run(toy, tmp_path):
    big = play("toy", tmp_path / "big", "random,high,low", 1200, 3, True)
    small = play("toy", tmp_path / "small", "random,high,low", 300, 3, True)
    head = FirstGames(big, 300)
    assert head.games_logged == 300 and head.config["games"] == 300
    rs = refs(small, toy)
    got, want = measure_run(head, rs), measure_run(small, rs)
    for name, e in want.items():
        assert (got[name].value, got[name].se) == pytest.approx((e.value, e.se), rel=1e-9)
    cols = ["game_id", "seat", "winner"]
    assert (
        head.scan("players")
        .select(cols)
        .collect()
        .equals(small.scan("players").select(cols).collect())
    )


def test_identical_bots_hold_only_when_the_games_suffice(toy, tmp_path):
    """``high[noise=1]`` plays a random card like ``random``, from another draw: the same
    bot on the same deals, a true change of 0. On 400 games the change cannot be shown to be
    within the tolerance (undecided, naming the games); on twice the games the power
    calculation gives for a true change of 0, it holds."""
    base = play("toy", tmp_path / "run", "random,random", 60_000, 2, True)
    few = play("toy", tmp_path / "few", "high[noise=1],random", 400, 2, True)
    first = conclusions(base, few, toy)[0]
    assert first.conclusion.startswith("seat_share[0]")
    assert first.state == UNDECIDED and first.games > 400
    assert f"about {about(first.games)} companion games would decide" in first.verdict
    enough = 2 * games_to_decide(0.0, few_se(base, few, toy), 400, T, False)
    assert enough <= base.games_logged
    many = play("toy", tmp_path / "many", "high[noise=1],random", enough, 2, True)
    assert conclusions(base, many, toy)[0].state == HOLDS


def few_se(base: Run, companion: Run, report) -> float:
    from reports.measure import differences

    rs = refs(base, report)[:1]
    head = FirstGames(base, companion.games_logged)
    return differences(head, companion, rs)[rs[0].name].se


def test_a_clearly_stronger_bot_changes_the_conclusions_and_shows_both_sides(tmp_path):
    """Tuned against random in the figure holder's seat: the first mover's share moves by
    tens of points; the section shows the run's and the companion's figures on the same games
    and their paired change."""
    base = play("dkd", tmp_path / "run", "random", 1200, 4, False)
    strong = play("dkd", tmp_path / "strong", "tuned,random,random,random", 400, 4, False)
    from reports.dino_kontra_dino import REPORT

    first = conclusions(base, strong, REPORT)[0]
    assert first.state == CHANGES and "(paired)" in first.change
    head = FirstGames(base, 400)
    rs = refs(base, REPORT)[:1]
    same, stronger = measure_run(head, rs)[rs[0].name], measure_run(strong, rs)[rs[0].name]
    assert first.same.endswith(f"{same.value:.2%} [{same.lo:.2%}, {same.hi:.2%}]")
    assert first.stronger.endswith(f"{stronger.value:.2%} [{stronger.lo:.2%}, {stronger.hi:.2%}]")
    assert f"{(stronger.value - same.value) * 100:+.2f} pp [" in first.change
    md = section(base, REPORT, strong).table
    assert md.columns[1:5] == [
        "whole run (1,200 games)",
        "run, first 400 games",
        "stronger bots, same 400 games",
        "change (stronger bots - run, same games)",
    ]
