"""``dinolab strength``: metrics along tiers of bot strength on the same deals, with verdicts.

Known answers come from the test game (*High card*, ``tests/toygame``): every game lasts its
``hand`` rounds whatever the bots do, the seats are alike (the same bot in every seat, a
symmetric deal), and playing one's highest card first (``high``) makes shared victories far
rarer than random play (measured below with its own interval, not taken on trust).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reports import robustness
from reports.measure import Difference
from reports.metrics import Estimate
from reports.stats import Z95
from reports.strength import games_to_decide, judge
from simulate.cli.strength_commands import tier_measurer
from simulate.executors import InlineExecutor
from simulate.games import all_games
from simulate.kit.spec import Strength
from simulate.study.strength import StrengthRequest, strength
from tests.conftest import run_cli
from tests.faults import ROOT, parquet_files

TOY = "tests.toygame"
TIERS = ["--tier", "random", "--tier", "high"]
BASE = ["strength", "toy", *TIERS, "--seed", "5", "--workers", "1", "--no-progress"]
GAMES = 40_000
"""Games per tier of the verdict study: the paired step of a seat's share then has a 95%
half-width of about 0.0035, so a true step of 0 lands within the 0.01 tolerance unless the
noise is 3.6 standard errors away (checked below before the verdict is read)."""


@pytest.fixture(scope="module", autouse=True)
def toy_registered():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DINOLAB_GAMES", TOY)
        mp.setenv("PYTHONPATH", str(ROOT))  # worker processes import the test game
        yield


@pytest.fixture(scope="module")
def curve(tmp_path_factory, toy_registered):
    out = tmp_path_factory.mktemp("strength") / "curve"
    metrics = ["-m", "length", "-m", "seat_share[0]", "-m", "shared"]
    r = run_cli(*BASE, *metrics, "-n", str(GAMES), "--out", out)
    assert r.code == 0, r.err
    return out, r.out, json.loads((out / "strength.json").read_text())


def _mtimes(folder: Path) -> dict[str, int]:
    """When a tier's games and metrics were written (a finished run's manifest is rewritten
    when it is handed over again, its games are not)."""
    found = [*folder.rglob("*.parquet"), folder / "metrics.json"]
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in found}


# ------------------------------------------------------------------ verdicts


def test_a_bot_independent_metric_settles_and_a_bot_dependent_one_moves(curve):
    _, printed, body = curve
    m = body["metrics"]
    # every game lasts hand = 5 rounds whatever is played: the same number at every tier
    length = m["length"]
    assert [t["value"] for t in length["tiers"].values()] == [5.0, 5.0]
    assert length["tiers"]["high"]["change"] == {
        "value": 0.0,
        "low": 0.0,
        "high": 0.0,
        "paired": True,
    }
    assert (length["verdict"], length["answer"]) == ("settled", 5.0)
    # one bot in every seat of a symmetric deal: seat 0 wins 1/3 at every tier, so the paired
    # step is noise only; it settles once its interval is narrow against the tolerance
    seat = m["seat_share[0]"]
    step = seat["tiers"]["high"]["change"]
    assert step["high"] - step["low"] < seat["tolerance"]  # half-width < half the tolerance
    assert step["low"] < 0 < step["high"]
    assert seat["verdict"] == "settled" and seat["direction"] is None
    for t in seat["tiers"].values():
        assert t["low"] < 1 / 3 < t["high"]
    # shared victories: the step is many standard errors beyond the tolerance
    shared = m["shared"]
    step = shared["tiers"]["high"]["change"]
    assert step["high"] < -shared["tolerance"] and step["paired"]
    assert (shared["verdict"], shared["direction"]) == ("moving", "down")
    assert shared["answer"] == shared["tiers"]["high"]["value"]
    assert "=> settled: random -> high" in printed
    assert "=> moving down: random -> high" in printed


def test_strength_json_names_the_tiers_and_every_number(curve):
    out, printed, body = curve
    assert body["game"] == "high-card" and body["tiers"] == ["random", "high"]
    assert list(body["metrics"]) == ["length", "seat_share[0]", "shared"]  # as asked
    for entry in body["metrics"].values():
        assert set(entry) >= {"tiers", "verdict", "answer"}
        assert entry["verdict"] in ("settled", "moving")
        assert list(entry["tiers"]) == ["random", "high"]
        for i, t in enumerate(entry["tiers"].values()):
            assert set(t) >= {"value", "low", "high", "games"} and t["games"] == GAMES
            assert t["low"] <= t["value"] <= t["high"]
            assert ("change" in t) == (i > 0)
    assert sorted(p.name for p in (out / "tiers").iterdir()) == ["0-random", "1-high"]
    assert not list(out.glob("*.tmp*")) and not list(out.glob(".tmp*"))
    html = (out / "strength.html").read_text()
    assert html.count("<img") == 3 and "shared along the tiers" in html
    assert "settled" in (out / "strength.md").read_text()
    assert "wrote" in printed and "strength.json" in printed


def _step(diff: float, se: float, games: int = 10_000) -> Difference:
    e = Estimate(0.5, 0.01, 0.48, 0.52, games)
    return Difference(e, e, diff, se, diff - Z95 * se, diff + Z95 * se, True)


def test_verdicts_read_the_top_step_against_the_tolerance():
    answer = Estimate(0.5, 0.001, 0.498, 0.502, 10_000)
    settled = judge(_step(0.002, 0.002), 0.01, "a", "b", answer)
    assert (settled.state, settled.direction) == ("settled", None)
    beyond = judge(_step(0.05, 0.005), 0.01, "a", "b", answer)
    assert (beyond.state, beyond.direction) == ("moving", "up")
    assert "beyond ±0.01" in beyond.words
    maybe = judge(_step(-0.007, 0.003), 0.01, "a", "b", answer)  # real, perhaps within
    assert (maybe.state, maybe.direction) == ("moving", "down")
    assert "not settled: needs more games" in maybe.words
    # the honest case: the step holds 0 but is wider than the tolerance
    wide = judge(_step(0.001, 0.01), 0.01, "a", "b", answer)
    assert (wide.state, wide.direction) == ("moving", None)
    assert "not settled: needs more games" in wide.words
    # the games at which a step like this one would settle or move with 80% power: more
    # than were played, and the same as the robustness check's power calculation
    for step, verdict in ((_step(0.001, 0.01), wide), (_step(-0.007, 0.003), maybe)):
        assert verdict.games_needed > 10_000
        exact = robustness.games_to_decide(step.diff, step.se, 10_000, 0.01, False)
        assert exact <= verdict.games_needed <= exact * 1.1
        assert f"about {verdict.games_needed:,} games per tier would tell" in verdict.words
    assert games_to_decide(_step(0.01, 0.002), 0.01, 1000) is None  # on the tolerance itself


# ------------------------------------------------------------------ resume and precision


def test_resume_finishes_what_is_missing_and_replays_no_finished_tier(tmp_path):
    out = tmp_path / "s"
    args = [*BASE, "-m", "shared", "-n", "3000", "--out", out]
    assert run_cli(*args).code == 0
    first = (out / "strength.json").read_bytes()
    kept = _mtimes(out / "tiers" / "0-random")
    again = run_cli(*args, "--resume")
    assert again.code == 0, again.err
    assert (out / "strength.json").read_bytes() == first
    assert _mtimes(out / "tiers" / "0-random") == kept
    # a study stopped before its last tier: only that tier is played
    shutil.rmtree(out / "tiers" / "1-high")
    (out / "strength.json").unlink()
    r = run_cli(*args, "--resume")
    assert r.code == 0, r.err
    assert (out / "strength.json").read_bytes() == first
    assert _mtimes(out / "tiers" / "0-random") == kept
    other = run_cli(*BASE, "-m", "shared", "-n", "4000", "--out", out, "--resume")
    assert other.code == 2 and "other settings (games: 3000 -> 4000)" in other.err


def test_precision_plays_rounds_until_reached_and_equals_one_run_of_that_size(tmp_path):
    out = tmp_path / "p"
    h = 0.02  # shared ~0.3 at random play: ±0.020 needs a little over 2,000 games
    r = run_cli(*BASE, "-m", "shared", "--precision", str(h), "--out", out)
    assert r.code == 0, r.err
    body = json.loads((out / "strength.json").read_text())
    for name, t in body["metrics"]["shared"]["tiers"].items():
        assert max(t["high"] - t["value"], t["value"] - t["low"]) <= h
        half = t["games"] // 2  # the round before did not reach it (or it is the first)
        assert t["games"] == 1000 or f"{name}: {half:,} games, widest interval" in r.out
        assert t["games"] in (1000, 2000, 4000, 8000)
    # a grown tier keeps its games: the same rows and numbers as one run of its final size
    games = body["metrics"]["shared"]["tiers"]["random"]["games"]
    assert games > 1000
    single = tmp_path / "n"
    assert run_cli(*BASE, "-m", "shared", "-n", str(games), "--out", single).code == 0
    assert parquet_files(out / "tiers" / "0-random") == parquet_files(single / "tiers" / "0-random")
    mine, theirs = (
        json.loads((d / "tiers" / "0-random" / "metrics.json").read_text())["metrics"]
        for d in (out, single)
    )
    assert mine == theirs


class CrashAfter(InlineExecutor):
    """Dies (like a killed driver) after ``n`` chunks of a study."""

    def __init__(self, n: int):
        self.n, self.done = n, 0

    def run_tasks(self, tasks):
        for result in super().run_tasks(tasks):
            if self.done == self.n:
                raise KeyboardInterrupt
            self.done += 1
            yield result


def test_a_study_killed_in_a_round_resumes_to_the_uninterrupted_answer(tmp_path):
    """From Python (the request and one function), killed in the second round; the command's
    --resume then ends where an uninterrupted study ends."""
    args = ["-m", "shared", "--precision", "0.02", "--chunk-size", "500"]
    assert run_cli(*BASE, *args, "--out", tmp_path / "whole").code == 0
    request = StrengthRequest(
        "toy",
        metrics=("shared",),
        tiers=("random", "high"),
        precision=0.02,
        seed=5,
        chunk_size=500,
        out=str(tmp_path / "killed"),
    )
    with pytest.raises(KeyboardInterrupt):
        strength(request, tier_measurer(request.metrics), CrashAfter(5))  # round 1: 2 + 2 chunks
    random = tmp_path / "killed" / "tiers" / "0-random"
    manifest = json.loads((random / "manifest.json").read_text())
    assert (manifest["config"]["games"], manifest["status"]) == (2000, "running")
    r = run_cli(*BASE, *args, "--out", tmp_path / "killed", "--resume")
    assert r.code == 0, r.err
    for name in ("strength.json", "tiers/0-random/metrics.json", "tiers/1-high/metrics.json"):
        assert (tmp_path / "killed" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()
    for tier in ("0-random", "1-high"):
        whole = parquet_files(tmp_path / "whole" / "tiers" / tier)
        assert parquet_files(tmp_path / "killed" / "tiers" / tier) == whole


def test_a_precision_beyond_the_cap_stops_in_one_line_and_keeps_the_tiers(tmp_path):
    out = tmp_path / "c"
    args = [*BASE, "-m", "shared", "--precision", "0.02", "--out", out]
    r = run_cli(*args, "--max-games", "2000")
    assert r.code == 2 and r.err.count("\n") == 1 and "Traceback" not in r.err
    assert r.err.startswith("error: --precision 0.02 not reached: shared at tier 'random'")
    assert "after 2,000 games (--max-games 2,000)" in r.err
    assert not (out / "strength.json").exists()
    for tier in ("0-random", "1-high"):
        manifest = json.loads((out / "tiers" / tier / "manifest.json").read_text())
        assert manifest["status"] == "complete"
    kept = _mtimes(out / "tiers" / "1-high")  # high reached ±0.02 before the cap
    more = run_cli(*args, "--max-games", "4000", "--resume")
    assert more.code == 0, more.err
    assert _mtimes(out / "tiers" / "1-high") == kept
    body = json.loads((out / "strength.json").read_text())
    assert body["metrics"]["shared"]["tiers"]["random"]["games"] == 4000


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tier", "random", "--tier", "nobody"], "tier 'nobody': unknown strategy 'nobody'"),
        (["--tier", "random", "--tier", "high[noise=2]"], "high.noise must be a number in 0..1"),
        (["--tier", "random", "--tier", "high,low"], "one strategy, played in every seat"),
        (["--tier", "random", "--tier", "random[]"], "are the same bot"),
        (["--tier", "random"], "at least two tiers"),
        ([], "declares no strength tiers; name them with --tier"),
        ([*TIERS, "-m", "nope"], "unknown metric 'nope'"),
        ([*TIERS, "-m", "capped"], "cannot be measured here"),
        ([*TIERS, "-m", "strategy_share[random]"], "tier 'high' cannot measure it"),
        ([*TIERS, "-m", "strategy_share"], "measure different metrics"),
        ([*TIERS, "-n", "10", "--precision", "0.1"], "contradict each other"),
        ([*TIERS, "--precision", "-1"], "positive half-width"),
        ([*TIERS, "--max-games", "0"], "--max-games must be in"),
        ([*TIERS, "-p", "9"], "2-4 players"),
        ([*TIERS, "--rating-games", "-1"], "--rating-games must be in"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, message):
    out = tmp_path / "bad"
    r = run_cli("strength", "toy", *args, "--workers", "1", "--no-progress", "--out", out)
    assert r.code == 2, r.out
    assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
    assert message in r.err
    assert not out.exists()


# ------------------------------------------------------------------ tiers and help


def test_every_game_declares_its_tiers_and_an_empty_declaration_is_derived():
    for game in all_games():
        if game.strength is None:
            continue
        tiers = game.strength.curve_tiers
        assert tiers == game.strength.tiers and len(tiers) == 6
        assert tiers[:3] == ("random", game.strength.field, "tuned")
        # strong at half, once and twice its declared budget; Table Battles' at once, twice and
        # four times (fewer than its 3 playouts give each candidate the same one a round)
        playouts = {p.name: p.default for p in game.registry.by_name["strong"].params}["playouts"]
        budget = [f"strong[playouts={k * playouts:g}]" for k in (0.5, 2, 4)]
        half = (budget[0], "strong", budget[1])
        up = ("strong", budget[1], budget[2])
        assert tiers[3:] == (up if game.name == "table-battles" else half)
    derived = Strength("heuristic", (2,), ("random:4000", "tuned:100", "search[rollouts=2]:9"))
    assert derived.curve_tiers == ("random", "heuristic", "tuned", "search[rollouts=2]")


def test_help_teaches_the_verdicts():
    r = run_cli("strength", "--help")
    assert r.code == 0
    text = " ".join(r.out.split())
    assert "settled" in text and "moving" in text and "--precision" in text
    assert "dinolab strength dtb --metric first_share" in text
    assert '--tier "search[rollouts=4]"' in text  # rich markup keeps the brackets


def test_report_rewrites_a_strength_folder(curve):
    out, _, body = curve
    (out / "strength.html").unlink()
    r = run_cli("report", out)
    assert r.code == 0, r.err
    assert (out / "strength.html").is_file()
    assert json.loads((out / "strength.json").read_text()) == body


# ------------------------------------------------------------------ Dask


@pytest.mark.slow
def test_a_strength_curve_on_dask_gives_the_local_numbers(tmp_path):
    pytest.importorskip("distributed")
    args = ["strength", "toy", *TIERS, "-m", "shared", "-n", "3000", "--seed", "9"]
    args += ["--chunk-size", "500", "--no-progress"]
    assert run_cli(*args, "--workers", "1", "--out", tmp_path / "local").code == 0
    r = run_cli(*args, "--backend", "dask", "--workers", "2", "--out", tmp_path / "dask")
    assert r.code == 0, r.err
    local = parquet_files(tmp_path / "local")
    assert len(local) > 2 * 6 and parquet_files(tmp_path / "dask") == local
    for name in ("strength.json", "tiers/0-random/metrics.json", "tiers/1-high/metrics.json"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


# ------------------------------------------------------------------ ratings


def test_rating_games_put_the_tiers_on_one_elo_scale(tmp_path):
    # High card against itself: playing the lowest cards first loses rounds to a random order
    # (random's seats win 57% against low's 33% in these games), while the highest first gains
    # nothing on a random order (45% each): every hand is played out anyway
    out = tmp_path / "rated"
    tiers = ["--tier", "low", "--tier", "random", "--tier", "high"]
    args = ["strength", "toy", *tiers, "-m", "shared", "-n", "2000", "--seed", "5"]
    r = run_cli(*args, "--rating-games", "3000", "--workers", "1", "--no-progress", "--out", out)
    assert r.code == 0, r.err
    ratings = json.loads((out / "strength.json").read_text())["ratings"]
    low, rnd, high = (ratings[t] for t in ("low", "random", "high"))
    assert low["high"] < rnd["low"] - 50 and low["high"] < high["low"] - 50
    assert abs(rnd["elo"] - high["elo"]) < 20
    assert rnd["games"] == 6000 and low["games"] == high["games"] == 3000
    assert sorted(p.name for p in (out / "ratings").iterdir()) == ["0-1", "1-2"]
    assert (
        "tier ratings (Elo" in r.out
        and "tier ratings (Elo, 95%)" in (out / "strength.md").read_text()
    )
    again = run_cli(
        *args, "--rating-games", "3000", "--workers", "1", "--no-progress", "--out", out, "--resume"
    )
    assert again.code == 0 and json.loads((out / "strength.json").read_text())["ratings"] == ratings
