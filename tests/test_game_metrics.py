"""Each game's own metrics and first mover (its ``GameReport``) against its report's analyses."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest

from reports import dino_kontra_dino, measure, metrics
from reports.aggregate import Chunk, chunks, read_range
from reports.evo import genes
from reports.evo import metrics as evo_metrics
from reports.evo.model import GENES, NAMES, estimable, round_design
from reports.models import least_squares
from reports.origin_of_species.carnivores import carnivores
from reports.table_battles.draft import rating_accuracy
from reports.table_battles.metrics import measure_rating_spearman
from simulate.cli.common import game_report
from simulate.games import get_game
from simulate.rundir import Run

NEW = {
    "dino-kontra-dino": ["first_share", "figure_decides"],
    "evo": ["first_share", *(f"surplus[{g}]" for g in GENES), "max_surplus"],
    "table-battles": ["first_share", "rating_spearman"],
    "origin-of-species": ["first_share", "carnivore_points"],
}
REPORTS = {game: game_report(get_game(game)) for game in NEW}


@pytest.fixture(scope="module")
def runs(dkd_run, evo_run, demo_run):
    """Small runs of every game: DKD 4,000 games, EVO 600, Table Battles 600, OoS 240."""
    return {
        "dino-kontra-dino": dkd_run,
        "evo": evo_run,
        "table-battles": demo_run(get_game("table-battles")),
        "origin-of-species": demo_run(get_game("origin-of-species")),
    }


def _contains(e: metrics.Estimate) -> None:
    assert e.lo <= e.value <= e.hi and e.hi - e.lo > 0 and e.se > 0, e


def _logged_first(run: Run, game: str) -> pl.DataFrame:
    """The seat that moved first per game, read straight from the logs."""
    if game == "evo":
        return (
            run.scan("turns")
            .filter((pl.col("round") == 1) & (pl.col("initiative") == 0))
            .select("game_id", logged="seat")
            .collect()
        )
    column = "first_holder" if game == "dino-kontra-dino" else "first_seat"
    return run.scan("games").select("game_id", logged=column).collect()


@pytest.mark.parametrize("game", list(NEW))
def test_first_mover_names_one_seat_per_game_as_logged(runs, game):
    run = Run(runs[game])
    report = REPORTS[game]
    parts = []
    for i, start, stop in chunks(run):
        chunk = measure.chunk_of(run, i)
        first = report.first_mover.rows(chunk)
        assert first.columns == ["game_id", "first_seat"]
        assert first["game_id"].to_list() == list(range(start, stop))
        parts.append(first)
    first = pl.concat(parts)
    assert first["first_seat"].is_between(0, run.n_players - 1).all()
    both = first.join(_logged_first(run, game), on="game_id", how="full", coalesce=True)
    assert both.height == run.games_logged
    assert (both["first_seat"] == both["logged"]).all()
    # first_share is the first mover's win share
    share = (
        run.scan("players")
        .join(run.scan("games").select("game_id", "n_winners"), on="game_id")
        .select("game_id", "seat", share=pl.col("winner") / pl.col("n_winners").clip(1))
        .collect()
    )
    direct = first.join(share, left_on=["game_id", "first_seat"], right_on=["game_id", "seat"])
    ctx = metrics.Context.of(run, report)
    e = measure.measure_run(run, [metrics.resolve("first_share", ctx)])["first_share"]
    assert e.value == pytest.approx(direct["share"].mean(), abs=1e-12)
    _contains(e)


@pytest.mark.parametrize("game", list(NEW))
def test_expand_lists_every_new_metric(runs, game):
    run = Run(runs[game])
    names = [r.name for r in metrics.expand(metrics.Context.of(run, REPORTS[game]))]
    assert set(NEW[game]) <= set(names), names
    for m in REPORTS[game].metrics:
        assert m.meaning and m.unit and m.scale > 0 and m.tables


def test_figure_decides_is_the_reports_tied_share(runs):
    run = Run(runs["dino-kontra-dino"])
    ctx = metrics.Context.of(run, dino_kontra_dino.REPORT)
    e = measure.measure_run(run, [metrics.resolve("figure_decides", ctx)])["figure_decides"]
    rounds = dino_kontra_dino.figure_rounds(run)
    tied = rounds["count"][1] + rounds["count"][2]
    assert e.value == pytest.approx(tied / rounds["total"][0], abs=1e-12)
    assert e.games == run.games_logged
    _contains(e)


def test_carnivore_points_is_the_reports_carnivore_share(runs):
    run = Run(runs["origin-of-species"])
    ctx = metrics.Context.of(run, REPORTS["origin-of-species"])
    e = measure.measure_run(run, [metrics.resolve("carnivore_points", ctx)])["carnivore_points"]
    car = carnivores(run).row(0, named=True)
    assert e.value == pytest.approx(car["points_share"], abs=1e-9)
    # the delta method on the ratio of means is the report's linearised sandwich
    assert e.lo == pytest.approx(car["points_share_lo"], abs=1e-7)
    assert e.hi == pytest.approx(car["points_share_hi"], abs=1e-7)
    _contains(e)


def test_rating_spearman_is_the_reports_rank_correlation(runs):
    run = Run(runs["table-battles"])
    ctx = metrics.Context.of(run, REPORTS["table-battles"])
    e = measure.measure_run(run, [metrics.resolve("rating_spearman", ctx)])["rating_spearman"]
    model, _, rho = rating_accuracy(run)
    assert rho["dinos"] >= 3
    assert (e.value, e.lo, e.hi) == pytest.approx((rho["rho"], rho["lo"], rho["hi"]), abs=1e-9)
    assert e.se == pytest.approx((rho["hi"] - rho["lo"]) / (2 * 1.959963984540054), rel=1e-12)
    assert e.games == model.games
    _contains(e)


def test_rating_spearman_refuses_the_first_game_setup():
    first_game = SimpleNamespace(config={"params": {"setup": "first_game"}})
    with pytest.raises(metrics.MetricError, match="setup=draft"):
        measure_rating_spearman(first_game, None, None)


def _surpluses(run) -> dict[str, metrics.Estimate]:
    ctx = metrics.Context.of(run, REPORTS["evo"])
    return measure.measure_run(run, metrics.expand(ctx, ["surplus", "max_surplus"]))


def test_gene_surplus_is_the_reports_gene_summary(runs):
    run = Run(runs["evo"])
    est = _surpluses(run)
    summary = genes.gene_summary(genes.gene_price_curves(run))
    assert summary.height == len(GENES)
    for row in summary.iter_rows(named=True):
        e = est[f"surplus[{row['gene']}]"]
        assert e.value == pytest.approx(row["surplus"], abs=1e-9)
        assert e.games == run.games_logged
        _contains(e)
    top = max((est[f"surplus[{g}]"] for g in GENES), key=lambda e: e.value)
    assert est["max_surplus"] == top


def test_unknown_gene_is_refused(runs):
    run = Run(runs["evo"])
    with pytest.raises(metrics.MetricError, match="GENE"):
        metrics.resolve("surplus[wing]", metrics.Context.of(run, REPORTS["evo"]))
    with pytest.raises(metrics.MetricError, match="GENE"):
        evo_metrics.measure_surplus(run, "wing", None)


def test_evo_metrics_share_one_analysis_per_run(runs, monkeypatch):
    calls = []
    analysis = genes._surplus_analysis

    def counted(run, mapper):
        calls.append(run)
        return analysis(run, mapper)

    monkeypatch.setattr(genes, "_surplus_analysis", counted)
    run = Run(runs["evo"])
    ctx = metrics.Context.of(run, REPORTS["evo"])
    refs = [metrics.resolve(n, ctx) for n in ("surplus[tail]", "surplus[leg]", "max_surplus")]
    measure.measure_run(run, refs)
    measure.measure_run(run, refs)
    assert len(calls) == 1
    measure.measure_run(Run(runs["evo"]), refs[:1])  # another run object: its own analysis
    assert len(calls) == 2


class Rechunked:
    """A run read in chunks of ``size`` games (deals split at chunk boundaries)."""

    def __init__(self, run: Run, size: int):
        self.run = run
        n = run.games_logged
        spans = [(a, min(a + size, n)) for a in range(0, n, size)]
        chunks = {str(i): {"start": a, "stop": b} for i, (a, b) in enumerate(spans)}
        self.manifest = {**run.manifest, "chunks": chunks}

    def read(self, table, chunk, columns=None):
        c = self.manifest["chunks"][str(chunk)]
        wanted = None if columns is None else list(dict.fromkeys(["game_id", *columns]))
        df = read_range(self.run, table, c["start"], c["stop"], wanted)
        return df if columns is None else df.select(columns)

    def __getattr__(self, name):
        return getattr(self.run, name)


def positions(run) -> pl.DataFrame:
    """Every position at an auction with the seat's final win share and cluster, straight from
    the logs."""
    games = run.scan("games").select("game_id", "n_winners")
    share = (
        run.scan("players")
        .join(games, on="game_id")
        .select("game_id", "seat", share=pl.col("winner") / pl.col("n_winners").clip(1))
    )
    p = run.n_players
    return (
        run.scan("turns")
        .join(share, on=["game_id", "seat"])
        .with_columns(one=pl.lit(1.0), cluster=pl.col("game_id") // p)
        .collect()
    )


def test_gene_surplus_interval_is_the_whole_run_computation(runs, monkeypatch):
    """The joint sandwich over rounds does not depend on the chunking (split deals joined),
    and matches the scores summed per cluster over the whole run."""
    run = Run(runs["evo"])
    assert run.config["rotate"]
    whole = genes.gene_surplus(run)
    monkeypatch.setattr(least_squares, "_BATCH", 7)
    split = genes.gene_surplus(Rechunked(run, 150))  # 150 games: every chunk splits a deal
    assert whole["gene"].to_list() == split["gene"].to_list()
    for c in ("surplus", "se", "lo", "hi"):
        np.testing.assert_allclose(split[c].to_numpy(), whole[c].to_numpy(), rtol=1e-9)

    model = least_squares.fit(run, round_design, used=estimable, joint=True)
    joint = model.meats.joint[0]
    pos = positions(run)
    ids, cluster = np.unique(pos["cluster"].to_numpy(), return_inverse=True)
    k = len(NAMES)
    v = np.zeros((len(ids), k * len(model.fits)))
    for i, (r, fit) in enumerate(model.fits.items()):
        at = pos["round"].to_numpy() == r
        x = np.column_stack([pos[n].cast(pl.Float64).to_numpy()[at] for n in NAMES])
        e = pos["share"].to_numpy()[at] - x @ fit.coef[:, 0]
        for j in range(k):
            v[:, i * k + j] = np.bincount(cluster[at], x[:, j] * e, minlength=len(ids))
    assert joint.clusters == len(ids)
    outer = joint.outer
    np.testing.assert_allclose(outer, v.T @ v, rtol=1e-9, atol=1e-9 * np.abs(outer).max())
    for i, r in enumerate(model.fits):  # its diagonal blocks are the rounds' own meats
        block = outer[i * k : (i + 1) * k, i * k : (i + 1) * k]
        np.testing.assert_allclose(block, model.meats.groups[r][0].outer, rtol=1e-9, atol=1e-12)


def test_evo_first_mover_needs_the_turns_table(runs):
    run = Run(runs["evo"])
    tables = {t: run.read(t, 0) for t in ("games", "players")}
    memory = measure.MemoryRun(tables, {"n_players": run.n_players, "rotate": True})
    chunk = Chunk(0, 0, tables["games"].height, run.n_players, True, memory)
    with pytest.raises(metrics.MetricError, match="turns"):
        REPORTS["evo"].first_mover.rows(chunk)
