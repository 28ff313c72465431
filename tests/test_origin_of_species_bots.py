"""Origin of Species bots: every bot plays every player count, the ladder holds within the
sampling error, restricted play is honoured, the search bot never reads hidden cards, and the
heuristic favours no seat by its number when it chooses among other players' animals.

Strength tests rotate the tested bot through every seat over the same deals and compare its
win share (shared wins count 1/k) with the fair share 1/n, requiring the difference to exceed
four (search: three) standard errors of the measured share.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from rules.core.jit import records
from rules.core.rng import game_key, seed_streams
from rules.origin_of_species.constants import (
    CARNIVORE,
    DEVELOP,
    FAT_TISSUE,
    FEED,
    HIGH_BODY_WEIGHT,
    N_TRAITS,
    OP_ATTACK,
    OP_PIRACY,
    OP_TOP,
    PARASITE,
    PIRACY,
    ROUND_DONE,
)
from rules.origin_of_species.engine import actions, advance, apply, deal, op_of
from rules.origin_of_species.params import OosParameters
from rules.origin_of_species.state import make_table, new_states
from simulate.config import build_config
from simulate.executors import InlineExecutor
from simulate.games.origin_of_species import SPEC
from simulate.games.origin_of_species.check import setup_of
from simulate.kit.play import columns
from simulate.runner import run
from strategies.origin_of_species import REGISTRY
from strategies.origin_of_species.bots import choose
from strategies.origin_of_species.heuristic import DEFAULTS, heuristic
from strategies.origin_of_species.params import HP, V1
from strategies.origin_of_species.search import SCRATCH, determinise
from tests.test_origin_of_species_rules import animal, develop, feeding, game, hand_only, type_of

P0 = OosParameters()
DECK = P0.load_deck()


def checked(n: int, lineup, seed: int, game_id: int, forbid=None):
    return SPEC.check(setup_of(P0, DECK, n, lineup), seed, game_id, forbid=forbid)


def logs(n: int, lineup, seed: int, games: int, **kw):
    """The kernel's columns of games ``0 .. games-1`` of ``seed`` (no rotation)."""
    return columns(setup_of(P0, DECK, n, lineup), seed, False, 0, games, **kw)


def share(n: int, test: str, field: str, games: int, seed: int) -> tuple[float, float]:
    """Win share of ``test`` against ``field`` in every seat over the same deals (a shared
    win counts 1/k), and its standard error."""
    total = 0.0
    for r in range(n):
        specs = [field] * n
        specs[r] = test
        run = logs(n, [REGISTRY.parse(x) for x in specs], seed, games, detail=False)
        wins = run.players.winner / run.games.n_winners[run.players.game_id]
        total += float(wins[run.players.seat == r].sum())
    m = n * games
    p = total / m
    return p, (p * (1 - p) / m) ** 0.5


@pytest.mark.parametrize("n", range(2, 9))
def test_every_bot_plays_every_player_count(n):
    bots = ["random", "heuristic", "search[rollouts=1,candidates=2]"]
    lineup = REGISTRY.lineup(",".join(bots[i % 3] for i in range(n)), n)
    game = checked(n, lineup, 21, n)
    assert len(game.scores) == n and sum(game.winners) >= 1


def test_heuristic_beats_random():
    p, se = share(4, "heuristic", "random", 100, 31)
    assert p - 4 * se > 0.25, (p, se)
    p, se = share(2, "heuristic", "random", 100, 32)
    assert p - 4 * se > 0.5, (p, se)


def test_high_aggression_loses_to_the_default():
    p, se = share(4, "heuristic[aggression=2]", "heuristic", 300, 33)
    assert p + 4 * se < 0.25, (p, se)


def test_heuristic_beats_heuristic_v1():
    """The predation-model heuristic (issue 16) against three of the earlier one-stacked-animal
    bot (docs: 0.291 [0.285, 0.297] of 20,000 rotated 4-player games)."""
    p, se = share(4, "heuristic", "heuristic-v1", 1500, 35)
    assert p - 4 * se > 0.25, (p, se)


def test_heuristic_v1_is_the_heuristic_with_model_0(tmp_path):
    """``heuristic-v1`` is an alias: the heuristic's code with ``model`` 0 and the old
    defaults, playing the very rows of the heuristic given those values (rows of every table
    but the strategy label, 300 rotated 4-player games beside the predation-model heuristic).
    When v1's separate kernel was folded in, its runs were replayed by the alias table for
    table."""
    v1 = REGISTRY.by_name["heuristic-v1"]
    assert v1.plays == "heuristic" and v1.sid == REGISTRY.by_name["heuristic"].sid
    explicit = "heuristic[" + ",".join(f"{k}={v:g}" for k, v in V1.items()) + "]"
    assert REGISTRY.parse(explicit).values == REGISTRY.parse("heuristic-v1").values
    assert REGISTRY.parse("heuristic").values[HP.model] == 1.0 and V1["model"] == 0.0
    frames = []
    for name, field in (("alias", "heuristic-v1"), ("explicit", explicit)):
        cfg, setup = build_config(
            "oos",
            n_players=4,
            strategies=",".join(["heuristic", field, field, field]),
            rotate=True,
            seed=37,
            games=300,
            chunk_size=None,
            tables=None,
        )
        run(cfg, setup, tmp_path / name, InlineExecutor())
        frames.append(
            {
                t.name: pl.read_parquet(t / "*.parquet").drop("strategy", strict=False)
                for t in sorted((tmp_path / name).iterdir())
                if t.is_dir()
            }
        )
    alias, given = frames
    assert set(alias) == set(given) and {"games", "players", "turns"} <= set(alias)
    for t in alias:
        assert alias[t].equals(given[t]), t


def test_heuristic_keeps_its_animals_alive(tmp_path):
    """The default heuristic must not fall back into the earlier bot's play (issue 16): mean
    surviving animals at the end of 4-player self-play, 4,000 fixed-seed games. Measured at
    20,000 games (docs): 0.944 (standard error 0.0020) for ``heuristic``, 0.911 for
    ``heuristic-v1``; at 4,000 games the standard error is about 0.0045, so the threshold sits
    four of them under the measured value, and 3.3 above the earlier bot's."""
    cfg, setup = build_config(
        "oos",
        n_players=4,
        strategies="heuristic",
        rotate=False,
        seed=36,
        games=4000,
        chunk_size=None,
        tables="games,players",
    )
    run(cfg, setup, tmp_path / "run", InlineExecutor())
    animals = pl.read_parquet(tmp_path / "run" / "players" / "*.parquet")["animals"]
    assert animals.mean() > 0.944 - 4 * 0.0045, animals.mean()


@pytest.mark.slow
def test_search_beats_heuristic():
    p, se = share(4, "search[rollouts=8]", "heuristic", 40, 34)
    assert p - 3 * se > 0.25, (p, se)


@pytest.mark.slow
def test_forbidden_options_are_honoured():
    forbid = {0: ("Carnivore", "Fat Tissue", "Parasite")}
    for spec in ("heuristic", "random", "search[rollouts=1,candidates=3]"):
        lineup = REGISTRY.lineup(f"{spec},heuristic,heuristic", 3)
        for g in range(3):
            game = checked(3, lineup, 41, g, forbid=forbid)
            mine = [e for e in game.trait_events if e.seat == 0]
            assert all(e.trait not in (CARNIVORE, FAT_TISSUE, PARASITE) for e in mine), spec
            theirs = [e for e in game.trait_events if e.seat != 0]
            assert any(e.trait == CARNIVORE for e in theirs)
    lineup = REGISTRY.lineup("random,random", 2)
    game = checked(2, lineup, 42, 0, forbid={0: ("animal",)})
    assert not any(e.seat == 0 for e in game.animal_events), "no animals when forbidden"
    assert any(e.seat == 1 for e in game.animal_events)


def test_heuristic_plays_and_uses_every_trait():
    n = 4
    played, used = tallies(logs(n, REGISTRY.lineup("heuristic", n), 43, 600))
    assert (played > 0).all(), played
    assert (used > 0).sum() >= N_TRAITS - 1, used
    # Poisonous is "used" when a carnivore eats it: the heuristic avoids that, a random one not
    mixed = REGISTRY.lineup("heuristic,random,heuristic,random", n)
    more = tallies(logs(n, mixed, 44, 200))[1]
    assert (used + more > 0).all(), used + more


def tallies(run) -> tuple[np.ndarray, np.ndarray]:
    """Cards played as each trait (and, last, as animals) and each trait's use counter, summed
    over a run's seats and games (from its ``traits`` and ``players`` rows)."""
    played = np.bincount(run.traits.trait, minlength=N_TRAITS + 1)
    played[N_TRAITS] = run.players.animals_played.sum()
    return played, run.players.uses[:, :N_TRAITS].sum(axis=0)


def test_search_does_not_peek_at_hidden_cards():
    """Two states that differ only in what seat 0 cannot see give the same search choice."""
    n = 3
    tb = make_table(P0, DECK, n)[0]
    lu = REGISTRY.lineup_record(
        REGISTRY.lineup("search[rollouts=3,candidates=4],random,random", n)
    )[0]
    states = new_states(1)
    st = states[0]
    scratch = records(1, SCRATCH)[0]
    with np.errstate(over="ignore"):
        key = np.uint64(game_key(np.uint64(8), np.uint64(3)))
        seed_streams(st.rng[: 1 + n], key, key)
        deal(tb, st)
        kind = advance(tb, st)
        while not (kind == DEVELOP and st.actor == 0 and st.rnd >= 1):
            if kind != ROUND_DONE:
                apply(tb, st, actions(tb, st, actions(tb, st, -1) - 1))
            kind = advance(tb, st)
        other = new_states(1)
        other[0] = st
        o = other[0]
        # reshuffle the hidden cards: seat 1's and seat 2's hands and the deck
        hidden = []
        for q in (1, 2):
            for t in range(int(tb.n_types)):
                hidden += [t] * int(o.hand[q, t])
        hidden += [int(x) for x in o.deck[o.deck_top : o.deck_len]]
        rng = np.random.default_rng(5)
        rng.shuffle(hidden)
        i = 0
        for q in (1, 2):
            size = int(o.n_hand[q])
            o.hand[q, :] = 0
            for t in hidden[i : i + size]:
                o.hand[q, t] += 1
            i += size
        o.deck[o.deck_top : o.deck_len] = hidden[i:]
        assert (np.array(o.hand[1:3]) != np.array(st.hand[1:3])).any() or (
            np.array(o.deck) != np.array(st.deck)
        ).any()
        a = choose(lu, 0, tb, st, 0, scratch)
        b = choose(lu, 0, tb, o, 0, scratch)
    assert a == b
    # the determinisation itself reads nothing hidden
    xy = new_states(2)
    xy[0] = st
    xy[1] = o
    with np.errstate(over="ignore"):
        determinise(tb, xy[0], 0, np.uint64(77))
        determinise(tb, xy[1], 0, np.uint64(77))
    assert (np.array(xy[0].hand) == np.array(xy[1].hand)).all()
    assert (np.array(xy[0].deck) == np.array(xy[1].deck)).all()


def equal_candidates(kind: str):
    """A 4-player position where seat 1 chooses between two equal animals of seats 0 and 3:
    ``attack`` (a hungry carnivore, an empty bank), ``piracy`` (a hungry pirate, two unfed
    animals holding a token) or ``parasite`` (only a Parasite card in hand, no own animal; the
    hosts' High Body Weight animals).
    Returns the table, the state, the pending decision and the action's op expected."""
    tb, st = game(4, seed=5)
    st.n_an[:] = 0
    if kind == "parasite":  # hosts worth the card: each has a High Body Weight animal
        for q in (0, 3):
            animal(tb, st, q)
            animal(tb, st, q, HIGH_BODY_WEIGHT)
        animal(tb, st, 2)
        hand_only(st, 1, type_of(PARASITE, CARNIVORE))
        develop(tb, st, 1)
        return tb, st, DEVELOP, OP_TOP
    if kind == "attack":
        animal(tb, st, 1, CARNIVORE)
        animal(tb, st, 0)
        animal(tb, st, 3)
        k = feeding(tb, st, 0, first=1)
        return tb, st, k, OP_ATTACK
    animal(tb, st, 1, PIRACY)
    animal(tb, st, 0, HIGH_BODY_WEIGHT, food=1)
    animal(tb, st, 3, HIGH_BODY_WEIGHT, food=1)
    k = feeding(tb, st, 3, first=1)
    return tb, st, k, OP_PIRACY


@pytest.mark.parametrize("kind", ["attack", "piracy", "parasite"])
def test_heuristic_breaks_ties_between_seats_at_random(kind):
    """Issue 16: equal candidates of two opponents are each chosen about half the time (the
    old heuristic scanned from seat 0 and always took seat 0's). Each trial reseeds only the
    bot stream of seat 1; the share must be within four binomial standard errors of 1/2."""
    tb, base, k, op = equal_candidates(kind)
    assert k in (FEED, DEVELOP) and base.actor == 1 and base.kind == k
    hp = np.array(DEFAULTS)
    if kind == "parasite":
        hp[HP.animals] = 0.0  # the card goes to a host rather than into play as an animal
    fb = np.zeros(len(REGISTRY.options), dtype=np.uint8)
    trials = 400
    seats = []
    states = new_states(1)
    with np.errstate(over="ignore"):
        for i in range(trials):
            states[0] = base
            st = states[0]
            st.rng[2] = game_key(np.uint64(16), np.uint64(i))
            a = int(heuristic(tb, st, hp, fb, False))
            assert a >= 0 and op_of(a) == op, (kind, hex(a))
            seats.append((a >> 16) & 0xFF)
    assert set(seats) <= {0, 3}, seats
    share = seats.count(0) / trials
    se = (0.25 / trials) ** 0.5
    assert abs(share - 0.5) <= 4 * se, (kind, share, se)
