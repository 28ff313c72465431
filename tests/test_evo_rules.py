"""EVO rules: the rulebook's worked examples and the engine's mechanics, one at a time."""

from __future__ import annotations

import numpy as np
import pytest

from rules.core.errors import RuleError
from rules.core.rng import seed_streams
from rules.evo.board import add_dino, attack_odds, remove_dino, set_climate, win_up_to
from rules.evo.cards import CARDS, N_CARDS, allowed_phases
from rules.evo.constants import (
    BID,
    CARD_PLAY,
    COLD,
    CULL,
    DESERT,
    FREEZING,
    FUR,
    HILLS,
    HORN,
    LEG,
    MOUNTAINS,
    MUTATION,
    PARASOL,
    PASS,
    PLACE,
    PLAINS,
    SCORCHING,
    TAIL,
    TEMPERATE,
    WARM,
)
from rules.evo.engine import (
    ST_AUCTION_START,
    ST_BIRTH_PLAYER,
    ST_CLIMATE,
    ST_CLIMATE_CARDS,
    ST_SURVIVAL_START,
    actions,
    advance,
    apply,
    bid_cap,
    deal,
    initiative,
    min_bid,
    pack,
    pay_auction,
)
from rules.evo.params import EvoParameters
from rules.evo.state import E_BIG_BROTHER, E_GENE_GUARD, E_GIANT, make_table, new_states

GREEN, BROWN, GREY, YELLOW = 1, 2, 3, 0
"""Fields of the default climate track: yellow, green, brown, grey, brown, green."""


def empty_board(n: int = 4, **rules):
    """A dealt game with every dino taken off the board: (table, state, map)."""
    p = EvoParameters().with_values(rules) if rules else EvoParameters()
    m = p.load_map(n)
    tb = make_table(p, m, n)[0]
    st = new_states(1)[0]
    with np.errstate(over="ignore"):
        seed_streams(st.rng[: 1 + n], np.uint64(12345), np.uint64(12345))
        deal(tb, st)
    for s in range(n):
        while st.n_dinos[s]:
            remove_dino(st, st.pieces[s, 0])
    return tb, st, m


def regions_of(m, terrain: int, k: int) -> list[int]:
    return [int(r) for r in np.flatnonzero(m.terrain == terrain)[:k]]


def run(tb, st) -> int:
    with np.errstate(over="ignore"):
        return advance(tb, st)


# ---------------------------------------------------------------- climate


def test_climate_example_1_marker_on_green():
    tb, _, _ = empty_board()
    z = tb.zone[GREEN]
    assert (z[PLAINS], z[HILLS], z[DESERT], z[MOUNTAINS]) == (TEMPERATE, COLD, WARM, FREEZING)


def test_climate_example_2_marker_on_grey():
    tb, _, _ = empty_board()
    z = tb.zone[GREY]
    assert (z[MOUNTAINS], z[HILLS], z[DESERT], z[PLAINS]) == (TEMPERATE, WARM, SCORCHING, SCORCHING)


def test_climate_track_is_a_cycle_with_two_green_and_two_brown_fields():
    tb, _, _ = empty_board()
    assert list(tb.cycle[: tb.cycle_len]) == [DESERT, PLAINS, HILLS, MOUNTAINS, HILLS, PLAINS]
    assert list(tb.twin[: tb.cycle_len]) == [-1, 5, 4, -1, 2, 1]
    assert tb.climate_start == 0 and tb.cycle[0] == DESERT  # marker starts on yellow


@pytest.mark.parametrize(("face", "field"), [(1, 5), (2, 0), (3, 1), (4, 1), (5, 1), (6, 1)])
def test_climate_die_1_back_2_stay_3_to_6_forward(face, field):
    tb, st, _ = empty_board()
    st.climate, st.step, st.rnd = 0, ST_CLIMATE, 0
    st.forced_roll = face  # Meteorológus-gén's chosen face goes through the same die table
    run(tb, st)
    assert st.climate == field


# ---------------------------------------------------------------- survival (Gábor)


def gabor(climate: int):
    tb, st, m = empty_board()
    for terrain, k in ((DESERT, 1), (PLAINS, 2), (HILLS, 5), (MOUNTAINS, 2)):
        for r in regions_of(m, terrain, k):
            add_dino(st, 0, r)
    st.genes[0, FUR], st.genes[0, PARASOL] = 2, 1
    set_climate(tb, st, climate)
    st.step, st.rnd = ST_SURVIVAL_START, 0
    return tb, st, m


def test_survival_example_gabor_marker_on_brown():
    tb, st, m = gabor(BROWN)
    assert run(tb, st) == CULL  # two dinos on warm plains, one parasol: Gábor chooses
    assert st.actor == 0 and st.cull_zone == WARM
    plains = regions_of(m, PLAINS, 2)
    assert sorted(actions(tb, st, k) for k in range(actions(tb, st, -1))) == sorted(plains)
    apply(tb, st, plains[0])
    assert run(tb, st) == BID  # survival resolved, scored, no meteor hit in round 1
    left = sorted(int(m.terrain[st.pieces[0, k]]) for k in range(st.n_dinos[0]))
    assert left == [PLAINS] + [HILLS] * 5 + [MOUNTAINS] * 2  # desert dino and one plains die
    assert st.died_climate[0] == 2 and st.scored[0] == 8


def test_survival_example_gabor_marker_on_yellow():
    tb, st, m = gabor(YELLOW)
    assert run(tb, st) == BID  # no choice: plains are cold and 2 furs keep both
    left = sorted(int(m.terrain[st.pieces[0, k]]) for k in range(st.n_dinos[0]))
    assert left == [DESERT, PLAINS, PLAINS]  # hills and mountains freeze, parasols useless
    assert st.died_climate[0] == 7


def test_killing_frost_costs_a_fur():
    tb, st, _ = gabor(BROWN)
    st.fur_minus = 1  # Gyilkos fagy
    assert run(tb, st) == CULL and st.cull_zone == COLD  # two mountain dinos, one fur left
    apply(tb, st, actions(tb, st, 0))
    assert run(tb, st) == CULL and st.cull_zone == WARM


# ---------------------------------------------------------------- combat


def test_combat_table():
    tb, st, _ = empty_board()
    assert [win_up_to(tb, d) for d in range(-3, 4)] == [0, 0, 1, 2, 4, 5, 5]
    st.genes[0, HORN], st.genes[1, HORN] = 0, 2
    assert attack_odds(tb, st, 0, 1, 0) == 0  # two horns fewer: the attack is not allowed
    st.eff[0] = E_GIANT  # Óriásgén: +2 on attack
    assert attack_odds(tb, st, 0, 1, 0) == 2
    st.eff[1] = E_BIG_BROTHER  # Nagytestvér: +2 on defence
    assert attack_odds(tb, st, 0, 1, 0) == 0
    st.eff[1] = 0
    st.truce[0], st.truce[1] = 1, 0  # Védelmi gáz
    assert attack_odds(tb, st, 0, 1, 0) == 0
    st.truce[0], st.truce[1] = -1, -1
    st.peace = 1  # Vegetáriánus étrend
    assert attack_odds(tb, st, 0, 1, 0) == 0


def test_attack_costs_a_move_and_the_loser_leaves(monkeypatch):
    tb, st, m = empty_board()
    a = regions_of(m, DESERT, 1)[0]
    b = int(tb.adj[a, 0])
    add_dino(st, 0, a)
    add_dino(st, 1, b)
    st.step, st.rnd = 4, 0  # ST_MOVE_START
    st.order[:4] = [0, 1, 2, 3]
    assert run(tb, st) not in (0,)
    assert st.actor == 0 and st.mp == 1
    assert pack(a, b) in [actions(tb, st, k) for k in range(actions(tb, st, -1))]
    apply(tb, st, pack(a, b))
    assert st.mp == 0
    assert (st.n_dinos[0], st.n_dinos[1]) in ((1, 0), (0, 1))
    assert st.died_combat[0] + st.died_combat[1] == 1
    assert st.owner[b] == (0 if st.n_dinos[0] else 1)


# ---------------------------------------------------------------- auction


def test_mutation_discount_example():
    tb, st, _ = empty_board()
    for bid, pays in ((5, 3), (1, 0)):
        st.offer[0], st.n_rows = LEG, 1
        st.bid_row[:] = -1
        st.bid_row[0], st.bid_val[0] = 0, bid
        st.genes[0, MUTATION], st.genes[0, LEG], st.points[0] = 2, 1, 10
        st.eff[0] = 0
        pay_auction(tb, st)
        assert st.paid[0] == pays and st.points[0] == 10 - pays and st.genes[0, LEG] == 2


def test_bids_are_capped_by_points_plus_discount():
    tb, st, _ = empty_board()
    st.points[0], st.genes[0, MUTATION] = 4, 2
    assert bid_cap(tb, st, 0) == 6


def auction(n: int = 3, **rules):
    tb, st, _m = empty_board(n, **rules)
    st.step, st.rnd = ST_AUCTION_START, 5
    st.hand[:n] = 0
    for s in range(n):
        st.order[s] = s
        st.points[s] = 10
    assert run(tb, st) == BID
    return tb, st


def test_outbid_player_moves_at_once_and_bidding_is_compulsory():
    tb, st = auction()
    assert st.n_rows == 3 and st.max_pass == 0 and st.actor == 0
    assert actions(tb, st, 0) != PASS  # no passing in the normal game
    apply(tb, st, pack(0, 0))
    assert run(tb, st) == BID and st.actor == 1
    apply(tb, st, pack(0, 1))  # outbids seat 0
    assert run(tb, st) == BID and st.actor == 0  # seat 0 moves before seat 2 bids
    assert min_bid(tb, st, 0) == 2 and min_bid(tb, st, 1) == 0
    apply(tb, st, pack(1, 0))
    assert run(tb, st) == BID and st.actor == 2
    assert list(st.bid_val[:2]) == [0, 1]
    apply(tb, st, pack(2, 3))
    assert run(tb, st) != BID  # everyone holds a different gene
    assert list(st.paid[:3]) == [0, 1, 3]


def test_gene_guard_makes_outbidding_cost_three_more():
    tb, st = auction()
    apply(tb, st, pack(0, 2))
    st.eff[0] |= E_GENE_GUARD  # Génorzás
    run(tb, st)
    assert min_bid(tb, st, 0) == 5


def test_harder_variant_draws_one_gene_fewer_and_allows_one_pass():
    tb, st = auction(harder="true")
    assert st.n_rows == 2 and st.max_pass == 1
    assert actions(tb, st, 0) == PASS
    apply(tb, st, PASS)
    assert run(tb, st) == BID and st.actor == 1
    assert actions(tb, st, 0) != PASS  # only the first passer leaves the auction
    apply(tb, st, pack(0, 0))
    run(tb, st)
    apply(tb, st, pack(1, 0))
    assert run(tb, st) != BID
    assert st.bought[0] == -1 and st.bought[1] >= 0 and st.bought[2] >= 0


def test_card_gene_draws_an_event_card_and_leaves_the_game():
    tb, st, _ = empty_board()
    st.offer[0], st.n_rows = 7, 1  # card gene
    st.bid_row[:] = -1
    st.bid_row[0], st.bid_val[0] = 0, 0
    hand, top = int(st.hand[0]), int(st.deck_top)
    pay_auction(tb, st)
    assert bin(int(st.hand[0])).count("1") == bin(hand).count("1") + 1
    assert st.deck_top == top + 1 and st.genes[0, 7] == 1


# ---------------------------------------------------------------- initiative


def test_initiative_tails_then_dinos_then_die():
    tb, st, _m = empty_board()
    st.genes[:4, TAIL] = [1, 3, 1, 1]
    for s, k in ((0, 2), (2, 4), (3, 2)):
        for r in np.flatnonzero(st.owner[: tb.n_regions] < 0)[:k]:
            add_dino(st, s, int(r))
    with np.errstate(over="ignore"):
        initiative(tb, st)
    assert list(st.order[:2]) == [1, 2]  # most tails, then more dinos
    assert sorted(st.order[2:4]) == [0, 3]  # equal tails and dinos: the die decides
    assert list(st.tie_how[:4]) == [2, 0, 1, 2]


def test_initiative_without_tails():
    tb, st, _ = empty_board(initiative_tails="false")
    st.genes[:4, TAIL] = [5, 1, 1, 1]
    add_dino(st, 3, 0)
    with np.errstate(over="ignore"):
        initiative(tb, st)
    assert st.order[0] == 3 and st.tie_how[3] == 1


# ---------------------------------------------------------------- cards


def test_all_26_cards_with_their_timings():
    assert len(CARDS) == N_CARDS == 26
    assert [c.number for c in CARDS] == list(range(1, 27))
    assert allowed_phases(7) == {5} and allowed_phases(2) == {2} and allowed_phases(13) == {4}
    assert allowed_phases(1) == set(range(1, 7))  # Alvógén: any time


def play_card_now(tb, st, seat: int, card: int, target: int = 0) -> None:
    st.hand[seat] |= 1 << (card - 1)
    assert run(tb, st) == CARD_PLAY and st.actor == seat
    apply(tb, st, pack(card, target))


def test_catastrophe_and_crazy_weather():
    tb, st, _ = empty_board()
    st.hand[:4] = 0
    set_climate(tb, st, GREEN)
    st.rnd, st.step = 2, ST_CLIMATE_CARDS  # round 3, before the climate cards
    st.order[:4] = [0, 1, 2, 3]
    play_card_now(tb, st, 0, 3)  # Bolond időjárás: to the other green field
    assert st.climate == 5
    st.hand[1] |= 1 << 10  # Katasztrófa: a second climate card is refused this round
    assert run(tb, st) != CARD_PLAY
    assert st.climate_card == 3 and st.climate_roll > 0  # the die was still rolled


def test_no_cards_in_the_first_two_rounds():
    tb, st, _ = empty_board()
    st.hand[:4] = (1 << 26) - 1
    st.rnd, st.step = 1, ST_CLIMATE_CARDS
    assert run(tb, st) != CARD_PLAY


def test_flood_uses_parasols():
    tb, st, m = empty_board()
    coast = [int(r) for r in np.flatnonzero(m.coast)[:6]]
    for r in coast:
        add_dino(st, 0, r)
    st.genes[0, PARASOL] = 3  # d6 + 3 > 3: nobody drowns
    st.hand[:4] = 0
    st.rnd, st.step = 2, ST_CLIMATE_CARDS
    play_card_now(tb, st, 0, 26)
    assert st.n_dinos[0] == 6 and st.died_card[0] == 0


def test_place_next_to_old_dinos_only():
    tb, st, m = empty_board()
    home = regions_of(m, DESERT, 1)[0]
    add_dino(st, 0, home)
    st.rnd, st.step, st.seq = 0, 8, 0  # ST_BIRTH_PLAYER
    st.order[:4] = [0, 1, 2, 3]
    assert run(tb, st) == PLACE and st.actor == 0
    legal = sorted(actions(tb, st, k) for k in range(actions(tb, st, -1)))
    assert legal == sorted(int(x) for x in tb.adj[home, : tb.deg[home]])


def test_wiped_out_player_places_anywhere_then_as_a_group():
    tb, st, _m = empty_board()
    st.genes[1, 3] = 2  # two eggs
    st.rnd, st.step, st.seq = 0, ST_BIRTH_PLAYER, 1
    st.order[:4] = [0, 1, 2, 3]
    assert run(tb, st) == PLACE and st.actor == 1
    assert actions(tb, st, -1) == tb.n_regions
    far = int(tb.n_regions - 1)
    apply(tb, st, far)
    assert run(tb, st) == PLACE
    legal = sorted(actions(tb, st, k) for k in range(actions(tb, st, -1)))
    assert legal == sorted(int(x) for x in tb.adj[far, : tb.deg[far]])


# ---------------------------------------------------------------- parameters


def test_parameter_defaults_and_the_english_start():
    assert EvoParameters().start_points == 6  # the seed: "a 6-os mezőre"
    assert EvoParameters().with_values({"start_points": "10"}).start_points == 10


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"start_pionts": "6"}, "unknown rule key 'start_pionts'"),
        ({"start_points": "-1"}, "rule 'start_points' must be an integer"),
        ({"gene_bag": "1,2,3"}, "rule 'gene_bag' needs 8 counts"),
        ({"climate_die": "1,1,1"}, "rule 'climate_die' needs 6 faces"),
        ({"meteor_die_spaces": "11,13"}, "need the same length"),
        ({"meteor_die_spaces": "11,12,20"}, "before the last space"),
        ({"harder": "maybe"}, "rule 'harder' must be true or false"),
        ({"event_cards": "1,1"}, "names a card twice"),
        ({"event_cards": "27"}, "rule 'event_cards'"),
    ],
)
def test_bad_parameters_are_refused_with_a_clear_message(values, words):
    with pytest.raises(RuleError) as err:
        EvoParameters().with_values(values)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_player_count_checks():
    with pytest.raises(RuleError, match="3-5 players"):
        EvoParameters().check_players(2)
    with pytest.raises(RuleError, match="event cards"):
        EvoParameters().with_values({"cards_dealt": "8"}).check_players(4)


def test_meteor_track_defaults_give_ten_rounds_for_four_players():
    p = EvoParameters()
    assert [p.max_rounds(n) for n in (3, 4, 5)] == [11, 10, 9]
    assert p.with_values({"harder": "true"}).max_rounds(4) == 12
