"""Each game's shipped ``tuned`` bot: an alias of a bot with the parameters of its file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import strategies
from simulate.games import all_games
from strategies.core.registry import (
    TUNED,
    Registry,
    StrategyError,
    StrategyInfo,
    StrategyParam,
    alias,
    tuned,
)
from tests.strength import position_share

SHIPPED = [g.name for g in all_games() if TUNED in g.registry.by_name]


def shipped_file(game) -> Path:
    package = Path(strategies.__file__).parent / game.name.replace("-", "_")
    return package / "tuned.json"


def test_every_game_ships_a_tuned_bot():
    assert [g.name for g in all_games()] == SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_tuned_plays_its_base_with_the_files_parameters(name):
    game = next(g for g in all_games() if g.name == name)
    reg = game.registry
    info = reg.by_name[TUNED]
    base = reg.by_name[info.plays]
    assert info.sid == base.sid and not base.plays
    body = json.loads(shipped_file(game).read_text())
    assert body["strategy"] == base.name and body["game"] == game.name
    s = reg.parse(TUNED)
    want = {p.name: body["params"].get(p.name, p.default) for p in base.params}
    assert dict(zip([p.name for p in info.params], s.values, strict=True)) == want
    for n, sub in body.get("by_players", {}).items():  # a set of its own at some counts
        at_n = reg.lineup(TUNED, int(n))[0]
        want_n = {p.name: sub["params"].get(p.name, p.default) for p in base.params}
        assert dict(zip([p.name for p in info.params], at_n.values, strict=True)) == want_n
        assert sub["strategy"] == base.name and sub["players"] == int(n)
    # a run records every value, so a newer shipped file cannot change an old run
    assert reg.parse(s.spec).values == s.values and s.spec.startswith("tuned[")
    # the file plays the base bot too, and a base file plays as tuned
    assert reg.parse(f"{base.name}[params={shipped_file(game)}]").values == s.values
    strength = body["strength"]["win_share"]
    assert strength["ci"][0] > body["strength"]["fair_share"]


def test_parameters_per_player_count(tmp_path):
    p = (StrategyParam("a", 0.5, 0.0, 1.0, "a"), StrategyParam("b", 0.5, 0.0, 1.0, "b"))
    base = StrategyInfo("base", 1, "base", p)
    f = tmp_path / "t.json"
    body = {"strategy": "base", "params": {"a": 0.25}, "by_players": {"2": {"params": {"a": 0.75}}}}
    f.write_text(json.dumps(body))
    reg = Registry("g", [base, tuned(base, f)])
    assert reg.lineup("tuned", 3)[0].values == (0.25, 0.5)
    assert reg.lineup("tuned", 2)[0].values == (0.75, 0.5)
    assert reg.lineup("tuned[b=0.1]", 2)[0].values == (0.75, 0.1)  # given values still win
    # the base bot reading the file picks the same set
    assert reg.lineup(f"base[params={f}]", 2)[0].values == (0.75, 0.5)
    assert reg.lineup(f"base[params={f}]", 4)[0].values == (0.25, 0.5)
    body["by_players"]["2"]["params"]["a"] = 3.0
    f.write_text(json.dumps(body))
    with pytest.raises(ValueError, match=r"0\.\.1"):
        tuned(base, f)


def test_an_alias_must_run_its_base_bots_code(tmp_path):
    p = (StrategyParam("a", 0.5, 0.0, 1.0, "a"),)
    base = StrategyInfo("base", 1, "base", p)
    f = tmp_path / "t.json"
    f.write_text(json.dumps({"strategy": "base", "params": {"a": 0.25}}))
    alias = tuned(base, f)
    reg = Registry("g", [StrategyInfo("r", 0, "r"), base, alias])
    assert reg.parse("tuned").values == (0.25,) and reg.parse("base").values == (0.5,)
    assert reg.lineup_record([reg.parse("tuned")])[0].ids[0] == 1
    with pytest.raises(ValueError):
        Registry("g", [StrategyInfo("r", 0, "r"), StrategyInfo("base", 2, "b", p), alias])
    f.write_text(json.dumps({"strategy": "other", "params": {"a": 0.25}}))
    with pytest.raises(ValueError, match="not of 'base'"):
        tuned(base, f)
    f.write_text(json.dumps({"strategy": "base", "params": {"a": 7}}))
    with pytest.raises(ValueError, match=r"0\.\.1"):
        tuned(base, f)
    g = tmp_path / "other.json"
    g.write_text(json.dumps({"strategy": "r", "params": {}}))
    with pytest.raises(StrategyError, match="not of 'tuned'"):
        reg.parse(f"tuned[params={g}]")


def test_a_named_alias_has_its_own_defaults():
    p = (StrategyParam("a", 0.5, 0.0, 1.0, "a"), StrategyParam("b", 1.0, 0.0, 2.0, "b"))
    base = StrategyInfo("base", 1, "base", p)
    old = alias(base, "old", "base as it was", b=0.0)
    assert old.plays == "base" and old.sid == 1 and old.doc == "base as it was"
    reg = Registry("g", [base, old])
    assert reg.parse("old").values == (0.5, 0.0) and reg.parse("old").label == "old"
    assert reg.kin(old) == ("base",) and reg.kin(base) == ("old",)
    for bad in ({"c": 0.0}, {"b": 3.0}):
        with pytest.raises(ValueError, match="bad default"):
            alias(base, "old", "x", **bad)


STRONG = [(g.name, n) for g in all_games() if g.strength for n in g.strength.players]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "n"), STRONG)
def test_tuned_beats_the_default_heuristic_at_every_usual_player_count(name, n):
    game = next(g for g in all_games() if g.name == name)
    st = game.strength
    games = st.test_games - st.test_games % n
    mean, se = position_share(game, ",".join([TUNED] + [st.field] * (n - 1)), n, games, 1616)
    assert mean > 1 / n + 3 * se, (mean, se)


@pytest.mark.slow
def test_ladder_plays_each_rung_once_and_rates_them(tmp_path, cli):
    out = tmp_path / "lad"
    args = ["ladder", "dkd", "--out", str(out), "--rung", "random:400", "--rung", "tuned:400"]
    r = cli(*args, "--players", "3")
    assert r.code == 0, r.err
    table = (out / "dino-kontra-dino" / "ratings.md").read_text()
    for bot in ("random", "tuned", "greedy"):
        assert f"| {bot} " in table or f"{bot} |" in table
    lines = {ln.split()[0]: ln for ln in r.out.splitlines() if ln[:1].isalpha()}
    assert float(lines["tuned"].split()[2]) > float(lines["random"].split()[2])  # elo
    again = cli(*args, "--players", "3")
    assert again.code == 0 and again.out.count("(kept)") == 2
    changed = cli("ladder", "dkd", "--out", str(out), "--rung", "random:800", "--players", "3")
    assert changed.code == 2 and "different configuration" in changed.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rung", "tuned"], "BOT:GAMES"),
        (["--rung", "tuned:0"], "BOT:GAMES"),
        (["--rung", "nosuchbot:10"], "unknown strategy"),
        (["--players", "9"], "2 to 6 players"),
        (["--scale", "0"], "--scale"),
    ],
)
def test_ladder_bad_input_is_one_line_and_writes_nothing(tmp_path, cli, args, message):
    r = cli("ladder", "dkd", "--out", str(tmp_path / "lad"), *args)
    assert r.code == 2 and message in r.err and len(r.err.strip().splitlines()) == 1
    assert not (tmp_path / "lad").exists()
