"""Play Origin of Species games step by step from Python, checking the rules at every step.

:func:`play_checked` is the debugging and testing twin of the chunk kernel
(:func:`simulate.games.origin_of_species.kernel.play_chunk`): it seeds and deals as the kernel
does (:func:`simulate.kit.support.start_game`, no rotation), asks the same bots through the
same dispatch, and after every engine call checks the invariants through
:func:`simulate.kit.spec.expect`: the cards are conserved (deck, hands, tableaux, discard
piles; by type through the public and private play records), food and fat within bounds,
needs and link counts consistent, the food bank within its formula's range, every action
legal, every trait played where the rules allow it, every attack legal for the traits it
records, and that each extinction removes exactly the unfed and poisoned animals
(``st.pause`` stops the engine just before each extinction). A broken rule raises
:class:`~simulate.kit.spec.RuleBroken` naming it. The conformance suite compares its winners
and rounds with the kernel's rows.

:func:`attack_problem` is the one reading of "an attack legal for the traits it records",
shared by the checker (on the engine's attack events) and the tests (on the logged
``attacks`` table).

:func:`play_games` is a compiled loop (no logging) for strength ladders and the engine's
speed: ``python -m simulate.games.origin_of_species.check match|speed|traits ...``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rules.core.events import event_field, event_kind
from rules.core.jit import jit
from rules.origin_of_species.board import is_fed
from rules.origin_of_species.constants import (
    BURROWING,
    CAMOUFLAGE,
    CARNIVORE,
    FAT_TISSUE,
    FEED,
    GAME_OVER,
    HIGH_BODY_WEIGHT,
    MAX_PLAYERS,
    N_TRAITS,
    N_USES,
    NO_DECISION,
    OP_ATTACK,
    PARASITE,
    ROUND_DONE,
    SCAVENGER,
    SHARP_VISION,
    SWIMMING,
)
from rules.origin_of_species.deck import Deck
from rules.origin_of_species.engine import (
    actions,
    advance,
    apply,
    deal,
    extinction_and_draw,
    final_result,
    is_legal,
)
from rules.origin_of_species.params import OosParameters
from rules.origin_of_species.state import (
    ANIMAL_EVENT,
    EVENTS,
    F_HIB,
    F_POISONED,
    TRAIT_EVENT,
    new_states,
)
from simulate.games.origin_of_species.kernel import kernel_inputs
from simulate.kit.spec import Checked, Setup, expect
from simulate.kit.support import start_game
from strategies.core.registry import Strategy
from strategies.origin_of_species import REGISTRY
from strategies.origin_of_species.bots import choose


@dataclasses.dataclass(frozen=True)
class CheckedGame(Checked):
    """What a checked game saw: its final numbers, per-round counters and logged events."""

    scores: list[int]
    extra: list[int]
    animals: list[int]
    traits: list[int]
    discards: list[int]
    uses: np.ndarray  # [n, N_USES]
    trait_events: list[tuple[int, ...]]  # (round, seat, trait, target_owner, type, side, a, b)
    attack_events: list[tuple[int, ...]]  # EV_ATTACK columns 1..
    animal_events: list[tuple[int, ...]]  # (round, seat, type)
    round_rows: list[dict] = dataclasses.field(default_factory=list)
    max_animals: int = 0  # most animals one seat had at once


def _pop(x: int) -> int:
    return bin(int(x)).count("1")


def check_cards(tb, st) -> None:
    """84 (or n_cards) cards conserved; by type through public_out and animal_out."""
    n = int(tb.n_players)
    T = int(tb.n_types)
    deck_left = int(st.deck_len - st.deck_top)
    hands = int(sum(int(st.n_hand[s]) for s in range(n)))
    table = 0
    for s in range(n):
        expect(int(st.hand[s, :T].sum()) == int(st.n_hand[s]), f"seat {s}: hand count")
        expect(bool((np.asarray(st.hand[s, :T]) >= 0).all()), f"seat {s}: negative hand")
        for a in range(int(st.n_an[s])):
            table += 1 + _pop(st.an_tr[s, a]) + int(st.an_fat_cards[s, a])
        table += int(st.n_ln[s])
    discards = int(sum(int(st.discard_n[s]) for s in range(n)))
    total = deck_left + hands + table + discards
    expect(
        total == int(tb.n_cards),
        f"cards not conserved: deck {deck_left} + hands {hands} + table {table} + "
        f"discards {discards} = {total} != {tb.n_cards}",
    )
    rest = np.bincount(np.asarray(st.deck[st.deck_top : st.deck_len]), minlength=T)[:T]
    for t in range(T):
        seen = (
            int(rest[t])
            + int(st.hand[:n, t].sum())
            + int(st.public_out[t])
            + int(st.animal_out[:n, t].sum())
        )
        expect(seen == int(tb.type_copies[t]), f"card type {t}: {seen} != {tb.type_copies[t]}")
    played = int(st.public_out[:T].sum()) + int(st.animal_out[:n, :T].sum())
    expect(played == table + discards, f"played {played} != table {table} + discards {discards}")


def check_animals(tb, st) -> None:
    """Food within need, fat within its cards, needs and link counts consistent."""
    n = int(tb.n_players)
    for s in range(n):
        na = int(st.n_an[s])
        links = np.zeros(na, int)
        prot = np.zeros(na, int)
        pairs = set()
        for l in range(int(st.n_ln[s])):
            a, b, k = int(st.ln_a[s, l]), int(st.ln_b[s, l]), int(st.ln_kind[s, l])
            expect(0 <= a < na and 0 <= b < na and a != b, f"seat {s} link {l}: ends {a}, {b}")
            key = (k, min(a, b), max(a, b))
            expect(key not in pairs, f"seat {s}: paired trait {k} twice on pair {a}, {b}")
            pairs.add(key)
            links[a] += 1
            links[b] += 1
            if k == 2:
                prot[b] += 1
        for a in range(na):
            m = int(st.an_tr[s, a])
            expect(m >> FAT_TISSUE == 0, f"seat {s} animal {a}: Fat/paired bits in an_tr")
            expect(not (m >> CARNIVORE & 1 and m >> SCAVENGER & 1), "Carnivore with Scavenger")
            need = 1 + sum(
                int(tb.food[t]) for t in (CARNIVORE, HIGH_BODY_WEIGHT, PARASITE) if m >> t & 1
            )
            expect(int(st.an_need[s, a]) == need, f"seat {s} animal {a}: need {st.an_need[s, a]}")
            food, fat, cards = (
                int(st.an_food[s, a]),
                int(st.an_fat[s, a]),
                int(st.an_fat_cards[s, a]),
            )
            expect(0 <= food <= need, f"seat {s} animal {a}: food {food} of need {need}")
            expect(0 <= fat <= cards, f"seat {s} animal {a}: fat {fat} on {cards} Fat Tissue")
            expect(int(st.an_links[s, a]) == links[a], f"seat {s} animal {a}: link count")
            expect(int(st.an_prot[s, a]) == prot[a], f"seat {s} animal {a}: protection count")
    expect(int(st.bank) >= 0, f"food bank {st.bank} < 0")


def attack_legal_py(tb, st, s, a, o, t) -> bool:
    """An independent reading of the attack rules on the live table, for the checks."""
    if not st.an_tr[s, a] >> CARNIVORE & 1:
        return False
    if s == o and a == t:
        return False
    am, tm = int(st.an_tr[s, a]), int(st.an_tr[o, t])
    if attack_problem(am, tm):
        return False
    fed = int(st.an_food[o, t]) >= int(st.an_need[o, t]) or (
        tb.hib_burrow and int(st.an_flags[o, t]) & F_HIB
    )
    if tm >> BURROWING & 1 and fed:
        return False
    for l in range(int(st.n_ln[o])):
        if int(st.ln_kind[o, l]) == 2 and int(st.ln_b[o, l]) == t:
            return False
    return True


def attack_problem(attacker_traits: int, defender_traits: int) -> str:
    """Why an attack is illegal for the traits its record holds (bitmasks, bit ``i`` = trait
    id ``i``), or ``""`` when those traits allow it: the attacker has Carnivore; both or
    neither swim; High Body Weight is attacked only by High Body Weight; Camouflage only with
    Sharp Vision. (A fed burrower and a protected Symbiosis partner are illegal targets too,
    but the masks cannot show whether an animal was fed or whose partner it was.)"""
    am, tm = int(attacker_traits), int(defender_traits)
    if not am >> CARNIVORE & 1:
        return "an attacker without Carnivore"
    if (am >> SWIMMING & 1) != (tm >> SWIMMING & 1):
        return "an attack across Swimming"
    if tm >> HIGH_BODY_WEIGHT & 1 and not am >> HIGH_BODY_WEIGHT & 1:
        return "an attack on High Body Weight without it"
    if tm >> CAMOUFLAGE & 1 and not am >> SHARP_VISION & 1:
        return "an attack on Camouflage without Sharp Vision"
    return ""


def check_attack_event(e) -> None:
    """The traits an attack event records allow the attack; its codes are in range."""
    problem = attack_problem(e.attacker_traits, e.defender_traits)
    expect(not problem, f"logged attack: {problem}")
    expect(0 <= e.defence_used <= 3 and 0 <= e.outcome <= 2, "bad defence or outcome code")


def check_extinction(tb, st) -> None:
    """Extinction on a copy removes exactly the unfed and poisoned animals, keeping order."""
    n = int(tb.n_players)
    keep = []
    for s in range(n):
        keep.append(
            [
                (int(st.an_tr[s, a]), int(st.an_fat_cards[s, a]), int(st.an_fat[s, a]))
                for a in range(int(st.n_an[s]))
                if is_fed(st, s, a) and not int(st.an_flags[s, a]) & F_POISONED
            ]
        )
    cp = new_states(1)
    cp[0] = st
    c = cp[0]
    c.verbose = 0
    extinction_and_draw(tb, c)
    for s in range(n):
        got = [
            (int(c.an_tr[s, a]), int(c.an_fat_cards[s, a]), int(c.an_fat[s, a]))
            for a in range(int(c.n_an[s]))
        ]
        expect(got == keep[s], f"seat {s}: extinction kept {got}, expected {keep[s]}")


def setup_of(params: OosParameters, data: Deck, n_players: int, lineup: list[Strategy]) -> Setup:
    """A :class:`~simulate.kit.spec.Setup` for these rules, deck and lineup (tests build
    variants this way; ``SPEC.setup`` parses a lineup text)."""
    from simulate.games.origin_of_species import SPEC

    params.check_players(n_players, data)
    return Setup(SPEC, params, n_players, tuple(lineup), data)


def play_checked(
    setup: Setup,
    seed: int,
    game_id: int,
    *,
    verbose: bool = False,
    forbid: dict[int, tuple[str, ...]] | None = None,
) -> CheckedGame:
    """Play game ``game_id`` of ``seed`` (no seat rotation) with every check on; ``forbid``
    maps seats to the options (``rules.origin_of_species.options.OPTIONS``) their bots may
    take only when nothing else is legal."""
    n = setup.n_players
    tbs, lus, states, scratches = kernel_inputs(setup.params, setup.data, setup.lineup, forbid)
    tb, lu, st, scratch = tbs[0], lus[0], states[0], scratches[0]
    lo, hi = int(tb.food_lo), int(tb.food_hi)
    traits: list[tuple[int, ...]] = []
    attacks: list[tuple[int, ...]] = []
    animals: list[tuple[int, ...]] = []
    rows: list[dict] = []
    decisions = 0
    with np.errstate(over="ignore"):
        start_game(st.rng, n, np.uint64(seed), game_id, False)
        deal(tb, st)
        st.verbose = int(verbose)
        st.pause = 1  # advance stops before each extinction for check_extinction
        check_cards(tb, st)
        most = 0
        while True:
            kind = int(advance(tb, st))
            for e in EVENTS.pending(st):
                if e.kind == "trait":
                    traits.append(e[1:])
                    seat, owner = e.seat, e.target_owner
                    if e.trait == PARASITE:
                        expect(owner != seat, "Parasite played on an own animal")
                    else:
                        expect(owner == seat, f"trait {e.trait} played on another player's animal")
                elif e.kind == "attack":
                    check_attack_event(e)
                    attacks.append(e[1:])
                elif e.kind == "animal":
                    animals.append(e[1:])
            expect(int(st.ev_lost) == 0, "events lost")
            st.n_ev = 0
            check_cards(tb, st)
            check_animals(tb, st)
            most = max(most, *(int(x) for x in st.n_an[:n]))
            if kind == NO_DECISION:
                check_extinction(tb, st)
                continue
            if kind == ROUND_DONE:
                expect(lo <= int(st.r_bank) <= hi, f"food bank {st.r_bank} outside {lo}..{hi}")
                rows.append(
                    {
                        "round": int(st.rnd) + 1,
                        "food_bank": int(st.r_bank),
                        "deck_left": int(st.r_deck_left),
                        "animals": [int(x) for x in st.r_animals[:n]],
                        "survivors": [int(x) for x in st.r_survivors[:n]],
                        "traits": [int(x) for x in st.r_traits[:n]],
                        "need": [int(x) for x in st.r_need[:n]],
                        "food_taken": [int(x) for x in st.r_red[:n]],
                        "food_received": [int(x) for x in st.r_blue[:n]],
                        "starved": [int(x) for x in st.r_starved[:n]],
                        "poisoned": [int(x) for x in st.r_poisoned[:n]],
                        "kills": [int(x) for x in st.r_kills[:n]],
                        "cards_drawn": [int(x) for x in st.r_drawn[:n]],
                        "hand": [int(x) for x in st.r_hand[:n]],
                        "score": [int(x) for x in st.r_score[:n]],
                    }
                )
                for s in range(n):
                    expect(st.r_survivors[s] == st.n_an[s], "survivors != animals after round")
                    expect(st.r_hand[s] == st.n_hand[s], "hand counter")
                    lost = int(st.r_animals[s]) - int(st.r_survivors[s])
                    died = int(st.r_starved[s]) + int(st.r_poisoned[s])
                    expect(lost == died, f"seat {s}: {lost} animals lost, {died} starved/poisoned")
                continue
            if kind == GAME_OVER:
                break
            decisions += 1
            seat = int(st.actor)
            expect(actions(tb, st, -1) >= 1, "a decision without actions")
            action = int(choose(lu, seat, tb, st, seat, scratch))
            expect(is_legal(tb, st, action), f"illegal action {action:#x} for decision {kind}")
            if kind == FEED and action >= 0 and action >> 32 == OP_ATTACK:
                o, a, t = (action >> 16) & 0xFF, (action >> 8) & 0xFF, action & 0xFF
                expect(attack_legal_py(tb, st, seat, a, o, t), "an illegal attack was offered")
            apply(tb, st, action)
        winners = np.zeros(n, dtype=np.bool_)
        final_result(tb, st, winners)
    expect(1 <= int(st.rnd) + 1 <= int(tb.max_rounds), f"{int(st.rnd) + 1} rounds")
    if rows:
        last = rows[-1]["score"]
        expect(last == [int(x) for x in st.score[:n]], "the last round's score is not final")
    return CheckedGame(
        winners=[bool(x) for x in winners],
        rounds=int(st.rnd) + 1,
        decisions=decisions,
        scores=[int(x) for x in st.score[:n]],
        extra=[int(x) for x in st.extra[:n]],
        animals=[int(x) for x in st.end_animals[:n]],
        traits=[int(x) for x in st.end_traits[:n]],
        discards=[int(x) for x in st.discard_n[:n]],
        uses=np.array(st.uses[:n, :N_USES]),
        trait_events=traits,
        attack_events=attacks,
        animal_events=animals,
        round_rows=rows,
        max_animals=most,
    )


@jit
def play_games(tb, lineup, st, scratch, seed, first, count, wins, rounds, tallies) -> None:
    """Play games ``first .. first + count - 1`` of ``seed`` (no rotation, no logging), seeded
    and dispatched as the chunk kernel does: ``wins[s]`` counts sole wins (shared wins add
    1/k), ``rounds[0]`` the rounds, ``tallies`` [2, N_TRAITS + 1] the traits played (row 0;
    column N_TRAITS: animals) and ``uses`` summed over seats (row 1). ``st`` is one state
    record, ``scratch`` one :data:`~strategies.origin_of_species.search.SCRATCH` record."""
    n = tb.n_players
    winners = np.zeros(MAX_PLAYERS, dtype=np.bool_)
    for g in range(first, first + count):
        start_game(st.rng, n, seed, g, False)
        deal(tb, st)
        while True:
            kind = advance(tb, st)
            for i in range(st.n_ev):
                if event_kind(st, i) == TRAIT_EVENT.kind:
                    tallies[0, event_field(st, i, TRAIT_EVENT.trait)] += 1
                elif event_kind(st, i) == ANIMAL_EVENT.kind:
                    tallies[0, N_TRAITS] += 1
            st.n_ev = 0
            if kind == GAME_OVER:
                break
            if kind == ROUND_DONE:
                continue
            s = st.actor
            apply(tb, st, choose(lineup, s, tb, st, s, scratch))
        final_result(tb, st, winners[:n])
        k = 0
        for s in range(n):
            k += winners[s]
        for s in range(n):
            if winners[s]:
                wins[s] += 1.0 / k
            for u in range(N_TRAITS):
                tallies[1, u] += st.uses[s, u]
        rounds[0] += st.rnd + 1


def run_games(
    params: OosParameters,
    data: Deck,
    n_players: int,
    lineup: list[Strategy],
    seed: int,
    games: int,
    first: int = 0,
) -> tuple[np.ndarray, int, np.ndarray]:
    """:func:`play_games` from Python: wins per seat, rounds, tallies."""
    tbs, lus, states, scratches = kernel_inputs(params, data, lineup)
    wins = np.zeros(n_players)
    rounds = np.zeros(1, np.int64)
    tallies = np.zeros((2, N_TRAITS + 1), np.int64)
    with np.errstate(over="ignore"):
        play_games(
            tbs[0], lus[0], states[0], scratches[0], np.uint64(seed), first, games, wins,
            rounds, tallies,
        )  # fmt: skip
    return wins, int(rounds[0]), tallies


def match(
    params: OosParameters,
    data: Deck,
    n_players: int,
    test: Strategy,
    field: Strategy,
    games: int,
    seed: int,
) -> tuple[float, float, float]:
    """Win share of ``test`` against ``field`` (the others), rotated through every seat over
    the same deals (``games`` per seat; a shared win counts 1/k), with its 95% Wilson
    interval: ``(share, lo, hi)``."""
    total = 0.0
    for r in range(n_players):
        specs = [field] * n_players
        specs[r] = test
        wins, _, _ = run_games(params, data, n_players, specs, seed, games)
        total += wins[r]
    m = n_players * games
    p = total / m
    z = 1.96
    centre = (p + z * z / (2 * m)) / (1 + z * z / m)
    half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    return p, centre - half, centre + half


def speed(
    params: OosParameters, data: Deck, n_players: int, lineup: list[Strategy], games: int
) -> float:
    """Games per second of CPU time (best of 5 runs of ``games``) of the compiled loop."""
    import time

    run_games(params, data, n_players, lineup, 1, 5)
    best = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        run_games(params, data, n_players, lineup, 1, games)
        best = min(best, time.process_time() - t0)
    return games / best


def trait_table(
    params: OosParameters, data: Deck, n_players: int, lineup: list[Strategy], games: int, seed: int
) -> tuple[np.ndarray, float]:
    """Traits played and used per seat and game (``[2, N_TRAITS + 1]``: row 0 played, column
    N_TRAITS animals; row 1 uses, see ``constants.USE_DOCS``) and rounds per game."""
    _, rounds, tallies = run_games(params, data, n_players, lineup, seed, games)
    return tallies / (games * n_players), rounds / games


def main(argv: list[str] | None = None) -> None:
    """``python -m simulate.games.origin_of_species.check match TEST FIELD [--players N]
    [--games G] [--seed S] [--set key=value ...]`` prints TEST's win share against FIELD in
    every seat with its 95% interval; ``speed LINEUP`` prints games per second of one core;
    ``traits LINEUP`` prints how often each trait is played and used per seat and game."""
    import argparse

    from rules.core.params import parse_assignments
    from rules.origin_of_species.constants import TRAITS

    ap = argparse.ArgumentParser(prog="python -m simulate.games.origin_of_species.check")
    ap.add_argument("what", choices=("match", "speed", "traits"))
    ap.add_argument("lineup")
    ap.add_argument("field", nargs="?", default="heuristic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    a = ap.parse_args(argv)
    params = OosParameters().with_values(parse_assignments(a.set))
    deck = params.load_deck()
    n = a.players
    if a.what == "match":
        test, field = REGISTRY.parse(a.lineup), REGISTRY.parse(a.field)
        p, lo, hi = match(params, deck, n, test, field, a.games, a.seed)
        print(
            f"{test.label} vs {field.label} x{n - 1}, {n} players, {n * a.games} games: "
            f"win share {p:.3f} [{lo:.3f}, {hi:.3f}] (fair {1 / n:.3f})"
        )
    elif a.what == "speed":
        lineup = REGISTRY.lineup(a.lineup, n)
        print(f"{speed(params, deck, n, lineup, a.games):.0f} games/s ({n} players, {a.lineup})")
    else:
        lineup = REGISTRY.lineup(a.lineup, n)
        tab, rounds = trait_table(params, deck, n, lineup, a.games, a.seed)
        print(f"{a.lineup}, {n} players, {a.games} games, {rounds:.2f} rounds per game")
        print("trait,played,used")
        for t in range(N_TRAITS):
            print(f"{TRAITS[t]},{tab[0, t]:.3f},{tab[1, t]:.3f}")
        print(f"animal,{tab[0, N_TRAITS]:.3f},")


if __name__ == "__main__":
    main()
