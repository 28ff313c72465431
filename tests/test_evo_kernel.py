"""The EVO chunk kernel: tables, determinism, chunking, interpreted = compiled, bots, replay."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest

from simulate.games import all_games
from simulate.games.evo import SPEC as GAME
from simulate.kit.play import play, replay_text
from strategies.core.registry import StrategyError

ROOT = Path(__file__).resolve().parents[1]
ISSUE_COLUMNS = {
    "turns": [
        "initiative",
        "dinos",
        "points",
        "tails",
        "legs",
        "horns",
        "eggs",
        "furs",
        "parasols",
        "mutations",
        "born",
        "died_climate",
        "died_combat",
    ],
    "rounds": [
        "climate_roll",
        "climate_card",
        "temperate",
        "meteor_space",
        "meteor_roll",
        "impact",
    ],
    "combats": [
        "game_id",
        "round",
        "attacker_seat",
        "defender_seat",
        "attacker_horns",
        "defender_horns",
        "roll",
        "attacker_won",
    ],
    "bids": ["game_id", "round", "seat", "gene", "bid", "paid", "mutations"],
    "cards": ["game_id", "round", "seat", "card", "phase"],
}
MIXED = "heuristic,random,heuristic[aggression=1,cards=0.5],random"


def setup(lineup: str = MIXED, n: int = 4, **rules):
    params = GAME.parameters().with_values(rules) if rules else GAME.parameters()
    return GAME.setup(params, n, lineup)


def test_evo_is_registered():
    assert GAME in all_games()


def test_tables_have_the_issue_columns_and_their_schemas():
    tables = play(setup(), 1, False, 0, 30)
    assert set(tables) == {t.name for t in GAME.logged_tables}
    for schema in GAME.logged_tables:
        assert tables[schema.name].schema.equals(schema.arrow()), schema.name
    for name, columns in ISSUE_COLUMNS.items():
        assert set(columns) <= set(tables[name].column_names), name
    games, turns = tables["games"].to_pydict(), tables["turns"]
    assert turns.num_rows == 4 * sum(games["rounds"])
    assert tables["rounds"].num_rows == sum(games["rounds"])
    assert tables["bids"].num_rows > 0 and tables["combats"].num_rows > 0
    assert tables["cards"].num_rows > 0


def test_same_seed_same_tables_and_chunking_does_not_matter():
    s = setup()
    whole = play(s, 7, False, 0, 45)
    again = play(s, 7, False, 0, 45)
    parts = [play(s, 7, False, a, b) for a, b in ((0, 5), (5, 6), (6, 45))]
    for name in whole:
        assert whole[name].equals(again[name]), name
        assert whole[name].equals(pa.concat_tables([p[name] for p in parts])), name
    other = play(s, 8, False, 0, 45)
    assert not whole["players"].equals(other["players"])


def test_rotation_shares_the_deal():
    s = setup()
    players = play(s, 3, True, 0, 8)["players"].to_pydict()
    starts = [players["start_region"][i * 4 : (i + 1) * 4] for i in range(8)]
    assert starts[0] == starts[1] == starts[2] == starts[3]
    assert starts[4] == starts[7]
    labels = players["strategy"]
    assert labels[0:4] != labels[4:8]


@pytest.mark.slow
def test_interpreted_equals_compiled(tmp_path):
    script = textwrap.dedent(f"""
        import pyarrow as pa
        from simulate.games.evo import SPEC as GAME
        from simulate.kit.play import play
        s = GAME.setup(GAME.parameters(), 4, {MIXED!r})
        for name, table in play(s, 11, False, 0, 4).items():
            with pa.OSFile({str(tmp_path)!r} + "/" + name + ".arrow", "wb") as f:
                with pa.ipc.new_file(f, table.schema) as w:
                    w.write_table(table)
    """)
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=ROOT, timeout=600)
    compiled = play(setup(), 11, False, 0, 4)
    for name, table in compiled.items():
        interpreted = pa.ipc.open_file(str(tmp_path / f"{name}.arrow")).read_all()
        assert interpreted.equals(table), name


def test_heuristic_beats_random():
    players = play(setup("heuristic,random,random,random"), 5, True, 0, 200)["players"]
    rows = players.to_pydict()
    wins = [w for w, s in zip(rows["winner"], rows["strategy"], strict=True) if s == "heuristic"]
    assert sum(wins) / len(wins) > 0.6


def test_search_bot_plays_deterministically():
    lineup = "search[rollouts=2,candidates=3],heuristic,heuristic"
    s = setup(lineup, 3)
    a = play(s, 2, False, 0, 2)
    b = play(s, 2, False, 0, 2)
    assert a["players"].equals(b["players"]) and a["bids"].equals(b["bids"])


def test_unknown_strategy_parameter_is_refused():
    with pytest.raises(StrategyError, match="no parameter 'greed'"):
        setup("heuristic[greed=1]")


def test_replay_tells_the_game_in_words():
    text = replay_text(setup(), 4, False, 3)
    assert "game 3 of seed 4" in text and "PROVISIONAL" in text
    assert "round 1" in text and "initiative" in text and "climate" in text
    assert "places a newborn" in text and "buys" in text
    assert ("winner: seat" in text) or ("shared victory" in text)


def test_data_files_describe_the_run():
    s = setup()
    files = GAME.data_files(s)
    assert files["map.csv"].decode().startswith("region,terrain")
    assert "provisional-4" in s.describe_data()
    assert len(s.data.sha256) == 64


def test_every_card_gets_played_and_only_in_its_windows():
    from rules.evo.cards import CARDS, WINDOW_NAMES

    cards = play(setup("random"), 6, False, 0, 400)["cards"].to_pydict()
    assert set(cards["card"]) == set(range(1, 27))
    assert min(cards["round"]) >= 3
    for card, window, reaction in zip(
        cards["card"], cards["window"], cards["reaction"], strict=True
    ):
        assert reaction == (card == 16)
        if not reaction:
            assert WINDOW_NAMES.index(window) in CARDS[card - 1].windows, (card, window)


def test_tail_variant_keeps_the_same_weather_and_meteor_dice():
    lineup = "heuristic[cards=0]"
    base = play(setup(lineup), 9, False, 0, 60)["rounds"].to_pydict()
    variant = play(setup(lineup, initiative_tails="false"), 9, False, 0, 60)["rounds"]
    variant = variant.to_pydict()
    rolls = {
        (g, r): (c, m)
        for g, r, c, m in zip(
            base["game_id"], base["round"], base["climate_roll"], base["meteor_roll"], strict=True
        )
    }
    same = 0
    for g, r, c, m in zip(
        variant["game_id"],
        variant["round"],
        variant["climate_roll"],
        variant["meteor_roll"],
        strict=True,
    ):
        if (g, r) in rolls:
            assert rolls[(g, r)] == (c, m)
            same += 1
    assert same > 300
