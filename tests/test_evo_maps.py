"""EVO maps: the provisional files are the generator's output; designer maps are validated."""

from __future__ import annotations

import pytest

from rules.core.errors import DataFileError, RuleError
from rules.evo.mapgen import HALVES, LAYOUTS, expected_files
from rules.evo.maps import BUILTIN, load_map, map_csv, parse_map
from rules.evo.params import EvoParameters

GOOD = """region,terrain,coast,start,neighbours
1,desert,1,1,2 3
2,plains,1,0,1 3 4
3,hills,0,1,1 2 4
4,mountains,1,1,2 3
"""


def test_map_files_are_the_generator_output():
    for path, text in expected_files().items():
        assert path.read_text(encoding="utf-8") == text, f"run python -m rules.evo.mapgen ({path})"


@pytest.mark.parametrize(
    ("name", "players"),
    [("provisional-3", 3), ("provisional-4", 4), ("provisional-4-mm", 4), ("provisional-5", 5)],
)
def test_provisional_maps_follow_the_spec(name, players):
    m = load_map(name, players)
    halves = LAYOUTS[name]
    assert m.n_regions == sum(HALVES[h][0] for h in halves)  # 5 players: 70 regions
    assert m.n_starts == players
    assert m.provisional and "PROVISIONAL" in m.describe()
    assert all(m.terrain[r] == 0 and m.coast[r] for r in range(m.n_regions) if m.start[r])
    assert {int(t) for t in m.terrain} == {0, 1, 2, 3}


def test_provisional_picks_the_map_for_the_player_count():
    assert load_map("provisional", 5).label == "provisional-5"
    assert set(BUILTIN) == set(LAYOUTS)


def test_a_designer_map_loads_and_round_trips(tmp_path):
    path = tmp_path / "island.csv"
    path.write_text(GOOD)
    m = load_map(str(path), 3)
    assert m.n_regions == 4 and not m.provisional
    assert parse_map(map_csv(m), label="x").neighbours == m.neighbours
    p = EvoParameters().with_values({"map": str(path)})
    assert p.load_map(3).sha256 == m.sha256


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("region,terrain,coast,start\n1,desert,1,1\n", "missing column(s) neighbours"),
        (GOOD.replace("2,plains", "2,swamp"), "line 3: terrain must be one of"),
        (GOOD.replace("1,desert,1,1,2 3", "1,desert,1,1,2 3 4"), "does not list 1"),
        (GOOD.replace("2 3\n2,", "2 9\n2,"), "unknown neighbour 9"),
        (GOOD.replace("4,mountains", "5,mountains"), "numbered 1..4 without gaps"),
        (GOOD.replace("1,desert,1,1", "1,desert,maybe,1"), "coast must be 0 or 1"),
        (GOOD.replace("1 3 4", "1 x"), "neighbours must be region numbers"),
        (GOOD + "5,desert,1,0,\n", "not connected (region 5"),
        (GOOD.replace("1,desert,1,1,2 3", "1,desert,1,1,1 2 3"), "neighbours itself"),
        ("region,terrain,coast,start,neighbours\n", "no regions"),
    ],
)
def test_malformed_map_files_give_one_line_errors(tmp_path, text, words):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DataFileError) as err:
        load_map(str(path), 3)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_map_start_stars_must_match_the_players(tmp_path):
    path = tmp_path / "island.csv"
    path.write_text(GOOD)
    with pytest.raises(RuleError, match="3 start regions; 4 players"):
        load_map(str(path), 4)


def test_missing_map_file():
    with pytest.raises(DataFileError, match="neither a built-in map"):
        load_map("no/such/map.csv", 4)
