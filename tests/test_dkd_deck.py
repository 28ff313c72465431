"""Deck files: the built-in decks, their provenance, and clear errors for bad designer decks."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.core.errors import DataFileError, RuleError
from rules.dino_kontra_dino.deck import BUILTIN, deck_csv, load_deck, parse_deck
from rules.dino_kontra_dino.params import DkdParameters
from rules.dino_kontra_dino.provisional import provisional_rows, render, yardstick_rows


def test_builtin_decks_are_what_the_generator_makes():
    assert BUILTIN["provisional"].read_text() == render(provisional_rows())
    assert BUILTIN["yardstick"].read_text() == render(yardstick_rows())


def test_provisional_deck_shape_and_rulebook_anchors():
    d = load_deck("provisional")
    assert (d.n_dinos, d.n_events) == (45, 30)
    assert d.provisional
    assert "PROVISIONAL" in d.describe()
    sums = d.dino_traits.sum(axis=1)
    assert sums.min() >= 10 and sums.max() <= 14
    one = (d.event_needs[:, 1] == 4).sum()
    assert one == 20
    for trait in range(4):
        assert ((d.event_needs[:, 0] == trait) & (d.event_needs[:, 1] == 4)).sum() == 5
    pairs = {tuple(sorted(p)) for p in d.event_needs[20:].tolist()}
    assert len(pairs) == 6, "every pair of traits appears"
    t = {n: d.dino_traits[i].tolist() for i, n in enumerate(d.dino_names)}
    assert t["Brachylophosaurus"][2] == 4 and t["Coelurus"][2] == 5
    assert (t["Dilophosaurus"][0], t["Dilophosaurus"][3]) == (4, 2)
    assert (t["Psittacosaurus"][0], t["Psittacosaurus"][3]) == (2, 4)


def test_deck_round_trips_through_csv():
    d = load_deck("provisional")
    again = parse_deck(deck_csv(d), label="copy")
    assert again.dino_names == d.dino_names
    assert (again.dino_traits == d.dino_traits).all()
    assert (again.event_needs == d.event_needs).all()


GOOD = "kind,id,name,predation,size,speed,adaptability,needs,source\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind,id,name,predation,size,speed,needs\n", "missing column(s) adaptability"),
        (GOOD + "dino,1,Rex,6,1,1,1,,x\nevent,1,Fire,,,,,speed,x\n", "predation must be 1-5"),
        (GOOD + "dino,1,Rex,0,1,1,1,,x\nevent,1,Fire,,,,,speed,x\n", "predation must be 1-5"),
        (GOOD + "dino,1,Rex,a,1,1,1,,x\nevent,1,Fire,,,,,speed,x\n", "predation must be 1-5"),
        (GOOD + "dino,1,Rex,1,1,1,1,,x\nevent,1,Fire,,,,,heat,x\n", "needs must be one or two"),
        (GOOD + "dino,1,Rex,1,1,1,1,,x\nevent,1,Fire,,,,,speed+speed,x\n", "names a trait twice"),
        (GOOD + "dino,1,R,1,1,1,1,,x\ndino,3,S,1,1,1,1,,x\nevent,1,F,,,,,size,x\n", "without gaps"),
        (GOOD + "dino,1,R,1,1,1,1,,x\ndino,1,S,1,1,1,1,,x\nevent,1,F,,,,,size,x\n", "duplicate"),
        (GOOD + "dino,1,Rex,1,1,1,1,,x\n", "no event cards"),
        (GOOD + "card,1,Rex,1,1,1,1,,x\n", "kind must be"),
        (GOOD + "dino,x,Rex,1,1,1,1,,x\n", "id must be an integer"),
        (GOOD + "dino,1," + "R" * 200_000 + ",1,1,1,1,,x\n", "line 2 is not CSV (field larger"),
        ("\r\x00", "missing column(s)"),  # a lone carriage return ends a line, as in a file
        (GOOD.replace("\n", "\r\n") + "dino,x,Rex,1,1,1,1,,x\r\n", "id must be an integer"),
    ],
)
def test_malformed_deck_is_refused_with_a_line_naming_the_problem(text, message):
    with pytest.raises(DataFileError, match="deck") as exc:
        parse_deck(text, label="bad.csv")
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def _small_deck(tmp_path: Path, dinos: int, events: int) -> str:
    rows = [GOOD.strip()]
    rows += [f"dino,{i},D{i},{1 + i % 5},2,3,4,,mine" for i in range(1, dinos + 1)]
    rows += [f"event,{i},E{i},,,,,size,mine" for i in range(1, events + 1)]
    path = tmp_path / "mine.csv"
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_deck_too_small_for_the_players_is_refused(tmp_path):
    path = _small_deck(tmp_path, 11, 30)
    p = DkdParameters().with_values({"deck": path})
    with pytest.raises(RuleError, match="11 dinosaurs; 4 hands of 3 need at least 12"):
        p.check_players(4, p.load_deck())


def test_deck_with_too_few_events_for_the_rounds_is_refused(tmp_path):
    path = _small_deck(tmp_path, 45, 10)
    p = DkdParameters().with_values({"deck": path})
    with pytest.raises(RuleError, match="10 events; 4 players with hands of 3 play 11 rounds"):
        p.check_players(4, p.load_deck())


def test_a_designer_deck_is_used_and_described(tmp_path):
    path = _small_deck(tmp_path, 40, 30)
    p = DkdParameters().with_values({"deck": path})
    d = p.load_deck()
    assert d.n_dinos == 40 and not d.provisional
    assert "designer-supplied" in d.describe() and "mine.csv" in d.describe()
    assert Path(p.deck).is_absolute()


def test_unknown_deck_name():
    with pytest.raises(DataFileError, match="neither a built-in deck"):
        load_deck("nope")
