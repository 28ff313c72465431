"""Studies at strength (``--tier``): sweeps and searches played at several tiers on the same
games, a target held at every tier, and refusals in one line.

Known answers come from the test game (*High card*, ``tests/toygame``): a game lasts its
``hand`` rounds whatever the bots do, and playing one's highest card (``high``) makes shared
victories far rarer than random play (about 0.14-0.21 against 0.29-0.36 of games here).
"""

from __future__ import annotations

import csv
import json

import pytest

from simulate.study.seeds import fresh_seed
from tests.conftest import run_cli
from tests.faults import ROOT

TOY = "tests.toygame"
TIERS = ["--tier", "random", "--tier", "high"]
COMMON = ["--workers", "1", "--no-progress"]


@pytest.fixture(scope="module", autouse=True)
def toy_registered():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DINOLAB_GAMES", TOY)
        mp.setenv("PYTHONPATH", str(ROOT))  # worker processes import the test game
        yield


# ------------------------------------------------------------------ sweeps


@pytest.fixture(scope="module")
def tiered_sweep(tmp_path_factory, toy_registered):
    out = tmp_path_factory.mktemp("sweep") / "s"
    r = run_cli(
        *("sweep", "toy", "--param", "hand=3..4", *TIERS, "-n", "2000", "--seed", "2"),
        *("--metrics", "length,shared", "--target", "shared<0.25", *COMMON, "--out", out),
    )
    assert r.code == 0, r.err
    return out, r.out


def test_a_sweep_plays_every_point_at_each_tier_on_the_same_games(tiered_sweep):
    out, printed = tiered_sweep
    assert "sweep of 2 points at 2 tiers (random, high)" in printed
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert [(r["point"], r["tier"]) for r in rows] == [
        ("000-hand=3", "random"),
        ("000-hand=3", "high"),
        ("001-hand=4", "random"),
        ("001-hand=4", "high"),
    ]
    seeds = set()
    for r in rows:
        tier = {"random": "0-random", "high": "1-high"}[r["tier"]]
        run = out / "tiers" / tier / "points" / r["point"]
        config = json.loads((run / "manifest.json").read_text())["config"]
        seeds.add(config["seed"])
        assert {s.partition("[")[0] for s in config["strategies"]} == {r["tier"]}
        assert json.loads((run / "metrics.json").read_text())["tier"] == r["tier"]
    assert seeds == {2}
    # a metric the bots cannot change agrees at every tier; one they change differs
    for r in rows:
        assert float(r["length"]) == float(r["hand"])
    random, high = rows[0], rows[1]
    assert float(high["shared_hi"]) < float(random["shared_lo"])


def test_a_point_meets_a_target_only_at_every_tier(tiered_sweep):
    out, printed = tiered_sweep
    md = (out / "report.md").read_text()
    assert "at every tier" in printed and "meets:" not in printed  # random play shares >25%
    assert "meet it at random but not at every tier" not in md
    assert "| tier | random -> high | hand=3 | shared |" in md  # the paired step between tiers
    assert "meets at high" in md
    r = run_cli("report", out, "--target", "shared<0.4")  # random meets it too
    assert r.code == 0, r.err
    assert "meets: 000-hand=3" in r.out and "meets: 001-hand=4" in r.out


# ------------------------------------------------------------------ searches


SEARCH = [
    *("search", "toy", "--target", "length=5,shared>0.17", "--param", "hand=3,5"),
    *("--set", "hand=3", *TIERS, "--budget", "30000", "--block", "500", "--seed", "3"),
]


def test_a_search_confirms_at_every_tier_on_fresh_seeds(tmp_path):
    """hand=5 brings the length to 5 and keeps shared victories above 0.17 with random play,
    but not with the high card bot (about 0.14): the cheap tier prefers it, the strong one
    sets it back, and the current rules are kept."""
    out = tmp_path / "q"
    r = run_cli(*SEARCH, *COMMON, "--out", out)
    assert r.code == 0, r.err
    rec = json.loads((out / "recommendation.json").read_text())
    assert rec["params"] == {} and rec["meets_constraints"]
    assert [t["tier"] for t in rec["tiers"]] == ["random", "high"]
    for t in rec["tiers"]:
        for m in t["metrics"].values():
            assert m["ci"][0] <= m["value"] <= m["ci"][1]
        manifest = json.loads((out / t["run"] / "manifest.json").read_text())
        assert manifest["config"]["seed"] == fresh_seed(3) != 3  # fresh games
        assert t["run"].startswith("final/")
    assert (
        rec["tiers"][1]["metrics"]["shared"]["value"]
        < rec["tiers"][0]["metrics"]["shared"]["value"]
    )
    [over] = rec["passed_over"]
    assert over["params"] == {"hand": "5"} and over["tier"] == "high"
    assert "not recommended: hand=5: it meets every constraint at random but not at high" in r.out
    assert "shared at high:" in r.out and "shared at random:" in r.out
    md = (out / "report.md").read_text()
    assert "Not recommended: hand 3 -> 5" in md and "| high | shared |" in md


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tier", "nobody"], "tier 'nobody': unknown strategy 'nobody'"),
        (["--tier", "high[noise=2]"], "high.noise must be a number in 0..1"),
        (["--tier", "random", "--tier", "random[]"], "are the same bot"),
        ([*TIERS, "--metrics", "strategy_share[random]"], "tier 'high' cannot measure it"),
        ([*TIERS, "--metrics", "nope"], "unknown metric 'nope'"),
        ([*TIERS, "--target", "strategy_share[random]=0.5"], "tier 'high' cannot measure it"),
        ([*TIERS, "--strategy", "high"], "--strategy and --tier contradict"),
        ([*TIERS, "--rotate"], "--rotate and --tier contradict"),
    ],
)
def test_a_sweep_refuses_bad_tiers_in_one_line(tmp_path, args, message):
    out = tmp_path / "bad"
    r = run_cli("sweep", "toy", "--param", "hand=3..4", *args, *COMMON, "--out", out)
    assert r.code == 2, r.out
    assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
    assert message in r.err
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tier", "random", "--tier", "nobody"], "tier 'nobody': unknown strategy"),
        ([*TIERS, "--target", "strategy_share[random]=0.5"], "tier 'high' cannot measure it"),
        ([*TIERS, "--target", "shared=0.2", "--budget", "12000"], "at each of 2 tiers"),
    ],
)
def test_a_search_refuses_bad_tiers_in_one_line(tmp_path, args, message):
    out = tmp_path / "bad"
    args = args if "--target" in args else [*args, "--target", "shared=0.2"]
    r = run_cli("search", "toy", "--param", "hand=3..4", *args, *COMMON, "--out", out)
    assert r.code == 2, r.out
    assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
    assert message in r.err
    assert not out.exists()


def test_tune_refuses_a_field_beside_tiers_and_an_unknown_tier(tmp_path):
    out = tmp_path / "t.json"
    for args, message in [
        (["--tier", "greedy", "--against", "random"], "--against and --tier contradict"),
        (["--tier", "greedy", "--tier", "nobody"], "tier 'nobody': unknown strategy"),
    ]:
        r = run_cli("tune", "dkd", "-s", "cautious", *args, *COMMON, "--out", out)
        assert r.code == 2 and r.err.count("\n") == 1 and message in r.err, r.err
        assert not out.exists() and not (tmp_path / "t.tune").exists()


@pytest.mark.slow
def test_tune_at_tiers_gives_the_win_share_against_each_field(tmp_path):
    out = tmp_path / "t.json"
    r = run_cli(
        *("tune", "dkd", "-s", "cautious", "--tier", "random", "--tier", "greedy"),
        *("--param", "aim=0.5,1", "-p", "3", "--budget", "40000", "--block", "600"),
        *COMMON,
        *("--out", out),
    )
    assert r.code == 0, r.err
    body = json.loads(out.read_text())
    assert body["field"] == ["random", "random"]
    assert [t["tier"] for t in body["tiers"]] == ["random", "greedy"]
    assert body["strength"]["win_share"] == body["tiers"][0]["win_share"]
    random, greedy = (t["win_share"] for t in body["tiers"])
    assert greedy["ci"][1] < random["ci"][0]  # the strong field wins more of its games
    assert "--tier random --tier greedy" in body["command"]
    assert "against random" in r.out and "against greedy" in r.out
