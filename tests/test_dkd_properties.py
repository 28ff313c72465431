"""Hypothesis properties: an independent referee re-checks every logged game against the rules.

Seeds, player counts, hand sizes, lineups and whole decks are drawn at random; the referee
works from the log rows and the deck alone, in plain Python.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dino_kontra_dino.deck import TRAITS, parse_deck
from rules.dino_kontra_dino.params import DkdParameters, game_rounds
from simulate.games import get_game
from simulate.kit.play import columns, play
from simulate.kit.spec import Setup

GAME = get_game("dkd")
BOTS = [
    "random",
    "greedy",
    "blind",
    "cautious",
    "blind[memory=0]",
    "cautious[aim=0.5,figure=3]",
    "montecarlo[rollouts=3]",
]


@st.composite
def decks(draw, n_players: int, hand: int):
    n_dinos = draw(st.integers(hand * n_players, 90))
    rounds = game_rounds(n_dinos, n_players, hand)
    n_events = draw(st.integers(rounds, min(rounds + 8, 127)))
    rows = ["kind,id,name,predation,size,speed,adaptability,needs,source"]
    for i in range(1, n_dinos + 1):
        t = draw(st.lists(st.integers(1, 5), min_size=4, max_size=4))
        rows.append(f"dino,{i},D{i},{t[0]},{t[1]},{t[2]},{t[3]},,test")
    for i in range(1, n_events + 1):
        needs = draw(st.lists(st.sampled_from(TRAITS), min_size=1, max_size=2, unique=True))
        rows.append(f"event,{i},E{i},,,,,{'+'.join(needs)},test")
    return parse_deck("\n".join(rows) + "\n", label="hypothesis")


@st.composite
def configurations(draw):
    n = draw(st.integers(2, 6))
    hand = draw(st.integers(1, 5))
    deck = draw(decks(n, hand))
    first = draw(st.integers(-1, n - 1))
    both = draw(st.booleans())
    lineup = ",".join(draw(st.lists(st.sampled_from(BOTS), min_size=n, max_size=n)))
    params = DkdParameters(hand_size=hand, first_holder=first, two_trait_counts_both=both)
    params.check_players(n, deck)
    return Setup(GAME, params, n, tuple(GAME.registry.lineup(lineup, n)), deck)


def referee(setup: Setup, logs, n_games: int) -> None:
    deck, n, h = setup.data, setup.n_players, setup.params.hand_size
    rounds = game_rounds(deck.n_dinos, n, h)
    refills = rounds - h
    traits = np.zeros((deck.n_dinos, 5), int)
    traits[:, :4] = deck.dino_traits
    assert (logs.games.rounds == rounds).all()
    for g in range(n_games):
        rows = slice(g * rounds * n, (g + 1) * rounds * n)
        ev = logs.turns.event_id[rows].reshape(rounds, n)[:, 0].astype(int) - 1
        cards = logs.turns.card_id[rows].reshape(rounds, n).astype(int) - 1
        strength = logs.turns.strength[rows].reshape(rounds, n)
        holder = logs.turns.holder[rows].reshape(rounds, n)[:, 0]
        won = logs.turns.won[rows].reshape(rounds, n)
        hands = logs.hands.hand[rows].reshape(rounds, n, h)
        assert len(set(ev.tolist())) == rounds, "each event is resolved once"
        assert len(set(cards.ravel().tolist())) == rounds * n, "no card is played twice"
        first = int(logs.games.first_holder[g])
        assert holder[0] == first
        if setup.params.first_holder >= 0:
            assert first == setup.params.first_holder
        seen = set()
        wins = np.zeros(n, int)
        icons = np.zeros((n, 4), int)
        for r in range(rounds):
            held = hands[r][hands[r] >= 0]
            size = h if r <= refills else h - (r - refills)
            assert held.size == size * n, "hands of H while the pile lasts, then run down"
            assert not seen & set(held.tolist()), "a played card never comes back"
            assert len(set(held.tolist())) == held.size, "no card is in two hands"
            for s in range(n):
                assert cards[r, s] in hands[r, s], "a seat plays a card from its own hand"
                a, b = deck.event_needs[ev[r]]
                assert strength[r, s] == traits[cards[r, s], a] + traits[cards[r, s], b]
            best = strength[r].max()
            order = [(holder[r] + k) % n for k in range(n)]
            winner = next(p for p in order if strength[r, p] == best)
            assert won[r].sum() == 1 and won[r, winner], "tie-break: holder, then clockwise"
            rr = g * rounds + r
            assert logs.rounds.winner[rr] == winner and logs.rounds.top_strength[rr] == best
            assert logs.rounds.n_top[rr] == (strength[r] == best).sum()
            if r + 1 < rounds:
                assert holder[r + 1] == winner, "the figure goes to the winner"
            seen |= set(cards[r].tolist())
            wins[winner] += 1
            a, b = deck.event_needs[ev[r]]
            if setup.params.two_trait_counts_both or b == 4:
                icons[winner, a] += 1
                if b != 4:
                    icons[winner, b] += 1
        p = slice(g * n, (g + 1) * n)
        assert (logs.players.events_won[p] == wins).all() and wins.sum() == rounds
        assert (logs.players.trait_events[p] == icons).all()
        key = [tuple([wins[s], *icons[s]]) for s in range(n)]
        top = max(key)
        expect = [k == top for k in key]
        assert list(logs.players.winner[p]) == expect
        assert logs.games.n_winners[g] == sum(expect)
        assert logs.games.winner_seat[g] == (expect.index(True) if sum(expect) == 1 else -1)


@settings(max_examples=60)
@given(configurations(), st.integers(0, 2**64 - 1), st.booleans())
def test_every_logged_game_obeys_the_rules(setup, seed, rotate):
    n_games = 6
    logs = columns(setup, seed, rotate, 0, n_games, trace=True)
    referee(setup, logs, n_games)


@settings(max_examples=25)
@given(configurations(), st.integers(0, 2**64 - 1), st.integers(1, 7))
def test_a_game_does_not_depend_on_its_chunk(setup, seed, split):
    whole = play(setup, seed, True, 0, 8)
    parts = [play(setup, seed, True, a, b) for a, b in ((0, split), (split, 8))]
    for name, table in whole.items():
        import pyarrow as pa

        assert pa.concat_tables([p[name] for p in parts]).equals(table)


def test_rotation_shares_the_deal_and_moves_the_lineup():
    setup = GAME.setup(GAME.parameters(), 4, "greedy,random,blind,cautious")
    logs = columns(setup, 5, True, 0, 8, trace=True)
    rows = 11 * 4
    first_hands = [logs.hands.hand[g * rows : g * rows + 4] for g in range(8)]
    assert (first_hands[0] == first_hands[3]).all() and (first_hands[4] == first_hands[7]).all()
    assert not (first_hands[0] == first_hands[4]).all()
    assert logs.games.rotation.tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    assert logs.players.strategy[4:8].tolist() == [3, 0, 1, 2], (
        "lineup position j sits at seat j + r"
    )
