"""Dinosaur Table Battles analyses: the numbers against the logs, the team model on a planted
effect, a planted mis-rating found in played games, and the report itself.

The runs are small (a few thousand games, a few seconds each): the statistical tests use
effects far larger than their intervals.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from scipy.special import expit

from reports import table_battles
from reports.table_battles import analyses, draft, team_model
from reports.table_battles.games import games_side_by_side, seat_rows
from rules.table_battles.cards import load_cards
from simulate.config import build_config
from simulate.executors import InlineExecutor
from simulate.rundir import Run
from simulate.runner import run

BRACHIO = (
    (
        "Brachiosaurus,base,none,large,6,6,1,dice,1|2,no,ATK_FLAT1,no,ABS_MINUS_DICE,",
        "Brachiosaurus,base,none,large,6,6,1,dice,1|2|3|4|5|6,no,ATK_PER_DIE_PLUS1,no,ABS_MINUS_DICE,",
    ),
    (
        "Brachiosaurus,base,none,large,6,6,2,dice,3|4,no,ATK_PER_DIE_MINUS1,no,ABS_FULL,",
        "Brachiosaurus,base,none,large,6,6,2,dice,1|2|3|4|5|6,no,ATK_PER_DIE_PLUS1,no,ABS_FULL,",
    ),
)
"""A designer's card file in which Brachiosaurus (printed 6) attacks from any die face with
one hit per die plus one on both its cards (reactions as printed): the first-game setup with
Brachiosaurus, Stegosaurus and Triceratops against Pteranodon, Spinosaurus and the T-Rex
goes from 61% to 77% for its team in 4,000 heuristic games (seed 5). Much stronger than its
rating says. (Until issue 17 its second card also blocked; once a Block no longer makes the
attacker pay its "1 selbst", the seed's rule, a Block is worth much less and that plant moved
Brachiosaurus by only 5-9 points, to the middle of the ranking.)"""


def make_run(
    out: Path,
    games: int,
    strategies: str,
    rotate: bool,
    rules=(),
    seed: int = 5,
    chunk: int | None = None,
) -> Run:
    cfg, setup = build_config(
        "table-battles",
        n_players=2,
        strategies=strategies,
        rotate=rotate,
        seed=seed,
        games=games,
        chunk_size=chunk or -(-games // 2),
        assignments=list(rules),
    )
    run(cfg, setup, out, InlineExecutor())
    return Run(out)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Run:
    """Two different bots, seats rotated (deals are clusters), a low turn cap: capped games."""
    out = tmp_path_factory.mktemp("dtb") / "mixed"
    return make_run(out, 3000, "heuristic,heuristic[rating=0]", True, ["max_turns=30"])


def frame(run: Run, table: str) -> pl.DataFrame:
    return pl.concat(
        pl.from_arrow(pq.read_table(p))
        for p in sorted(Path(run.path, table).glob("part-*.parquet"))
    )


def test_end_reasons_and_capped_games_match_the_logs(mixed):
    games = frame(mixed, "games")
    ends = analyses.end_reasons(mixed)
    counts = dict(zip(ends["end_reason"], ends["games"], strict=True))
    assert sum(counts.values()) == games.height == 3000
    capped = int((games["n_winners"] == 0).sum())
    assert capped > 20 and counts["turn cap"] == capped
    assert (games.filter(pl.col("end_reason") == "turn cap")["turns"] == 30).all()
    side = games_side_by_side(mixed)
    assert side.height == 3000 - capped  # the capped games are left out


def test_first_player_and_team_sizes_match_the_logs(mixed):
    players = frame(mixed, "players").join(
        frame(mixed, "games").select("game_id", "n_winners"), on="game_id"
    )
    decided = players.filter(pl.col("n_winners") > 0)
    first = decided.filter(pl.col("first"))
    row = analyses.first_player(mixed).row(0, named=True)
    assert row["n"] == first.height
    assert row["mean"] == pytest.approx(first["winner"].mean())
    assert row["lo"] < row["mean"] < row["hi"]
    sizes = analyses.team_sizes(mixed)
    for r in sizes.iter_rows(named=True):
        sub = decided.filter(pl.col("n_dinos") == r["n_dinos"])
        assert r["n"] == sub.height and r["mean"] == pytest.approx(sub["winner"].mean())
    counts = draft.drafted(mixed)
    exploded = decided.select("dinos", "winner").explode("dinos")
    for r in counts.iter_rows(named=True):
        sub = exploded.filter(pl.col("dinos") == r["name"])
        assert r["games"] == sub.height and r["wins"] == sub["winner"].sum()
    bonuses = analyses.marker_bonuses(mixed)
    trex = bonuses.filter(pl.col("bonus").str.contains("Rex")).row(0, named=True)
    assert trex["n"] == decided["trex"].sum()
    assert trex["mean"] == pytest.approx(decided.filter(pl.col("trex"))["winner"].mean())


def test_the_team_model_uses_the_bots_and_deals(mixed):
    model = team_model.team_model(mixed)
    assert "bot heuristic[rating=0]" in model.terms and "first" in model.terms
    side = games_side_by_side(mixed)
    assert model.games == side.height
    assert side["cluster"].n_unique() < side.height  # rotated pairs share a deal


class ChunksOnly:
    """A run that can only be read chunk by chunk (``scan``, the whole-table read, fails)."""

    def __init__(self, run: Run):
        self.run = run

    def scan(self, table: str):
        raise AssertionError(f"read the whole {table} table")

    def __getattr__(self, name: str):
        return getattr(self.run, name)


@pytest.mark.slow
@pytest.mark.parametrize("rotate", [True, False])
def test_the_chunked_analyses_equal_the_whole_run(tmp_path, rotate):
    """Chunks of 301 games (deals split across chunks when rotated): the team models from the
    pattern counts (and their second pass) equal the fit on every game at once, and the seat
    analyses the whole-run clustered means; nothing reads a whole table."""
    from reports.models.clustered import clustered_mean

    bots = "heuristic,heuristic[rating=0]"
    r = make_run(tmp_path / "whole", 1204, bots, rotate, chunk=1204)
    split = ChunksOnly(make_run(tmp_path / "split", 1204, bots, rotate, chunk=301))
    side = games_side_by_side(r)
    for bonuses in (False, True):
        whole = team_model.team_model(r, bonuses=bonuses, games=side)
        chunked = team_model.team_model(split, bonuses=bonuses)
        assert chunked.terms == whole.terms and chunked.games == whole.games == side.height
        np.testing.assert_allclose(chunked.beta, whole.beta, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(chunked.cov, whole.cov, atol=1e-9 * np.abs(whole.cov).max())
        assert chunked.slope == pytest.approx(whole.slope, rel=1e-12)
        # the maximum of the penalised likelihood: its gradient is 0 there
        frame, _ = team_model.model_frame(side)
        dinos = len(team_model.dino_names(r))
        x = np.column_stack(
            [np.ones(side.height)]
            + [
                frame["team_a"].list.contains(t).cast(float).to_numpy()
                - frame["team_b"].list.contains(t).cast(float).to_numpy()
                for t in chunked.terms[1 : 1 + dinos]
            ]
            + [frame[c].cast(float).to_numpy() for c in chunked.terms[1 + dinos :]]
        )
        p = expit(x @ chunked.beta)
        penalty = np.r_[0.0, np.full(len(chunked.beta) - 1, team_model.L2)]
        grad = x.T @ (side["won"].cast(float).to_numpy() - p) - penalty * chunked.beta
        assert np.abs(grad).max() < 1e-6
    rows = seat_rows(r)
    expect = clustered_mean(rows, ["n_dinos", "n_dinos_opp"], "won", pl.col("cluster"))
    got = analyses.size_matchups(split)
    for c in ("n", "mean", "lo", "hi"):
        np.testing.assert_allclose(got[c].to_numpy(), expect[c].to_numpy(), rtol=1e-10)
    first = clustered_mean(rows.filter(pl.col("first")), ["seat"], "won", pl.col("cluster"))
    assert analyses.first_player(split)["n"][0] == first["n"].sum()
    from reports.aggregate import map_chunk
    from reports.build import report

    assert "## Draft ratings: printed against simulated" in report(split, table_battles.REPORT)[1]
    for p in table_battles.REPORT.partials(r):  # what a chunk hands the reduce: not its games
        big = result_bytes(map_chunk((r, 0, 0, 1204, (p,))))
        small = result_bytes(map_chunk((split.run, 1, 301, 602, (p,))))
        assert big < 2 * small + 4096, (p.name, big, small)


def result_bytes(result) -> int:
    """The memory a partial's per-chunk result holds (arrays, frames, and their containers)."""
    if isinstance(result, pl.DataFrame):
        return result.estimated_size()
    if isinstance(result, np.ndarray):
        return result.nbytes
    if isinstance(result, (tuple, list)):
        return sum(result_bytes(v) for v in result)
    if hasattr(result, "__dataclass_fields__"):
        return sum(result_bytes(getattr(result, f)) for f in result.__dataclass_fields__)
    return 8


def synthetic(n: int, strength: dict[str, float], seed: int = 1) -> pl.DataFrame:
    """Games between random teams of three drawn from ``strength``'s dinos: side A wins with
    probability logistic(sum of A's strengths - B's + 0.6 when A moves first)."""
    rng = np.random.default_rng(seed)
    names = list(strength)
    s = np.array([strength[k] for k in names])
    rows = {"cluster": [], "won": [], "team_a": [], "team_b": [], "first": []}
    for g in range(n):
        pick = rng.permutation(len(names))[:6]
        a, b = pick[:3], pick[3:]
        first = 1.0 if rng.random() < 0.5 else -1.0
        p = expit(s[a].sum() - s[b].sum() + 0.6 * first)
        rows["cluster"].append(g)
        rows["won"].append(bool(rng.random() < p))
        rows["team_a"].append([names[i] for i in a])
        rows["team_b"].append([names[i] for i in b])
        rows["first"].append(first)
    return pl.DataFrame(rows)


def test_the_team_model_recovers_planted_strengths_and_flags_the_misrated_dino():
    rating = {f"d{i}": 3 + i % 6 for i in range(12)}
    strength = {k: 0.25 * (r - 5.5) for k, r in rating.items()}  # the ratings are right ...
    strength["d0"] = 1.2  # ... except d0: printed 3, plays like a 10
    games = synthetic(20_000, strength)
    model = team_model.fit_team_model(games, list(strength), ["first"])
    names = list(strength)
    mean = np.mean(list(strength.values()))
    for k in names:  # every contrast with the average dino within its interval (4 se)
        e = model.effect(k, names)
        assert abs(e["beta"] - (strength[k] - mean)) < 4 * e["se"] / model.slope, k
    assert model.effect("first")["beta"] == pytest.approx(0.6, abs=0.08)
    ratings = pl.DataFrame(
        {
            "name": names,
            "draft_rating": [rating[k] for k in names],
            "rating_known": True,
            "provisional": False,
            "class": "none",
            "size": "small",
        }
    )
    counts = games.select(name="team_a").explode("name").group_by("name").agg(games=pl.len())
    counts = counts.with_columns(raw_win_share=pl.lit(0.5))
    values = draft.value_table(model, ratings, counts)
    d0 = values.filter(pl.col("name") == "d0").row(0, named=True)
    assert d0["verdict"] == "under-rated" and d0["suggested"] >= 8
    assert values.sort("gap").row(0, named=True)["name"] == "d0"  # the most under-rated
    others = values.filter(pl.col("name") != "d0")
    assert (others["verdict"] == "fits").mean() > 0.6
    rho = draft.rank_correlation(model, values)
    assert rho["lo"] <= rho["rho"] <= rho["hi"] and rho["rho"] > 0.5


def test_a_planted_misrating_is_found_in_played_games(tmp_path):
    text = load_cards("provisional").to_csv()
    for old, new in BRACHIO:
        assert old in text
        text = text.replace(old, new)
    cards = tmp_path / "strong_brachiosaurus.csv"
    cards.write_text(text)
    base = make_run(tmp_path / "base", 4000, "heuristic", False)
    planted = make_run(tmp_path / "planted", 4000, "heuristic", False, [f"cards={cards}"])
    _, before, _ = draft.rating_accuracy(base)
    _, after, _ = draft.rating_accuracy(planted)
    b = before.filter(pl.col("name") == "Brachiosaurus").row(0, named=True)
    a = after.filter(pl.col("name") == "Brachiosaurus").row(0, named=True)
    # What holds on every seed tried (seeds 5-12, issue 17's rules): the value rises by 8.6 to
    # 13.3 points with the intervals apart, from 14th-15th of 16 to 4th-6th. The exact ranks
    # and the verdict after sit near their thresholds at 4,000 games, so they are not asserted.
    assert b["verdict"] == "over-rated"
    assert a["lo"] > b["hi"] and a["value"] - b["value"] > 0.06  # > 6 win-share points
    assert before["name"].to_list().index("Brachiosaurus") >= before.height // 2  # bottom half
    assert after["name"].to_list().index("Brachiosaurus") < after.height // 2  # top half
    assert "strong_brachiosaurus.csv" in planted.manifest["data"]["description"]


@pytest.mark.slow
def test_the_report_names_the_card_file_and_counts_capped_games(mixed, tmp_path):
    from simulate.cli.analysis_commands import write_report

    copy = tmp_path / "run"
    shutil.copytree(mixed.path, copy)
    # the robustness section (3,000 games of search bots here) is the conformance suite's
    html, md = write_report(str(copy), variants=False, robustness=False)
    text = Path(md).read_text()
    head = "\n".join(text.splitlines()[:4])
    assert "card file provisional_cards.csv" in head and "PROVISIONAL" in head
    capped = int((frame(mixed, "games")["n_winners"] == 0).sum())
    assert f"{capped:,} of 3,000 games" in text
    for title in (
        "Draft ratings: printed against simulated",
        "First-player advantage",
        "Team size",
        "Hit-marker bonuses",
        "How games ended; capped games",
    ):
        assert f"## {title}" in text, title
    assert not re.search(r"\bnan\b", text, re.I)
    assert Path(html).read_text().count("<img") >= 7
