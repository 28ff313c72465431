"""EVO: the effect of each event card, the direction of the combat roll, meteor strikes, and the
last round without an auction (each checked on a hand-made position)."""

from __future__ import annotations

import numpy as np
import pytest

from rules.core.rng import bounded
from rules.evo.board import add_dino, fight, set_climate, win_up_to
from rules.evo.cards import (
    ACCIDENT,
    CATASTROPHE,
    CHANGELING,
    DOUBLING,
    GENE_GUARD,
    INSTINCT,
    ME_FIRST,
    SURPRISE,
    SURVIVAL_GENE,
    W_BIDDING,
    W_CLIMATE,
    W_GAME_END,
    WEATHER_SWAP,
)
from rules.evo.constants import (
    BID,
    CARD_PLAY,
    COLD,
    DESERT,
    EGG,
    FUR,
    HILLS,
    HORN,
    LEG,
    MOUNTAINS,
    MOVE,
    PARASOL,
    PASS,
    PLACE,
    PLAINS,
    ROUND_DONE,
    WARM,
)
from rules.evo.engine import (
    ST_AUCTION_START,
    ST_BIRTH_PLAYER,
    ST_CLIMATE_CARDS,
    ST_METEOR,
    ST_MOVE_PLAYER,
    ST_SURVIVAL_START,
    actions,
    apply,
    final_result,
    pack,
)
from rules.evo.events import playable
from rules.evo.state import (
    E_HEAT_SKIN,
    E_NEOPRENE,
    E_TOUGH_YOUNG,
    E_WANDERERS,
    EVENTS,
    S_COMBAT,
    S_METEOR,
)
from tests.test_evo_rules import BROWN, GREEN, GREY, YELLOW, empty_board, regions_of, run


def bit(card: int) -> int:
    return 1 << (card - 1)


def legal(tb, st) -> list[int]:
    return [int(actions(tb, st, k)) for k in range(actions(tb, st, -1))]


def at(step: int, rnd: int = 4, n: int = 4, **rules):
    """An empty board, round ``rnd + 1``, players in seat order, no cards in hand."""
    tb, st, m = empty_board(n, **rules)
    st.hand[:n] = 0
    st.order[:n] = list(range(n))
    st.rnd, st.step = rnd, step
    return tb, st, m


def spread(st, m, seat: int, k: int, terrain: int | None = None) -> list[int]:
    """Put ``k`` dinos of ``seat`` on free regions (of ``terrain``) that touch no other dino."""
    placed = []
    for r in range(len(m.terrain)):
        if len(placed) == k:
            break
        if terrain is not None and m.terrain[r] != terrain:
            continue
        if st.owner[r] >= 0 or any(st.owner[b] >= 0 for b in m.neighbours[r]):
            continue
        add_dino(st, seat, r)
        placed.append(r)
    assert len(placed) == k
    return placed


def play(tb, st, seat: int, card: int, target: int = 0) -> None:
    st.hand[seat] |= bit(card)
    assert run(tb, st) == CARD_PLAY and st.actor == seat
    apply(tb, st, pack(card, target))


def pass_cards(tb, st) -> int:
    """Pass every card decision until something else is asked; return that kind."""
    while (kind := run(tb, st)) == CARD_PLAY:
        apply(tb, st, PASS)
    return kind


# ---------------------------------------------------------------- combat and the meteor


@pytest.mark.parametrize(("diff", "wins"), [(-1, 1), (0, 2), (1, 4), (2, 5), (3, 5)])
def test_the_attacker_wins_on_a_roll_up_to_the_table_value(diff, wins):
    """Every roll 1-6 is met: the attacker wins exactly on rolls 1..wins (a reversed table, or
    `<` for `<=`, fails)."""
    tb, st, m = empty_board()
    a, b = regions_of(m, DESERT, 2)
    add_dino(st, 0, a)
    add_dino(st, 1, b)
    st.genes[0, HORN], st.genes[1, HORN] = max(diff, 0), max(-diff, 0)
    assert win_up_to(tb, diff) == wins
    outcome = {}
    with np.errstate(over="ignore"):
        for seed in range(1, 400):
            st.rng[S_COMBAT] = np.uint64(seed * 0x9E3779B97F4A7C15 % 2**64 or 1)
            copy = st.rng.copy()
            roll = 1 + bounded(copy, S_COMBAT, 6)
            won = fight(tb, st, 0, b, 0, 3)
            st.n_ev = 0
            assert outcome.setdefault(roll, won) == won
    assert sorted(outcome) == [1, 2, 3, 4, 5, 6]
    assert [r for r in range(1, 7) if outcome[r]] == list(range(1, wins + 1))


def test_two_horns_fewer_cannot_attack():
    tb, st, m = at(ST_MOVE_PLAYER)
    a = regions_of(m, DESERT, 1)[0]
    b = int(tb.adj[a, 0])
    add_dino(st, 0, a)
    add_dino(st, 1, b)
    st.genes[1, HORN] = 2
    st.seq = 0
    assert run(tb, st) != MOVE or pack(a, b) not in legal(tb, st)
    st.genes[1, HORN] = 1
    st.kind, st.step, st.seq = 0, ST_MOVE_PLAYER, 0
    assert run(tb, st) == MOVE and pack(a, b) in legal(tb, st)


def meteor(space: int, want_roll: int):
    """A position at phase 6 with the meteor about to move onto ``space`` and its die set to
    show ``want_roll``."""
    tb, st, m = at(ST_METEOR)
    spread(st, m, 0, 1)
    st.meteor = space - 1
    with np.errstate(over="ignore"):
        for seed in range(1, 10_000):
            st.rng[S_METEOR] = np.uint64(seed)
            if 1 + bounded(st.rng.copy(), S_METEOR, 6) == want_roll:
                return tb, st
    raise AssertionError("no seed")


@pytest.mark.parametrize(
    ("space", "roll", "ends"),
    [
        (11, 1, True),
        (11, 2, False),
        (12, 2, True),
        (12, 3, False),
        (13, 3, True),
        (13, 4, False),
        (10, 1, False),
        (14, 6, True),
    ],
)
def test_meteor_strikes_on_its_numbers_and_the_last_space_ends_the_game(space, roll, ends):
    tb, st = meteor(space, roll)
    kind = pass_cards(tb, st)
    assert st.meteor == space
    if ends:
        assert kind == ROUND_DONE and st.over == 1  # no auction: the game is over
        assert st.impact == (space < 14)
    else:
        assert kind == BID and st.over == 0


def test_no_auction_in_the_last_round(evo_run):
    import pyarrow.dataset as ds

    games = ds.dataset(evo_run / "games", format="parquet").to_table().to_pydict()
    bids = ds.dataset(evo_run / "bids", format="parquet").to_table().to_pydict()
    last = dict(zip(games["game_id"], games["rounds"], strict=True))
    assert len(bids["round"]) > 1000
    assert all(r < last[g] for g, r in zip(bids["game_id"], bids["round"], strict=True))
    per_round = {}
    for g, r in zip(bids["game_id"], bids["round"], strict=True):
        per_round[(g, r)] = per_round.get((g, r), 0) + 1
    assert all((g, last[g] - 1) in per_round for g in last if last[g] > 1)  # earlier ones do


# ---------------------------------------------------------------- climate cards


def test_catastrophe_moves_the_marker_two_fields_and_skips_the_roll():
    tb, st, _ = at(ST_CLIMATE_CARDS)
    set_climate(tb, st, GREEN)
    play(tb, st, 0, CATASTROPHE)
    pass_cards(tb, st)
    assert st.climate == GREEN + 2 and st.climate_roll == 0 and st.climate_card == CATASTROPHE


@pytest.mark.parametrize("field", [YELLOW, GREY])
def test_crazy_weather_is_not_playable_on_yellow_or_grey(field):
    tb, st, _ = at(ST_CLIMATE_CARDS)
    set_climate(tb, st, field)
    st.window = W_CLIMATE
    st.hand[0] = bit(WEATHER_SWAP) | bit(CATASTROPHE)
    assert playable(tb, st, 0, W_CLIMATE) == bit(CATASTROPHE)
    set_climate(tb, st, BROWN)
    assert playable(tb, st, 0, W_CLIMATE) == bit(WEATHER_SWAP) | bit(CATASTROPHE)


# ---------------------------------------------------------------- phase 2-3 cards


def test_accident_needs_a_victim_with_five_dinos():
    tb, st, m = at(ST_CLIMATE_CARDS)
    spread(st, m, 1, 4)
    st.hand[0] = bit(ACCIDENT)
    assert playable(tb, st, 0, W_CLIMATE) == 0  # four dinos: no victim
    five = spread(st, m, 1, 1)[0]
    assert playable(tb, st, 0, W_CLIMATE) == bit(ACCIDENT)
    assert run(tb, st) == CARD_PLAY and st.actor == 0
    assert sorted(a & 0xFFFF for a in legal(tb, st)[1:]) == sorted(st.pieces[1, :5])
    apply(tb, st, pack(ACCIDENT, five))
    assert st.n_dinos[1] == 4 and st.owner[five] == -1 and st.died_card[1] == 1


def test_primal_instinct_moves_as_many_regions_as_dinos():
    tb, st, m = at(ST_CLIMATE_CARDS)
    spread(st, m, 0, 5)
    st.genes[0, LEG] = 1
    st.hand[0] = bit(INSTINCT)
    while (kind := run(tb, st)) == CARD_PLAY:
        apply(tb, st, pack(INSTINCT, 0) if st.window == 2 and st.actor == 0 else PASS)
    assert kind == MOVE and st.actor == 0 and st.mp == 5


def test_me_first_puts_its_player_first_until_the_round_ends():
    tb, st, m = at(ST_CLIMATE_CARDS)
    for s in range(4):
        spread(st, m, s, 1)
    play(tb, st, 2, ME_FIRST)
    assert list(st.order[:4]) == [2, 0, 1, 3]


# ---------------------------------------------------------------- phase 4 cards


def births(seat_eggs: int = 1):
    tb, st, m = at(ST_BIRTH_PLAYER)
    st.seq = 0
    st.genes[0, EGG] = seat_eggs
    return tb, st, m


def test_tough_youngsters_place_onto_an_enemy_and_fight_with_one_more_horn():
    tb, st, m = births()
    home = spread(st, m, 0, 1)[0]
    enemy = int(tb.adj[home, 0])
    add_dino(st, 1, enemy)
    assert run(tb, st) == PLACE and enemy not in legal(tb, st)
    st.kind, st.step, st.seq = 0, ST_BIRTH_PLAYER, 0
    st.eff[0] |= E_TOUGH_YOUNG
    assert run(tb, st) == PLACE and enemy in legal(tb, st)
    apply(tb, st, enemy)
    (ev,) = [e for e in EVENTS.pending(st) if e.kind == "combat"]
    assert (ev.attacker_horns, ev.defender_horns, ev.phase) == (1, 0, 4)  # +1 horn, phase 4
    won = bool(ev.attacker_won)
    assert st.owner[enemy] == (0 if won else 1)
    assert st.born[0] == 1 and st.died_combat[0 if not won else 1] == 1


def test_tough_youngsters_cannot_take_on_two_horns_more_than_the_newborn():
    """The newborn attacks with its species' horns + 1; a defender with two more than that
    cannot be attacked (DEVIATIONS.md: the combat table's 'not allowed')."""
    tb, st, m = births()
    home = spread(st, m, 0, 1)[0]
    enemy = int(tb.adj[home, 0])
    add_dino(st, 1, enemy)
    st.eff[0] |= E_TOUGH_YOUNG
    st.genes[1, HORN] = 3  # newborn 0 + 1 = 1 horn, defender 3: two more
    assert run(tb, st) == PLACE and enemy not in legal(tb, st)
    st.kind, st.step, st.seq = 0, ST_BIRTH_PLAYER, 0
    st.genes[1, HORN] = 2  # one more: allowed (wins on a 1)
    assert run(tb, st) == PLACE and enemy in legal(tb, st)


def test_wandering_young_reach_three_regions():
    tb, st, m = births()
    home = spread(st, m, 0, 1)[0]
    assert run(tb, st) == PLACE
    assert set(legal(tb, st)) == {int(x) for x in tb.adj[home, : tb.deg[home]]}
    st.kind, st.step, st.seq = 0, ST_BIRTH_PLAYER, 0
    st.eff[0] |= E_WANDERERS
    assert run(tb, st) == PLACE
    far = {r for r in range(tb.n_regions) if 1 <= tb.dist[home, r] <= 3 and st.owner[r] < 0}
    assert set(legal(tb, st)) == far and max(tb.dist[home, r] for r in far) == 3


def test_changeling_swaps_a_victims_newborn_for_one_of_yours():
    tb, st, m = at(ST_BIRTH_PLAYER)
    spread(st, m, 1, 5)
    spread(st, m, 0, 1)
    st.genes[:4, EGG] = 0
    st.genes[1, EGG] = 1
    st.seq = 0
    st.hand[0] = bit(CHANGELING)
    kind = run(tb, st)
    assert kind == PLACE and st.actor == 1
    newborn = legal(tb, st)[0]
    apply(tb, st, newborn)
    assert run(tb, st) == CARD_PLAY and st.actor == 0
    assert legal(tb, st) == [PASS, pack(CHANGELING, newborn)]  # only this round's newborns
    apply(tb, st, pack(CHANGELING, newborn))
    assert st.owner[newborn] == 0 and st.n_dinos[1] == 5 and st.n_dinos[0] == 2
    assert st.died_card[1] == 1 and st.born[0] == 1


# ---------------------------------------------------------------- phase 5 cards


def survival(card: int, zone_terrain: int, field: int, k: int = 3):
    tb, st, m = at(ST_SURVIVAL_START)
    set_climate(tb, st, field)
    spread(st, m, 0, k, zone_terrain)
    spread(st, m, 1, k, zone_terrain)
    st.genes[:4, FUR], st.genes[:4, PARASOL] = 1, 1
    st.eff[0] |= card
    return tb, st, m


@pytest.mark.parametrize(
    ("effect", "terrain", "field", "zone"),
    [(E_HEAT_SKIN, DESERT, GREEN, WARM), (E_NEOPRENE, HILLS, GREEN, COLD)],
    ids=["heat-proof skin (warm)", "pthermodactylus (cold)"],
)
def test_heat_skin_and_pthermodactylus_save_every_own_dino_in_their_zone(
    effect, terrain, field, zone
):
    tb, st, _m = survival(effect, terrain, field)
    assert tb.zone[field, terrain] == zone
    kind = run(tb, st)
    while kind != BID:  # seat 1 chooses which of its three dinos keeps the one fur/parasol
        apply(tb, st, actions(tb, st, 0))
        kind = pass_cards(tb, st)
    assert st.n_dinos[0] == 3 and st.died_climate[0] == 0
    assert st.n_dinos[1] == 1 and st.died_climate[1] == 2


def test_heat_skin_does_not_save_scorching_dinos():
    tb, st, _m = survival(E_HEAT_SKIN, DESERT, BROWN)  # marker on brown: desert scorching
    assert pass_cards(tb, st) == BID
    assert st.n_dinos[0] == 0 and st.died_climate[0] == 3


def test_pthermodactylus_does_not_save_freezing_dinos():
    tb, st, _m = survival(E_NEOPRENE, MOUNTAINS, GREEN)  # marker on green: mountains freezing
    assert pass_cards(tb, st) == BID
    assert st.n_dinos[0] == 0


def test_survival_gene_costs_the_others_a_point_per_dino_lost():
    tb, st, m = at(ST_SURVIVAL_START)
    set_climate(tb, st, GREEN)
    spread(st, m, 0, 2, PLAINS)
    spread(st, m, 1, 3, MOUNTAINS)  # freezing: all three die
    spread(st, m, 2, 2, MOUNTAINS)
    st.points[:4] = [5, 5, 1, 5]
    st.hand[0] = bit(SURVIVAL_GENE)
    while (kind := run(tb, st)) == CARD_PLAY:
        apply(tb, st, pack(SURVIVAL_GENE, 0) if st.actor == 0 else PASS)
    assert kind == BID
    scored = [int(x) for x in st.scored[:4]]
    assert scored == [2, 0, 0, 0]
    assert list(st.penalty[:4]) == [0, 3, 1, 0]  # never below 0
    assert list(st.points[:4]) == [7, 2, 0, 5]


# ---------------------------------------------------------------- phase 6 and the end


def test_gene_guard_and_me_first_are_played_with_the_genes_on_the_board():
    tb, st, _m = at(ST_AUCTION_START)
    st.hand[1] = bit(GENE_GUARD) | bit(ME_FIRST)
    assert run(tb, st) == CARD_PLAY and st.window == W_BIDDING and st.actor == 1
    assert st.n_rows == 4  # drawn before the window opened
    assert st.options == bit(GENE_GUARD) | bit(ME_FIRST)
    apply(tb, st, pack(ME_FIRST, 0))
    apply_next = run(tb, st)
    assert apply_next == CARD_PLAY
    apply(tb, st, pack(GENE_GUARD, 0))
    assert pass_cards(tb, st) == BID and st.actor == 1  # first in order: bids first


def test_surprise_gene_counts_two_at_the_end():
    tb, st, m = at(ST_METEOR)
    spread(st, m, 0, 1)
    spread(st, m, 1, 1)
    st.points[:4] = [10, 11, 0, 0]
    st.meteor = tb.meteor_last - 1
    st.hand[0] = bit(SURPRISE)
    kind = run(tb, st)
    assert kind == CARD_PLAY and st.window == W_GAME_END
    apply(tb, st, pack(SURPRISE, 0))
    assert pass_cards(tb, st) == ROUND_DONE
    winners = np.zeros(4, dtype=np.bool_)
    assert final_result(tb, st, winners) == 0 and st.bonus[0] == 2


def test_doubling_takes_the_card_just_played_for_next_round():
    tb, st, _m = at(ST_CLIMATE_CARDS)
    set_climate(tb, st, GREEN)
    st.hand[1] = bit(DOUBLING)
    play(tb, st, 0, CATASTROPHE)
    assert run(tb, st) == CARD_PLAY and st.actor == 1 and st.options == bit(DOUBLING)
    assert legal(tb, st) == [PASS, pack(DOUBLING, CATASTROPHE)]
    apply(tb, st, pack(DOUBLING, CATASTROPHE))
    assert st.hand[1] == bit(CATASTROPHE) and st.locked[1] == bit(CATASTROPHE)
    assert st.catastrophe == 1  # the card still works for its player
    assert playable(tb, st, 1, W_CLIMATE) == 0  # not this round
    st.locked[1] = 0
    st.climate_used = 0
    assert playable(tb, st, 1, W_CLIMATE) == bit(CATASTROPHE)


def test_doubling_never_answers_its_own_players_card():
    tb, st, _m = at(ST_CLIMATE_CARDS)
    set_climate(tb, st, GREEN)
    st.hand[0] = bit(DOUBLING)
    play(tb, st, 0, CATASTROPHE)
    assert run(tb, st) != CARD_PLAY or st.options != bit(DOUBLING)
