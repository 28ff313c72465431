"""The report's numbers, recomputed independently from the Parquet files with numpy."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from reports import common
from reports import dino_kontra_dino as dkd
from reports.stats import Z95
from simulate.cli.analysis_commands import write_report
from simulate.rundir import Run


def table(run_dir, name):
    """The table as a reader of the run sees it (derived columns included)."""
    return Run(run_dir).scan(name).collect().to_arrow().sort_by("game_id")


@pytest.fixture(scope="module")
def report(dkd_run):
    html, md = write_report(dkd_run)
    return Path(html).read_text(), Path(md).read_text()


def md_row(md: str, first_cell: str) -> list[str]:
    for line in md.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no row {first_cell!r}")


def pct(cell: str) -> float:
    return float(re.match(r"([-0-9.]+)%", cell).group(1)) / 100


@pytest.mark.slow
def test_report_files_are_complete_and_self_describing(report):
    html, md = report
    assert html.startswith("<!doctype html>") and html.count("data:image/png;base64,") >= 6
    assert "PROVISIONAL" in html and "PROVISIONAL" in md
    for title in (
        "Seat advantage",
        "Strategies",
        "Shared victories",
        "Game length",
        "Convergence",
        "how often it decides",
        "Card strength",
    ):
        assert title in md


def test_seat_and_strategy_win_shares_match_the_logs(dkd_run, report):
    _, md = report
    players, games = table(dkd_run, "players"), table(dkd_run, "games")
    n = 4
    winners = games["n_winners"].to_numpy()
    share = players["winner"].to_numpy().astype(float) / np.repeat(winners, n)
    seat = players["seat"].to_numpy()
    gid = players["game_id"].to_numpy()
    for s in range(n):
        y = share[seat == s]
        assert pct(md_row(md, str(s))[2]) == pytest.approx(y.mean(), abs=5e-5)
        # cluster-robust interval by deal (rotated games share a deal): independent numpy
        clusters = gid[seat == s] // n
        sums = np.bincount(clusters, weights=y)
        sizes = np.bincount(clusters)
        c = (sizes > 0).sum()
        se = np.sqrt(((sums - sizes * y.mean()) ** 2).sum() * c / (c - 1)) / y.size
        lo, hi = re.findall(r"([-0-9.]+)%", md_row(md, str(s))[2])[1:]
        assert float(lo) / 100 == pytest.approx(y.mean() - Z95 * se, abs=5e-5)
        assert float(hi) / 100 == pytest.approx(y.mean() + Z95 * se, abs=5e-5)
    labels = players["strategy"].to_pylist()
    for name in ("greedy", "cautious", "blind", "random"):
        mask = np.array([x == name for x in labels])
        assert pct(md_row(md, name)[2]) == pytest.approx(share[mask].mean(), abs=5e-5)
    assert share.sum() == pytest.approx(len(games))


def test_figure_and_card_numbers_match_the_logs(dkd_run, report):
    _, md = report
    rounds = table(dkd_run, "rounds")
    n_top = rounds["n_top"].to_numpy()
    kept = (n_top > 1) & (rounds["winner"].to_numpy() == rounds["holder"].to_numpy())
    assert (
        int(md_row(md, "decided by the figure: tie, holder kept it")[1].replace(",", ""))
        == kept.sum()
    )
    assert (
        int(md_row(md, "decided outright (no tie at the top)")[1].replace(",", ""))
        == (n_top == 1).sum()
    )
    turns = table(dkd_run, "turns")
    card = turns["card_id"].to_numpy()
    won = turns["won"].to_numpy()
    rates = {c: won[card == c].mean() for c in np.unique(card)}
    best = max(rates, key=rates.get)
    df = dkd.card_strength(Run(dkd_run))
    assert df["card_id"][0] == best and df["win_rate"][0] == pytest.approx(rates[best])
    assert int(df["played"].sum()) == len(turns)


def test_shared_wins_and_length_match(dkd_run):
    run = Run(dkd_run)
    games = table(dkd_run, "games")
    shared = common.shared_wins(run)
    k = games["n_winners"].to_numpy()
    for row in shared.iter_rows(named=True):
        assert row["games"] == (k == row["n_winners"]).sum()
    assert common.game_length(run)["rounds"].to_list() == [11]


def test_balance_definition():
    import polars as pl

    seats = pl.DataFrame({"seat": [0, 1, 2], "mean": [0.40, 0.35, 0.25]})
    assert common.balance(seats) == pytest.approx(0.85)


def test_every_game_declares_its_report_and_a_wrong_one_is_refused(monkeypatch):
    """The kit checks at registration that a spec's report module exists; the CLI resolves
    its ``REPORT`` and refuses anything but a ``GameReport``, naming the module."""
    import dataclasses

    from reports.game import GameReport
    from simulate.cli.common import game_report
    from simulate.games import all_games

    games = all_games()
    for game in games:
        assert isinstance(game_report(game), GameReport), game.name
    spec = games[0]
    with pytest.raises(TypeError, match=r"no report module reports\.no_such_game"):
        dataclasses.replace(spec, report="reports.no_such_game")
    monkeypatch.setattr(dkd, "REPORT", object())
    with pytest.raises(TypeError, match=r"reports\.dino_kontra_dino\.REPORT must be"):
        game_report(spec)


def test_the_glance_table_names_the_tier_and_leads_with_stronger_bots_that_change_it():
    from reports import robustness
    from reports.build import with_tiers

    rows = [
        ("games logged", "1,000", ""),
        ("first_share: x", "76%", "fair 50%"),
        ("length", "13", ""),
    ]

    def verdict(state):
        return robustness.Verdict("first_share", "76%", "76%", "46%", "-30 pp", state, "why")

    same, lead = with_tiers(rows, "heuristic", 1, (verdict(robustness.HOLDS), "strong"))
    assert [r[2] for r in same] == ["", "heuristic", "strong", "heuristic"] and lead == ""
    moved, lead = with_tiers(rows, "heuristic", 1, (verdict(robustness.CHANGES), "strong"))
    assert [r[2] for r in moved] == ["", "strong", "heuristic", "heuristic"]
    assert moved[1][1] == "46%" and "strong" in lead and "heuristic play" in lead
    plain, lead = with_tiers(rows, "heuristic", 1, None)
    assert len(plain) == 3 and lead == ""
