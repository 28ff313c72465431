"""Data entry edits (rule ``edits``, ``--set deck.<entry>.<field>=<value>``) of Dino Kontra
Dino, Evolution: The Origin of Species and Dinosaur Table Battles: one entry changes and
nothing else, digests follow the data, stored CSVs round-trip, bad entries are refused in one
line naming the key, and an edited configuration plays."""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest

from rules.core.errors import RuleError
from rules.dino_kontra_dino.deck import BUILTIN as DKD_FILES
from rules.dino_kontra_dino.deck import TRAITS, deck_csv, parse_deck
from rules.dino_kontra_dino.params import DkdParameters
from rules.origin_of_species.deck import MAX_COPIES
from rules.origin_of_species.deck import parse_deck as parse_oos_deck
from rules.origin_of_species.params import OosParameters
from rules.table_battles.cards import parse_cards
from rules.table_battles.params import TableBattlesParameters
from simulate.config import RunConfig, build_config
from simulate.kit.play import play


def other(value: int, lo: int) -> int:
    """A valid value different from ``value``."""
    return lo if value != lo else lo + 1


# Dino Kontra Dino -------------------------------------------------------------------------


def test_dkd_edit_changes_exactly_one_trait():
    base = DkdParameters().load_deck()
    i, j = base.dino_names.index("Tyrannosaurus"), TRAITS.index("size")
    new = other(int(base.dino_traits[i, j]), 1)
    deck = DkdParameters().with_values({"deck.tyrannosaurus.SIZE": str(new)}).load_deck()
    diff = np.argwhere(deck.dino_traits != base.dino_traits).tolist()
    assert diff == [[i, j]]
    assert deck.dino_traits[i, j] == new
    assert deck.kernel_dinos()[i, j] == new
    assert deck.sha256 != base.sha256
    assert "1 entry changed by rule 'edits'" in deck.describe()
    again = parse_deck(deck_csv(deck), label="stored")
    assert (again.dino_traits == deck.dino_traits).all()
    assert again.dino_names == deck.dino_names
    assert deck_csv(again) == deck_csv(deck)
    assert deck.sha256 == hashlib.sha256(deck_csv(deck).encode()).hexdigest()


def test_dkd_unedited_digest_is_the_file_bytes():
    deck = DkdParameters().load_deck()
    assert deck.sha256 == hashlib.sha256(DKD_FILES["provisional"].read_bytes()).hexdigest()
    assert deck.edited({}) is deck
    assert "changed by rule" not in deck.describe()
    same = deck.dino_traits[0, 0]
    assert deck.edited({f"deck.{deck.dino_names[0]}.predation": str(same)}).sha256 == deck.sha256


def test_dkd_underscore_and_case_spelling():
    base = DkdParameters(deck="yardstick").load_deck()
    assert "Dino 1" in base.dino_names
    i = base.dino_names.index("Dino 1")
    new = other(int(base.dino_traits[i, 2]), 1)
    p = DkdParameters(deck="yardstick").with_values({"deck.dino_1.speed": str(new)})
    deck = p.load_deck()
    assert np.argwhere(deck.dino_traits != base.dino_traits).tolist() == [[i, 2]]


def test_dkd_knobs():
    deck = DkdParameters().load_deck()
    knobs = deck.knobs()
    assert len(knobs) == 4 * deck.n_dinos
    i = deck.dino_names.index("Tyrannosaurus")
    k = knobs["deck.Tyrannosaurus.size"]
    assert (k.kind, k.default, k.lo, k.hi) == ("int", deck.dino_traits[i, 1], 1, 5)
    assert k.source == "data file"
    assert "Tyrannosaurus" in k.doc and "size" in k.doc
    new = other(k.default, 1)
    edited = deck.edited({"deck.Tyrannosaurus.size": str(new)})
    assert edited.knobs()["deck.Tyrannosaurus.size"].default == new


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("deck.Tyranosaurus.size", "2", "Tyrannosaurus"),
        ("deck.Tyrannosaurus.sise", "2", "adaptability"),
        ("deck.Tyrannosaurus.size", "6", "1..5"),
        ("deck.Tyrannosaurus.size", "0", "1..5"),
        ("deck.Tyrannosaurus.size", "2.5", "1..5"),
    ],
)
def test_dkd_bad_entries(key, value, fragment):
    p = DkdParameters().with_values({key: value})
    with pytest.raises(RuleError) as err:
        p.load_deck()
    msg = str(err.value)
    assert "\n" not in msg and key in msg and fragment in msg


def test_dkd_two_spellings_of_one_trait_must_agree():
    p = DkdParameters().with_values(
        {"deck.Tyrannosaurus.size": "2", "deck.tyrannosaurus.size": "3"}
    )
    with pytest.raises(RuleError, match="same trait"):
        p.load_deck()


# Evolution: The Origin of Species ----------------------------------------------------------


def test_oos_edit_changes_exactly_one_copies():
    base = OosParameters().load_deck()
    t = base.card_ids.index("EVO-02")
    new = other(base.copies[t], 1)
    deck = OosParameters().with_values({"deck.evo-02.copies": str(new)}).load_deck()
    diff = [k for k in range(base.n_types) if deck.copies[k] != base.copies[k]]
    assert diff == [t] and deck.copies[t] == new
    assert deck.kernel_types()[2][t] == new
    assert deck.n_cards == base.n_cards - base.copies[t] + new
    assert (deck.top, deck.bottom) == (base.top, base.bottom)
    assert deck.sha256 != base.sha256
    assert "1 entry changed by rule 'edits'" in deck.describe()
    again = parse_oos_deck(deck.to_csv(), label="stored")
    assert again.copies == deck.copies and again.sha256 == deck.sha256


def test_oos_unedited_digest_is_unchanged():
    deck = OosParameters().load_deck()
    assert deck.sha256 == hashlib.sha256(deck.to_csv().encode()).hexdigest()
    assert deck.edited({}) is deck
    assert deck.edited({"deck.EVO-01.copies": str(deck.copies[0])}).sha256 == deck.sha256


def test_oos_knobs():
    deck = OosParameters().load_deck()
    knobs = deck.knobs()
    assert set(knobs) == {f"deck.{c}.copies" for c in deck.card_ids}
    k = knobs["deck.EVO-06.copies"]
    t = deck.card_ids.index("EVO-06")
    assert (k.kind, k.default, k.lo, k.hi) == ("int", deck.copies[t], 1, MAX_COPIES)
    assert "EVO-06" in k.doc


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("deck.EVO-99.copies", "2", "EVO-"),
        ("deck.EVO-02.copy", "2", "copies"),
        ("deck.EVO-02.copies", "0", f"1..{MAX_COPIES}"),
        ("deck.EVO-02.copies", str(MAX_COPIES + 1), f"1..{MAX_COPIES}"),
        ("deck.EVO-02.copies", "1.5", f"1..{MAX_COPIES}"),
    ],
)
def test_oos_bad_entries(key, value, fragment):
    p = OosParameters().with_values({key: value})
    with pytest.raises(RuleError) as err:
        p.load_deck()
    msg = str(err.value)
    assert "\n" not in msg and key in msg and fragment in msg


def test_oos_total_still_checked_with_the_players():
    deck = OosParameters().load_deck()
    t = deck.card_ids.index("EVO-06")
    assert 2 * (deck.n_cards - deck.copies[t] + MAX_COPIES) > 256, "the edit must overflow"
    p = OosParameters().with_values({"deck.EVO-06.copies": str(MAX_COPIES), "n_sets": 2})
    with pytest.raises(RuleError, match="at most"):
        p.check_players(4, p.load_deck())


# Dinosaur Table Battles ---------------------------------------------------------------------


def test_tb_edit_changes_one_field_of_every_version():
    base = TableBattlesParameters().load_cards()
    spino = [i for i, d in enumerate(base.dinos) if d.name == "Spinosaurus"]
    assert len(spino) == 2, "base and expansion version"
    new = other(base.dinos[spino[0]].break_point, 1)
    p = TableBattlesParameters().with_values({"cards.SPINOSAURUS.break_point": str(new)})
    cards = p.load_cards()
    for i, (a, b) in enumerate(zip(base.dinos, cards.dinos, strict=True)):
        want = new if i in spino else a.break_point
        assert b.break_point == want and b.draft_rating == a.draft_rating
        assert (b.name, b.set, b.cls) == (a.name, a.set, a.cls)
        assert i in spino or b.cards == a.cards
    assert cards.sha256 != base.sha256
    assert "1 entry changed by rule 'edits'" in cards.describe()
    again = parse_cards(cards.to_csv(), label="stored")
    assert [d.break_point for d in again.dinos] == [d.break_point for d in cards.dinos]
    assert again.sha256 == cards.sha256


def test_tb_underscore_name():
    base = TableBattlesParameters().load_cards()
    i = next(i for i, d in enumerate(base.dinos) if d.name == "Tyrannosaurus Rex")
    new = other(base.dinos[i].draft_rating, 0)
    p = TableBattlesParameters().with_values({"cards.Tyrannosaurus_Rex.draft_rating": new})
    cards = p.load_cards()
    assert [d.draft_rating for d in cards.dinos] == [
        new if k == i else d.draft_rating for k, d in enumerate(base.dinos)
    ]


def test_tb_edited_field_is_no_longer_known():
    base = TableBattlesParameters().load_cards()
    mark = ("draft_rating", "break_point")

    def marked(d):
        return dataclasses.replace(
            d, cards=tuple(dataclasses.replace(c, known=(*c.known, *mark)) for c in d.cards)
        )

    dinos = tuple(marked(d) for d in base.dinos)
    pool = parse_cards(dataclasses.replace(base, dinos=dinos).to_csv(), label="marked")
    i = next(i for i, d in enumerate(pool.dinos) if d.name == "Tyrannosaurus Rex")
    assert all(set(mark) <= set(c.known) for d in pool.dinos for c in d.cards)
    new = other(pool.dinos[i].draft_rating, 0)
    edited = pool.edited({"cards.tyrannosaurus rex.draft_rating": str(new)})
    for k, d in enumerate(edited.dinos):
        for c in d.cards:
            assert ("draft_rating" in c.known) == (k != i) and "break_point" in c.known


def test_tb_unedited_digest_is_unchanged():
    cards = TableBattlesParameters().load_cards()
    assert cards.sha256 == hashlib.sha256(cards.to_csv().encode()).hexdigest()
    assert cards.edited({}) is cards
    same = {f"cards.{cards.dinos[0].name}.draft_rating": str(cards.dinos[0].draft_rating)}
    assert cards.edited(same).sha256 == cards.sha256


def test_tb_knobs():
    cards = TableBattlesParameters().load_cards()
    knobs = cards.knobs()
    assert len(knobs) == 2 * len(cards.dino_names())
    rex = next(d for d in cards.dinos if d.name == "Tyrannosaurus Rex")
    r = knobs["cards.Tyrannosaurus Rex.draft_rating"]
    b = knobs["cards.Tyrannosaurus Rex.break_point"]
    assert (r.kind, r.default, r.lo, r.hi) == ("int", rex.draft_rating, 0, 99)
    assert (b.kind, b.default, b.lo, b.hi) == ("int", rex.break_point, 1, 20)


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("cards.Tyranosaurus Rex.draft_rating", "2", "Tyrannosaurus Rex"),
        ("cards.Tyrannosaurus Rex.size", "2", "break_point"),
        ("cards.Tyrannosaurus Rex.draft_rating", "100", "0..99"),
        ("cards.Tyrannosaurus Rex.draft_rating", "-1", "0..99"),
        ("cards.Tyrannosaurus Rex.break_point", "0", "1..20"),
        ("cards.Tyrannosaurus Rex.break_point", "21", "1..20"),
    ],
)
def test_tb_bad_entries(key, value, fragment):
    p = TableBattlesParameters().with_values({key: value})
    with pytest.raises(RuleError) as err:
        p.load_cards()
    msg = str(err.value)
    assert "\n" not in msg and key in msg and fragment in msg


# An edited configuration plays ---------------------------------------------------------------

PLAYS = [
    ("dino-kontra-dino", 4, "deck.Tyrannosaurus.size=1", "deck.csv", parse_deck),
    ("origin-of-species", 4, "deck.EVO-06.copies=3", "deck.csv", parse_oos_deck),
    ("table-battles", 2, "cards.Tyrannosaurus_Rex.draft_rating=1", "cards.csv", parse_cards),
]


def _config(game, players, assignments):
    return build_config(
        game,
        n_players=players,
        strategies=None,
        rotate=False,
        seed=1,
        games=50,
        chunk_size=None,
        assignments=assignments,
    )


def _value(data, key):
    """A data entry's value in ``data``, found by its knob (any accepted spelling)."""
    knobs = {k.lower().replace(" ", "_"): v for k, v in data.knobs().items()}
    return knobs[key.lower().replace(" ", "_")].default


@pytest.mark.parametrize(("game", "players", "assignment", "stored", "parse"), PLAYS)
def test_edited_configuration_plays(game, players, assignment, stored, parse):
    key, _, value = assignment.partition("=")
    base_cfg, base = _config(game, players, [])
    cfg, setup = _config(game, players, [assignment])
    assert _value(base.data, key) != int(value), "the edit must change the data"
    assert _value(setup.data, key) == int(value)
    assert cfg.params["edits"] == assignment
    assert cfg.data_digest != base_cfg.data_digest
    for c in (cfg, base_cfg):  # the manifest's configuration rebuilds the same data
        assert RunConfig.from_dict(c.to_dict()).setup().data.sha256 == c.data_digest
    again = parse(setup.game.data_files(setup)[stored].decode(), label="stored")
    assert _value(again, key) == int(value)
    tables = play(setup, 1, False, 0, 50)
    assert tables["games"].num_rows == 50
