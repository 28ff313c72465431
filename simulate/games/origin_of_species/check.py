"""Origin of Species' own rules for the kit's step checker (:mod:`simulate.kit.check`).

The kit plays the game as :func:`simulate.games.origin_of_species.kernel.play_chunk` does and
checks what every game shares (legal actions, restricted play, the event records); the referee
here checks after every engine step: the cards are conserved (deck, hands, tableaux, discard
piles; by type through the public and private play records), food and fat within bounds, needs
and link counts consistent, the food bank within its formula's range, every trait played where
the rules allow it, every attack legal for the traits it records, and that each extinction
removes exactly the unfed and poisoned animals (``st.pause`` stops the engine just before each
extinction). A broken rule raises :class:`~simulate.kit.check.RuleBroken` naming it.

:func:`attack_problem` is the one reading of "an attack legal for the traits it records",
shared by the checker (on the engine's attack events) and the tests (on the logged
``attacks`` table).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rules.origin_of_species import engine
from rules.origin_of_species.board import is_fed
from rules.origin_of_species.constants import (
    BURROWING,
    CAMOUFLAGE,
    CARNIVORE,
    FAT_TISSUE,
    FEED,
    GAME_OVER,
    HIGH_BODY_WEIGHT,
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
from rules.origin_of_species.engine import extinction_and_draw
from rules.origin_of_species.options import option_of
from rules.origin_of_species.params import OosParameters
from rules.origin_of_species.state import (
    EVENTS,
    F_HIB,
    F_POISONED,
    new_states,
)
from simulate.kit.check import Checked, Referee, expect, sequential
from simulate.kit.spec import Setup
from strategies.core.registry import Strategy
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
    trait_events: list  # the trait event records (EVENTS.read: t.round, t.seat, t.trait ...)
    attack_events: list  # the attack event records, likewise
    animal_events: list  # the animal event records, likewise
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


class OosReferee(Referee):
    """Origin of Species' own rules: cards conserved, animals consistent, every extinction,
    the food bank and the round counters, where traits were played, every attack's traits
    and target, the rounds and the final score."""

    def dealt(self) -> None:
        tb, st = self.tb, self.st
        st.pause = 1  # advance stops before each extinction for check_extinction
        self.lo, self.hi = int(tb.food_lo), int(tb.food_hi)
        self.traits: list = []
        self.attacks: list = []
        self.animals: list = []
        self.rows: list[dict] = []
        self.most = 0
        check_cards(tb, st)

    def event(self, row: np.ndarray) -> None:
        e = EVENTS.read(row)
        if e.kind == "trait":
            self.traits.append(e)
            if e.trait == PARASITE:
                expect(e.target_owner != e.seat, "Parasite played on an own animal")
            else:
                expect(e.target_owner == e.seat, f"trait {e.trait} on another player's animal")
        elif e.kind == "attack":
            check_attack_event(e)
            self.attacks.append(e)
        elif e.kind == "animal":
            self.animals.append(e)

    def step(self, kind: int) -> None:
        tb, st, n = self.tb, self.st, self.n
        check_cards(tb, st)
        check_animals(tb, st)
        self.most = max(self.most, *(int(x) for x in st.n_an[:n]))
        if kind == NO_DECISION:
            check_extinction(tb, st)
        elif kind == ROUND_DONE:
            lo, hi = self.lo, self.hi
            expect(lo <= int(st.r_bank) <= hi, f"food bank {st.r_bank} outside {lo}..{hi}")
            self.rows.append(
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

    def decided(self, kind: int, seat: int, action: int) -> None:
        if kind == FEED and action >= 0 and action >> 32 == OP_ATTACK:
            o, a, t = (action >> 16) & 0xFF, (action >> 8) & 0xFF, action & 0xFF
            legal = attack_legal_py(self.tb, self.st, seat, a, o, t)
            expect(legal, "an illegal attack was offered")

    def result(self, winners: list[bool], decisions: int) -> CheckedGame:
        tb, st, n = self.tb, self.st, self.n
        expect(1 <= int(st.rnd) + 1 <= int(tb.max_rounds), f"{int(st.rnd) + 1} rounds")
        if self.rows:
            last = self.rows[-1]["score"]
            expect(last == [int(x) for x in st.score[:n]], "the last round's score is not final")
        return CheckedGame(
            winners=winners,
            rounds=int(st.rnd) + 1,
            decisions=decisions,
            scores=[int(x) for x in st.score[:n]],
            extra=[int(x) for x in st.extra[:n]],
            animals=[int(x) for x in st.end_animals[:n]],
            traits=[int(x) for x in st.end_traits[:n]],
            discards=[int(x) for x in st.discard_n[:n]],
            uses=np.array(st.uses[:n, :N_USES]),
            trait_events=self.traits,
            attack_events=self.attacks,
            animal_events=self.animals,
            round_rows=self.rows,
            max_animals=self.most,
        )


CHECK = sequential(
    engine,
    OosReferee,
    option_of=option_of,
    choose=choose,
    game_over=GAME_OVER,
    passes=(ROUND_DONE, NO_DECISION),
)
"""Origin of Species' step checker (its spec's ``check``)."""
