"""Restricted play: forbids in the strategy spec, Dino Kontra Dino's options honoured by every
bot, ``dinolab restrict`` end to end with its numbers recomputed from the logs."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from numba import njit

from rules.core.jit import records
from rules.dino_kontra_dino.options import CARD_OPTIONS, FIGURE, OPTIONS
from simulate.config import build_config
from simulate.executors import InlineExecutor
from simulate.games import get_game
from simulate.kit.check import RuleBroken
from simulate.kit.play import columns
from simulate.runner import run
from strategies.core.allowed import allowed_for, forbids, has_forbids
from strategies.core.registry import Registry, StrategyError, split_lineup

DKD = get_game("dkd")
EVO = get_game("evo")
Z95 = 1.959963984540054


# ------------------------------------------------------------------ the spec


def test_forbid_round_trips_through_the_spec_and_the_lineup_record():
    reg = EVO.registry
    s = reg.parse("heuristic[forbid=Baleset+fur]")
    assert s.forbid == ("fur", "Baleset")  # the game's order, so both spellings are one run
    assert s.label == "heuristic[forbid=fur+Baleset]"
    assert s.spec.endswith(",forbid=fur+Baleset]")
    assert reg.parse(s.spec) == s
    assert reg.parse("heuristic[forbid=fur+Baleset]") == reg.parse("heuristic[forbid=Baleset+fur]")
    assert reg.parse("heuristic") != s
    # names with spaces, '!' and '?', any case: one strategy each, in a lineup of several
    text = "heuristic[forbid=kire ütött ez a gyerek?+Én jövök előbb!],random,heuristic,random"
    assert len(split_lineup(text)) == 4
    lineup = reg.lineup(text, 4)
    assert lineup[0].forbid == ("Én jövök előbb!", "Kire ütött ez a gyerek?")
    assert [s.forbid for s in lineup[1:]] == [(), (), ()]
    rec = reg.lineup_record(lineup, {2: ("egg",)})[0]
    on = {(int(j), reg.options[o]) for j, o in zip(*np.nonzero(rec.forbid), strict=True)}
    assert on == {(0, "Én jövök előbb!"), (0, "Kire ütött ez a gyerek?"), (2, "egg")}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("heuristic[forbid=wings]", ["unknown option 'wings' for evo", "Baleset", "egg"]),
        ("heuristic[forbid=]", ["forbid=option"]),
        ("heuristic[forbid]", ["forbid=option"]),
        ("heuristic[forbid=egg+nope]", ["unknown option 'nope'"]),
    ],
)
def test_a_bad_forbid_is_refused_in_one_line_naming_the_options(text, words):
    with pytest.raises(StrategyError) as exc:
        EVO.registry.parse(text)
    message = str(exc.value)
    assert "\n" not in message
    for w in words:
        assert w in message


def test_a_registry_refuses_options_that_a_spec_cannot_spell():
    for bad in ("a+b", "x,y", "[z]", " lead"):
        with pytest.raises(ValueError):
            Registry("g", [], options=(bad,))


def test_every_game_declares_its_options():
    for game, some in [
        ("dkd", ("Tyrannosaurus", "figure")),
        ("evo", ("egg", "Baleset")),
        ("oos", ("animal", "Carnivore")),
        ("dtb", ("block", "stegosaurus")),
    ]:
        options = get_game(game).registry.options
        assert set(some) <= set(options) and len(set(options)) == len(options)


# ------------------------------------------------------------------ Dino Kontra Dino's bots


def power_table(deck) -> np.ndarray:
    """Strength of card c in event e, recomputed from the deck (not the kernel's table)."""
    t = np.concatenate([deck.dino_traits.astype(int), np.zeros((deck.n_dinos, 1), int)], axis=1)
    needs = deck.event_needs.astype(int)
    return t[:, needs[:, 0]] + t[:, needs[:, 1]]


FORBID = ("Tyrannosaurus", "Spinosaurus", "Compsognathus", "Troodon", FIGURE)


def decisions(bot: str, games: int, forbid=FORBID, seed: int = 17):
    """Every decision of a rotated 4-player game: seat, lineup position, hand, card played,
    and which hand cards use an option of ``forbid`` (from the logs and the deck alone)."""
    spec = bot
    if forbid:
        items = f"forbid={'+'.join(forbid)}"
        spec = f"{bot[:-1]},{items}]" if bot.endswith("]") else f"{bot}[{items}]"
    setup = DKD.setup(DKD.parameters(), 4, ",".join([spec, bot, bot, bot]))
    logs = columns(setup, seed, True, 0, games, trace=True)
    power = power_table(setup.data)
    names = setup.data.dino_names
    t, hands = logs.turns, logs.hands.hand
    out = []
    for r in range(t.rows):
        gid, seat = int(t.game_id[r]), int(t.seat[r])
        hand = [int(c) for c in hands[r] if c >= 0]
        ev = int(t.event_id[r]) - 1
        strength = [int(power[c, ev]) for c in hand]
        holds = int(t.holder[r]) == seat
        uses = [
            names[c] in forbid or (FIGURE in forbid and holds and strength[k] < max(strength))
            for k, c in enumerate(hand)
        ]
        played = hand.index(int(t.card_id[r]) - 1)
        out.append(((seat - gid % 4) % 4, uses, played))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("bot", "games"),
    [
        ("greedy", 3000),
        ("random", 3000),
        ("blind", 3000),
        ("cautious", 3000),
        ("montecarlo[rollouts=4]", 120),
    ],
)
def test_every_dkd_bot_honours_its_forbids_in_the_kernel(bot, games):
    rows = decisions(bot, games)
    binding = [(uses, k) for j, uses, k in rows if j == 0 and any(uses) and not all(uses)]
    assert len(binding) > 20, "the forbid never restricted a decision: the test would be empty"
    broken = [(uses, k) for uses, k in binding if uses[k]]
    assert not broken, f"{bot} played a forbidden card while another was allowed: {broken[:3]}"
    # the same bot unrestricted (positions 1-3) does play such cards: the forbid changed play
    free = [uses[k] for j, uses, k in rows if j > 0 and any(uses) and not all(uses)]
    assert sum(free) > 0


def test_a_fully_forbidden_hand_is_played_as_unrestricted():
    every = (*CARD_OPTIONS, FIGURE)
    rows = decisions("greedy", 200, forbid=every)
    free = decisions("greedy", 200, forbid=())
    assert [k for _, _, k in rows] == [k for _, _, k in free]


@njit
def _toy_actions(tb, st, k):
    """A toy turn-based game for the shared restricted play: ``tb[k]`` is the option id action
    ``k`` (= its index) uses."""
    return np.int64(len(tb)) if k < 0 else np.int64(k)


@njit
def _toy_option_of(tb, st, action):
    return tb[action]


def test_the_shared_restricted_play_skips_forbidden_actions_unless_all_are():
    uses, every, forbidden, n_allowed, allowed = allowed_for(_toy_actions, _toy_option_of)
    lu = records(1, np.dtype([("forbid", np.int8, (2, 3))]))[0]
    lu.forbid[0, 1] = 1  # position 0 may not use option 1; position 1 is free
    assert forbids(lu.forbid, 0, 1) and not forbids(lu.forbid, 0, -1)
    assert not forbids(lu.forbid, -1, 1) and not forbids(lu.forbid, 1, 1)
    assert has_forbids(lu, 0) and not has_forbids(lu, 1) and not has_forbids(lu, -1)
    tb = np.array([-1, 1, 2, 1], dtype=np.int64)  # actions 1 and 3 use option 1
    assert uses(lu, 0, tb, 0, 1) and not uses(lu, -1, tb, 0, 1) and not uses(lu, 1, tb, 0, 1)
    assert forbidden(lu, 0, tb, 0, 3) and not forbidden(lu, 0, tb, 0, 2)
    assert not every(lu, 0, tb, 0)
    assert n_allowed(lu, 0, tb, 0) == 2 and n_allowed(lu, 1, tb, 0) == 4
    assert [allowed(lu, 0, tb, 0, i) for i in range(2)] == [0, 2]
    assert [allowed(lu, 1, tb, 0, i) for i in range(4)] == [0, 1, 2, 3]
    only = np.array([1, 1], dtype=np.int64)  # every action forbidden: all of them allowed
    assert every(lu, 0, only, 0) and not forbidden(lu, 0, only, 0, 1)
    assert n_allowed(lu, 0, only, 0) == 2 and allowed(lu, 0, only, 0, 1) == 1


@pytest.mark.slow
def test_greedy_never_leans_on_the_figure_so_forbidding_it_changes_nothing():
    a = decisions("greedy", 1000, forbid=(FIGURE,))
    b = decisions("greedy", 1000, forbid=())
    assert [k for _, _, k in a] == [k for _, _, k in b]


@pytest.mark.parametrize("bot", ["greedy", "random", "blind", "cautious", "montecarlo[rollouts=4]"])
def test_the_dkd_checker_passes_honoured_forbids(bot):
    setup = DKD.setup(DKD.parameters(), 3, bot)
    for gid in range(4 if bot.startswith("monte") else 30):
        DKD.check(setup, 5, gid, forbid={0: FORBID, 2: ("Allosaurus", FIGURE)})


def test_the_dkd_checker_catches_a_bot_that_ignores_its_forbids():
    """The checker recomputes what a play uses: a dispatch that ignores forbids is caught."""
    real = DKD.check.engine.choose
    free = DKD.registry.lineup_record(list(DKD.setup(DKD.parameters(), 3, "greedy").lineup))[0]

    def ignoring(lu, j, tb, st, seat, scratch):
        scratch.free[j] = 1
        return real(free, j, tb, st, seat, scratch)

    check = dataclasses.replace(
        DKD.check, engine=dataclasses.replace(DKD.check.engine, choose=ignoring)
    )
    setup = DKD.setup(DKD.parameters(), 3, "greedy[forbid=Tyrannosaurus+Spinosaurus+Troodon]")
    with pytest.raises(RuleBroken, match="forbidden"):
        for gid in range(200):
            check(setup, 5, gid)


def test_options_name_the_default_deck_and_the_figure_last():
    deck = DKD.parameters().load_deck()
    assert (*deck.dino_names, FIGURE) == OPTIONS
    other = DKD.parameters().with_values({"deck": "yardstick"}).load_deck()
    tb = DKD.build_inputs(DKD.setup(DKD.parameters().with_values({"deck": "yardstick"}), 4, None))
    assert all(int(tb[0][0].d_option[c]) == -1 for c in range(other.n_dinos))  # unnamed cards


# ------------------------------------------------------------------ a restricted run is a run


def test_a_restricted_run_is_recorded_and_resumes_to_the_same_bytes(tmp_path):
    lineup = "cautious[forbid=Tyrannosaurus+figure],cautious,cautious,cautious"
    cfg, setup = build_config(
        "dkd", n_players=4, strategies=lineup, rotate=True, seed=4, games=3000, chunk_size=1000
    )
    assert "forbid=Tyrannosaurus+figure" in cfg.strategies[0]
    assert cfg.setup().lineup[0].forbid == ("Tyrannosaurus", "figure")
    whole, part = tmp_path / "whole", tmp_path / "part"
    run(cfg, setup, whole, InlineExecutor())

    class Crash(Exception):
        pass

    def crash(done, total):
        if done >= 1000:
            raise Crash

    with pytest.raises(Crash):
        run(cfg, setup, part, InlineExecutor(), on_chunk=crash)
    run(cfg, setup, part, InlineExecutor(), resume=True)
    manifest = json.loads((part / "manifest.json").read_text())
    assert manifest["config"]["strategies"][0] == cfg.strategies[0]
    assert "cautious[forbid=Tyrannosaurus+figure]" in manifest["strategies"]
    for f in sorted(whole.rglob("*.parquet")):
        assert f.read_bytes() == (part / f.relative_to(whole)).read_bytes(), f.name


# ------------------------------------------------------------------ dinolab restrict


def share_of(players: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    n = pl.col("n_winners")
    return players.join(games, on="game_id").with_columns(
        share=pl.when(n > 0).then(pl.col("winner").cast(pl.Float64) / n).otherwise(0.0)
    )


def read(run_dir: Path, table: str) -> pl.DataFrame:
    return pl.read_parquet(sorted((run_dir / table).glob("part-*.parquet")))


def recompute(study: Path, folder: str, n_players: int) -> tuple[float, float, float, float]:
    """Restricted share, baseline share, change and its 95% half-width, from the Parquet files:
    the restricted bot found by its label, the baseline's position 0 by the rotation (seat
    game_id mod P), deals as clusters."""
    r = share_of(read(study / "runs" / folder, "players"), read(study / "runs" / folder, "games"))
    r = r.filter(pl.col("strategy").cast(pl.String).str.contains("forbid=")).sort("game_id")
    b = share_of(read(study / "runs/baseline", "players"), read(study / "runs/baseline", "games"))
    b = b.filter(pl.col("seat") == pl.col("game_id") % n_players).sort("game_id")
    assert r["game_id"].to_list() == b["game_id"].to_list()
    assert (r["seat"] == b["seat"]).all()
    d = r["share"].to_numpy() - b["share"].to_numpy()
    deals = r["game_id"].to_numpy() // n_players
    sums, sizes = np.bincount(deals, weights=d), np.bincount(deals)
    c = len(sums)
    se = np.sqrt(((sums - sizes * d.mean()) ** 2).sum() * c / (c - 1)) / d.size
    return r["share"].mean(), b["share"].mean(), d.mean(), Z95 * se


def md_rows(md: str) -> dict[str, list[str]]:
    """The rows of the 'What each option is worth' table by option."""
    part = md.split("## What each option is worth")[1].split("## ")[0]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in part.splitlines()]
    rows = [r for r in rows if len(r) > 3 and r[0] not in ("option", "---")]
    return {r[0]: r for r in rows}


def test_restrict_end_to_end_matches_the_logs(cli, tmp_path):
    out = tmp_path / "study"
    args = [
        "restrict",
        "dkd",
        "--options",
        "compsognathus,figure",
        "--strategy",
        "cautious",
        "--games",
        "600",
        "--players",
        "3",
        "--seed",
        "5",
        "--workers",
        "2",
        "--chunk-size",
        "250",
        "--out",
        str(out),
        "--no-progress",
    ]
    r = cli(*args)
    assert r.code == 0, r.err
    assert "3 of 3 runs to play" in r.out
    study = json.loads((out / "restrict.json").read_text())
    assert study["game"] == "dino-kontra-dino" and study["games"] == 600
    assert [o["option"] for o in study["options"]] == ["Compsognathus", "figure"]
    assert sorted(p.name for p in (out / "runs").iterdir()) == [
        "baseline",
        "forbid-Compsognathus",
        "forbid-figure",
    ]
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html and "What each option is worth" in html
    first_screen = md.split("## What each option is worth")[0]
    for fact in (
        "Dino Kontra Dino",
        "cautious",
        "| players | 3 |",
        "600",
        "| seed | 5 |",
        "hand_size=3",
    ):
        assert fact in first_screen, fact
    rows = md_rows(md)
    assert set(rows) == {"Compsognathus", "figure"}
    for option, folder in [("Compsognathus", "forbid-Compsognathus"), ("figure", "forbid-figure")]:
        restricted, baseline, change, half = recompute(out, folder, 3)
        row = rows[option]
        assert row[1] == "600"
        assert row[2] == f"{restricted:.2%}" and row[3] == f"{baseline:.2%}"
        lo, hi = change - half, change + half
        assert row[4] == f"{change * 100:+.2f} pp [{lo * 100:+.2f}, {hi * 100:+.2f}]"
        assert f"{option}: {change * 100:+.2f} pp" in r.out
    # pairing: every game dealt the same events in the baseline and a restricted run
    e0 = read(out / "runs/baseline", "rounds").select("game_id", "round", "event_id")
    e1 = read(out / "runs/forbid-figure", "rounds").select("game_id", "round", "event_id")
    assert e0.equals(e1)
    # the same command again reuses every run and writes the same report
    again = cli(*args)
    assert again.code == 0, again.err
    assert "0 of 3 runs to play" in again.out
    assert md_rows((out / "report.md").read_text()) == rows
    # each run is an ordinary run
    assert cli("verify", str(out / "runs" / "forbid-figure")).code == 0
    assert cli("replay", str(out / "runs" / "forbid-figure"), "--game", "7").code == 0


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["dkd", "--options", "Tyrannosaurus,Nessie"], "unknown option 'Nessie'"),
        (["dkd", "--games", "0"], "--games"),
        (["dkd", "--strategy", "greedy,random"], "one strategy"),
        (["dkd", "--strategy", "greedy[forbid=figure]", "--options", "figure"], "already"),
        (["nosuchgame"], "unknown game"),
        (["evo", "--players", "9"], "players"),
        (["evo", "--set", "nope=1"], "nope"),
        (["dkd", "--workers", "0"], "--workers"),
    ],
)
def test_bad_input_is_refused_in_one_line_and_nothing_is_written(cli, tmp_path, extra, words):
    out = tmp_path / "study"
    r = cli(
        "restrict",
        *extra,
        "--games" if "--games" not in extra else "--seed",
        "10",
        "--out",
        str(out),
        "--no-progress",
    )
    assert r.code == 2, (r.out, r.err)
    assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
    assert words in r.err
    assert not out.exists()


def test_a_game_without_options_is_refused(cli, tmp_path, monkeypatch):
    import simulate.games

    bare = dataclasses.replace(
        DKD, registry=Registry(DKD.name, list(DKD.registry.by_name.values()))
    )
    real = simulate.games.get_game
    monkeypatch.setattr(simulate.games, "get_game", lambda n: bare if n == "dkd" else real(n))
    out = tmp_path / "study"
    r = cli("restrict", "dkd", "--games", "10", "--out", str(out), "--no-progress")
    assert r.code == 2 and "declares no restrictable options" in r.err
    assert not out.exists()


def test_a_folder_of_another_study_or_other_files_is_refused(cli, tmp_path):
    out = tmp_path / "study"
    base = [
        "restrict",
        "dkd",
        "--options",
        "figure",
        "--games",
        "40",
        "--workers",
        "1",
        "--out",
        str(out),
        "--no-progress",
    ]
    assert cli(*base).code == 0
    before = sorted(str(p) for p in out.rglob("*"))
    r = cli(*[a if a != "40" else "80" for a in base])
    assert r.code == 2 and "other settings" in r.err
    assert sorted(str(p) for p in out.rglob("*")) == before
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    r = cli("restrict", "dkd", "--games", "10", "--out", str(other), "--no-progress")
    assert r.code == 2 and "no restricted-play study" in r.err
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


def test_forbidding_egg_costs_the_evo_heuristic_win_share(cli, tmp_path):
    """A planted check: eggs are how an EVO player grows its herd; forbidding them must cost
    the bot a clearly measurable share of its wins (interval below zero), while the report's
    reading says so."""
    out = tmp_path / "evo"
    r = cli(
        "restrict",
        "evo",
        "--options",
        "egg",
        "--games",
        "1200",
        "--seed",
        "3",
        "--workers",
        "2",
        "--out",
        str(out),
        "--no-progress",
    )
    assert r.code == 0, r.err
    restricted, baseline, change, half = recompute(out, "forbid-egg", 4)
    assert change + half < 0, (change, half)
    assert restricted < baseline
    row = md_rows((out / "report.md").read_text())["egg"]
    assert "the bot is weaker without it" in row[5]
    assert re.match(r"-\d+\.\d\d pp", row[4])


def test_the_reading_follows_the_interval():
    from reports.restrict import forest, reading

    assert reading(-0.031, -0.04, -0.02).startswith("worth 3.1 points of win share")
    assert reading(0.02, 0.01, 0.03).startswith("forbidding it helps")
    assert reading(-0.01, -0.03, 0.01).startswith("no measurable worth")
    assert reading(0.0, float("nan"), float("nan")).startswith("not measurable")
    table = pl.DataFrame(
        {"option": ["a", "b"], "change": [-0.02, 0.0], "lo": [-0.03, None], "hi": [-0.01, None]}
    )
    assert forest(table).startswith(b"\x89PNG")
