"""The report's robustness section: a companion with the game's robust bot (tuned, or the one
its ``Strength`` declares), played once and reused, and the verdict rules on planted cases."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import polars as pl
import pytest

import simulate.games.dino_kontra_dino as dkd_game
from reports.measure import Difference
from reports.metrics import Estimate
from reports.robustness import CHANGES, HOLDS, estimate_verdict, ranking_verdict, side
from simulate.config import RunConfig, build_config
from simulate.games import all_games
from simulate.robustness import (
    FOLDER,
    companion_config,
    companion_games,
    describe_lineup,
    ensure_companion,
    raise_lineup,
)

TITLE = "## Robustness: with stronger bots"


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
    assert HOLDS in section or CHANGES in section
    assert "id='robustness'" in (dkd / "report.html").read_text()
    manifest = json.loads((dkd / FOLDER / "manifest.json").read_text())
    config = manifest["config"]
    base = json.loads((dkd / "manifest.json").read_text())["config"]
    assert config["games"] == 1000  # whole deals of 4 rotated games
    assert config["chunk_size"] == 63  # a 16th of them, so every worker gets a share
    assert len(manifest["chunks"]) == 16
    assert {s.split("[")[0] for s in config["strategies"]} == {"tuned"}
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


def test_a_tuned_lineup_is_not_checked_against_itself(cli, tmp_path):
    run = simulate(cli, tmp_path / "tuned", 200, "tuned")
    r = cli("report", run, "--workers", 1)
    assert r.code == 0, r.err
    md = (run / "report.md").read_text()
    assert "already 'tuned' in every position" in md[md.index(TITLE) :]
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
    assert "stronger bots (cautious in every seat) on the run's first 300 games" in section
    assert "with cautious in every seat" in section  # the table's header
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
    assert "'tuned' in every seat on the run's first 200 games" in r.out
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
    assert [s.info.name for s in got] == ["tuned", "montecarlo", "blind", "tuned"]
    tuned = spec.registry.parse("tuned", 4)
    assert got[0].values == (2.0, tuned.values[1]) and got[0].forbid == ("figure",)
    assert got[1].values == (8.0,)  # aim is not a montecarlo parameter
    assert got[2].values == (0.5,)  # the same bot keeps its own values
    assert got[3].spec == tuned.spec
    assert (config.seed, config.rotate, config.n_players) == (base.seed, base.rotate, 4)
    words = describe_lineup(raise_lineup(base, dkd_game.SPEC))
    assert "odds[keep=2,forbid=figure] -> tuned[keep=2,forbid=figure]" in words
    assert "cautious[aim=0.7] -> montecarlo[rollouts=8] (aim=0.7 not carried)" in words
    assert "greedy -> tuned" in words


def test_companion_games_keeps_whole_deals():
    assert companion_games(2000, 20_000, 4, True) == 2000
    assert companion_games(2000, 1002, 4, True) == 1000
    assert companion_games(2000, 1002, 4, False) == 1002
    assert companion_games(3, 20_000, 4, True) == 3


# ------------------------------------------------------------------ the rules, planted


def est(value: float, half: float) -> Estimate:
    return Estimate(value, half / 1.96, value - half, value + half, 1000)


def diff(d: float, half: float, paired: bool = True) -> Difference:
    return Difference(est(0, 0), est(0, 0), d, half / 1.96, d - half, d + half, paired)


WORDS = {1: "favoured", -1: "at a disadvantage", 0: "fair"}


def test_side_of_a_reference():
    assert side(est(0.30, 0.01), 0.25) == 1
    assert side(est(0.20, 0.01), 0.25) == -1
    assert side(est(0.26, 0.02), 0.25) == 0
    assert side(est(float("nan"), 0.01), 0.25) is None


def test_a_conclusion_that_holds():
    v = estimate_verdict(
        "first", est(0.30, 0.01), est(0.29, 0.02), diff(-0.01, 0.01), 0.25, WORDS, "share"
    )
    assert v.holds is True and v.verdict == HOLDS


def test_another_side_within_noise_holds():
    v = estimate_verdict(
        "first", est(0.25, 0.01), est(0.28, 0.025), diff(0.03, 0.035), 0.25, WORDS, "share"
    )
    assert v.holds is True and "(the difference holds 0)" in v.stronger


def test_lost_significance_holds_only_while_the_difference_holds_zero():
    weak = est(0.27, 0.03)  # fair within noise on the companion's fewer games
    v = estimate_verdict("first", est(0.30, 0.01), weak, diff(-0.03, 0.04), 0.25, WORDS, "share")
    assert v.holds is True
    v = estimate_verdict("first", est(0.30, 0.01), weak, diff(-0.03, 0.02), 0.25, WORDS, "share")
    assert v.holds is False
    assert v.verdict.startswith(f"{CHANGES}: favoured becomes fair")
    assert "-3.00 pp [-5.00, -1.00] (paired, same games)" in v.verdict


def test_a_conclusion_that_changes():
    v = estimate_verdict(
        "rho", est(-0.4, 0.2), est(0.3, 0.2), diff(0.7, 0.3, False), 0.0, WORDS, "rank correlation"
    )
    assert v.holds is False and "at a disadvantage becomes favoured" in v.verdict
    assert "independent runs" in v.verdict
    v = estimate_verdict(
        "new", est(0.25, 0.01), est(0.35, 0.02), diff(0.1, 0.02), 0.25, WORDS, "share"
    )
    assert v.holds is False and "fair becomes favoured" in v.verdict
    v = estimate_verdict("nan", est(0.25, 0.01), est(float("nan"), 0.1), None, 0.25, WORDS, "x")
    assert v.holds is None and v.verdict.startswith("not measurable")


def table(values: dict[str, float], half: float = 0.005) -> pl.DataFrame:
    names = list(values)
    v = [values[n] for n in names]
    return pl.DataFrame(
        {"name": names, "value": v, "lo": [x - half for x in v], "hi": [x + half for x in v]}
    )


RUN = table({c: 0.1 * k for k, c in enumerate("abcdefgh")})  # h strongest, a weakest


def test_rankings_that_hold():
    same = table({**{c: 0.1 * k for k, c in enumerate("abcdefgh")}, "h": 0.0})
    v = ranking_verdict("strongest", RUN, same, True, "share")  # h leaves, g and f stay
    assert v.holds is True
    close = table(
        {"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.4, "e": 0.5, "f": 0.6, "g": 0.7, "h": 0.69}, half=0.05
    )
    assert ranking_verdict("weakest", RUN, close, False, "share").holds is True


def test_rankings_that_change():
    flipped = table({c: -0.1 * k for k, c in enumerate("abcdefgh")})
    v = ranking_verdict("strongest", RUN, flipped, True, "share")
    assert v.holds is False
    assert v.verdict.startswith(f"{CHANGES}: 0 of 3 stay; h is 8th")
    assert ranking_verdict("weakest", RUN, flipped, False, "share").holds is False
    gone = table({"a": 0.0, "b": 0.1})
    assert ranking_verdict("strongest", RUN, gone, True, "share").holds is None
