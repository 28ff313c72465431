"""Origin of Species analyses: every number against the logs read directly, the same numbers
whatever the chunking (deals split across chunks included), the report itself, and seat
advantage compared across player counts with ``dinolab compare``.

The runs are small (a few hundred to two thousand games, a second or two each once compiled).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from reports import common, origin_of_species
from reports.models import least_squares
from reports.origin_of_species import by_players, carnivores, rows, sections, traits
from reports.origin_of_species.food import food_by_round, food_overall
from rules.origin_of_species.constants import N_TRAITS, TRAITS
from simulate.config import build_config
from simulate.executors import InlineExecutor
from simulate.rundir import Run
from simulate.runner import run
from strategies.origin_of_species.heuristic import DEFAULTS
from strategies.origin_of_species.params import HP

MIXED = "heuristic,heuristic[aggression=2],heuristic,heuristic[aggression=0]"


def make_run(
    out: Path,
    games: int,
    chunk: int,
    strategies: str = MIXED,
    players: int = 4,
    rotate: bool = True,
    seed: int = 5,
) -> Run:
    cfg, setup = build_config(
        "origin-of-species",
        n_players=players,
        strategies=strategies,
        rotate=rotate,
        seed=seed,
        games=games,
        chunk_size=chunk,
    )
    run(cfg, setup, out, InlineExecutor())
    return Run(out)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Run, Run]:
    """The same 1,200 rotated games in one chunk and in chunks of 250 (250 is not a multiple
    of 4: deals are split across chunks)."""
    base = tmp_path_factory.mktemp("oos")
    return make_run(base / "one", 1200, 1200), make_run(base / "split", 1200, 250)


def frame(r: Run, table: str) -> pl.DataFrame:
    return r.scan(table).collect()


def players_with_share(r: Run) -> pl.DataFrame:
    g = frame(r, "games").select("game_id", "n_winners")
    return (
        frame(r, "players")
        .join(g, on="game_id")
        .with_columns(
            share=pl.col("winner").cast(pl.Float64) / pl.col("n_winners"),
            cluster=pl.col("game_id") // r.n_players,
        )
    )


def clustered_diff(df: pl.DataFrame, flag: str, value: str) -> tuple[float, float]:
    """Difference of means (flag vs not) and its cluster-robust standard error, from scratch."""
    y = df[value].to_numpy().astype(float)
    f = df[flag].to_numpy().astype(bool)
    c = df["cluster"].to_numpy()
    m1, m0 = y[f].mean(), y[~f].mean()
    n1, n0 = f.sum(), (~f).sum()
    u = np.where(f, (y - m1) / n1, -(y - m0) / n0)
    per = pl.DataFrame({"c": c, "u": u}).group_by("c").agg(pl.col("u").sum())["u"].to_numpy()
    k = len(per)
    return m1 - m0, float(np.sqrt(k / (k - 1) * (per**2).sum()))


def test_trait_lift_matches_the_logs(runs):
    one, _ = runs
    df = players_with_share(one)
    lift = traits.trait_lift(one)
    for t in (0, 2, 6, 15):  # Carnivore, Parasite, Swimming, Fat Tissue
        has = df.with_columns(has=(pl.col("survivor_traits") & (1 << t)) != 0)
        row = lift.filter(pl.col("trait") == TRAITS[t]).row(0, named=True)
        assert row["n_with"] == has["has"].sum()
        d, se = clustered_diff(has, "has", "share")
        assert row["mean"] == pytest.approx(d) and row["se"] == pytest.approx(se, rel=1e-6)
        ds, _ = clustered_diff(has, "has", "score")
        assert row["score_lift"] == pytest.approx(ds)
        # at equal survivors: the difference per stratum, weighted by the seats with the trait
        strata = has.filter(pl.col("animals") > 0).with_columns(
            k=pl.col("animals").clip(upper_bound=4)
        )
        per = strata.group_by("k", "has").agg(m=pl.col("share").mean(), n=pl.len())
        wide = per.pivot(on="has", index="k", values=["m", "n"]).drop_nulls()
        w = wide["n_true"] / wide["n_true"].sum()
        expected = float((w * (wide["m_true"] - wide["m_false"])).sum())
        assert row["adjusted"] == pytest.approx(expected)
        assert row["adj_lo"] < row["adjusted"] < row["adj_hi"]


def test_survivor_traits_are_the_traits_of_the_surviving_animals(runs):
    one, _ = runs
    p = frame(one, "players")
    bits = np.array([[m >> t & 1 for t in range(N_TRAITS)] for m in p["survivor_traits"]])
    assert ((p["animals"] == 0).to_numpy() <= (bits.sum(axis=1) == 0)).all()  # none: no traits
    # a seat scores 2 per animal + 1 per trait card + extras, so traits bound the mask's bits
    assert (bits.sum(axis=1) <= p["traits"].to_numpy()).all()
    carn = bits[:, 0] == 1
    assert (carn == (p["carnivores"] > 0).to_numpy()).all()
    assert (p["carnivore_points"] <= p["score"]).all()


def test_card_value_is_the_least_squares_fit_of_the_logs(runs):
    one, _ = runs
    df = players_with_share(one).sort("game_id", "seat")
    plays = (
        frame(one, "traits")
        .with_columns(pl.col("trait").cast(pl.String))
        .group_by("game_id", "seat", "trait")
        .agg(k=pl.len())
        .pivot(on="trait", index=["game_id", "seat"], values="k")
    )
    df = df.join(plays, on=["game_id", "seat"], how="left").fill_null(0)
    x = np.column_stack(
        [np.ones(df.height)]
        + [df[t].to_numpy() if t in df.columns else np.zeros(df.height) for t in TRAITS]
        + [df["animals_played"].to_numpy()]
    ).astype(float)
    assert (x[:, 1:-1].sum(axis=1) == df["traits_played"].to_numpy()).all()
    y = df["share"].to_numpy()
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    e = y - x @ beta
    g = pl.DataFrame(x * e[:, None]).with_columns(c=df["cluster"]).group_by("c").sum()
    g = g.drop("c").to_numpy()
    inv = np.linalg.inv(x.T @ x)
    k = len(g)
    cov = k / (k - 1) * inv @ (g.T @ g) @ inv
    value = traits.card_value(one)
    for j, name in ((1, "Carnivore"), (16, "Fat Tissue"), (20, "(as an animal)")):
        row = value.filter(pl.col("trait") == name).row(0, named=True)
        assert row["mean"] == pytest.approx(beta[j], abs=1e-9)
        assert row["se"] == pytest.approx(np.sqrt(cov[j, j]), rel=1e-6)
    carn = value.filter(pl.col("trait") == "Carnivore").row(0, named=True)
    d = beta[1] - beta[20]
    sd = np.sqrt(cov[1, 1] + cov[20, 20] - 2 * cov[1, 20])
    assert carn["vs_animal"] == pytest.approx(d) and carn["vs_hi"] == pytest.approx(
        d + 1.96 * sd, abs=1e-3
    )
    played = frame(one, "traits").filter(pl.col("trait") == "Carnivore").height
    assert carn["played"] == pytest.approx(played / df.height)
    assert carn["used"] == pytest.approx(df["used_carnivore"].mean())


def test_attack_outcomes_and_kills_by_trait_match_the_logs(runs):
    one, _ = runs
    a = frame(one, "attacks").with_columns(pl.col("defence_used", "outcome").cast(pl.String))
    out = carnivores.attack_outcomes(one)
    every = out.filter(pl.col("defence_used") == "every attack").row(0, named=True)
    assert every["attacks"] == a.height
    assert every["mean"] == pytest.approx((a["outcome"] == "killed").mean())
    for r in out.filter(pl.col("defence_used") != "every attack").iter_rows(named=True):
        sub = a.filter(pl.col("defence_used") == r["defence_used"])
        assert r["attacks"] == sub.height
        for o in ("killed", "escaped", "tail_lost"):
            assert r[o] == (sub["outcome"] == o).sum()
    assert out.filter(pl.col("defence_used") == "none")["escaped"][0] == 0  # no defence, no escape
    by = carnivores.kills_by_defender_trait(one)
    run_ = a.filter((pl.col("defender_traits") & (1 << 7)) != 0)  # Running
    row = by.filter(pl.col("trait") == "Running").row(0, named=True)
    assert row["attacks"] == run_.height
    assert row["mean"] == pytest.approx((run_["outcome"] == "killed").mean())


def test_carnivores_and_aggression_match_the_logs(runs):
    one, _ = runs
    df = players_with_share(one)
    car = carnivores.carnivores(one).row(0, named=True)
    assert car["points_share"] == pytest.approx(df["carnivore_points"].sum() / df["score"].sum())
    assert car["has_carnivore"] == pytest.approx((df["carnivores"] > 0).mean())
    assert car["attacks"] == pytest.approx(df["used_carnivore"].mean())
    table, gap = carnivores.aggression(one)
    levels = dict(zip(table["strategy"], table["aggression"], strict=True))
    assert levels == {
        "heuristic": DEFAULTS[HP.aggression],
        "heuristic[aggression=2]": 2.0,
        "heuristic[aggression=0]": 0.0,
    }
    shares = (
        df.with_columns(pl.col("strategy").cast(pl.String))
        .group_by("strategy")
        .agg(pl.col("share").mean(), pl.col("used_carnivore").mean())
    )
    for r in shares.iter_rows(named=True):
        row = table.filter(pl.col("strategy") == r["strategy"]).row(0, named=True)
        assert row["share"] == pytest.approx(r["share"])
        assert row["attacks"] == pytest.approx(r["used_carnivore"])
    assert table.filter(pl.col("aggression") == 0)["attacks"][0] == 0  # never attacks
    hi = shares.filter(pl.col("strategy") == "heuristic[aggression=2]")["share"][0]
    lo = shares.filter(pl.col("strategy") == "heuristic[aggression=0]")["share"][0]
    assert gap["mean"] == pytest.approx(hi - lo) and gap["lo"] < gap["mean"] < gap["hi"]


def test_food_by_round_matches_the_logs(runs):
    one, _ = runs
    r = frame(one, "rounds")
    t = (
        frame(one, "turns")
        .group_by("game_id", "round")
        .agg(pl.col("need", "animals", "starved").cast(pl.Int64).sum())
    )
    j = r.join(t, on=["game_id", "round"])
    food = food_by_round(one)
    for row in food.head(6).iter_rows(named=True):
        sub = j.filter(pl.col("round") == row["round"])
        assert row["n"] == sub.height
        assert row["bank"] == pytest.approx(sub["food_bank"].mean())
        assert row["need"] == pytest.approx(sub["need"].mean())
        assert row["starvation"] == pytest.approx(sub["starved"].sum() / sub["animals"].sum())
        assert row["starvation_lo"] < row["starvation"] < row["starvation_hi"]
    assert food["n"][0] == one.games_logged  # every game plays round 1
    over = food_overall(one)
    assert over["bank_per_need"] == pytest.approx(j["food_bank"].sum() / j["need"].sum())


def test_turns_add_up_to_the_players_rows(runs):
    one, _ = runs
    t = frame(one, "turns")
    p = frame(one, "players").sort("game_id", "seat")
    last = t.group_by("game_id").agg(pl.col("round").max().alias("last"))
    final = (
        t.join(last, on="game_id").filter(pl.col("round") == pl.col("last")).sort("game_id", "seat")
    )
    assert (final["score"] == p["score"]).all(), "the last round's score is the final score"
    assert (final["survivors"] == p["animals"]).all()
    totals = (
        t.group_by("game_id", "seat")
        .agg(pl.col("food_taken", "food_received", "kills").cast(pl.Int64).sum())
        .sort("game_id", "seat")
    )
    for c in ("food_taken", "food_received", "kills"):
        assert (totals[c] == p[c]).all(), c
    killed = frame(one, "attacks").filter(pl.col("outcome") == "killed")
    assert killed.height == int(p["kills"].sum())
    g = frame(one, "games").sort("game_id")
    assert (final.group_by("game_id").agg(pl.len())["len"] == one.n_players).all()
    assert (
        t.group_by("game_id").agg(pl.col("round").max()).sort("game_id")["round"] == g["rounds"]
    ).all()
    prog = rows.progress(_chunk(one))
    assert prog.columns == ["game_id", "round", "seat", "score"]


def _chunk(r: Run):
    from reports.aggregate import Chunk, chunks

    i, a, b = chunks(r)[0]
    return Chunk(i, a, b, r.n_players, True, r)


def test_analyses_do_not_depend_on_the_chunking(runs):
    one, split = runs
    for fn, key in (
        (traits.trait_lift, "trait"),
        (traits.card_value, "trait"),
        (carnivores.attack_outcomes, "defence_used"),
        (carnivores.kills_by_defender_trait, "trait"),
        (food_by_round, "round"),
    ):
        a, b = fn(one), fn(split)
        assert a[key].to_list() == b[key].to_list(), fn.__name__
        for c in a.columns:
            if a[c].dtype.is_float():
                assert np.allclose(a[c].to_numpy(), b[c].to_numpy(), equal_nan=True), (
                    fn.__name__,
                    c,
                )
    ga, gb = carnivores.aggression(one)[1], carnivores.aggression(split)[1]
    assert ga["mean"] == pytest.approx(gb["mean"]) and ga["se"] == pytest.approx(gb["se"])


def _nbytes(result) -> int:
    """The memory a partial's per-chunk result holds (arrays, frames, and their containers)."""
    if isinstance(result, pl.DataFrame):
        return result.estimated_size()
    if isinstance(result, np.ndarray):
        return result.nbytes
    if isinstance(result, dict):
        return sum(_nbytes(v) for v in result.values())
    if isinstance(result, (tuple, list)):
        return sum(_nbytes(v) for v in result)
    if hasattr(result, "__dataclass_fields__"):
        return sum(_nbytes(getattr(result, f)) for f in result.__dataclass_fields__)
    return 8


def test_every_partial_keeps_a_small_result_per_chunk(runs):
    """What a chunk hands to the reduce does not grow with its games: a chunk of 1,200 games
    and one of 250 leave results of about the same size (the report's memory is flat in the
    number of games)."""
    from reports.aggregate import map_chunk, run_one

    one, split = runs
    fit = least_squares.solve(run_one(one, traits.CARD_SUMS)["all"])
    meat = least_squares.scores_partial(traits.card_design, (), {"all": fit})  # the residuals
    for p in [*origin_of_species.REPORT.partials(one), meat]:
        big = _nbytes(map_chunk((one, 0, 0, 1200, (p,))))
        small = _nbytes(map_chunk((split, 1, 250, 500, (p,))))
        assert big < 2 * small + 4096, (p.name, big, small)


@pytest.mark.slow
def test_the_report_builds_with_every_section(runs, tmp_path):
    from simulate.cli.analysis_commands import write_report

    _, split = runs
    copy = tmp_path / "run"
    shutil.copytree(split.path, copy)
    html, md = write_report(str(copy), variants=False, robustness=False)
    text = Path(md).read_text()
    for title in (
        "Traits: lift on the surviving animals",
        "Traits: is a card worth more as a trait or as an animal?",
        "Carnivores: attacks and defences",
        "Carnivores: kill rate by the prey's traits",
        "Carnivores: points and aggression",
        "Food pressure",
        "Decisiveness: when the winner took the lead for good",
    ):
        assert f"## {title}" in text, title
    assert "Do carnivore strategies dominate? The most aggressive bot" in text
    assert Path(html).read_text().count("<img") >= 8
    assert "PROVISIONAL" in Path(html).read_text()


def test_a_uniform_lineup_says_it_cannot_answer_the_aggression_question(tmp_path):
    r = make_run(tmp_path / "uniform", 200, 100, strategies="heuristic")
    table, gap = carnivores.aggression(r)
    assert gap is None and table.height == 1
    text = " ".join(s.text for s in sections.sections(r))
    assert "This run's lineup cannot answer that (every heuristic seat plays the same" in text


def test_seat_advantage_across_player_counts_with_dinolab_compare(tmp_path, cli):
    dirs = []
    for n in (2, 3, 5):
        dirs.append(tmp_path / f"p{n}")
        make_run(dirs[-1], 60 * n, 60 * n, strategies="heuristic", players=n, seed=9)
    r = cli("compare", *dirs, "--out", tmp_path / "cmp")
    assert r.code == 0, r.err
    assert "n_players 2 -> 3" in r.out and "n_players 2 -> 5" in r.out
    assert "run 2 seat_share[4]" in r.out
    assert (tmp_path / "cmp" / "compare.md").is_file()
    table = by_players.seat_advantage_by_players([Run(d) for d in dirs])
    assert table["n_players"].to_list() == [2, 2, 3, 3, 3, 5, 5, 5, 5, 5]
    for d in dirs:
        one = Run(d)
        seats = common.seat_win_share(one)
        got = table.filter(pl.col("n_players") == one.n_players)
        assert np.allclose(got["mean"].to_numpy(), seats["mean"].to_numpy())
        assert got["mean"].sum() == pytest.approx(1.0)  # the win shares of a game add up to 1
    food = by_players.food_by_players([Run(d) for d in dirs])
    assert food["n_players"].to_list() == [2, 3, 5]
