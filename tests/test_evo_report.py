"""EVO's report: gene values and prices, initiative, combat, and the paired tail variant."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.dataset as ds
import pytest

from reports import compare, evo
from simulate.cli.analysis_commands import write_report
from simulate.rundir import Run
from simulate.variants import list_variants


def table(run_dir, name):
    return ds.dataset(run_dir / name, format="parquet").to_table()


def test_gene_values_recover_a_planted_effect():
    """Synthetic positions where an egg is worth 3 points and every other gene nothing."""
    import polars as pl

    rng = np.random.default_rng(7)
    n = 60_000
    genes = rng.multinomial(3, [1 / 8] * 8, size=n)  # everyone holds 3 genes, as in EVO
    points = rng.integers(0, 30, n).astype(float)
    dinos = rng.integers(0, 10, n).astype(float)
    pi = 0.01
    share = 0.1 + pi * points + pi * 3 * genes[:, 3] + 0.005 * dinos + rng.normal(0, 0.05, n)
    cols = dict(zip(evo.FEATURES[:8], genes.T, strict=True))
    frame = pl.DataFrame(
        {
            "round": np.full(n, 5, np.int8),
            **cols,
            "points": points,
            "dinos": dinos,
            "share": share,
            "_cluster": np.arange(n),
        }
    )
    sold = pl.DataFrame({"gene": list(evo.GENES), "round": [5] * 8, "sold": [100] * 8})
    values = evo.relative_gene_values(frame.lazy(), sold)
    # relative to the mean of the eight genes, equally sold: egg 3 - 3/8, the others -3/8.
    # Eight estimates at once: each within 4 standard errors (not each 95% interval).
    for row in values.iter_rows(named=True):
        truth = 3 - 3 / 8 if row["gene"] == "egg" else -3 / 8
        se = (row["hi"] - row["lo"]) / (2 * 1.959964)
        assert abs(row["value"] - truth) < 4 * se, row
        assert se < 0.1


@pytest.mark.slow
def test_evo_report_and_paired_tail_variant(evo_run):
    html, md = write_report(evo_run, variant_games=200)
    assert Path(html).read_text().count("data:image/png") >= 4
    text = Path(md).read_text()
    for title in (
        "Gene prices against gene values",
        "Initiative: what playing first is worth",
        "Initiative: how places were decided",
        "Combat by horn difference",
        "Decisiveness: when the winner took the lead for good",
        "Rule variant: initiative_tails=false (paired)",
    ):
        assert title in text
    assert "PROVISIONAL" in text
    base = Run(evo_run)
    changes = {}
    for folder in list_variants(evo_run):
        changes[tuple(compare.changed_rules(base, Run(folder)))] = folder
    assert set(changes) == {("initiative_tails",), ("start_points",)}
    variant = changes[("initiative_tails",)]
    var = Run(variant)
    assert var.games_logged == 200 and var.config["seed"] == base.config["seed"]
    assert compare.changed_rules(base, var) == {"initiative_tails": (True, False)}
    seats = compare.paired_by(base, var, "seat")

    # Recomputed from the Parquet files alone: each seat's win share in both runs on the games
    # the variant played, the paired change, and its interval with the deal (rotation) as the
    # cluster, so a pairing on the wrong rows or an unclustered interval fails here.
    def shares(run_dir):
        players, games = table(run_dir, "players"), table(run_dir, "games")
        k = dict(zip(games["game_id"].to_pylist(), games["n_winners"].to_pylist(), strict=True))
        return {
            (g, s): w / k[g]
            for g, s, w in zip(
                players["game_id"].to_pylist(),
                players["seat"].to_pylist(),
                players["winner"].to_pylist(),
                strict=True,
            )
            if g < var.games_logged
        }

    a, b = shares(evo_run), shares(variant.local)
    assert set(a) == set(b)
    for row in seats.iter_rows(named=True):
        keys = sorted(k for k in a if k[1] == row["seat"])
        change = np.array([b[k] - a[k] for k in keys])
        clusters = np.array([g // base.n_players for g, _ in keys])
        ids = np.unique(clusters)
        sums = np.array([change[clusters == c].sum() for c in ids])
        sizes = np.array([(clusters == c).sum() for c in ids])
        c = len(ids)
        se = np.sqrt(c / (c - 1) * ((sums - sizes * change.mean()) ** 2).sum()) / len(change)
        assert row["mean"] == pytest.approx(change.mean(), abs=1e-12)
        assert row["lo"] == pytest.approx(change.mean() - 1.959963984540054 * se, abs=1e-9)
        assert row["hi"] == pytest.approx(change.mean() + 1.959963984540054 * se, abs=1e-9)


def test_initiative_and_combat_numbers_match_the_logs(evo_run):
    run = Run(evo_run)
    combats = table(evo_run, "combats")
    diff = np.clip(
        combats["attacker_horns"].to_numpy().astype(int) - combats["defender_horns"].to_numpy(),
        -2,
        2,
    )
    won = combats["attacker_won"].to_numpy()
    df = evo.combat_table(run)
    for row in df.iter_rows(named=True):
        assert row["attacks"] == (diff == row["diff"]).sum()
        assert row["win_rate"] == pytest.approx(won[diff == row["diff"]].mean())
    turns = table(evo_run, "turns")
    ties = evo.initiative_ties(run)
    assert ties["seat_rounds"].sum() == len(turns)
    init = evo.initiative_win_share(run)
    assert sorted(init["initiative"].to_list()) == [0, 1, 2, 3]


def test_gene_prices_match_the_bids(evo_run):
    bids = table(evo_run, "bids")
    prices = evo.gene_prices(Run(evo_run))
    gene = np.array(bids["gene"].to_pylist())
    rnd = bids["round"].to_numpy()
    paid = bids["paid"].to_numpy()
    for row in prices.iter_rows(named=True):
        mask = (gene == row["gene"]) & (rnd == row["round"])
        assert row["sold"] == mask.sum()
        assert row["paid_median"] == pytest.approx(np.median(paid[mask]))


class Rechunked:
    """A run's tables held in memory and split into chunks of ``chunk`` games (enough RunData
    for the analyses): the same games chunked differently, deals straddling chunk bounds."""

    def __init__(self, run: Run, chunk: int):
        import polars as pl

        self.base = run
        self.tables = {t: run.scan(t).collect() for t in run.manifest["tables"]}
        games = run.games_logged
        self.manifest = {
            **run.manifest,
            "chunks": {
                str(i): {"start": a, "stop": min(a + chunk, games)}
                for i, a in enumerate(range(0, games, chunk))
            },
        }
        self._pl = pl

    config = property(lambda self: self.base.config)
    game = property(lambda self: self.base.game)
    title = property(lambda self: self.base.title)
    n_players = property(lambda self: self.base.n_players)
    complete = property(lambda self: True)
    games_logged = property(lambda self: self.base.games_logged)

    def read(self, table, chunk, columns=None):
        pl = self._pl
        c = self.manifest["chunks"][str(chunk)]
        df = self.tables[table].filter(pl.col("game_id").is_between(c["start"], c["stop"] - 1))
        return df.select(columns) if columns else df

    def scan(self, table):
        return self.tables[table].lazy()

    def data(self, name):
        return self.base.data(name)


@pytest.mark.parametrize("chunk", [None, 150, 599])
def test_chunked_gene_values_equal_the_whole_run_model(evo_run, chunk):
    """The report's two passes over chunks (sums, then clustered scores; deals of four games
    split by chunks of 150 and 599) give the whole-run streaming computation."""
    from reports.common import cluster
    from reports.stats import clustered_mean

    run = Run(evo_run) if chunk is None else Rechunked(Run(evo_run), chunk)
    sold = evo.gene_prices(run).select("gene", "round", "sold")
    whole = evo.relative_gene_values(evo.positions(run), sold)
    chunked = evo.gene_values(run)
    assert chunked["gene"].to_list() == whole["gene"].to_list()
    assert chunked["round"].to_list() == whole["round"].to_list()
    assert chunked["value"].is_null().sum() < chunked.height  # some rounds are estimable
    for col in ("value", "lo", "hi", "point_value"):
        a, b = chunked[col].to_numpy(), whole[col].to_numpy()
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    init = evo.initiative_win_share(run)
    plain = clustered_mean(evo.positions(run), ["initiative"], "share", cluster(run))
    for col in ("n", "mean", "lo", "hi"):
        np.testing.assert_allclose(init[col].to_numpy(), plain[col].to_numpy(), rtol=1e-12)


def test_prices_ties_cards_match_the_logs(evo_run):
    run = Rechunked(Run(evo_run), 150)
    bids = table(evo_run, "bids")
    gene = np.array(bids["gene"].to_pylist())
    rnd, bid, paid = (bids[c].to_numpy() for c in ("round", "bid", "paid"))
    prices = evo.gene_prices(run)
    assert prices["sold"].sum() == len(bids)
    for row in prices.iter_rows(named=True):
        mask = (gene == row["gene"]) & (rnd == row["round"])
        p = np.sort(paid[mask])
        assert row["bid_median"] == pytest.approx(np.median(bid[mask]))
        assert row["paid_mean"] == pytest.approx(p.mean())
        # polars' default quantile: the nearest value, index round((n - 1) q) half up
        assert row["paid_q1"] == p[int(np.floor((len(p) - 1) * 0.25 + 0.5))]
        assert row["paid_q3"] == p[int(np.floor((len(p) - 1) * 0.75 + 0.5))]
    turns = table(evo_run, "turns")
    ties = evo.initiative_ties(run)
    by = np.array(turns["initiative_by"].to_pylist())
    for row in ties.iter_rows(named=True):
        assert row["seat_rounds"] == (by == row["decided_by"]).sum()
    cards = evo.card_plays(run)
    played = table(evo_run, "cards")
    names = np.array(played["card_name"].to_pylist())
    seen = [c for hand in table(evo_run, "players")["cards_seen"].to_pylist() for c in hand]
    for row in cards.iter_rows(named=True):
        assert row["played"] == (names == row["card_name"]).sum()
        assert row["hands"] == seen.count(row["card_name"])
        mask = names == row["card_name"]
        assert row["reactions"] == played["reaction"].to_numpy()[mask].sum()


def test_progress_is_points_by_round_and_the_final_score_at_the_end(evo_run):
    import polars as pl

    from reports.aggregate import Chunk, chunks

    run = Run(evo_run)
    i, a, b = chunks(run)[1]
    rows = evo.progress(Chunk(i, a, b, run.n_players, True, run))
    turns = pl.from_arrow(table(evo_run, "turns")).filter(pl.col("game_id").is_between(a, b - 1))
    assert rows.select("game_id", "round", "seat").equals(turns.select("game_id", "round", "seat"))
    players = pl.from_arrow(table(evo_run, "players")).select("game_id", "seat", "score")
    games = pl.from_arrow(table(evo_run, "games")).select("game_id", "rounds")
    check = (
        rows.join(
            turns.select("game_id", "round", "seat", "points"), on=["game_id", "round", "seat"]
        )
        .join(players, on=["game_id", "seat"])
        .join(games, on="game_id")
    )
    last = check["round"] == check["rounds"]
    assert (check.filter(last)["score"] == check.filter(last)["score_right"]).all()
    assert (check.filter(~last)["score"] == check.filter(~last)["points"]).all()
