"""Dino Kontra Dino rules: the rulebook's examples and every rule of the seed, as unit tests."""

from __future__ import annotations

import numpy as np
import pytest

from rules.dino_kontra_dino.deck import load_deck
from rules.dino_kontra_dino.engine import final_result, play_round, round_winner
from rules.dino_kontra_dino.params import game_rounds
from rules.dino_kontra_dino.state import make_table, new_states
from simulate.games import get_game
from simulate.kit.play import columns

DECK = load_deck("provisional")


def dino(name: str) -> int:
    return DECK.dino_names.index(name)


def event(name: str) -> int:
    return DECK.event_names.index(name)


def one_round(n_players: int, holder: int, ev: int, cards: list[int]):
    """A state where every seat holds one card and the current event is ``ev``."""
    tb = make_table(DECK, n_players, 3, 0, True)
    st = new_states(1)[0]
    st.events[0] = ev
    st.turn = 0
    st.holder = holder
    st.hand_len = 1
    st.drawing = 0
    for seat, c in enumerate(cards):
        st.hands[seat, 0] = c
    return tb[0], st


def test_example_1_forest_fire_speed_decides():
    # Tomek (seat 0) plays Brachylophosaurus (speed 4), Kasia (seat 1) Coelurus (speed 5).
    tb, st = one_round(2, 0, event("Forest Fire"), [dino("Brachylophosaurus"), dino("Coelurus")])
    assert DECK.needs_text(event("Forest Fire")) == "speed"
    w = play_round(tb, st, np.zeros(2, np.int64))
    assert list(st.scores[:2]) == [4, 5]
    assert w == 1 and st.wins[1] == 1 and st.wins[0] == 0
    assert st.holder == 1, "the winner takes the figure"


def test_example_2_competing_species_tie_goes_to_figure_holder():
    # Dilophosaurus 4 predation + 2 adaptability = 6; Psittacosaurus 2 + 4 = 6; Tomek holds.
    ev = event("Competing Species")
    assert DECK.needs_text(ev) == "predation+adaptability"
    tb, st = one_round(2, 0, ev, [dino("Dilophosaurus"), dino("Psittacosaurus")])
    w = play_round(tb, st, np.zeros(2, np.int64))
    assert list(st.scores[:2]) == [6, 6]
    assert w == 0


def test_cetiosaurus_is_card_12():
    assert DECK.dino_names[11] == "Cetiosaurus"


@pytest.mark.parametrize(
    ("holder", "scores", "winner"),
    [
        (2, [5, 1, 3, 5], 3),  # holder not tied: nearest clockwise after the holder
        (2, [5, 5, 3, 1], 0),  # wraps round the table
        (3, [4, 4, 2, 2], 0),
        (1, [2, 6, 6, 6], 1),  # holder tied: holder wins
        (0, [1, 2, 3, 4], 3),  # no tie: highest wins regardless of the figure
        (1, [7, 7, 7, 7], 1),
    ],
)
def test_tie_break_clockwise_from_holder(holder, scores, winner):
    tb = make_table(DECK, 4, 3, 0, True)[0]
    st = new_states(1)[0]
    st.holder = holder
    st.scores[:4] = scores
    assert round_winner(tb, st) == winner


def test_figure_stays_with_a_repeat_winner_and_moves_otherwise():
    g = get_game("dkd")
    setup = g.setup(g.parameters(), 4, "greedy,random,blind,cautious")
    logs = columns(setup, 3, False, 0, 200)
    rounds = game_rounds(45, 4, 3)
    won = logs.turns.won.reshape(200, rounds, 4)
    holder = logs.turns.holder.reshape(200, rounds, 4)[:, :, 0]
    winner = won.argmax(axis=2)
    assert (won.sum(axis=2) == 1).all(), "exactly one event winner per round"
    assert (holder[:, 1:] == winner[:, :-1]).all(), "the figure goes to the round's winner"
    assert (holder[:, 0] == 0).all(), "seat 0 (the youngest player) starts with the figure"


def scoring_state(n, wins, traits):
    tb = make_table(DECK, n, 3, 0, True)[0]
    st = new_states(1)[0]
    st.wins[:n] = wins
    st.trait_wins[:n, :4] = traits
    return tb, st


def test_scoring_example_kasia_wins_on_predation():
    # Tomek 11 events (2 with predation), Kasia 11 (6 with predation), Andrzej 9.
    tb, st = scoring_state(3, [11, 11, 9], [[2, 4, 4, 3], [6, 1, 1, 4], [5, 5, 5, 5]])
    winners = np.zeros(3, np.bool_)
    assert final_result(tb, st, winners) == 1
    assert list(winners) == [False, True, False]


@pytest.mark.parametrize(
    ("traits", "expected"),
    [
        ([[3, 2, 1, 1], [3, 3, 0, 0]], 1),  # predation equal, more size wins
        ([[3, 3, 2, 0], [3, 3, 1, 5]], 0),  # then speed
        ([[3, 3, 2, 1], [3, 3, 2, 4]], 1),  # then adaptability
        ([[3, 3, 2, 1], [3, 3, 2, 1]], -1),  # then a shared victory
    ],
)
def test_scoring_tie_break_chain(traits, expected):
    tb, st = scoring_state(2, [7, 7], traits)
    winners = np.zeros(2, np.bool_)
    assert final_result(tb, st, winners) == expected
    assert winners.sum() == (2 if expected == -1 else 1)


def test_two_trait_event_counts_for_both_traits_or_neither():
    ev = event("Competing Species")
    for counts_both, expected in ((True, [1, 0, 0, 1]), (False, [0, 0, 0, 0])):
        tb = make_table(DECK, 2, 3, 0, counts_both)[0]
        st = new_states(1)[0]
        st.events[0], st.holder, st.hand_len, st.drawing = ev, 0, 1, 0
        st.hands[0, 0], st.hands[1, 0] = dino("Dilophosaurus"), dino("Cetiosaurus")
        play_round(tb, st, np.zeros(2, np.int64))
        assert list(st.trait_wins[0, :4]) == expected


@pytest.mark.parametrize(("players", "rounds"), [(2, 22), (3, 15), (4, 11), (5, 9), (6, 7)])
def test_game_length_by_player_count(players, rounds):
    assert game_rounds(45, players, 3) == rounds
    g = get_game("dkd")
    setup = g.setup(g.parameters(), players, "random")
    logs = columns(setup, 5, False, 0, 30)
    assert (logs.games.rounds == rounds).all()


def test_end_game_sets_the_pile_aside_and_plays_out_two_card_hands():
    g = get_game("dkd")
    setup = g.setup(g.parameters(), 4, "random")
    logs = columns(setup, 9, False, 0, 20, trace=True)
    sizes = (logs.hands.hand >= 0).sum(axis=1).reshape(20, 11, 4)
    assert (sizes == np.array([3] * 9 + [2, 1])[None, :, None]).all()
    # 45 - 12 dealt - 8 refills * 4 = 1 card stays in the box: 44 distinct cards are played.
    cards = logs.turns.card_id.reshape(20, 44)
    assert all(len(set(row)) == 44 for row in cards)


def test_random_first_holder_draws_every_seat():
    g = get_game("dkd")
    setup = g.setup(g.parameters().with_values({"first_holder": "-1"}), 5, "greedy")
    logs = columns(setup, 1, False, 0, 500)
    assert set(logs.games.first_holder.tolist()) == {0, 1, 2, 3, 4}


def test_hand_size_parameter_changes_hands_and_length():
    g = get_game("dkd")
    setup = g.setup(g.parameters().with_values({"hand_size": "4"}), 4, "greedy")
    logs = columns(setup, 1, False, 0, 10, trace=True)
    assert (logs.games.rounds == game_rounds(45, 4, 4)).all()
    assert (logs.hands.hand[:4] >= 0).sum() == 16
