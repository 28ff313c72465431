"""EVO: each step of the round machine (``rules/evo/engine.py``) on a hand-built state.

Every test calls one step function directly and checks what the rule says it must do: who is
asked, what changes, which step follows. The whole machine is checked by the rule and card
tests (through ``advance``) and by the conformance suite.
"""

from __future__ import annotations

import numpy as np
import pytest

from rules.core.rng import bounded
from rules.evo.board import add_dino, set_climate
from rules.evo.cards import CATASTROPHE, DOUBLING, W_CLIMATE
from rules.evo.constants import (
    BID,
    CARD_PLAY,
    COLD,
    CULL,
    DESERT,
    EGG,
    FUR,
    HILLS,
    HORN,
    LEG,
    MOUNTAINS,
    MOVE,
    NO_DECISION,
    PARASOL,
    PLACE,
    PLAINS,
    TAIL,
    WARM,
)
from rules.evo.engine import (
    ST_AUCTION_ASK,
    ST_AUCTION_START,
    ST_BIRTH_ASK,
    ST_BIRTH_PLAYER,
    ST_BIRTHS_START,
    ST_CLIMATE,
    ST_CLIMATE_CARDS,
    ST_CULL_PLAYER,
    ST_GAME_END,
    ST_METEOR,
    ST_MOVE_ASK,
    ST_MOVE_PLAYER,
    ST_MOVE_START,
    ST_PAYMENT,
    ST_ROUND,
    ST_ROUND_DONE,
    ST_SURVIVAL_CARDS,
    ST_SURVIVAL_END,
    ST_WINDOW,
    ask_bid,
    ask_birth,
    ask_cull,
    ask_move,
    begin_round,
    births_start,
    card_window,
    draw_genes,
    meteor,
    next_breeder,
    next_mover,
    roll_climate,
    survival,
)
from rules.evo.state import E_INSTINCT, S_CLIMATE, S_METEOR
from tests.test_evo_cards import at, bit, spread
from tests.test_evo_rules import BROWN, GREEN, GREY, YELLOW, regions_of


def after(st) -> int:
    """The step that follows (through the card window it opened, if any)."""
    return st.win_next if st.step == ST_WINDOW else st.step


def die(st, stream: int) -> int:
    """The face the next roll on ``stream`` shows (read from a copy of the streams)."""
    with np.errstate(over="ignore"):
        return 1 + bounded(st.rng.copy(), stream, 6)


# ---------------------------------------------------------------- card windows


def window(step: int = ST_CLIMATE):
    """Round 5's climate window, opened, closing to ``step``; players asked 2, 3, 0, 1."""
    tb, st, m = at(ST_WINDOW)
    set_climate(tb, st, GREEN)
    st.window, st.win_next, st.win_i, st.react = W_CLIMATE, step, 0, -1
    st.win_order[:4] = [2, 3, 0, 1]
    return tb, st, m


def test_card_window_asks_the_first_player_in_order_with_a_playable_card():
    tb, st, _ = window()
    st.hand[1] = st.hand[3] = bit(CATASTROPHE)
    assert card_window(tb, st) == CARD_PLAY
    assert (st.actor, st.kind, st.options) == (3, CARD_PLAY, bit(CATASTROPHE))
    assert st.win_i == 1 and st.step == ST_WINDOW  # seat 2, first in order, held nothing


def test_card_window_closes_to_its_next_step_when_nobody_can_play():
    tb, st, _ = window(ST_METEOR)
    st.hand[1] = bit(CATASTROPHE)
    st.locked[1] = bit(CATASTROPHE)  # taken by Osztódás this round: not playable
    assert card_window(tb, st) == NO_DECISION
    assert st.step == ST_METEOR and st.kind == NO_DECISION


def test_card_window_offers_osztodas_before_anyone_else_plays():
    tb, st, _ = window()
    st.hand[0] = bit(CATASTROPHE)
    st.hand[3] = bit(DOUBLING)
    st.react, st.react_by = CATASTROPHE - 1, 2  # seat 2 has just played Katasztrófa
    assert card_window(tb, st) == CARD_PLAY
    assert st.actor == 3 and st.options == bit(DOUBLING)
    st.kind = NO_DECISION
    st.hand[3] = 0  # nobody left to answer: the window goes on in order
    assert card_window(tb, st) == CARD_PLAY
    assert st.react == -1 and st.actor == 0 and st.options == bit(CATASTROPHE)


# ---------------------------------------------------------------- phases 1 and 2


def test_begin_round_clears_the_last_round_and_orders_by_tails():
    tb, st, m = at(ST_ROUND)
    for s in range(4):
        spread(st, m, s, 1)
    st.genes[:4, TAIL] = [1, 0, 3, 2]
    st.eff[1], st.died_combat[2], st.catastrophe, st.paid[3] = E_INSTINCT, 2, 1, 4
    begin_round(tb, st)
    assert list(st.order[:4]) == [2, 3, 0, 1] and list(st.init_pos[:4]) == [2, 3, 0, 1]
    assert st.eff[1] == 0 and st.died_combat[2] == 0 and st.catastrophe == 0 and st.paid[3] == 0
    assert after(st) == ST_CLIMATE_CARDS


def test_roll_climate_moves_the_marker_by_the_die():
    tb, st, _ = at(ST_CLIMATE)
    st.climate = 0
    face = die(st, S_CLIMATE)
    roll_climate(tb, st)
    assert st.climate_roll == face
    assert st.climate == (tb.die_step[face - 1] % tb.cycle_len + tb.cycle_len) % tb.cycle_len
    assert after(st) == ST_MOVE_START


def test_roll_climate_takes_the_chosen_face_and_catastrophe_steps_but_still_rolls():
    tb, st, _ = at(ST_CLIMATE)
    st.climate = 2
    st.forced_roll, st.catastrophe = 1, 1  # Meteorológus-gén shows 1 (one back), Katasztrófa
    after = st.rng.copy()
    with np.errstate(over="ignore"):
        bounded(after, S_CLIMATE, 6)
    roll_climate(tb, st)
    assert st.climate_roll == 0
    assert st.climate == (2 - 1 + tb.catastrophe_steps) % tb.cycle_len
    assert (st.rng == after).all()  # the die is drawn anyway: the same dice in every variant


# ---------------------------------------------------------------- phase 3: movement


def test_next_mover_gets_leg_points_or_one_per_dino_with_primal_instinct():
    tb, st, m = at(ST_MOVE_PLAYER)
    spread(st, m, 1, 3)
    st.genes[:4, LEG] = 2
    st.seq = 1
    next_mover(tb, st)
    assert st.mp == 2 and st.step == ST_MOVE_ASK
    st.eff[1] = E_INSTINCT  # Ősi ösztönök
    next_mover(tb, st)
    assert st.mp == 3
    st.seq = 4  # every player has moved
    next_mover(tb, st)
    assert after(st) == ST_BIRTHS_START


def test_ask_move_asks_while_points_and_room_last_then_passes_on():
    tb, st, m = at(ST_MOVE_ASK)
    a = regions_of(m, DESERT, 1)[0]
    add_dino(st, 0, a)
    st.seq, st.mp = 0, 1
    assert ask_move(tb, st) == MOVE and st.actor == 0 and st.step == ST_MOVE_ASK
    st.kind, st.mp = NO_DECISION, 0
    assert ask_move(tb, st) == NO_DECISION
    assert st.seq == 1 and st.step == ST_MOVE_PLAYER


def test_ask_move_skips_a_player_whose_dinos_cannot_move_or_attack():
    tb, st, m = at(ST_MOVE_ASK)
    a = regions_of(m, DESERT, 1)[0]
    add_dino(st, 0, a)
    for i in range(tb.deg[a]):
        add_dino(st, 1, int(tb.adj[a, i]))
    st.genes[0, HORN], st.genes[1, HORN] = 0, 2  # two horns fewer: no attack allowed
    st.seq, st.mp = 0, 3
    assert ask_move(tb, st) == NO_DECISION and (st.seq, st.step) == (1, ST_MOVE_PLAYER)
    st.seq, st.genes[1, HORN] = 0, 0  # now it may attack
    assert ask_move(tb, st) == MOVE and st.actor == 0


# ---------------------------------------------------------------- phase 4: births


def test_births_start_skips_reproduction_under_birth_control():
    tb, st, _ = at(ST_BIRTHS_START)
    births_start(tb, st)
    assert (st.seq, st.step) == (0, ST_BIRTH_PLAYER)
    st.step, st.no_births = ST_BIRTHS_START, 1  # Születés-túlszabályozás
    births_start(tb, st)
    assert after(st) == ST_SURVIVAL_CARDS


def test_next_breeder_takes_one_newborn_per_egg_and_notes_an_empty_board():
    tb, st, m = at(ST_BIRTH_PLAYER)
    spread(st, m, 0, 1)
    st.genes[:4, EGG] = [2, 3, 1, 1]
    st.seq = 0
    next_breeder(tb, st)
    assert (st.eggs_left, st.wiped, st.step) == (2, 0, ST_BIRTH_ASK)
    st.seq = 1  # seat 1 has no dinos: its newborns go anywhere
    next_breeder(tb, st)
    assert (st.eggs_left, st.wiped) == (3, 1)
    st.seq = 4
    next_breeder(tb, st)
    assert after(st) == ST_SURVIVAL_CARDS


def test_ask_birth_offers_the_empty_regions_next_to_an_old_dino():
    tb, st, m = at(ST_BIRTH_ASK)
    (a,) = spread(st, m, 0, 1)
    st.seq, st.eggs_left, st.wiped = 0, 1, 0
    assert ask_birth(tb, st) == PLACE and st.actor == 0
    assert sorted(st.marked[: st.n_marked]) == sorted(int(tb.adj[a, i]) for i in range(tb.deg[a]))
    st.kind = NO_DECISION
    st.fresh[a] = 1  # born this round: it cannot breed
    assert ask_birth(tb, st) == NO_DECISION and (st.seq, st.step) == (1, ST_BIRTH_PLAYER)


def test_ask_birth_stops_when_eggs_or_the_supply_run_out():
    tb, st, m = at(ST_BIRTH_ASK)
    spread(st, m, 0, 1)
    st.seq, st.eggs_left, st.wiped = 0, 0, 0
    assert ask_birth(tb, st) == NO_DECISION and st.seq == 1
    st.seq, st.eggs_left, st.step = 0, 2, ST_BIRTH_ASK
    spread(st, m, 0, tb.max_dinos - 1)  # every dino of the supply on the board
    assert ask_birth(tb, st) == NO_DECISION and st.seq == 1


# ---------------------------------------------------------------- phase 5: survival


def test_ask_cull_lets_the_owner_choose_in_the_cold_then_in_the_warm():
    tb, st, m = at(ST_CULL_PLAYER)
    set_climate(tb, st, BROWN)  # plains warm, mountains cold
    assert tb.zone[BROWN][PLAINS] == WARM and tb.zone[BROWN][MOUNTAINS] == COLD
    spread(st, m, 1, 2, PLAINS)
    spread(st, m, 1, 2, MOUNTAINS)
    st.genes[1, FUR], st.genes[1, PARASOL] = 1, 1
    st.seq = 0
    assert ask_cull(tb, st) == CULL  # seat 0 has nothing to lose: seat 1 is asked
    assert (st.actor, st.cull_zone, st.seq) == (1, COLD, 1)
    st.genes[1, FUR] = 2  # both mountain dinos kept: the warm plains next
    assert ask_cull(tb, st) == CULL and st.cull_zone == WARM
    st.genes[1, PARASOL] = 0  # no parasol: nothing to choose, all die at the end
    assert ask_cull(tb, st) == NO_DECISION and st.step == ST_SURVIVAL_END


@pytest.mark.parametrize(
    ("climate", "kept", "lost"),
    [
        (YELLOW, DESERT, (PLAINS, FUR, HILLS)),  # plains cold, hills freezing
        (GREY, MOUNTAINS, (HILLS, PARASOL, DESERT)),  # hills warm, desert scorching
    ],
)
def test_survival_kills_by_zone_and_scores_the_survivors(climate, kept, lost):
    """The temperate dinos live, the cold (warm) ones while furs (parasols) last, none in a
    scorching or freezing region."""
    mild, gene, deadly = lost
    tb, st, m = at(ST_SURVIVAL_END)
    set_climate(tb, st, climate)
    spread(st, m, 0, 2, kept)
    spread(st, m, 0, 2, mild)
    spread(st, m, 0, 1, deadly)
    spread(st, m, 1, 2, mild)
    st.genes[0, gene], st.genes[1, gene] = 2, 0
    st.points[:2] = [5, 5]
    survival(tb, st)
    assert list(st.n_dinos[:2]) == [4, 0]
    assert list(st.died_climate[:2]) == [1, 2]
    assert list(st.scored[:2]) == [4, 0] and list(st.points[:2]) == [9, 5]
    assert after(st) == ST_METEOR


# ---------------------------------------------------------------- phase 6: meteor and auction


def test_meteor_moves_and_strikes_on_a_roll_up_to_its_space():
    tb, st, _ = at(ST_METEOR)
    st.meteor, st.points[:4] = 0, [3, 4, 5, 6]
    tb.strike[1] = die(st, S_METEOR)  # the roll strikes: a roll up to the space's number
    meteor(tb, st)
    assert st.meteor == 1 and st.impact == 1 and st.step == ST_GAME_END
    assert list(st.points_p5[:4]) == [3, 4, 5, 6]
    st.meteor, st.impact, st.step = 0, 0, ST_METEOR
    tb.strike[1] = die(st, S_METEOR) - 1  # one short of the roll: no strike
    meteor(tb, st)
    assert st.impact == 0 and after(st) == ST_AUCTION_START


def test_meteor_ends_the_game_on_its_last_space_and_waits_in_the_harder_games_first_rounds():
    tb, st, _ = at(ST_METEOR)
    st.meteor = tb.meteor_last - 1
    tb.strike[tb.meteor_last] = 0
    meteor(tb, st)
    assert st.meteor == tb.meteor_last and st.impact == 0 and st.step == ST_GAME_END
    tb, st, _ = at(ST_METEOR, rnd=1, harder=True)
    st.meteor = 0
    meteor(tb, st)
    assert st.meteor == 0 and after(st) == ST_AUCTION_START


def test_draw_genes_offers_one_per_player_one_fewer_with_missing_link():
    tb, st, _ = at(ST_AUCTION_START)
    top = st.bag_top
    bag = list(st.bag[top : top + 4])
    draw_genes(tb, st)
    assert st.n_rows == 4 and list(st.offer[:4]) == bag and st.bag_top == top + 4
    assert st.max_pass == 0 and list(st.holder[:4]) == [-1] * 4
    assert (st.auction_next, st.pending, after(st)) == (0, -1, ST_AUCTION_ASK)
    st.missing_link = 1  # Hiányzó láncszem: one row fewer, so one player may pass
    draw_genes(tb, st)
    assert st.n_rows == 3 and st.max_pass == 1 and st.bag_top == top + 7


def test_draw_genes_ends_the_round_when_the_bag_is_empty():
    tb, st, _ = at(ST_AUCTION_START)
    st.bag_top = st.bag_len
    draw_genes(tb, st)
    assert st.step == ST_ROUND_DONE


def test_ask_bid_asks_an_outbid_player_first_then_in_order():
    tb, st, _ = at(ST_AUCTION_ASK)
    st.order[:4] = [3, 1, 0, 2]
    st.auction_next, st.pending = 1, 2
    assert ask_bid(tb, st) == BID and st.actor == 2
    st.pending = -1
    assert ask_bid(tb, st) == BID and st.actor == 1
    st.auction_next = 4
    assert ask_bid(tb, st) == NO_DECISION and after(st) == ST_PAYMENT
