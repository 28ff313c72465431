"""EVO's report: gene values and prices, initiative, combat, and the paired tail variant."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.dataset as ds
import pytest

from reports import compare
from reports.evo import analyses, fitting, genes, model, prices
from reports.models import least_squares
from simulate.cli.analysis_commands import write_report
from simulate.rundir import Run
from simulate.variants import list_variants


def table(run_dir, name):
    return ds.dataset(run_dir / name, format="parquet").to_table()


class Planted:
    """One-player games held in memory in chunks of 20,000 (enough of a run for the model):
    each game one position at round 5, won with probability ``0.1 + 0.01 * (points + 3 *
    eggs) + 0.005 * dinos``: an egg is worth 3 points, every other gene nothing."""

    n_players = 1

    def __init__(self, n: int = 60_000, chunk: int = 20_000):
        rng = np.random.default_rng(7)
        held = rng.multinomial(3, [1 / 8] * 8, size=n)  # everyone holds 3 genes, as in EVO
        points, dinos = rng.integers(0, 30, n), rng.integers(0, 10, n)
        won = rng.random(n) < 0.1 + 0.01 * (points + 3 * held[:, 3]) + 0.005 * dinos
        ids = {"game_id": np.arange(n), "seat": np.zeros(n, np.int8)}
        turns = {**ids, "round": np.full(n, 5, np.int8), "initiative": np.zeros(n, np.int8)}
        turns.update(zip(model.FEATURES[:8], held.T, strict=True))
        self.tables = {
            "turns": pl.DataFrame({**turns, "points": points, "dinos": dinos}),
            "players": pl.DataFrame({**ids, "strategy": ["x"] * n, "winner": won}),
            "games": pl.DataFrame({"game_id": ids["game_id"], "n_winners": won.astype(np.int8)}),
        }
        self.config = {"rotate": False, "n_players": 1}
        spans = enumerate(range(0, n, chunk))
        self.manifest = {"chunks": {str(i): {"start": a, "stop": a + chunk} for i, a in spans}}

    def read(self, table, chunk, columns=None):
        c = self.manifest["chunks"][str(chunk)]
        df = self.tables[table].filter(pl.col("game_id").is_between(c["start"], c["stop"] - 1))
        return df.select(columns) if columns else df


def test_gene_values_recover_a_planted_effect():
    """Games where an egg is worth 3 points and every other gene nothing, through the
    report's chunked model."""
    fitted = least_squares.fit(Planted(), model.round_design, used=model.estimable)
    sold = pl.DataFrame({"gene": list(model.GENES), "round": [5] * 8, "sold": [100] * 8})
    values = model.values(fitted, {5: 5}, sold)
    # relative to the mean of the eight genes, equally sold: egg 3 - 3/8, the others -3/8.
    # Eight estimates at once: each within 4 standard errors (not each 95% interval).
    for row in values.iter_rows(named=True):
        truth = 3 - 3 / 8 if row["gene"] == "egg" else -3 / 8
        assert abs(row["value"] - truth) < 4 * row["se"], row
        assert row["se"] < 0.5
        assert row["hi"] - row["lo"] == pytest.approx(2 * 1.959963984540054 * row["se"])


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
    df = analyses.combat_table(run)
    for row in df.iter_rows(named=True):
        assert row["attacks"] == (diff == row["diff"]).sum()
        assert row["win_rate"] == pytest.approx(won[diff == row["diff"]].mean())
    turns = table(evo_run, "turns")
    ties = analyses.initiative_ties(run)
    assert ties["seat_rounds"].sum() == len(turns)
    init = analyses.initiative_win_share(run)
    assert sorted(init["initiative"].to_list()) == [0, 1, 2, 3]


def test_gene_prices_match_the_bids(evo_run):
    bids = table(evo_run, "bids")
    found = prices.gene_prices(Run(evo_run))
    gene = np.array(bids["gene"].to_pylist())
    rnd = bids["round"].to_numpy()
    paid = bids["paid"].to_numpy()
    for row in found.iter_rows(named=True):
        mask = (gene == row["gene"]) & (rnd == row["round"])
        assert row["sold"] == mask.sum()
        assert row["paid_median"] == pytest.approx(np.median(paid[mask]))


class Rechunked:
    """A run's tables held in memory and split into chunks of ``chunk`` games (enough RunData
    for the analyses): the same games chunked differently, deals straddling chunk bounds."""

    def __init__(self, run: Run, chunk: int):
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


def positions(run) -> pl.DataFrame:
    """Every position at an auction with the seat's final win share and cluster, read straight
    from the logs (the whole run at once)."""
    games = run.scan("games").select("game_id", "n_winners")
    share = (
        run.scan("players")
        .join(games, on="game_id")
        .select("game_id", "seat", share=pl.col("winner") / pl.col("n_winners").clip(1))
    )
    p = run.n_players if run.config["rotate"] else 1
    return (
        run.scan("turns")
        .join(share, on=["game_id", "seat"])
        .with_columns(one=pl.lit(1.0), cluster=pl.col("game_id") // p)
        .sort("game_id", "round", "seat")
        .collect()
    )


def direct_values(run, pos, sold, rnd: int) -> dict[str, tuple[float, float]]:
    """Round ``rnd``'s gene values and standard errors by numpy's least squares and an
    explicit sandwich over the whole run's positions (no chunks, no shared model)."""
    at = pos["round"].to_numpy() == rnd
    x = np.column_stack([pos[n].cast(float).to_numpy()[at] for n in model.NAMES])
    y = pos["share"].to_numpy()[at]
    varies = x.var(axis=0) > 1e-9
    used = [i for i, n in enumerate(model.NAMES) if n == "one" or (n != "mutations" and varies[i])]
    beta = np.zeros(len(model.NAMES))
    beta[used] = np.linalg.lstsq(x[:, used], y, rcond=None)[0]
    e = y - x @ beta
    ids = pos["cluster"].to_numpy()[at]
    _, inverse = np.unique(ids, return_inverse=True)
    scores = np.zeros((inverse.max() + 1, len(model.NAMES)))
    np.add.at(scores, inverse, x * e[:, None])
    c = len(scores)
    inv = np.zeros((len(beta), len(beta)))
    inv[np.ix_(used, used)] = np.linalg.inv(x[:, used].T @ x[:, used])
    cov = c / (c - 1) * inv @ scores.T @ scores @ inv
    weights, _ = model.sold_weights(sold, rnd)
    out = {}
    for gene in model.GENES:
        value, grad = model.relative_value(beta, weights, gene)
        out[gene] = (value, float(np.sqrt(grad @ cov @ grad)))
    return out


@pytest.mark.parametrize("chunk", [None, 150, 599])
def test_chunked_gene_values_equal_a_direct_computation(evo_run, chunk):
    """The report's two passes over chunks (sums, then clustered scores; deals of four games
    split by chunks of 150 and 599) give numpy's least squares with an explicit sandwich on
    the whole run's positions; initiative's clustered means the whole-run ones."""
    from reports.common import cluster
    from reports.models.clustered import clustered_mean

    run = Run(evo_run) if chunk is None else Rechunked(Run(evo_run), chunk)
    sold = prices.gene_prices(run).select("gene", "round", "sold")
    values = genes.gene_values(run)
    pos = positions(run)
    known = values.filter(values["value"].is_not_null())
    assert known.height > 0  # some rounds are estimable
    for rnd in sorted(set(known["round"].to_list())):
        want = direct_values(run, pos, sold, rnd)
        for row in known.filter(known["round"] == rnd).iter_rows(named=True):
            value, se = want[row["gene"]]
            assert row["value"] == pytest.approx(value, rel=1e-8, abs=1e-9)
            assert row["se"] == pytest.approx(se, rel=1e-8)
    init = analyses.initiative_win_share(run)
    plain = clustered_mean(pos.lazy(), ["initiative"], "share", cluster(run))
    for col in ("n", "mean", "lo", "hi"):
        np.testing.assert_allclose(init[col].to_numpy(), plain[col].to_numpy(), rtol=1e-12)


def test_the_fit_measures_the_reports_values_and_each_state(evo_run):
    """What ``dinolab fit`` reads: over every position the report's own values; each state's
    (species size, climate field) the same model on just those positions."""
    run = Run(evo_run)
    m = fitting.measure(run)
    values = genes.gene_values(run).filter(pl.col("value").is_not_null())
    assert len(m.values) == values.height
    for row in values.iter_rows(named=True):
        e = m.values[(row["round"], row["gene"])]
        assert (e.value, e.se, e.lo, e.hi) == pytest.approx(
            (row["value"], row["se"], row["lo"], row["hi"]), rel=1e-9
        )
    assert len(m.by_size) == fitting.SIZES and len(m.by_field) == 12
    pos = positions(run)
    median = pos.group_by("round").agg(pl.col("dinos").median())
    assert m.median == {int(r): float(v) for r, v in median.sort("round").iter_rows()}
    sold = prices.gene_prices(run).select("gene", "round", "sold")
    pos = pos.join(median.rename({"dinos": "median"}), on="round")
    larger = pos.filter(pl.col("dinos") >= pl.col("median") + 1)
    for (rnd, gene), e in m.by_size[2].items():
        value, se = direct_values(run, larger, sold, rnd)[gene]
        assert e.value == pytest.approx(value, rel=1e-8, abs=1e-9)
        assert e.se == pytest.approx(se, rel=1e-8)
    assert m.by_size[2], "larger species are measurable in some round"
    for (rnd, gene), e in m.surplus.items():
        assert e.se == m.values[(rnd, gene)].se  # prices taken as given
    no_states = fitting.measure(run, states=False)
    assert no_states.by_size == () and no_states.by_field == ()
    assert no_states.values == m.values and no_states.surplus == m.surplus


def test_prices_ties_cards_match_the_logs(evo_run):
    run = Rechunked(Run(evo_run), 150)
    bids = table(evo_run, "bids")
    gene = np.array(bids["gene"].to_pylist())
    rnd, bid, paid = (bids[c].to_numpy() for c in ("round", "bid", "paid"))
    found = prices.gene_prices(run)
    assert found["sold"].sum() == len(bids)
    for row in found.iter_rows(named=True):
        mask = (gene == row["gene"]) & (rnd == row["round"])
        p = np.sort(paid[mask])
        assert row["bid_median"] == pytest.approx(np.median(bid[mask]))
        assert row["paid_mean"] == pytest.approx(p.mean())
        # polars' default quantile: the nearest value, index round((n - 1) q) half up
        assert row["paid_q1"] == p[int(np.floor((len(p) - 1) * 0.25 + 0.5))]
        assert row["paid_q3"] == p[int(np.floor((len(p) - 1) * 0.75 + 0.5))]
    turns = table(evo_run, "turns")
    ties = analyses.initiative_ties(run)
    by = np.array(turns["initiative_by"].to_pylist())
    for row in ties.iter_rows(named=True):
        assert row["seat_rounds"] == (by == row["decided_by"]).sum()
    cards = analyses.card_plays(run)
    played = table(evo_run, "cards")
    names = np.array(played["card_name"].to_pylist())
    seen = [c for hand in table(evo_run, "players")["cards_seen"].to_pylist() for c in hand]
    for row in cards.iter_rows(named=True):
        assert row["played"] == (names == row["card_name"]).sum()
        assert row["hands"] == seen.count(row["card_name"])
        mask = names == row["card_name"]
        assert row["reactions"] == played["reaction"].to_numpy()[mask].sum()


def test_progress_is_points_by_round_and_the_final_score_at_the_end(evo_run):
    from reports.aggregate import Chunk, chunks

    run = Run(evo_run)
    i, a, b = chunks(run)[1]
    rows = analyses.progress(Chunk(i, a, b, run.n_players, True, run))
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
