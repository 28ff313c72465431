"""Dinosaur Table Battles rules: the seed's setup facts, every template's arithmetic, the
reactions, the break point, every coded passive, the one-marker rules and every end condition.

States are built by hand: :func:`battle` lays out two teams (first-game setup with chosen
teams), :func:`put` puts dice on a card, :func:`attack` makes an attack and resolves it with
the given reaction and break-point choices. Templates are checked on a small card file of
plain dinos (:func:`plain_pool`) so no provisional passive interferes.
"""

from __future__ import annotations

import numpy as np
import pytest

from rules.core.errors import DataFileError, RuleError
from rules.core.rng import seed_streams
from rules.table_battles.cards import load_cards, parse_cards
from rules.table_battles.constants import (
    ATTACK,
    BREAK,
    D_PLACE,
    D_REMOVE_OPEN,
    D_REMOVE_SECRET,
    DRAFT,
    END_BOTH_ONE,
    END_MARKERS,
    END_ONE_DINO,
    END_TURN_CAP,
    GAME_OVER,
    PASS,
    PLACE,
    REACT,
    ROUND_DONE,
)
from rules.table_battles.engine import (
    ST_TURN_END,
    ST_TURN_START,
    actions,
    advance,
    apply,
    base_hits,
    deal,
    draft_ok,
    pack,
    pack_place,
    place_ok,
    reset_turn,
    setup_battle,
    target_ok,
)
from rules.table_battles.params import TableBattlesParameters
from rules.table_battles.state import EVENTS, make_table, new_states

CARDS = load_cards("provisional")


def params(**rules):
    return TableBattlesParameters().with_values(rules) if rules else TableBattlesParameters()


def battle(team0, team1, pool=None, **rules):
    """(table, state) with the two teams laid out, seat 0 to move, no dice placed."""
    rules = {
        "setup": "first_game",
        "first_game_teams": "|".join(team0) + ";" + "|".join(team1),
        **rules,
    }
    p = params(**rules)
    pool = pool or CARDS
    tb = make_table(p, pool)[0]
    st = new_states(1)[0]
    with np.errstate(over="ignore"):
        seed_streams(st.rng[:3], np.uint64(99), np.uint64(99))
        deal(tb, st)
    setup_battle(tb, st)
    st.active = 0
    st.step = ST_TURN_START
    return tb, st


def slot_of(tb, st, s: int, name: str, card: int = 1) -> int:
    """The card slot of ``name``'s action card ``card`` on seat ``s``'s side."""
    return int(st.team_slot[s, team_of(st, s, tb, name)]) + card - 1


_NAMES: dict[int, list[str]] = {}


def _name(tb, d: int) -> str:
    return _NAMES[int(tb.n_dinos)][d]


def team_of(st, s: int, tb, name: str) -> int:
    for t in range(st.n_team[s]):
        if _name(tb, st.team[s, t]) == name:
            return t
    raise KeyError(name)


def put(tb, st, s: int, name: str, card: int, face: int, count: int) -> None:
    slot = slot_of(tb, st, s, name, card)
    st.dice[s, slot, face] += count
    st.dice[s, slot, 0] += count
    st.free[s] -= count


def attack(tb, st, name: str, card: int, target: str, react=None, flips=(), s: int = 0):
    """Seat ``s`` attacks; ``react``: the reacting (dino, card) or None for the first legal
    reaction; ``flips``: break-point answers in order ((dino, card) to flip, or None to pay).
    Runs to the dice phase or the end; returns the kinds of decisions met."""
    st.active = s
    reset_turn(st)
    st.kind = ATTACK
    st.actor = s
    apply(tb, st, pack(slot_of(tb, st, s, name, card), team_of(st, 1 - s, tb, target)))
    seen = []
    flips = list(flips)
    while True:
        kind = advance(tb, st)
        if kind in (PLACE, GAME_OVER):
            return seen
        if kind == ROUND_DONE:
            continue
        seen.append(kind)
        if kind == REACT:
            if react is None:
                a = actions(tb, st, 0)
            elif react == "none":
                a = PASS
            else:
                a = slot_of(tb, st, int(st.actor), *react)
            apply(tb, st, a)
        elif kind == BREAK:
            f = flips.pop(0) if flips else None
            apply(tb, st, PASS if f is None else slot_of(tb, st, int(st.actor), *f))
        else:
            raise AssertionError(f"unexpected decision {kind}")


def plain_pool(tmp_path, rows):
    """A card file of plain dinos: rows of (name, size, bp, class, cards) with cards a list of
    (faces, bracketed, attack, reaction) or a passive id."""
    lines = [
        "dino,set,class,size,break_point,draft_rating,card,kind,faces,bracketed,attack,"
        "attack_pair,reaction,reaction_pair,passive,known,source"
    ]
    for name, size, bp, cls, cards in rows:
        for k, c in enumerate(cards, start=1):
            if isinstance(c, str):
                lines.append(f"{name},base,{cls},{size},{bp},5,{k},passive,,,,,,,{c},,test")
            else:
                faces, br, atk, rea = c
                lines.append(
                    f"{name},base,{cls},{size},{bp},5,{k},dice,{faces},{br},{atk},no,{rea},no,,,test"
                )
    path = tmp_path / "cards.csv"
    path.write_text("\n".join(lines) + "\n")
    pool = load_cards(str(path))
    _NAMES[len(pool.dinos)] = pool.names()
    return pool, str(path)


_NAMES[len(CARDS.dinos)] = CARDS.names()
ANY = "1|2|3|4|5|6"


def duel(tmp_path, atk, rea="", bp=9, extra=(), cls=("none", "none", "none"), **rules):
    """Attacker A (small: one dice card with ``atk``) against target T and helper B (with
    reaction ``rea``); ``extra`` adds dinos to side 1; ``rules`` are parameter values.
    Returns (tb, st)."""
    counter = rea.startswith("CTR")
    plain = (ANY, "no", "ATK_FLAT1", "")
    rows = [
        ("A", "small", bp, cls[0], [(ANY, "no", atk, ""), plain]),
        ("T", "small", bp, cls[1], [(ANY, "no", "ATK_FLAT1", rea if counter else ""), plain]),
        ("B", "small", bp, cls[2], [(ANY, "no", "ATK_FLAT1", "" if counter else rea), plain]),
        ("C", "small", bp, "none", [plain, plain]),
        *extra,
    ]
    pool, path = plain_pool(tmp_path, rows)
    return battle(["A", "C"], ["T", "B", *[e[0] for e in extra]], pool, cards=path, **rules)


# ---------------------------------------------------------------- setup (seed)


def test_first_game_teams_get_12_and_13_markers_and_fewer_markers_start():
    _tb, st = battle(
        ["Stegosaurus", "Triceratops", "Utahraptor", "Velociraptors"],
        ["Pteranodon", "Spinosaurus", "Tyrannosaurus Rex"],
    )
    assert list(st.markers0) == [12, 13]
    assert list(st.cards0) == [8, 8]
    assert st.first_seat == 0 and list(st.first) == [1, 0]
    assert list(st.free) == [6, 6]  # six dice each


def test_first_game_setup_parameter_deals_the_seed_teams():
    p = params(setup="first_game")
    tb = make_table(p, CARDS)[0]
    st = new_states(1)[0]
    with np.errstate(over="ignore"):
        seed_streams(st.rng[:3], np.uint64(1), np.uint64(1))
        deal(tb, st)
        kind = advance(tb, st)
    names = [[CARDS.dinos[d].name for d in st.team[s, : st.n_team[s]]] for s in range(2)]
    assert names == [
        ["Stegosaurus", "Triceratops", "Utahraptor", "Velociraptors"],
        ["Pteranodon", "Spinosaurus", "Tyrannosaurus Rex"],
    ]
    assert kind == PLACE and st.actor == 0  # no dice yet: the first player goes to its dice


def test_marker_bonuses_fewer_dinos_fewer_cards_and_the_t_rex():
    _tb, st = battle(
        ["Stegosaurus", "Triceratops", "Utahraptor"], ["Tyrannosaurus Rex", "Brachiosaurus"]
    )
    # seat 0: 3 dinos, 6 cards (fewer) -> 9 + 2; seat 1: 2 dinos (fewer), 6 cards, T-Rex -> 6+2+2
    assert list(st.cards0) == [6, 6]
    assert list(st.markers0) == [9, 10]
    _tb, st = battle(["Stegosaurus", "Triceratops"], ["Brachiosaurus", "Spinosaurus"])
    assert list(st.markers0) == [6 + 2, 6]  # fewer action cards (4 < 6)


def test_tie_goes_to_the_alphabetically_first_dino():
    _tb, st = battle(["Utahraptor", "Velociraptors"], ["Stegosaurus", "Triceratops"])
    assert list(st.markers0) == [6, 6] and st.first_seat == 1  # Stegosaurus comes first
    _tb, st = battle(["Stegosaurus", "Velociraptors"], ["Utahraptor", "Triceratops"])
    assert st.first_seat == 0


def test_draft_deals_five_removes_secretly_places_then_place_or_remove_with_passing():
    p = params()
    tb = make_table(p, CARDS)[0]
    st = new_states(1)[0]
    events = []
    hands0 = None
    with np.errstate(over="ignore"):
        seed_streams(st.rng[:3], np.uint64(7), np.uint64(7))
        deal(tb, st)
        hands0 = [set(int(x) for x in st.hand[s, :5]) for s in range(2)]
        assert list(st.hand_len) == [5, 5]
        while True:
            kind = advance(tb, st)
            events += [e for e in EVENTS.pending(st) if e.kind == "draft"]
            st.n_ev = 0
            if kind != DRAFT:
                break
            assert st.actor == (0 if not st.has_pend[0] else 1)
            apply(tb, st, actions(tb, st, actions(tb, st, -1) - 1))  # last legal action
    assert len(events) == 10
    for s in range(2):
        mine = [e for e in events if e.seat == s]
        assert [e.pick for e in mine] == [0, 1, 2, 3, 4]
        assert mine[0].action == D_REMOVE_SECRET and mine[1].action == D_PLACE
        assert mine[0].dino in hands0[s] and mine[1].dino in hands0[s]
        assert mine[2].dino in hands0[1 - s]  # hands were passed
        assert mine[3].dino in hands0[s] and mine[4].dino in hands0[1 - s]
        assert all(e.draft_rating == CARDS.dinos[e.dino].draft_rating for e in mine)


def test_draft_cap_forbids_a_ninth_action_card():
    tb = make_table(params(), CARDS)[0]
    st = new_states(1)[0]
    big = [i for i, d in enumerate(CARDS.dinos) if d.large and i in CARDS.pool(True)]
    small = [i for i, d in enumerate(CARDS.dinos) if not d.large and i in CARDS.pool(True)]
    st.team[0, :2] = big[:2]
    st.n_team[0] = 2  # 6 cards
    st.hand[0, :2] = [big[2], small[0]]
    st.hand_len[0] = 2
    st.dstep = 2
    assert not draft_ok(tb, st, 0, big[2], D_PLACE)  # 6 + 3 > 8
    assert draft_ok(tb, st, 0, small[0], D_PLACE)  # 6 + 2 = 8
    assert draft_ok(tb, st, 0, big[2], D_REMOVE_OPEN)
    st.dstep = 1
    assert not draft_ok(tb, st, 0, big[2], D_REMOVE_OPEN)  # the first placement is compulsory


# ---------------------------------------------------------------- dice areas


def test_dice_area_faces_same_face_per_turn_brackets_and_pairs():
    tb, st = battle(["Tyrannosaurus Rex", "Pteranodon"], ["Stegosaurus", "Triceratops"])
    st.rolled[:] = [0, 0, 0, 2, 1, 2, 1]
    trex1 = slot_of(tb, st, 0, "Tyrannosaurus Rex", 1)  # [5][6]
    trex2 = slot_of(tb, st, 0, "Tyrannosaurus Rex", 2)  # 3|4
    ptera = slot_of(tb, st, 0, "Pteranodon", 1)  # pair
    assert place_ok(tb, st, trex1, 5, 1) and not place_ok(tb, st, trex1, 5, 2)  # bracketed
    assert not place_ok(tb, st, trex1, 4, 1)  # not an accepted face
    assert place_ok(tb, st, trex2, 3, 2) and not place_ok(tb, st, trex2, 3, 3)  # only 2 rolled
    assert place_ok(tb, st, ptera, 3, 2) and not place_ok(tb, st, ptera, 4, 1)  # two equal dice
    assert not place_ok(tb, st, ptera, 4, 2)  # only one 4 rolled
    passive = slot_of(tb, st, 0, "Tyrannosaurus Rex", 3)
    assert not place_ok(tb, st, passive, 3, 1)  # a passive card takes no dice
    # one placement is one face: actions list (card, face, count) triples only
    st.kind, st.actor = PLACE, 0
    moves = [actions(tb, st, k) for k in range(1, actions(tb, st, -1))]
    assert pack_place(trex2, 3, 2) in moves and all((a & 0xFF) >= 1 for a in moves)


def test_two_dinos_at_most_one_card_each():
    tb, st = battle(
        ["Tyrannosaurus Rex", "Pteranodon", "Stegosaurus"], ["Triceratops", "Utahraptor"]
    )
    st.rolled[:] = [0, 2, 0, 2, 2, 0, 0]
    st.kind, st.actor = PLACE, 0
    apply(tb, st, pack_place(slot_of(tb, st, 0, "Tyrannosaurus Rex", 2), 3, 2))
    assert not place_ok(tb, st, slot_of(tb, st, 0, "Tyrannosaurus Rex", 2), 4, 1)  # same dino
    assert place_ok(tb, st, slot_of(tb, st, 0, "Stegosaurus", 1), 1, 2)
    apply_ok = place_ok(tb, st, slot_of(tb, st, 0, "Pteranodon", 1), 4, 2)
    st.kind = PLACE
    apply(tb, st, pack_place(slot_of(tb, st, 0, "Stegosaurus", 1), 1, 2))
    assert apply_ok and st.n_placed == 2
    assert not place_ok(tb, st, slot_of(tb, st, 0, "Pteranodon", 1), 4, 2)  # a third dino


def test_pair_area_takes_a_second_pair_only_with_pair_stack():
    for stack in (True, False):
        tb, st = battle(
            ["Pteranodon", "Stegosaurus"], ["Triceratops", "Utahraptor"], pair_stack=stack
        )
        put(tb, st, 0, "Pteranodon", 1, 2, 2)
        st.rolled[:] = [0, 0, 0, 2, 0, 0, 0]
        assert place_ok(tb, st, slot_of(tb, st, 0, "Pteranodon", 1), 3, 2) == stack


# ---------------------------------------------------------------- attack templates


@pytest.mark.parametrize(
    ("atk", "dice", "hits", "self_hit"),
    [
        ("ATK_FLAT1", 3, 1, 0),
        ("ATK_PER_DIE", 3, 3, 1),
        ("ATK_PER_DIE_PLUS1", 3, 4, 1),
        ("ATK_PER_DIE_MINUS1", 3, 2, 1),
        ("ATK_PER_DIE_MINUS1", 1, 0, 1),
    ],
)
def test_attack_templates(tmp_path, atk, dice, hits, self_hit):
    tb, st = duel(tmp_path, atk)
    put(tb, st, 0, "A", 1, 6, dice)
    m0, m1 = int(st.markers[0]), int(st.markers[1])
    attack(tb, st, "A", 1, "T", react="none")
    assert st.hits == hits and st.markers[1] == m1 - hits
    assert st.self_hits == self_hit and st.markers[0] == m0 - self_hit
    assert st.free[0] == 6  # the attack's dice go back to the pool
    assert base_hits(tb.c_attack[st.slot_card[0, 0]], dice) == hits


def test_zero_hit_attack_triggers_no_reaction(tmp_path):
    tb, st = duel(tmp_path, "ATK_PER_DIE_MINUS1", "BLK")
    put(tb, st, 0, "A", 1, 6, 1)
    put(tb, st, 1, "B", 1, 6, 1)
    assert attack(tb, st, "A", 1, "T") == []
    assert st.r_slot == -1 and st.skip[1] == 0 and st.dice[1, slot_of(tb, st, 1, "B"), 0] == 1


@pytest.mark.parametrize(
    ("rea", "rdice", "hits"),
    [
        ("ABS_ONLY1", 2, 1),
        ("ABS_MINUS1", 2, 3),
        ("ABS_MINUS_DICE", 3, 1),
        ("ABS_FULL", 1, 4),
        ("ABS_MINUS_DICE", 6, 0),
    ],
)
def test_absorb_templates(tmp_path, rea, rdice, hits):
    tb, st = duel(tmp_path, "ATK_PER_DIE", rea)
    put(tb, st, 0, "A", 1, 6, 4)
    put(tb, st, 1, "B", 1, 5, rdice)
    m1 = int(st.markers[1])
    assert attack(tb, st, "A", 1, "T") == [REACT]
    assert st.h_team == team_of(st, 1, tb, "B")  # the absorbing dino takes the hits
    assert st.hits == hits and st.markers[1] == m1 - hits
    assert st.skip[1] == 1 and st.dice[1, slot_of(tb, st, 1, "B"), 0] == 0


@pytest.mark.parametrize(
    ("rea", "rdice", "hits", "counter"),
    [
        ("CTR_1_NORMAL", 2, 4, 1),
        ("CTR_PER_DIE_NORMAL", 3, 4, 3),
        ("CTR_1_MINUS_DICE", 3, 1, 1),
        ("CTR_1_MINUS1", 2, 3, 1),
    ],
)
def test_counter_templates(tmp_path, rea, rdice, hits, counter):
    tb, st = duel(tmp_path, "ATK_PER_DIE", rea)
    put(tb, st, 0, "A", 1, 6, 4)
    put(tb, st, 1, "T", 1, 5, rdice)
    m0, m1 = int(st.markers[0]), int(st.markers[1])
    assert attack(tb, st, "A", 1, "T") == [REACT]
    assert st.hits == hits and st.counter == counter and st.markers[1] == m1 - hits
    assert st.markers[0] == m0 - counter - 1  # counter hits and "1 self"


def test_block_cancels_the_attack_and_self_hit_is_a_parameter(tmp_path):
    """The seed: a Block "annulliert" the attack, "Keine Seite erleidet Treffer": by default
    the attacker does not pay its "1 selbst"; ``self_hit_when_blocked=true`` makes it pay."""
    for rules, paid in (({}, 0), ({"self_hit_when_blocked": True}, 1)):
        tb, st = duel(tmp_path, "ATK_PER_DIE", "BLK", **rules)
        put(tb, st, 0, "A", 1, 6, 3)
        put(tb, st, 1, "B", 1, 5, 1)
        m0, m1 = int(st.markers[0]), int(st.markers[1])
        assert attack(tb, st, "A", 1, "T") == [REACT]
        assert st.markers[1] == m1 and st.hits == 0 and st.h_team == -1
        assert st.self_hits == paid and st.markers[0] == m0 - paid


def test_reaction_is_mandatory_and_only_others_absorb_or_block(tmp_path):
    tb, st = duel(tmp_path, "ATK_PER_DIE", "ABS_FULL")
    put(tb, st, 0, "A", 1, 6, 2)
    put(tb, st, 1, "B", 1, 5, 1)
    st.active = 0
    reset_turn(st)
    st.kind, st.actor = ATTACK, 0
    apply(tb, st, pack(slot_of(tb, st, 0, "A"), team_of(st, 1, tb, "T")))
    assert st.kind == REACT and actions(tb, st, -1) == 1 and actions(tb, st, 0) >= 0  # no "no"
    tb, st = duel(tmp_path, "ATK_PER_DIE", "ABS_FULL")
    put(tb, st, 0, "A", 1, 6, 2)
    put(tb, st, 1, "B", 1, 5, 1)
    assert attack(tb, st, "A", 1, "B") == []  # B cannot absorb an attack on itself


def test_reacting_skips_the_next_attack_phase(tmp_path):
    tb, st = duel(tmp_path, "ATK_PER_DIE", "ABS_FULL")
    put(tb, st, 0, "A", 1, 6, 2)
    put(tb, st, 1, "B", 1, 5, 1)
    put(tb, st, 1, "T", 2, 3, 2)  # T could attack next turn
    attack(tb, st, "A", 1, "T")
    st.active = 1
    st.kind = 0
    st.step = ST_TURN_START
    assert advance(tb, st) == PLACE and st.skip[1] == 0  # straight to the dice phase


# ---------------------------------------------------------------- break point, one marker


def test_break_point_flip_removes_no_markers_and_last_card_removes_the_dino(tmp_path):
    tb, st = duel(tmp_path, "ATK_PER_DIE", "", bp=3)
    put(tb, st, 0, "A", 1, 6, 3)
    m1 = int(st.markers[1])
    assert attack(tb, st, "A", 1, "T", react="none", flips=[("T", 1)]) == [BREAK]
    assert st.markers[1] == m1 and st.resolved == 1 and st.up[1, slot_of(tb, st, 1, "T", 1)] == 0
    put(tb, st, 0, "A", 1, 6, 3)
    attack(tb, st, "A", 1, "T", react="none", flips=[("T", 2)])
    assert st.alive[1, team_of(st, 1, tb, "T")] == 0 and st.n_alive[1] == 1
    assert st.over and st.end_reason == END_ONE_DINO and st.winner == 0


def test_below_break_point_markers_are_removed_without_a_choice(tmp_path):
    tb, st = duel(tmp_path, "ATK_PER_DIE", "", bp=4)
    put(tb, st, 0, "A", 1, 6, 3)
    assert attack(tb, st, "A", 1, "T", react="none") == []
    assert st.resolved == 0


def test_one_marker_left_ignores_self_hits_but_not_counters(tmp_path):
    tb, st = duel(tmp_path, "ATK_PER_DIE", "CTR_1_NORMAL", bp=9)
    st.markers[0] = 1
    st.markers[1] = 9
    put(tb, st, 0, "A", 1, 6, 2)
    attack(tb, st, "A", 1, "T", react="none")
    assert st.self_hits == 0 and st.markers[0] == 1
    put(tb, st, 0, "A", 1, 6, 2)
    put(tb, st, 1, "T", 1, 6, 1)
    attack(tb, st, "A", 1, "T")
    assert st.counter == 1 and st.markers[0] == 0


@pytest.mark.parametrize(("at", "paid"), [("attack", 1), ("self_hit", 0)])
def test_one_marker_rule_is_judged_when_the_attack_is_made(tmp_path, at, paid):
    """The seed: "Wenn ein Spieler nur noch einen Treffer-Marker besitzt: Wenn seine
    Dinosaurier angreifen, ignorieren sie 'selbst'-Treffer". A player who attacks with two
    markers is not at one marker, so a Counter that takes him to one does not spare his
    "1 selbst" (default ``one_marker_self_at=attack``); judged when the self hit is due
    (``self_hit``), it does."""
    tb, st = duel(tmp_path, "ATK_PER_DIE", "CTR_1_NORMAL", bp=9, one_marker_self_at=at)
    st.markers[0] = 2
    put(tb, st, 0, "A", 1, 6, 2)
    put(tb, st, 1, "T", 1, 6, 1)
    assert attack(tb, st, "A", 1, "T") == [REACT]
    assert st.counter == 1 and st.self_hits == paid and st.markers[0] == 1 - paid


@pytest.mark.parametrize(("at", "paid"), [("attack", 0), ("self_hit", 1)])
def test_one_marker_rule_holds_for_an_attack_made_at_one_marker(at, paid):
    """The other way round: Velociraptors attack at one marker and steal one back (Egg
    Thieves) before the self hit is due; the attack was made at one marker, so by default its
    "1 selbst" is ignored."""
    teams = ["Velociraptors", "Stegosaurus"], ["Triceratops", "Utahraptor"]
    tb, st = battle(*teams, one_marker_self_at=at)
    st.markers[0] = 1
    put(tb, st, 0, "Velociraptors", 1, 2, 3)
    attack(tb, st, "Velociraptors", 1, "Utahraptor", react="none")
    assert st.hits == 2 and st.stolen == 1
    assert st.self_hits == paid and st.markers[0] == 2 - paid


def test_one_marker_left_may_flip_below_the_break_point(tmp_path):
    tb, st = duel(tmp_path, "ATK_PER_DIE", "", bp=9)
    st.markers[1] = 1
    put(tb, st, 0, "A", 1, 6, 1)
    assert attack(tb, st, "A", 1, "T", react="none", flips=[("T", 1)]) == [BREAK]
    assert st.markers[1] == 1 and not st.over


# ---------------------------------------------------------------- the end


def test_no_markers_left_wins(tmp_path):
    tb, st = duel(tmp_path, "ATK_PER_DIE", "", bp=9)
    st.markers[1] = 2
    put(tb, st, 0, "A", 1, 6, 3)
    attack(tb, st, "A", 1, "T", react="none")
    assert st.over and st.end_reason == END_MARKERS and st.winner == 0 and st.markers[1] == 0


def test_both_at_one_marker_most_face_up_cards_then_the_second_player(tmp_path):
    tb, st = duel(tmp_path, "ATK_PER_DIE", "", bp=9)
    st.markers[0], st.markers[1] = 2, 2
    put(tb, st, 0, "A", 1, 6, 1)
    attack(tb, st, "A", 1, "T", react="none")  # 1 hit and 1 self: both at one
    assert st.over and st.end_reason == END_BOTH_ONE
    assert st.winner == 1 - st.first_seat  # 4 face-up cards each: the second player wins
    tb, st = duel(tmp_path, "ATK_PER_DIE", "", bp=9)
    st.markers[0], st.markers[1] = 2, 2
    st.up[1, 3] = 0  # side 1 has a flipped card
    st.team_up[1, 1] -= 1
    put(tb, st, 0, "A", 1, 6, 1)
    attack(tb, st, "A", 1, "T", react="none")
    assert st.winner == 0


def test_own_last_marker_loses_at_the_opponents_turn(tmp_path):
    tb, st = duel(tmp_path, "ATK_PER_DIE", "CTR_PER_DIE_NORMAL", bp=9)
    st.markers[0], st.markers[1] = 3, 9
    put(tb, st, 0, "A", 1, 6, 1)
    put(tb, st, 1, "T", 1, 6, 3)
    attack(tb, st, "A", 1, "T")
    assert st.markers[0] == 0 and not st.over
    st.kind = 0
    st.step = ST_TURN_END  # end the turn
    kinds = []
    while (k := advance(tb, st)) != GAME_OVER:
        kinds.append(k)
        if k not in (ROUND_DONE,):
            apply(tb, st, actions(tb, st, 0))
    assert st.winner == 1 and st.end_reason == END_MARKERS


def test_turn_cap_ends_without_a_winner():
    p = params(max_turns=2)
    tb = make_table(p, CARDS)[0]
    st = new_states(1)[0]
    with np.errstate(over="ignore"):
        seed_streams(st.rng[:3], np.uint64(3), np.uint64(3))
        deal(tb, st)
        while (k := advance(tb, st)) != GAME_OVER:
            if k != ROUND_DONE:
                apply(tb, st, actions(tb, st, 0))  # never attack, never place
    assert st.end_reason == END_TURN_CAP and st.winner == -1 and st.turn == 2


# ---------------------------------------------------------------- Air and Water


def test_air_never_triggers_blocks_except_optional_blocks_by_air(tmp_path):
    tb, st = duel(tmp_path, "ATK_PER_DIE", "BLK", cls=("air", "none", "none"))
    put(tb, st, 0, "A", 1, 6, 2)
    put(tb, st, 1, "B", 1, 5, 1)
    assert attack(tb, st, "A", 1, "T") == [] and st.hits == 2  # no reaction at all
    tb, st = duel(tmp_path, "ATK_PER_DIE", "BLK", cls=("air", "none", "air"))
    put(tb, st, 0, "A", 1, 6, 2)
    put(tb, st, 1, "B", 1, 5, 1)
    st.active = 0
    reset_turn(st)
    st.kind, st.actor = ATTACK, 0
    apply(tb, st, pack(slot_of(tb, st, 0, "A"), team_of(st, 1, tb, "T")))
    assert st.kind == REACT and actions(tb, st, 0) == PASS  # may, need not


def test_air_against_water_and_water_against_air_one_hit_less(tmp_path):
    for cls in (("air", "water", "none"), ("water", "air", "none")):
        tb, st = duel(tmp_path, "ATK_PER_DIE", "", cls=cls)
        put(tb, st, 0, "A", 1, 6, 3)
        attack(tb, st, "A", 1, "T", react="none")
        assert st.hits == 2


def test_water_attackers_ignore_other_water_dinos_passives():
    # expansion Spinosaurus is Water: Water Lurker keeps it from every attacker but Water ones
    tb, st = battle(["Mosasaurus", "Stegosaurus"], ["Spinosaurus", "Triceratops"])
    mosa = team_of(st, 0, tb, "Mosasaurus")
    steg = team_of(st, 0, tb, "Stegosaurus")
    spino = team_of(st, 1, tb, "Spinosaurus")
    assert target_ok(tb, st, 0, mosa, 1, spino)
    assert not target_ok(tb, st, 0, steg, 1, spino)


# ---------------------------------------------------------------- passives


def test_tyrant_extra_hit_only_without_a_reaction():
    tb, st = battle(
        ["Tyrannosaurus Rex", "Stegosaurus"], ["Triceratops", "Utahraptor", "Velociraptors"]
    )
    put(tb, st, 0, "Tyrannosaurus Rex", 1, 5, 2)
    attack(tb, st, "Tyrannosaurus Rex", 1, "Triceratops", react="none", flips=[None])
    assert st.hits == 2 + 1 + tb.tyrant_bonus
    put(tb, st, 0, "Tyrannosaurus Rex", 1, 5, 2)
    put(tb, st, 1, "Utahraptor", 1, 5, 1)  # Utahraptor's Block
    attack(tb, st, "Tyrannosaurus Rex", 1, "Triceratops")
    assert st.r_slot >= 0 and st.hits == 0


def test_water_lurker_cannot_be_targeted_except_by_restriction_ignorers():
    tb, st = battle(
        ["Stegosaurus", "Triceratops", "Therizinosaurus"], ["Spinosaurus", "Utahraptor"]
    )
    spino = team_of(st, 1, tb, "Spinosaurus")
    assert not target_ok(tb, st, 0, team_of(st, 0, tb, "Stegosaurus"), 2, spino)
    assert target_ok(tb, st, 0, team_of(st, 0, tb, "Therizinosaurus"), 1, spino)  # scythe
    tri = team_of(st, 0, tb, "Triceratops")
    assert not target_ok(tb, st, 0, tri, 2, spino) and target_ok(tb, st, 0, tri, 3, spino)
    st.up[1, slot_of(tb, st, 1, "Spinosaurus", 3)] = 0  # the passive flipped: no longer in play
    from rules.table_battles.engine import set_pmask

    set_pmask(tb, st, 1, spino)
    assert target_ok(tb, st, 0, team_of(st, 0, tb, "Stegosaurus"), 2, spino)


def test_taunt_and_giant_claws_restrict_targets_headbutt_ignores_taunt():
    tb, st = battle(
        ["Stegosaurus", "Pachycephalosaurus", "Tyrannosaurus Rex"],
        ["Stygimoloch", "Deinocheirus", "Utahraptor"],
    )
    styg, dein, utah = (
        team_of(st, 1, tb, n) for n in ("Stygimoloch", "Deinocheirus", "Utahraptor")
    )
    steg = team_of(st, 0, tb, "Stegosaurus")
    assert target_ok(tb, st, 0, steg, 1, styg)
    assert not target_ok(tb, st, 0, steg, 1, utah)  # Stygimoloch must be the target
    pachy = team_of(st, 0, tb, "Pachycephalosaurus")
    assert target_ok(tb, st, 0, pachy, 1, utah)  # ignores Stygimoloch
    assert not target_ok(tb, st, 0, pachy, 1, dein)  # not Deinocheirus: Pachy is small
    trex = team_of(st, 0, tb, "Tyrannosaurus Rex")
    assert not target_ok(tb, st, 0, trex, 1, dein)  # Stygimoloch still rules for the T-Rex


def test_treetops_is_an_optional_reaction_that_flips_and_hits_the_attacker():
    tb, st = battle(["Stegosaurus", "Triceratops"], ["Brachiosaurus", "Utahraptor"])
    put(tb, st, 0, "Stegosaurus", 1, 1, 2)
    m0 = int(st.markers[0])
    attack(tb, st, "Stegosaurus", 1, "Utahraptor", react=("Brachiosaurus", 3))
    assert st.up[1, slot_of(tb, st, 1, "Brachiosaurus", 3)] == 0 and st.skip[1] == 1
    assert st.hits == 2 and st.counter == tb.treetops_hits
    assert st.markers[0] == m0 - 1 - tb.treetops_hits
    # not against Pachycephalosaurus
    tb, st = battle(["Pachycephalosaurus", "Triceratops"], ["Brachiosaurus", "Utahraptor"])
    put(tb, st, 0, "Pachycephalosaurus", 1, 2, 2)
    assert attack(tb, st, "Pachycephalosaurus", 1, "Utahraptor") == []


def test_sky_watch_ignores_blocks_and_hits_flipped_dinos_harder():
    tb, st = battle(
        ["Pteranodon", "Stegosaurus"],
        ["Triceratops", "Utahraptor", "Velociraptors"],
        expansion=False,
    )
    put(tb, st, 0, "Pteranodon", 1, 3, 2)
    put(tb, st, 1, "Utahraptor", 1, 5, 1)  # a Block
    assert attack(tb, st, "Pteranodon", 1, "Triceratops") == [] and st.hits == 2
    st.up[1, slot_of(tb, st, 1, "Velociraptors", 2)] = 0
    st.team_up[1, team_of(st, 1, tb, "Velociraptors")] = 1
    put(tb, st, 0, "Pteranodon", 1, 3, 2)
    attack(tb, st, "Pteranodon", 1, "Velociraptors", react="none", flips=[None])
    assert st.hits == 2 + tb.sky_bonus


def test_egg_thieves_steal_only_when_markers_are_removed():
    tb, st = battle(["Velociraptors", "Stegosaurus"], ["Triceratops", "Utahraptor"])
    put(tb, st, 0, "Velociraptors", 1, 2, 3)
    m0, m1 = int(st.markers[0]), int(st.markers[1])
    attack(tb, st, "Velociraptors", 1, "Utahraptor", react="none", flips=[None])
    assert st.hits == 2 and st.markers[1] == m1 - 2
    assert st.stolen == 1 and st.markers[0] == m0 - 1 + 1
    put(tb, st, 0, "Velociraptors", 1, 2, 4)  # 3 hits: Utahraptor's break point
    attack(tb, st, "Velociraptors", 1, "Utahraptor", react="none", flips=[("Utahraptor", 1)])
    assert st.stolen == 0


def test_headbutt_ignores_the_reaction_text_but_it_counts_as_a_reaction():
    tb, st = battle(["Pachycephalosaurus", "Stegosaurus"], ["Triceratops", "Utahraptor"])
    put(tb, st, 0, "Pachycephalosaurus", 1, 2, 2)
    put(tb, st, 1, "Utahraptor", 1, 5, 1)  # Block
    m0 = int(st.markers[0])
    attack(tb, st, "Pachycephalosaurus", 1, "Triceratops")
    assert st.r_slot >= 0 and st.skip[1] == 1 and st.hits == 2
    assert st.dice[1, slot_of(tb, st, 1, "Utahraptor"), 0] == 0
    assert st.self_hits == 1 and st.markers[0] == m0 - 1  # not blocked: "1 self" is paid


def test_thagomizer_pack_hunter_dive_glide_ambush_long_neck():
    tb, st = battle(
        ["Utahraptor", "Quetzalcoatlus", "Microraptor"],
        ["Stegosaurus", "Spinosaurus", "Triceratops"],
    )
    put(tb, st, 0, "Utahraptor", 1, 5, 2)
    attack(tb, st, "Utahraptor", 1, "Triceratops", react="none", flips=[None])
    assert st.hits == 2 + tb.passive_bonus  # pack hunter vs a small dino
    put(tb, st, 0, "Quetzalcoatlus", 1, 5, 2)
    attack(tb, st, "Quetzalcoatlus", 1, "Triceratops", react="none", flips=[None])
    assert st.hits == 2  # dive: only against large dinos
    put(tb, st, 0, "Microraptor", 1, 1, 2)
    m0 = int(st.markers[0])
    attack(tb, st, "Microraptor", 1, "Triceratops", react="none", flips=[None])
    assert st.self_hits == 0 and st.markers[0] == m0  # glide
    put(tb, st, 0, "Utahraptor", 1, 5, 1)
    put(tb, st, 1, "Stegosaurus", 1, 1, 1)  # CTR_1_MINUS1 + thagomizer
    attack(tb, st, "Utahraptor", 1, "Stegosaurus", flips=[None, None])
    assert st.counter == 1 + tb.passive_bonus
    tb, st = battle(["Mosasaurus", "Stegosaurus"], ["Triceratops", "Elasmosaurus"])
    put(tb, st, 0, "Mosasaurus", 1, 2, 3)
    put(tb, st, 1, "Triceratops", 1, 3, 1)  # a counter: not against Mosasaurus (ambush)
    put(tb, st, 1, "Elasmosaurus", 1, 3, 1)  # ABS_MINUS_DICE, long neck; Water vs Water
    attack(tb, st, "Mosasaurus", 1, "Triceratops", flips=[None])
    # Mosasaurus is Water: it ignores Elasmosaurus's long neck, so only the dice reduce
    assert st.h_team == team_of(st, 1, tb, "Elasmosaurus") and st.hits == 3 - 1
    tb, st = battle(["Stegosaurus", "Triceratops"], ["Utahraptor", "Elasmosaurus"])
    put(tb, st, 0, "Stegosaurus", 1, 1, 4)
    put(tb, st, 1, "Elasmosaurus", 1, 3, 1)
    attack(tb, st, "Stegosaurus", 1, "Utahraptor", flips=[None])
    assert st.hits == 4 - 1 - tb.passive_bonus  # long neck


# ---------------------------------------------------------------- data and parameters


def test_provisional_pool_round_trips_and_says_provisional():
    text = CARDS.to_csv()
    again = parse_cards(text, label="x")
    assert again.dinos == CARDS.dinos and again.sha256 == CARDS.sha256
    assert "PROVISIONAL" in CARDS.describe() and "provisional" in CARDS.describe()
    names = {d.name for d in CARDS.dinos}
    for n in (
        "Stegosaurus",
        "Triceratops",
        "Utahraptor",
        "Velociraptors",
        "Pteranodon",
        "Spinosaurus",
        "Tyrannosaurus Rex",
        "Brachiosaurus",
        "Pachycephalosaurus",
        "Stygimoloch",
        "Deinocheirus",
        "Therizinosaurus",
    ):
        assert n in names
    trex = CARDS.dinos[CARDS.find("Tyrannosaurus Rex", True)]
    c = trex.cards[0]
    assert trex.large and c.faces_text() == "5|6" and c.bracketed and "attack" in c.known


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("ATK_PER_DIE_PLUS1", "ATK_BIG", "column 'attack' must be one of"),
        (",large,5,8,1,", ",huge,5,8,1,", "column 'size' must be one of small, large"),
        ("5|6,yes", "5|7,yes", "column 'faces'"),
        (",tyrant,", ",roar,", "column 'passive' must be one of"),
        (
            "Tyrannosaurus Rex,base,none,large,5,8,3",
            "Tyrannosaurus Rex,base,none,large,5,8,4",
            "column 'card' must be an integer 1..3",
        ),
    ],
)
def test_bad_card_file_is_refused_in_one_line(tmp_path, old, new, message):
    text = CARDS.to_csv().replace(old, new, 1)
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DataFileError, match=message) as exc:
        load_cards(str(path))
    assert "\n" not in str(exc.value)


def test_bad_parameters_are_refused():
    with pytest.raises(RuleError, match="setup"):
        params(setup="sealed")
    with pytest.raises(RuleError, match="not in the card pool"):
        params(setup="first_game", first_game_teams="Stegosaurus|Nessie;Triceratops").check_players(
            2, CARDS
        )
    with pytest.raises(RuleError, match="2 players"):
        params().check_players(3, CARDS)
