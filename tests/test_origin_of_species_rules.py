"""Origin of Species rules: the seed's examples and every rule, each test on a hand-built table.

Each test builds a table with :func:`game` (a dealt game), lays out animals with
:func:`animal` and :func:`link`, starts a feeding phase with :func:`feeding` and plays packed
actions through the engine, checking that every action it plays is legal. ``RULES.md`` names
the test that checks each rule.
"""

from __future__ import annotations

import numpy as np
import pytest

from rules.core.errors import DataFileError, RuleError
from rules.core.rng import seed_streams
from rules.origin_of_species.board import add_link, new_animal, set_need
from rules.origin_of_species.constants import (
    BURROWING,
    CAMOUFLAGE,
    CARNIVORE,
    COMMUNICATION,
    COOPERATION,
    DEF_MIMICRY,
    DEF_RUNNING,
    DEF_TAIL_LOSS,
    DEFEND,
    DEVELOP,
    FAT_TISSUE,
    FEED,
    GAME_OVER,
    GRAZING,
    HIBERNATION,
    HIGH_BODY_WEIGHT,
    LINK,
    MIMICRY,
    OP_ACCEPT,
    OP_ANIMAL,
    OP_ATTACK,
    OP_BOTTOM,
    OP_FAT,
    OP_GRAZE,
    OP_HIBERNATE,
    OP_LINK,
    OP_MIMIC,
    OP_PIRACY,
    OP_RED,
    OP_RUN,
    OP_SCAVENGE,
    OP_TAIL,
    OP_TOP,
    OUT_ESCAPED,
    OUT_KILLED,
    OUT_TAIL_LOST,
    PARASITE,
    PASS,
    PIRACY,
    POISONOUS,
    ROUND_DONE,
    RUNNING,
    SCAVENGE,
    SCAVENGER,
    SHARP_VISION,
    SWIMMING,
    SYMBIOSIS,
    TAIL_LOSS,
    TRAITS,
    U_FAT_STORED,
)
from rules.origin_of_species.deck import load_deck, parse_deck
from rules.origin_of_species.engine import (
    ST_DEV,
    ST_EXTINCT,
    ST_ROUND,
    ST_TURN,
    actions,
    advance,
    apply,
    deal,
    final_result,
    final_scores,
    is_legal,
)
from rules.origin_of_species.params import OosParameters
from rules.origin_of_species.state import EVENTS, F_HIB, S_RUN, make_table, new_states

P0 = OosParameters()
DECK = P0.load_deck()
PAUSED = 0  # advance's answer just before an extinction (st.pause)


def pk(op: int, ty: int = 0, seat: int = 0, a: int = 0, b: int = 0) -> int:
    """A packed action (as ``engine.pack``)."""
    return (op << 32) | (ty << 24) | (seat << 16) | (a << 8) | b


def game(n: int = 2, seed: int = 99, **rules):
    """A dealt game (table record, state record) with rule overrides."""
    p = P0.with_values({k: str(v) for k, v in rules.items()}) if rules else P0
    tb = make_table(p, DECK, n)[0]
    st = new_states(1)[0]
    with np.errstate(over="ignore"):
        seed_streams(st.rng[: 1 + n], np.uint64(seed), np.uint64(seed))
        deal(tb, st)
    st.pause = 1  # advance stops before each extinction: tests see the fed table
    return tb, st


def animal(tb, st, s: int, *traits: int, fat_cards: int = 0, fat: int = 0, food: int = 0) -> int:
    """Lay an animal with single ``traits`` in front of seat ``s``; returns its index."""
    a = int(new_animal(st, s))
    for t in traits:
        assert t < FAT_TISSUE
        st.an_tr[s, a] |= 1 << t
    st.an_fat_cards[s, a] = fat_cards
    st.an_fat[s, a] = fat
    set_need(tb, st, s, a)
    st.an_food[s, a] = food
    return a


def link(st, s: int, trait: int, a: int, b: int) -> None:
    add_link(st, s, trait - COMMUNICATION, a, b)


def feeding(tb, st, bank: int, first: int = 0, last: bool = False) -> int:
    """Start a feeding phase with ``bank`` red tokens; returns the first decision."""
    n = int(tb.n_players)
    st.kind = 0
    st.step = ST_TURN
    st.bank = bank
    st.r_bank = bank
    st.first = first
    st.pos = 0
    st.idle = 0
    st.last = int(last)
    for s in range(n):
        st.f_passed[s] = 0
        st.carn_phase[s] = 0
        st.grazed[s] = 0
        st.dev_passed[s] = 1
    return run(tb, st)


def run(tb, st) -> int:
    with np.errstate(over="ignore"):
        return int(advance(tb, st))


def legal(tb, st) -> list[int]:
    return [int(actions(tb, st, k)) for k in range(int(actions(tb, st, -1)))]


def act(tb, st, action: int) -> int:
    """Play a legal action of the pending decision; returns the next decision."""
    assert is_legal(tb, st, action), (
        f"{action:#x} not legal among {[hex(a) for a in legal(tb, st)]}"
    )
    with np.errstate(over="ignore"):
        apply(tb, st, action)
    st.n_ev = 0 if st.n_ev > 60 else st.n_ev
    return run(tb, st)


def events(st, kind: str) -> list:
    """The pending event records of ``kind``, read by name."""
    return [e for e in EVENTS.pending(st) if e.kind == kind]


def extinction(tb, st) -> int:
    """Run extinction and the draw now."""
    st.kind = 0
    st.step = ST_EXTINCT
    st.pause = 0
    k = run(tb, st)
    st.pause = 1
    return k


def fed(st, s: int, a: int) -> bool:
    return int(st.an_food[s, a]) >= int(st.an_need[s, a]) or bool(int(st.an_flags[s, a]) & F_HIB)


def type_of(top: int, bottom: int = -1) -> int:
    """The card type with these traits in the base deck."""
    for t in range(DECK.n_types):
        if DECK.top[t] == top and DECK.bottom[t] == bottom:
            return t
    raise KeyError((TRAITS[top], bottom))


def hand_only(st, s: int, *types: int) -> None:
    """Replace seat ``s``'s hand (the cards go nowhere: tests of legality only)."""
    st.hand[s, :] = 0
    for t in types:
        st.hand[s, t] += 1
    st.n_hand[s] = len(types)


def develop(tb, st, seat: int) -> None:
    """Make it ``seat``'s development turn."""
    n = int(tb.n_players)
    st.kind = 0
    st.step = ST_DEV
    st.first = seat
    st.pos = 0
    for s in range(n):
        st.dev_passed[s] = 0 if s == seat else 1
    assert run(tb, st) == DEVELOP and st.actor == seat


# ---------------------------------------------------------------- setup and order


def test_setup_deals_six_cards_each():
    for n in (2, 4, 8):
        tb, st = game(n)
        assert all(int(st.n_hand[s]) == 6 for s in range(n))
        assert int(st.deck_len - st.deck_top) == int(tb.n_cards) - 6 * n
    assert game(4)[0].n_cards == 84 and game(5)[0].n_cards == 168


def test_first_player_by_die_ties_reroll():
    firsts = set()
    for seed in range(40):
        _, st = game(4, seed=seed)
        rolls = [int(x) for x in st.first_roll[:4]]
        f = int(st.first)
        assert rolls[f] == max(rolls) and rolls.count(max(rolls)) == 1, rolls
        firsts.add(f)
    assert firsts == {0, 1, 2, 3}
    _, st = game(3, first_player=2)
    assert st.first == 2


def test_first_player_moves_clockwise():
    tb, st = game(3, first_player=1)
    st.step = ST_ROUND
    seen = []
    while True:
        k = run(tb, st)
        if k == GAME_OVER:
            break
        if k == ROUND_DONE:
            seen.append(int(st.first))
            continue
        apply(tb, st, -1)  # pass everything
    assert seen[:4] == [1, 2, 0, 1]


def test_turn_order_from_first_player():
    tb, st = game(3)
    for s in range(3):
        animal(tb, st, s, HIGH_BODY_WEIGHT, PARASITE)
    order = []
    k = feeding(tb, st, 10, first=2)
    while k == FEED and len(order) < 6:
        order.append(int(st.actor))
        k = act(tb, st, pk(OP_RED, 0, order[-1], 0))
    assert order == [2, 0, 1, 2, 0, 1]


# ---------------------------------------------------------------- development


def test_card_as_animal_or_either_trait():
    tb, st = game(2)
    st.n_an[:] = 0
    t = type_of(HIGH_BODY_WEIGHT, CARNIVORE)
    hand_only(st, 0, t)
    develop(tb, st, 0)
    assert legal(tb, st) == [PASS, pk(OP_ANIMAL, t, 0)], "no animal yet: only an animal"
    act(tb, st, pk(OP_ANIMAL, t, 0))
    assert st.n_an[0] == 1 and st.an_tr[0, 0] == 0
    hand_only(st, 0, t)
    develop(tb, st, 0)
    assert pk(OP_TOP, t, 0, 0) in legal(tb, st) and pk(OP_BOTTOM, t, 0, 0) in legal(tb, st)
    act(tb, st, pk(OP_BOTTOM, t, 0, 0))
    assert st.an_tr[0, 0] == 1 << CARNIVORE and st.an_need[0, 0] == 2
    e = events(st, "trait")[-1]
    assert (e.round, e.seat, e.trait, e.target_owner, e.card) == (1, 0, CARNIVORE, 0, t)


def test_parasite_only_on_other_players_animals():
    tb, st = game(3)
    st.n_an[:] = 0
    animal(tb, st, 0)
    animal(tb, st, 1)
    animal(tb, st, 2, PARASITE)
    t = type_of(PARASITE, FAT_TISSUE)
    hand_only(st, 0, t)
    develop(tb, st, 0)
    tops = [a for a in legal(tb, st) if a >= 0 and a >> 32 == OP_TOP]
    assert tops == [pk(OP_TOP, t, 1, 0)], "not on its own animal, not twice on one host"
    act(tb, st, tops[0])
    assert st.an_need[1, 0] == 3 and st.an_tr[1, 0] == 1 << PARASITE
    e = events(st, "trait")[-1]
    assert (e.seat, e.trait, e.target_owner) == (0, PARASITE, 1)


def test_no_duplicate_traits_except_fat_tissue():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, SWIMMING, fat_cards=1)
    animal(tb, st, 0)
    sw = type_of(SWIMMING)
    fat = type_of(GRAZING, FAT_TISSUE)
    hand_only(st, 0, sw, fat)
    develop(tb, st, 0)
    acts = legal(tb, st)
    assert pk(OP_TOP, sw, 0, 0) not in acts and pk(OP_TOP, sw, 0, 1) in acts
    assert pk(OP_BOTTOM, fat, 0, 0) in acts, "Fat Tissue stacks"


def test_carnivore_and_scavenger_exclude_each_other():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, SCAVENGER)
    animal(tb, st, 0, CARNIVORE)
    carn = type_of(POISONOUS, CARNIVORE)
    scav = type_of(SCAVENGER)
    hand_only(st, 0, carn, scav)
    develop(tb, st, 0)
    acts = legal(tb, st)
    assert pk(OP_BOTTOM, carn, 0, 0) not in acts
    assert pk(OP_TOP, scav, 0, 1) not in acts


def test_paired_traits_between_two_own_animals_once_per_pair():
    tb, st = game(2)
    st.n_an[:] = 0
    for _ in range(3):
        animal(tb, st, 0)
    animal(tb, st, 1)
    link(st, 0, COOPERATION, 0, 1)
    coop = type_of(COOPERATION, FAT_TISSUE)
    sym = type_of(SYMBIOSIS)
    hand_only(st, 0, coop, sym)
    develop(tb, st, 0)
    acts = legal(tb, st)
    coops = sorted(a & 0xFFFF for a in acts if a >= 0 and a >> 24 == (OP_TOP << 8 | coop))
    assert coops == [0x0002, 0x0102], "pairs {0,2} and {1,2}; {0,1} has Cooperation already"
    syms = [a & 0xFFFF for a in acts if a >= 0 and a >> 24 == (OP_TOP << 8 | sym)]
    assert len(syms) == 6, "Symbiosis: ordered pairs (symbiont, partner) of three own animals"
    act(tb, st, pk(OP_TOP, sym, 0, 2, 0))
    assert st.an_prot[0, 0] == 1 and st.an_links[0, 2] == 1
    develop(tb, st, 0)
    hand_only(st, 0, sym)
    develop(tb, st, 0)
    syms = {a & 0xFFFF for a in legal(tb, st) if a >= 0 and a >> 32 == OP_TOP}
    assert 0x0200 not in syms and 0x0002 not in syms, "not the same paired trait on a pair"


def test_pass_is_final_in_development():
    tb, st = game(2, first_player=0)
    st.step = ST_ROUND
    assert run(tb, st) == DEVELOP and st.actor == 0
    assert act(tb, st, PASS) == DEVELOP and st.actor == 1
    k = act(tb, st, legal(tb, st)[1])
    assert k == DEVELOP and st.actor == 1, "seat 0 passed for the rest of the phase"
    while k == DEVELOP:
        assert st.actor == 1
        k = act(tb, st, legal(tb, st)[-1] if st.n_hand[1] > 0 else PASS)
    assert k in (FEED, PAUSED)


# ---------------------------------------------------------------- food bank


@pytest.mark.parametrize("n", range(2, 9))
def test_food_bank_formula(n):
    dice = (1, 2, 2, 3, 3, 4, 4)[n - 2]
    add = (2, 0, 2, 2, 4, 2, 4)[n - 2]
    tb, st = game(n)
    assert (tb.food_dice, tb.food_add) == (dice, add)
    assert (tb.food_lo, tb.food_hi) == (dice + add, 6 * dice + add)
    seen = set()
    for seed in range(60):
        tb, st = game(n, seed=seed)
        st.step = ST_ROUND
        k = run(tb, st)
        while k == DEVELOP:
            k = act(tb, st, PASS)
        seen.add(int(st.r_bank))
    assert min(seen) >= dice + add and max(seen) <= 6 * dice + add
    assert len(seen) > dice * 2, "the dice vary"


def test_two_sets_for_five_to_eight_players():
    assert P0.sets_for(4) == 1 and P0.sets_for(5) == 2 and P0.sets_for(8) == 2
    tb, _ = game(6)
    assert tb.n_cards == 168 and tb.type_copies[type_of(SWIMMING)] == 16
    assert P0.with_values({"n_sets": "1"}).sets_for(6) == 1


# ---------------------------------------------------------------- feeding


def test_one_red_token_per_turn_in_turn_order():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, HIGH_BODY_WEIGHT)
    animal(tb, st, 1, HIGH_BODY_WEIGHT)
    assert feeding(tb, st, 5, first=1) == FEED and st.actor == 1
    k = act(tb, st, pk(OP_RED, 0, 1, 0))
    assert st.an_food[1, 0] == 1 and st.bank == 4 and st.r_red[1] == 1
    assert k == FEED and st.actor == 0, "one token, then the next player"


def test_seed_example_high_body_weight_and_parasite_need_four():
    tb, st = game(2)
    st.n_an[:] = 0
    a = animal(tb, st, 0, HIGH_BODY_WEIGHT, PARASITE)
    animal(tb, st, 1, HIGH_BODY_WEIGHT, PARASITE)
    assert st.an_need[0, a] == 4, "1 + High Body Weight (+1) + Parasite (+2)"
    feeding(tb, st, 6)
    for i in range(3):
        assert st.actor == 0
        act(tb, st, pk(OP_RED, 0, 0, a))
        assert not fed(st, 0, a), f"{i + 1} tokens are not enough"
        act(tb, st, pk(OP_RED, 0, 1, 0))
    assert st.bank == 0 and st.an_food[0, a] == 3
    st.an_food[0, a] += 1  # a blue token counts like a red one
    assert fed(st, 0, a)
    extinction(tb, st)
    assert st.n_an[0] == 1 and st.n_an[1] == 0, "fed with four tokens it survives; three: not"


def test_fed_animal_takes_only_fat():
    tb, st = game(2)
    st.n_an[:] = 0
    a = animal(tb, st, 0, fat_cards=1, food=1)
    b = animal(tb, st, 0, food=1)
    animal(tb, st, 1, HIGH_BODY_WEIGHT, PARASITE)  # keeps the phase going
    feeding(tb, st, 5)
    acts = legal(tb, st)
    assert pk(OP_RED, 0, 0, a) in acts and pk(OP_RED, 0, 0, b) not in acts
    act(tb, st, pk(OP_RED, 0, 0, a))
    assert st.an_food[0, a] == 1 and st.an_fat[0, a] == 1 and st.uses[0, U_FAT_STORED] == 1
    assert st.actor == 1
    act(tb, st, pk(OP_RED, 0, 1, 0))
    assert st.actor == 0 and {x >> 32 for x in legal(tb, st) if x > 0} == {OP_FAT}, (
        "all fed with full fat: seat 0 can take no more tokens (it may convert its fat)"
    )


def test_feeding_ends_when_nobody_acts():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0)
    animal(tb, st, 1)
    k = feeding(tb, st, 1)
    k = act(tb, st, pk(OP_RED, 0, 0, 0))
    assert k == PAUSED, "bank empty, nobody can act: the phase ends"
    assert run(tb, st) == ROUND_DONE
    assert st.r_survivors[0] == 1 and st.r_survivors[1] == 0


@pytest.mark.parametrize("ends", ["silence", "empty_bank"])
def test_feeding_goes_on_with_an_empty_bank_until_nobody_acts(ends):
    """The seed ends feeding once all "využili rysy ..., ktoré využiť chceli" (used the traits
    they wanted) and lets a carnivore attack "aj vtedy, ak v potravinovej banke nezostávajú
    žiadne žetóny" (with an empty bank): taking the last token does not end the phase.
    ``feeding_ends=empty_bank`` reads "alebo ak je potravinová banka prázdna" alone."""
    tb, st = game(2, feeding_ends=ends)
    st.n_an[:] = 0
    animal(tb, st, 0)
    c = animal(tb, st, 1, CARNIVORE)
    feeding(tb, st, 1)
    k = act(tb, st, pk(OP_RED, 0, 0, 0))  # the last token
    if ends == "silence":
        assert k == FEED and st.actor == 1 and pk(OP_ATTACK, 0, 0, c, 0) in legal(tb, st)
    else:
        assert k == PAUSED, "the bank is empty: the phase ends"


def test_feeding_pass_is_final():
    tb, st = game(2, feeding_pass_final=True)
    st.n_an[:] = 0
    animal(tb, st, 0, HIGH_BODY_WEIGHT)
    animal(tb, st, 1, HIGH_BODY_WEIGHT)
    feeding(tb, st, 6)
    k = act(tb, st, PASS)
    while k == FEED:
        assert st.actor == 1, "seat 0 passed for the phase"
        k = act(tb, st, legal(tb, st)[1] if len(legal(tb, st)) > 1 else PASS)
    tb, st = game(2, feeding_pass_final=False)
    st.n_an[:] = 0
    animal(tb, st, 0, HIGH_BODY_WEIGHT)
    animal(tb, st, 1, HIGH_BODY_WEIGHT)
    feeding(tb, st, 6)
    act(tb, st, PASS)
    assert act(tb, st, pk(OP_RED, 0, 1, 0)) == FEED and st.actor == 0, "only this turn"


# ---------------------------------------------------------------- carnivore


def attack_setup(*prey_traits, carn=(), n=2, bank=0, **rules):
    """Seat 0: a carnivore (index 0); seat 1: a prey (index 0) with ``prey_traits``."""
    tb, st = game(n, **rules)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE, *carn)
    animal(tb, st, 1, *prey_traits)
    k = feeding(tb, st, bank)
    return tb, st, k


def test_carnivore_kill_gives_two_blue_and_discards_the_prey():
    tb, st = game(2)
    st.n_an[:] = 0
    c = animal(tb, st, 0, CARNIVORE, fat_cards=1)
    prey = animal(tb, st, 1, BURROWING)
    animal(tb, st, 1)
    link(st, 1, COOPERATION, 0, 1)
    feeding(tb, st, 0)
    before = int(st.discard_n[1])
    k = act(tb, st, pk(OP_ATTACK, 0, 1, c, prey))
    assert st.n_an[1] == 1 and st.n_ln[1] == 0, "the prey and its paired trait are gone"
    assert st.discard_n[1] == before + 3, "animal + Burrowing + Cooperation to its owner's pile"
    assert st.an_food[0, c] == 2 and st.an_fat[0, c] == 0, "two blue tokens: its need of 2"
    assert st.r_kills[0] == 1
    e = events(st, "attack")[-1]
    assert (e.attacker_seat, e.attacker_traits) == (0, 1 << CARNIVORE | 1 << FAT_TISSUE)
    assert (e.defender_seat, e.defender_traits) == (1, 1 << BURROWING | 1 << COOPERATION)
    assert (e.defence_used, e.outcome) == (0, OUT_KILLED)
    assert k in (FEED, PAUSED)


def test_kill_food_goes_to_need_then_fat():
    tb, st = game(2, kill_food=4)
    st.n_an[:] = 0
    c = animal(tb, st, 0, CARNIVORE, fat_cards=1, food=1)
    animal(tb, st, 1)
    feeding(tb, st, 0)
    act(tb, st, pk(OP_ATTACK, 0, 1, c, 0))
    assert st.an_food[0, c] == 2 and st.an_fat[0, c] == 1, "need first, then fat, rest lost"


def test_carnivore_once_per_round():
    tb, st = game(2)
    st.n_an[:] = 0
    c = animal(tb, st, 0, CARNIVORE, HIGH_BODY_WEIGHT, fat_cards=2)
    animal(tb, st, 1)
    animal(tb, st, 1)
    animal(tb, st, 1)
    feeding(tb, st, 0)
    k = act(tb, st, pk(OP_ATTACK, 0, 1, c, 0))
    assert (
        k != FEED or st.actor != 0 or not any(a >> 32 == OP_ATTACK for a in legal(tb, st) if a > 0)
    ), "its Carnivore is spent for the round"
    assert st.an_food[0, c] == 2 and st.n_an[1] == 2


def test_one_attacker_per_turn():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 1)
    animal(tb, st, 1)
    feeding(tb, st, 0)
    k = act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    # seat 1 has nothing to do, so seat 0 is next: a new turn, in which the other carnivore
    # may attack (had the turn gone on after its main action, no attack would be legal)
    assert k == FEED and st.actor == 0
    attackers = {(a >> 8) & 0xFF for a in legal(tb, st) if a > 0 and a >> 32 == OP_ATTACK}
    assert attackers == {1} and pk(OP_ATTACK, 0, 1, 1, 0) in legal(tb, st)


def test_carnivore_once_per_phase_variant():
    tb, st = game(2, carnivore_once_per_phase=True)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 1)
    animal(tb, st, 1)
    feeding(tb, st, 0)
    k = act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    while k == FEED and st.actor != 0:
        k = act(tb, st, PASS)
    assert k != FEED or not any(a >> 32 == OP_ATTACK for a in legal(tb, st) if a > 0)


def test_carnivore_cannot_attack_when_fed_with_full_fat():
    tb, st, k = attack_setup()
    st.an_food[0, 0] = 2
    k = feeding(tb, st, 0)
    assert k == PAUSED, "fed, no fat card: no attack, nothing else to do"
    tb, st, _ = attack_setup()
    st.an_food[0, 0] = 2
    st.an_fat_cards[0, 0] = 1
    assert feeding(tb, st, 0) == FEED and pk(OP_ATTACK, 0, 1, 0, 0) in legal(tb, st), (
        "fed but with empty fat: it may attack"
    )


def test_carnivore_attacks_with_empty_bank_after_red():
    tb, st, k = attack_setup(bank=1)
    k = act(tb, st, pk(OP_RED, 0, 0, 0))
    assert st.bank == 0 and st.an_food[0, 0] == 1
    while k == FEED and st.actor != 0:
        k = act(tb, st, PASS)
    assert k == FEED and pk(OP_ATTACK, 0, 1, 0, 0) in legal(tb, st)


def test_carnivore_takes_no_red_after_attacking():
    tb, st = game(2)
    st.n_an[:] = 0
    c = animal(tb, st, 0, CARNIVORE, HIGH_BODY_WEIGHT, PARASITE)
    animal(tb, st, 1, RUNNING)
    animal(tb, st, 1)
    feeding(tb, st, 6)
    st.rng[S_RUN] = np.uint64(12345)
    act(tb, st, pk(OP_ATTACK, 0, 1, c, 1))
    while st.kind == FEED and st.actor != 0:
        act(tb, st, PASS)
    assert st.kind != FEED or pk(OP_RED, 0, 0, c) not in legal(tb, st), "no red after attacking"
    tb, st = game(2, red_after_attack=True)
    st.n_an[:] = 0
    c = animal(tb, st, 0, CARNIVORE, HIGH_BODY_WEIGHT, PARASITE)
    animal(tb, st, 1)
    feeding(tb, st, 6)
    act(tb, st, pk(OP_ATTACK, 0, 1, c, 0))
    while st.kind == FEED and st.actor != 0:
        act(tb, st, PASS)
    assert pk(OP_RED, 0, 0, c) in legal(tb, st), "the variant allows it"


def test_carnivore_may_attack_own_animals_and_carnivores():
    tb, st = game(2)
    st.n_an[:] = 0
    c = animal(tb, st, 0, CARNIVORE)
    own = animal(tb, st, 0)
    other = animal(tb, st, 1, CARNIVORE)
    feeding(tb, st, 0)
    acts = legal(tb, st)
    assert pk(OP_ATTACK, 0, 0, c, own) in acts and pk(OP_ATTACK, 0, 1, c, other) in acts
    assert pk(OP_ATTACK, 0, 0, c, c) not in acts, "never itself"


# ---------------------------------------------------------------- passive protection


def targets(tb, st) -> set[tuple[int, int]]:
    return {((a >> 16) & 0xFF, a & 0xFF) for a in legal(tb, st) if a > 0 and a >> 32 == OP_ATTACK}


@pytest.mark.parametrize(
    ("carn", "prey", "ok"),
    [
        ((), (SWIMMING,), False),
        ((SWIMMING,), (), False),
        ((SWIMMING,), (SWIMMING,), True),
        ((), (HIGH_BODY_WEIGHT,), False),
        ((HIGH_BODY_WEIGHT,), (HIGH_BODY_WEIGHT,), True),
        ((), (CAMOUFLAGE,), False),
        ((SHARP_VISION,), (CAMOUFLAGE,), True),
        ((), (BURROWING,), True),  # not fed: no protection
        ((), (RUNNING, MIMICRY, TAIL_LOSS, POISONOUS, PIRACY, GRAZING), True),
    ],
)
def test_attack_legality_by_passive_traits(carn, prey, ok):
    tb, st, k = attack_setup(*prey, carn=carn)
    if ok:
        assert k == FEED and (1, 0) in targets(tb, st)
    else:
        assert k == PAUSED, "no legal attack: nothing to do, the phase ends"


def test_swimming_both_ways():
    tb, st, _ = attack_setup(SWIMMING)
    assert (1, 0) not in targets(tb, st)
    tb, st, _ = attack_setup(carn=(SWIMMING,))
    assert (1, 0) not in targets(tb, st)


def test_high_body_weight_needs_high_body_weight():
    tb, st, _ = attack_setup(HIGH_BODY_WEIGHT)
    assert (1, 0) not in targets(tb, st)
    tb, st, _ = attack_setup(HIGH_BODY_WEIGHT, carn=(HIGH_BODY_WEIGHT,))
    assert (1, 0) in targets(tb, st)


def test_camouflage_needs_sharp_vision():
    tb, st, _ = attack_setup(CAMOUFLAGE)
    assert (1, 0) not in targets(tb, st)
    tb, st, _ = attack_setup(CAMOUFLAGE, carn=(SHARP_VISION,))
    assert (1, 0) in targets(tb, st)


def test_burrowing_protects_only_when_fed():
    tb, st, _ = attack_setup(BURROWING)
    st.an_fat_cards[1, 0] = 1
    st.an_fat[1, 0] = 1
    assert (1, 0) in targets(tb, st), "fat alone does not feed it"
    st.an_food[1, 0] = 1
    assert (1, 0) not in targets(tb, st), "a fed burrower is safe"
    st.an_food[1, 0] = 0
    st.an_flags[1, 0] |= F_HIB
    assert (1, 0) not in targets(tb, st), "hibernating counts as fed"
    tb.hib_burrow = 0
    assert (1, 0) in targets(tb, st)


def test_symbiosis_partner_protected():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE)
    sym = animal(tb, st, 1)
    partner = animal(tb, st, 1)
    link(st, 1, SYMBIOSIS, sym, partner)
    feeding(tb, st, 0)
    assert targets(tb, st) == {(1, sym)}, "the partner is protected while its symbiont lives"
    act(tb, st, pk(OP_ATTACK, 0, 1, 0, sym))
    assert st.n_an[1] == 1 and st.an_prot[1, 0] == 0, "the symbiont eaten: protection gone"


# ---------------------------------------------------------------- active defences


def test_running_escapes_on_four_to_six():
    outcomes = {}
    for seed in range(40):
        tb, st, _ = attack_setup(RUNNING)
        st.rng[S_RUN] = np.uint64(1000 + seed)
        act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
        e = events(st, "attack")[-1]
        roll, outcome = e.running_roll, e.outcome
        assert 1 <= roll <= 6 and e.defence_used == DEF_RUNNING
        assert outcome == (OUT_ESCAPED if roll >= 4 else OUT_KILLED), (roll, outcome)
        assert (st.n_an[1] == 1) == (roll >= 4)
        if roll >= 4:
            assert st.an_food[0, 0] == 0, "an escape feeds nothing"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert set(outcomes) == {OUT_ESCAPED, OUT_KILLED}
    tb, st, _ = attack_setup(RUNNING, running_escape_from=7)
    act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    assert st.n_an[1] == 0


def test_running_cannot_be_declined():
    tb, st, _ = attack_setup(RUNNING, TAIL_LOSS)
    k = act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    assert k == DEFEND and st.actor == 1
    ops = {a >> 32 for a in legal(tb, st)}
    assert OP_ACCEPT not in ops and OP_RUN in ops and OP_TAIL in ops


def test_defence_order_is_the_owners():
    tb, st, _ = attack_setup(RUNNING, TAIL_LOSS)
    act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    act(tb, st, pk(OP_TAIL, TAIL_LOSS, 1, 0, 0))  # Tail Loss first: Running never rolled
    e = events(st, "attack")[-1]
    assert e.outcome == OUT_TAIL_LOST and e.defences == 4 and e.running_roll == 0
    assert st.an_tr[1, 0] == 1 << RUNNING


def test_mimicry_redirect_limits():
    tb, st = game(2)
    st.n_an[:] = 0
    c = animal(tb, st, 0, CARNIVORE)
    m = animal(tb, st, 1, MIMICRY)
    animal(tb, st, 1, SWIMMING)
    ok1 = animal(tb, st, 1)
    ok2 = animal(tb, st, 1, GRAZING)
    feeding(tb, st, 0)
    k = act(tb, st, pk(OP_ATTACK, 0, 1, c, m))
    assert k == DEFEND and st.actor == 1
    assert legal(tb, st) == [pk(OP_MIMIC, 0, 1, m, ok1), pk(OP_MIMIC, 0, 1, m, ok2)], (
        "only other own animals the carnivore could attack; mandatory, so no accept"
    )
    act(tb, st, pk(OP_MIMIC, 0, 1, m, ok2))
    e = events(st, "attack")[-1]
    assert e.defence_used == DEF_MIMICRY and e.outcome == OUT_KILLED and e.redirects == 1
    assert e.defender_traits == 1 << GRAZING, "the event records the final target's traits"
    assert [int(x) for x in st.an_tr[1, :3]] == [1 << MIMICRY, 1 << SWIMMING, 0]


def test_mimicry_only_own_animals_and_not_the_attacker():
    tb, st = game(2)
    st.n_an[:] = 0
    c = animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 0)
    m = animal(tb, st, 0, MIMICRY)
    animal(tb, st, 0)
    animal(tb, st, 1)
    feeding(tb, st, 0)
    assert act(tb, st, pk(OP_ATTACK, 0, 0, c, m)) == DEFEND
    assert legal(tb, st) == [pk(OP_MIMIC, 0, 0, m, 1), pk(OP_MIMIC, 0, 0, m, 3)], (
        "the defender's own animals 1 and 3: not the attacker, not seat 1's"
    )


def test_mimicry_mandatory_and_once_per_round():
    tb, st = game(2, mimicry_mandatory=False)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 0, CARNIVORE)
    m = animal(tb, st, 1, MIMICRY)
    animal(tb, st, 1)
    animal(tb, st, 1)
    feeding(tb, st, 0)
    act(tb, st, pk(OP_ATTACK, 0, 1, 0, m))
    assert pk(OP_ACCEPT, 0, 1, m) in legal(tb, st), "optional in the variant"
    act(tb, st, pk(OP_MIMIC, 0, 1, m, 1))
    while st.kind == FEED and st.actor != 0:
        act(tb, st, PASS)
    act(tb, st, pk(OP_ATTACK, 0, 1, 1, m))
    assert st.n_an[1] == 1 or st.kind != DEFEND, "Mimicry once a round: the second attack eats"


def test_mimicry_chain_parameter():
    # M0 and M1 have Mimicry, S swims (no target). Attack M0: it must redirect to M1; with
    # chains M1 redirects back to M0 (whose Mimicry is spent), which is eaten.
    for chain, redirects, left in ((True, 2, 1 << MIMICRY), (False, 1, 1 << MIMICRY)):
        tb, st = game(2, mimicry_chain=chain)
        st.n_an[:] = 0
        animal(tb, st, 0, CARNIVORE)
        animal(tb, st, 1, MIMICRY)
        animal(tb, st, 1, MIMICRY, GRAZING)
        animal(tb, st, 1, SWIMMING)
        feeding(tb, st, 0)
        act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
        e = events(st, "attack")[-1]
        assert e.redirects == redirects and e.outcome == OUT_KILLED, chain
        kept = [int(x) for x in st.an_tr[1, : st.n_an[1]]]
        if chain:
            assert kept == [1 << MIMICRY | 1 << GRAZING, 1 << SWIMMING]
        else:
            assert kept == [left, 1 << SWIMMING]


def test_tail_loss_drops_a_trait_and_gives_one_blue():
    tb, st, _ = attack_setup(TAIL_LOSS, GRAZING)
    k = act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    assert k == DEFEND
    drops = [(a >> 24) & 0xFF for a in legal(tb, st) if a >> 32 == OP_TAIL]
    assert drops == [TAIL_LOSS, GRAZING]
    act(tb, st, pk(OP_TAIL, GRAZING, 1, 0, 0))
    assert st.n_an[1] == 1 and st.an_tr[1, 0] == 1 << TAIL_LOSS
    assert st.an_food[0, 0] == 1 and st.discard_n[1] == 1
    e = events(st, "attack")[-1]
    assert (e.defence_used, e.outcome, e.defences) == (DEF_TAIL_LOSS, OUT_TAIL_LOST, 4)
    assert e.dropped == GRAZING


def test_tail_loss_drops_paired_trait_from_both_and_parasite():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE)
    t = animal(tb, st, 1, TAIL_LOSS, PARASITE)
    animal(tb, st, 1)
    link(st, 1, COMMUNICATION, 0, 1)
    feeding(tb, st, 0)
    act(tb, st, pk(OP_ATTACK, 0, 1, 0, t))
    drops = [((a >> 24) & 0xFF, a & 0xFF) for a in legal(tb, st) if a >> 32 == OP_TAIL]
    assert drops == [(PARASITE, 0), (TAIL_LOSS, 0), (COMMUNICATION, 0)]
    act(tb, st, pk(OP_TAIL, COMMUNICATION, 1, t, 0))
    assert st.n_ln[1] == 0 and st.an_links[1, 0] == 0 and st.an_links[1, 1] == 0
    assert st.discard_n[1] == 1, "one card, off both animals"
    # dropping the Parasite lowers the need by its 2
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 1, TAIL_LOSS, PARASITE, HIGH_BODY_WEIGHT)
    animal(tb, st, 0, CARNIVORE, HIGH_BODY_WEIGHT)
    feeding(tb, st, 0)
    act(tb, st, pk(OP_ATTACK, 0, 1, 1, 0))
    assert st.an_need[1, 0] == 4
    act(tb, st, pk(OP_TAIL, PARASITE, 1, 0, 0))
    assert st.an_need[1, 0] == 2 and st.an_tr[1, 0] == 1 << TAIL_LOSS | 1 << HIGH_BODY_WEIGHT
    tb, st = game(2, tail_loss_parasite=False)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 1, TAIL_LOSS, PARASITE)
    feeding(tb, st, 0)
    act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    assert st.kind != DEFEND or all((a >> 24) & 0xFF != PARASITE for a in legal(tb, st))


def test_tail_loss_with_poisonous_does_not_poison():
    tb, st, _ = attack_setup(TAIL_LOSS, POISONOUS)
    act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    act(tb, st, pk(OP_TAIL, TAIL_LOSS, 1, 0, 0))
    assert events(st, "attack")[-1].poisoned == 0
    st.an_food[0, 0] = 2
    st.an_food[1, 0] = 1
    extinction(tb, st)
    assert st.n_an[0] == 1, "the carnivore was not poisoned"


def test_poisonous_prey_kills_the_carnivore():
    tb, st, _ = attack_setup(POISONOUS)
    act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    assert st.an_food[0, 0] == 2 and events(st, "attack")[-1].poisoned == 1
    assert st.uses[1, POISONOUS] == 1
    extinction(tb, st)
    assert st.n_an[0] == 0, "fed, but poisoned: it dies at extinction"


def test_scavenger_order_from_the_attacker_clockwise():
    tb, st = game(4)
    st.n_an[:] = 0
    animal(tb, st, 1, CARNIVORE)
    animal(tb, st, 2)
    animal(tb, st, 3, SCAVENGER)
    animal(tb, st, 0, SCAVENGER)
    feeding(tb, st, 0, first=1)
    act(tb, st, pk(OP_ATTACK, 0, 2, 0, 0))
    assert st.an_food[3, 0] == 1 and st.an_food[0, 0] == 0, "seat 3 comes before seat 0"
    assert events(st, "attack")[-1].scavenger_seat == 3
    # the attacker's own scavengers first, the owner choosing among several
    tb, st = game(3)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 0, SCAVENGER)
    animal(tb, st, 0, SCAVENGER)
    animal(tb, st, 1)
    animal(tb, st, 2, SCAVENGER)
    feeding(tb, st, 0)
    k = act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    assert k == SCAVENGE and st.actor == 0
    act(tb, st, pk(OP_SCAVENGE, 0, 0, 2))
    assert st.an_food[0, 2] == 1 and st.an_food[0, 1] == 0 and st.an_food[2, 0] == 0


def test_scavenger_needs_room():
    tb, st = game(3)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 1)
    animal(tb, st, 1, SCAVENGER, food=1)
    animal(tb, st, 2, SCAVENGER)
    feeding(tb, st, 0)
    act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    assert st.an_food[2, 0] == 1, "the fed scavenger of seat 1 is passed over"


# ---------------------------------------------------------------- feeding-time traits


def test_piracy_conditions():
    tb, st = game(2)
    st.n_an[:] = 0
    p = animal(tb, st, 0, PIRACY, HIGH_BODY_WEIGHT)
    animal(tb, st, 1, HIGH_BODY_WEIGHT, PARASITE, food=2)  # unfed, holds food: a victim
    animal(tb, st, 1, food=1)  # fed: no
    animal(tb, st, 1, HIGH_BODY_WEIGHT)  # no food: no
    feeding(tb, st, 3)
    pir = [a for a in legal(tb, st) if a > 0 and a >> 32 == OP_PIRACY]
    assert pir == [pk(OP_PIRACY, 0, 1, p, 0)]
    k = act(tb, st, pir[0])
    assert st.an_food[0, p] == 1 and st.an_food[1, 0] == 1
    assert k == FEED and st.actor == 0, "Piracy goes with the turn's red token"
    assert all(a >> 32 != OP_PIRACY for a in legal(tb, st) if a > 0), "once per round"
    act(tb, st, pk(OP_RED, 0, 0, p))
    assert st.an_food[0, p] == 2
    # a fed pirate may not steal, nor fill its fat
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, PIRACY, fat_cards=1, food=1)
    animal(tb, st, 1, HIGH_BODY_WEIGHT, food=1)
    feeding(tb, st, 3)
    assert all(a >> 32 != OP_PIRACY for a in legal(tb, st) if a > 0)


@pytest.mark.parametrize("after", [True, False])
def test_free_traits_may_follow_the_main_action(after):
    """Feeding-time traits go "spolu so ziskom žetónu alebo namiesto neho" (with the token or
    instead of it), in no order. A kill can make a new Piracy victim (the scavenger it feeds
    holds a token and is not fed): with ``free_traits_after_main`` the pirate steals it in the
    same turn; without, the turn ends and its owner may feed it first."""
    tb, st = game(2, free_traits_after_main=after)
    st.n_an[:] = 0
    c = animal(tb, st, 0, CARNIVORE, PIRACY, HIGH_BODY_WEIGHT)  # needs 3, a kill gives 2
    scav = animal(tb, st, 1, SCAVENGER, HIGH_BODY_WEIGHT)  # needs 2
    prey = animal(tb, st, 1)
    feeding(tb, st, 5)
    assert all(a >> 32 != OP_PIRACY for a in legal(tb, st) if a > 0), "no victim yet"
    k = act(tb, st, pk(OP_ATTACK, 0, 1, c, prey))
    assert st.an_food[0, c] == 2 and st.an_food[1, scav] == 1
    steal = pk(OP_PIRACY, 0, 1, c, scav)
    if after:
        assert k == FEED and st.actor == 0 and steal in legal(tb, st)
        main = (OP_RED, OP_ATTACK, OP_FAT)
        assert all(a >> 32 not in main for a in legal(tb, st) if a > 0), "one main action"
        act(tb, st, steal)
        assert st.an_food[0, c] == 3 and st.an_food[1, scav] == 0
    else:
        assert k == FEED and st.actor == 1, "the attack ended the turn"


def test_hibernation_counts_as_fed_and_blocks_food():
    tb, st = game(2)
    st.n_an[:] = 0
    h = animal(tb, st, 0, HIBERNATION, HIGH_BODY_WEIGHT, fat_cards=1)
    animal(tb, st, 0)
    animal(tb, st, 1)
    feeding(tb, st, 3)
    k = act(tb, st, pk(OP_HIBERNATE, 0, 0, h))
    assert k == FEED and st.actor == 0, "Hibernation does not use up the turn"
    assert pk(OP_RED, 0, 0, h) not in legal(tb, st), "a hibernating animal takes no tokens"
    assert fed(st, 0, h)
    extinction(tb, st)
    assert st.n_an[0] == 1 and st.an_flags[0, 0] & 16, "survives; marked for next round"
    assert st.an_tr[0, 0] >> HIBERNATION & 1


def test_hibernation_not_two_rounds_in_a_row_nor_in_last_round():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, HIBERNATION)
    animal(tb, st, 1)
    st.an_flags[0, 0] = 16  # hibernated last round
    feeding(tb, st, 3)
    assert all(a >> 32 != OP_HIBERNATE for a in legal(tb, st) if a > 0)
    st.an_flags[0, 0] = 0
    feeding(tb, st, 3, last=True)
    assert all(a >> 32 != OP_HIBERNATE for a in legal(tb, st) if a > 0), "not in the last round"
    tb.hib_last = 1
    feeding(tb, st, 3, last=True)
    assert pk(OP_HIBERNATE, 0, 0, 0) in legal(tb, st)


def test_grazing_destroys_one_token_per_grazer_per_turn():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, GRAZING)
    animal(tb, st, 0, GRAZING)
    animal(tb, st, 1)
    feeding(tb, st, 5)
    act(tb, st, pk(OP_GRAZE, 0, 0, 0))
    act(tb, st, pk(OP_GRAZE, 0, 0, 1))
    assert st.bank == 3 and st.uses[0, GRAZING] == 2
    assert all(a >> 32 != OP_GRAZE for a in legal(tb, st) if a > 0), "each once per turn"
    assert act(tb, st, pk(OP_RED, 0, 0, 0)) == FEED and st.actor == 1


# ---------------------------------------------------------------- fat tissue


@pytest.mark.parametrize(("conversion", "counts"), [("any", [1, 2, 3]), ("need", [1, 2])])
def test_fat_tissue_stores_and_converts_instead_of_red(conversion, counts):
    """Instead of a red token "odoberiete ľubovoľný počet žltých žetónov tuku" (take any
    number of fat tokens) of one animal: all three, though it needs two (the third goes back
    to the supply), and on a fed animal too; ``fat_conversion=need`` stops at the need."""
    tb, st = game(2, fat_conversion=conversion)
    st.n_an[:] = 0
    a = animal(tb, st, 0, HIGH_BODY_WEIGHT, fat_cards=3, fat=3)
    animal(tb, st, 1)
    feeding(tb, st, 0)
    fats = sorted(x & 0xFF for x in legal(tb, st) if x > 0 and x >> 32 == OP_FAT)
    assert fats == counts
    k = act(tb, st, pk(OP_FAT, 0, 0, a, counts[-1]))
    assert st.an_food[0, a] == 2 and st.an_fat[0, a] == 3 - counts[-1] and fed(st, 0, a)
    assert not (k == FEED and st.actor == 0), "conversion is the turn's main action"
    tb, st = game(2, fat_conversion=conversion)
    st.n_an[:] = 0
    a = animal(tb, st, 0, fat_cards=2, fat=2, food=1)  # fed, fat full
    animal(tb, st, 1, HIGH_BODY_WEIGHT)
    feeding(tb, st, 3)
    fats = sorted(x & 0xFF for x in legal(tb, st) if x > 0 and x >> 32 == OP_FAT)
    assert fats == ([1, 2] if conversion == "any" else [])


def test_fat_conversion_triggers_no_cooperation():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, fat_cards=1, fat=1)
    animal(tb, st, 0)
    link(st, 0, COOPERATION, 0, 1)
    animal(tb, st, 1)
    feeding(tb, st, 0)
    act(tb, st, pk(OP_FAT, 0, 0, 0, 1))
    assert st.an_food[0, 0] == 1 and st.an_food[0, 1] == 0


def test_fat_persists_food_does_not():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, fat_cards=1, fat=1, food=1)
    animal(tb, st, 1, fat_cards=2, fat=2)
    extinction(tb, st)
    assert st.n_an[0] == 1 and st.n_an[1] == 0, "fat alone does not feed"
    assert st.an_fat[0, 0] == 1 and st.an_food[0, 0] == 0


# ---------------------------------------------------------------- paired traits


def test_seed_example_communication_and_symbiosis():
    tb, st = game(2)
    st.n_an[:] = 0
    s = animal(tb, st, 0)
    p = animal(tb, st, 0)
    link(st, 0, COMMUNICATION, s, p)
    link(st, 0, SYMBIOSIS, s, p)
    animal(tb, st, 1)
    feeding(tb, st, 5)
    acts = legal(tb, st)
    assert pk(OP_RED, 0, 0, p) not in acts, "the partner waits for its symbiont"
    act(tb, st, pk(OP_RED, 0, 0, s))
    assert st.an_food[0, s] == 1 and st.an_food[0, p] == 1, "then a second token at once"
    assert st.bank == 3 and st.r_red[0] == 2 and st.uses[0, COMMUNICATION] == 1


def test_communication_chain_each_link_once():
    tb, st = game(2)
    st.n_an[:] = 0
    for _ in range(3):
        animal(tb, st, 0, HIGH_BODY_WEIGHT)
    link(st, 0, COMMUNICATION, 0, 1)
    link(st, 0, COMMUNICATION, 1, 2)
    animal(tb, st, 1)
    feeding(tb, st, 10)
    act(tb, st, pk(OP_RED, 0, 0, 0))
    assert [int(st.an_food[0, a]) for a in range(3)] == [1, 1, 1], "0 -> 1 -> 2, each once"
    assert st.bank == 7


def test_communication_passes_on_red_tokens_only():
    tb, st = game(2)
    st.n_an[:] = 0
    for _ in range(3):
        animal(tb, st, 0, HIGH_BODY_WEIGHT)
    link(st, 0, COOPERATION, 0, 1)
    link(st, 0, COMMUNICATION, 1, 2)
    animal(tb, st, 1)
    feeding(tb, st, 5)
    act(tb, st, pk(OP_RED, 0, 0, 0))
    assert [int(st.an_food[0, a]) for a in range(3)] == [1, 1, 0], (
        "animal 1's token is blue (Cooperation): its Communication does not fire"
    )
    assert st.bank == 4


def test_communication_needs_a_partner_that_can_eat():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0)
    animal(tb, st, 0, food=1)
    link(st, 0, COMMUNICATION, 0, 1)
    animal(tb, st, 1)
    feeding(tb, st, 4)
    act(tb, st, pk(OP_RED, 0, 0, 0))
    assert st.bank == 3 and st.uses[0, COMMUNICATION] == 0


def test_cooperation_chain_red_and_blue():
    tb, st = game(2)
    st.n_an[:] = 0
    for _ in range(3):
        animal(tb, st, 0, HIGH_BODY_WEIGHT)
    link(st, 0, COOPERATION, 0, 1)
    link(st, 0, COOPERATION, 1, 2)
    animal(tb, st, 1)
    feeding(tb, st, 4)
    act(tb, st, pk(OP_RED, 0, 0, 0))
    assert [int(st.an_food[0, a]) for a in range(3)] == [1, 1, 1] and st.bank == 3, (
        "red to 0, blue to 1, blue to 2 (a blue token triggers it too)"
    )
    # a carnivore's kill food (blue) triggers it
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE)
    animal(tb, st, 0)
    link(st, 0, COOPERATION, 0, 1)
    animal(tb, st, 1)
    feeding(tb, st, 0)
    act(tb, st, pk(OP_ATTACK, 0, 1, 0, 0))
    assert st.an_food[0, 1] == 1


def test_link_choice_when_several_can_fire():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0)
    animal(tb, st, 0)
    animal(tb, st, 0)
    link(st, 0, COMMUNICATION, 0, 1)
    link(st, 0, COMMUNICATION, 0, 2)
    animal(tb, st, 1)
    feeding(tb, st, 2)
    k = act(tb, st, pk(OP_RED, 0, 0, 0))
    assert k == LINK and st.actor == 0, "one token left for two partners: the owner chooses"
    assert legal(tb, st) == [pk(OP_LINK, 0, 0, 0, 0), pk(OP_LINK, 0, 0, 0, 1)]
    act(tb, st, pk(OP_LINK, 0, 0, 0, 1))
    assert st.an_food[0, 2] == 1 and st.an_food[0, 1] == 0 and st.bank == 0


@pytest.mark.parametrize(("way", "a_food"), [("either", 2), ("first", 1)])
def test_a_paired_trait_triggered_from_both_ends_passes_food_either_way(way, a_food):
    """Cooperation: "when one animal receives a token, the other ... receives one"; the owner
    orders the paired traits, each once per action. A takes a red token, so Communication and
    Cooperation are both ready to feed B; Communication feeds B, which is then fed, and
    Cooperation, now triggered from B's end as well, feeds A (``paired_direction=either``).
    Held to the direction of its first trigger (``first``) it is lost."""
    tb, st = game(2, paired_direction=way)
    st.n_an[:] = 0
    a = animal(tb, st, 0, HIGH_BODY_WEIGHT)
    b = animal(tb, st, 0)
    link(st, 0, COMMUNICATION, a, b)
    link(st, 0, COOPERATION, a, b)
    animal(tb, st, 1, HIGH_BODY_WEIGHT)
    feeding(tb, st, 5)
    assert act(tb, st, pk(OP_RED, 0, 0, a)) == LINK
    assert legal(tb, st) == [pk(OP_LINK, 0, 0, 0, 0), pk(OP_LINK, 0, 0, 0, 1)]
    act(tb, st, pk(OP_LINK, 0, 0, 0, 0))  # Communication first: B's red token
    assert (int(st.an_food[0, a]), int(st.an_food[0, b])) == (a_food, 1) and st.bank == 3
    if way == "first":
        return
    # both can still eat: the owner chooses which way Cooperation passes its token
    tb, st = game(2, paired_direction=way)
    st.n_an[:] = 0
    a = animal(tb, st, 0, HIGH_BODY_WEIGHT)
    b = animal(tb, st, 0, HIGH_BODY_WEIGHT)
    link(st, 0, COMMUNICATION, a, b)
    link(st, 0, COOPERATION, a, b)
    animal(tb, st, 1, HIGH_BODY_WEIGHT)
    feeding(tb, st, 5)
    act(tb, st, pk(OP_RED, 0, 0, a))
    assert act(tb, st, pk(OP_LINK, 0, 0, 0, 0)) == LINK
    assert legal(tb, st) == [pk(OP_LINK, 0, 0, 0, 1), pk(OP_LINK, 0, 0, 1, 1)]
    act(tb, st, pk(OP_LINK, 0, 0, 1, 1))  # back to A
    assert (int(st.an_food[0, a]), int(st.an_food[0, b])) == (2, 1)


def test_paired_once_per_action_or_go_around():
    # Seat 0: scavenger A and B linked by Cooperation. Seat 0 takes a red token for A (B gets
    # a blue one); then, in the same go-around, seat 1's carnivore eats, A scavenges a blue
    # token, and the Cooperation fires again only when paired traits reset per action.
    for per, b_food in (("action", 2), ("go-around", 1)):
        tb, st = game(2, paired_once_per=per)
        st.n_an[:] = 0
        a = animal(tb, st, 0, SCAVENGER, HIGH_BODY_WEIGHT)
        b = animal(tb, st, 0, HIGH_BODY_WEIGHT)
        link(st, 0, COOPERATION, a, b)
        animal(tb, st, 1, CARNIVORE)
        animal(tb, st, 1)
        feeding(tb, st, 5, first=0)
        act(tb, st, pk(OP_RED, 0, 0, a))
        assert (int(st.an_food[0, a]), int(st.an_food[0, b])) == (1, 1)
        assert st.actor == 1
        act(tb, st, pk(OP_ATTACK, 0, 1, 0, 1))
        assert int(st.an_food[0, a]) == 2 and int(st.an_food[0, b]) == b_food, per


# ---------------------------------------------------------------- extinction and draw


def test_extinction_discards_links_on_both_partners():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, food=1)
    animal(tb, st, 0, SWIMMING, fat_cards=1)
    link(st, 0, COOPERATION, 0, 1)
    link(st, 0, SYMBIOSIS, 1, 0)
    before = int(st.discard_n[0])
    extinction(tb, st)
    assert st.n_an[0] == 1 and st.n_ln[0] == 0 and st.an_links[0, 0] == 0
    assert st.discard_n[0] == before + 5, "animal, Swimming, Fat Tissue and both paired cards"
    assert st.r_animals[0] == 2 and st.r_survivors[0] == 1 and st.r_traits[0] == 0


def test_draw_one_plus_survivors_one_at_a_time():
    tb, st = game(3, first_player=1)
    st.n_an[:] = 0
    for s, k in ((0, 2), (1, 0), (2, 1)):
        for _ in range(k):
            animal(tb, st, s, food=1)
    st.first = 1
    st.deck_top = st.deck_len - 4
    hands = [int(x) for x in st.n_hand[:3]]
    extinction(tb, st)
    got = [int(st.r_drawn[s]) for s in range(3)]
    # owed: seat 0: 3, seat 1: 1 (hand not empty), seat 2: 2; dealt from seat 1: 1,2,0 then 2,0
    assert got == [1, 1, 2] and st.deck_top == st.deck_len
    assert [int(st.n_hand[s]) for s in range(3)] == [h + g for h, g in zip(hands, got, strict=True)]


def test_six_cards_for_a_player_with_nothing():
    tb, st = game(2)
    st.n_an[:] = 0
    hand_only(st, 0)
    st.deck_top = 0
    extinction(tb, st)
    assert st.r_drawn[0] == 6 and st.r_drawn[1] == 1


def test_a_table_with_nothing_left_ends_at_the_round_cap():
    """With ``empty_draw = 0`` a table where nobody holds an animal or a card draws nothing
    and could go on for ever: the engine ends the game after ``max_rounds`` rounds."""
    tb, st = game(2, empty_draw=0)
    st.n_an[:] = 0
    hand_only(st, 0)
    hand_only(st, 1)
    st.pause = 0
    rounds = 0
    while (k := run(tb, st)) != GAME_OVER:
        assert k == ROUND_DONE, "nobody can decide anything"
        rounds += 1
        assert rounds <= tb.max_rounds
    assert rounds == tb.max_rounds == OosParameters(empty_draw=0).max_rounds(2, DECK)
    assert st.deck_top == 2 * 6, "nothing was drawn"


def test_last_round_after_the_deck_empties():
    for rule, extra in (("next", 1), ("same", 0)):
        tb, st = game(2, last_round=rule)
        st.step = ST_ROUND
        empty_after = None
        rounds = 0
        while True:
            k = run(tb, st)
            if k == GAME_OVER:
                break
            if k == ROUND_DONE:
                rounds += 1
                if empty_after is None and st.deck_top == st.deck_len:
                    empty_after = rounds
                continue
            if k != PAUSED:
                apply(tb, st, legal(tb, st)[-1])
        assert rounds == empty_after + extra, rule


# ---------------------------------------------------------------- scoring


def test_seed_scoring_example():
    tb, st = game(2)
    st.n_an[:] = 0
    animal(tb, st, 0, CARNIVORE, HIGH_BODY_WEIGHT)  # 2 + 2 traits + 1 + 1 = 6
    animal(tb, st, 0, PARASITE, fat_cards=2)  # 2 + 3 traits + 2 = 7
    animal(tb, st, 0)  # 2
    link(st, 0, COOPERATION, 1, 2)  # +1 on each
    animal(tb, st, 1, SWIMMING)  # 3
    final_scores(tb, st)
    assert list(st.score[:2]) == [6 + 7 + 2 + 2, 3]
    assert list(st.extra[:2]) == [4, 0] and list(st.end_traits[:2]) == [7, 1]


def test_paired_points_parameter():
    tb, st = game(2, paired_points_per_animal=False)
    st.n_an[:] = 0
    animal(tb, st, 0)
    animal(tb, st, 0)
    link(st, 0, COMMUNICATION, 0, 1)
    final_scores(tb, st)
    assert st.score[0] == 2 + 2 + 1


def test_tie_break_by_discard_pile_then_shared():
    tb, st = game(3)
    st.score[:3] = [5, 5, 3]
    st.discard_n[:3] = [4, 7, 9]
    w = np.zeros(3, np.bool_)
    assert final_result(tb, st, w) == 1 and list(w) == [False, True, False]
    st.discard_n[:3] = [7, 7, 9]
    assert final_result(tb, st, w) == -1 and list(w) == [True, True, False]


# ---------------------------------------------------------------- deck and parameters


def test_base_deck_84_cards_and_round_trip():
    assert DECK.n_cards == 84 and DECK.n_types == 20
    assert DECK.counts(CARNIVORE) == 24 and DECK.counts(FAT_TISSUE) == 28
    assert DECK.counts(SWIMMING) == 8 and DECK.counts(PARASITE) == 8
    for t in range(FAT_TISSUE):
        assert DECK.counts(t) >= 4, TRAITS[t]
    again = parse_deck(DECK.to_csv(), label="x")
    assert again.top == DECK.top and again.copies == DECK.copies and again.sha256 == DECK.sha256
    assert "PROVISIONAL" in DECK.describe() and DECK.sha256[:12] in DECK.describe()
    assert load_deck("base").n_cards == 84


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("card_id,trait_top,copies\nA,Swimming,4\n", "missing column(s) trait_bottom"),
        ("card_id,trait_top,trait_bottom,copies\nA,Flying,,4\n", "line 2: unknown trait 'Flying'"),
        ("card_id,trait_top,trait_bottom,copies\nA,Swimming,,x\n", "line 2: copies must be"),
        ("card_id,trait_top,trait_bottom,copies\nA,Swimming,,0\n", "line 2: copies must be 1..64"),
        ("card_id,trait_top,trait_bottom,copies\nA,Swimming,,4,9\n", "line 2: more cells"),
        (
            "card_id,trait_top,trait_bottom,copies\nA,Swimming,,4\nB,Swimming,,2\n",
            "line 3: the same card as line 2",
        ),
        (
            "card_id,trait_top,trait_bottom,copies,top_extra_food\nA,Parasite,,4,1\n",
            "top_extra_food of Parasite must be 2",
        ),
        (
            "card_id,trait_top,trait_bottom,copies,top_is_paired\nA,Symbiosis,,4,no\n",
            "top_is_paired of Symbiosis must be yes",
        ),
        ("card_id,trait_top,trait_bottom,copies\nA,Swimming,Swimming,4\n", "are both Swimming"),
        ("card_id,trait_top,trait_bottom,copies\n", "no cards"),
        ("card_id,trait_top,trait_bottom,copies,colour\nA,Swimming,,4,red\n", "unknown column"),
    ],
)
def test_deck_file_errors(tmp_path, text, message):
    path = tmp_path / "deck.csv"
    path.write_text(text)
    with pytest.raises(DataFileError) as err:
        load_deck(str(path))
    assert message in str(err.value) and "\n" not in str(err.value)
    assert str(path) in str(err.value) or "no cards" in message or "missing" in message


def test_designer_deck_loads(tmp_path):
    path = tmp_path / "mini.csv"
    path.write_text(
        "card_id,trait_top,trait_bottom,copies\nA,Swimming,,20\nB,Carnivore,Fat Tissue,20\n"
    )
    p = P0.with_values({"deck": str(path)})
    deck = p.load_deck()
    assert deck.n_cards == 40 and "designer-supplied" in deck.describe()
    tb = make_table(p, deck, 2)[0]
    assert tb.n_cards == 40
    assert make_table(p, deck, 8)[0].n_cards == 80, "two sets from 5 players"
    with pytest.raises(RuleError, match="need 48 cards"):
        p.with_values({"n_sets": "1"}).check_players(8, deck)


def test_parameter_errors():
    with pytest.raises(RuleError, match="food_dice"):
        P0.with_values({"food_dice": "1,2"})
    with pytest.raises(RuleError, match="last_round"):
        P0.with_values({"last_round": "never"})
    with pytest.raises(RuleError, match="2-8 players"):
        P0.check_players(9, DECK)
    with pytest.raises(DataFileError, match="neither a built-in deck"):
        P0.with_values({"deck": "nope.csv"}).load_deck()
    assert P0.max_rounds(4, DECK) == 16 and P0.food_range(4) == (4, 14)
