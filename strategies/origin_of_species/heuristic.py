"""The parameterised Origin of Species heuristic, compiled.

It sees what a player at the table sees: every animal with its traits, food and fat, the food
bank, hand sizes, the deck size and its own hand (never another hand or the deck order). It
allocates nothing: estimates are scalar loops over the table, cached for one decision in the
state's bot scratch (``bot_f`` / ``bot_i``, layout below).

**Food model.** A seat's *demand* is the food its animals still need (fat it can convert
counts against it). In feeding, players take one red token per go-around, so the bank is
shared out like water filling: the seat can take up to the level ``lam`` at which the other
seats' ``min(demand, lam)`` and its own share add up to the bank; with its Cooperation links
that is its *capacity* ``mu`` (over ``caution``). It feeds its animals in order of points at
stake per token needed, so animal ``a`` is fed when the tokens reach the cumulative need up
to it, with a smooth chance ``at_least(c, mu)``; a seat's expected points are the sum over its
animals of that chance times the animal's points at stake.

**Predation model** (issue 16; :func:`danger`). An animal survives the round if it is fed
*and not eaten*. Each opponent carnivore that can reach it (Swimming, High Body Weight and
Camouflage against the carnivore's traits) attacks with chance ``predation`` one of the
animals it can reach, weighted by their points at stake (:func:`prey_weight`: carnivores go
for the loaded animals); an opponent without a carnivore may still play one (``latent``).
Burrowing (once fed), Running, Tail Loss, Mimicry and Poisonous cut the chance. ``risk``
scales it. A trait's point is worth its chance to be fed times the chance not to be eaten, so
a loaded animal within an opponent carnivore's reach draws protection rather than more
points, and a protective trait is worth the points it keeps (``defence`` times the drop in
that chance times the points at stake): the earlier bot ignored which carnivores could reach
which animal and stacked its traits onto the animal likeliest fed.

``model`` 0 plays that earlier bot (registered as ``heuristic-v1`` with its old defaults,
:data:`~strategies.origin_of_species.params.V1`): no predation model (``predation``,
``latent`` and ``risk`` unused), a protective trait worth ``defence`` times a threat that grows
with the number of opponent carnivores (Poisonous 0.8 of it), and only Carnivore, High Body
Weight, Swimming, Sharp Vision and Fat Tissue valued per animal; the other traits go to the
animal likeliest fed (protective ones: the most points likely kept). Every other rule of play
is the same for both.

**Development.** Each play is valued by the change in expected points it makes (a new animal
is fed last: its 2 points times the chance the tokens reach the whole need plus one, and
that it is not eaten; a Carnivore or High Body Weight raises the need of its animal and of
every animal fed after it, a Carnivore also has prey; a Parasite changes the *opponent's*
expected points, its own 3 points going to the host's owner) plus small terms per trait
(protection as above, storage, food links, utility). The bot passes when the best play is
worth less than ``pass_at`` (in the last round when nothing is worth more than 0).

**Feeding.** Piracy on the opponent animal closest to being fed; Hibernation for an animal
the bank cannot feed; then the main action: an attack if ``aggression`` times its value beats
a red token (value: food for the carnivore plus the victim's points, times the chance that
Running does not save it; never a Poisonous prey unless the carnivore is doomed anyway), else
a red token to the hungry animal nearest to being fed with the most points at stake (then
into fat, which also denies the others), fat conversion once the bank is down to
``fat_bank``. Free traits come first (the main action ends the turn): Grazing when the bank,
a token less, still holds more than its own animals need.

**Defence.** Running first (Tail Loss first when ``tail_first``); Mimicry onto the own animal
with the least at stake if that is worth less than the prey; Tail Loss of the cheapest card (a
Parasite first: it also lowers the need).

**Seat symmetry.** The bot favours no seat by its number: it scans the other players from its
own left (seat ``s + 1``, ``s + 2``, ... modulo n) and every choice of the best candidate breaks
ties between equal values at random with its own stream (:func:`better`, reservoir sampling),
never by seat or index order. Sums over the table need neither.

Parameters (``hp``, read by name: ``hp[HP.caution]``; declared in
:mod:`strategies.origin_of_species.params`): ``animals``, ``caution``, ``aggression``,
``defence``, ``carnivore``, ``parasite``, ``fat``, ``links``, ``utility``, ``pass_at``,
``tail_first``, ``fat_bank``, ``predation``, ``latent``, ``risk``, ``model``. The defaults of
``caution``, ``aggression``, ``parasite`` and ``fat`` were re-chosen with the predation model
by a coordinate search against ``heuristic-v1`` at 2-5 players.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import uniform
from rules.origin_of_species.board import (
    B_BURROW,
    B_CAMO,
    B_CARN,
    B_HBW,
    B_PARA,
    B_SHARP,
    B_SWIM,
    NO,
    YES,
    is_fed,
    link_target,
    popcount,
    red_ok,
    room,
    target_ok,
)
from rules.origin_of_species.constants import (
    BURROWING,
    CAMOUFLAGE,
    CARNIVORE,
    COMMUNICATION,
    DEFEND,
    DEVELOP,
    FAT_TISSUE,
    FEED,
    GRAZING,
    HIBERNATION,
    HIGH_BODY_WEIGHT,
    LINK,
    LINK_COOP,
    LINK_SYMB,
    MAX_ANIMALS,
    MAX_FAT,
    MAX_LINKS,
    MAX_PLAYERS,
    MIMICRY,
    N_TRAITS,
    OP_ANIMAL,
    OP_ATTACK,
    OP_BOTTOM,
    OP_FAT,
    OP_GRAZE,
    OP_HIBERNATE,
    OP_MIMIC,
    OP_PIRACY,
    OP_RED,
    OP_RUN,
    OP_SCAVENGE,
    OP_TAIL,
    OP_TOP,
    PARASITE,
    PASS,
    PIRACY,
    POISONOUS,
    RUNNING,
    SCAVENGER,
    SHARP_VISION,
    SWIMMING,
    TAIL_LOSS,
)
from rules.origin_of_species.engine import (
    COUNT,
    FIRST,
    carn_ready,
    defend_actions,
    fat_max,
    field,
    has_link,
    hib_ok,
    link_actions,
    op_of,
    pack,
    pirate_ok,
    victim_ok,
)
from rules.origin_of_species.options import option_of
from rules.origin_of_species.state import BOT_SCRATCH
from strategies.core.registry import defaults
from strategies.core.scratch import scratch_layout
from strategies.origin_of_species.params import HEURISTIC, HP

DEFAULTS = defaults(HEURISTIC)
"""Default parameters (also the rollout policy of the search bot)."""

B_RUN = np.int64(1) << RUNNING
B_MIMIC = np.int64(1) << MIMICRY
B_TAIL = np.int64(1) << TAIL_LOSS
B_POISON = np.int64(1) << POISONOUS
B_SCAV = np.int64(1) << SCAVENGER
B_PIRACY = np.int64(1) << PIRACY
B_HIB = np.int64(1) << HIBERNATION
B_GRAZE = np.int64(1) << GRAZING
B_SHIELD = B_HBW | B_SWIM | B_MIMIC | B_BURROW | B_CAMO | B_RUN | B_TAIL | B_POISON
"""The traits that can keep an animal from being eaten."""
NEG = -1e18
BF = scratch_layout(
    "bot_f",
    BOT_SCRATCH,
    need=MAX_PLAYERS,
    trait_value=N_TRAITS,
    stakes=MAX_ANIMALS,
    fed=MAX_ANIMALS,
)
"""Where one decision's float estimates lie in ``st.bot_f``: tokens each seat still needs
(``BF.need + seat``), the best value of each trait (``BF.trait_value + trait``), the points at
stake on each own animal (``BF.stakes + a``) and its chance to be fed (``BF.fed + a``)."""
BI = scratch_layout(
    "bot_i", BOT_SCRATCH, place=N_TRAITS, cached=1, order=MAX_ANIMALS, need=MAX_ANIMALS
)
"""Where its integers lie in ``st.bot_i``: each trait's best place (``BI.place + trait``), the
bits of the traits already valued (``BI.cached``), the own animals in feeding order
(``BI.order + i``) and the tokens each still needs (``BI.need + a``)."""
if N_TRAITS > 63:
    raise ValueError(f"{N_TRAITS} traits do not fit the bits of bot_i[BI.cached]")


@jit_inline
def blocked(tb, st, fb, strict, action) -> bool:
    """``action`` uses an option forbidden to this bot (``fb``) while something else is legal
    (``strict``). The mapping is ``options.option_of``'s, the one place it lives; its op and
    card type are all it reads, so a candidate can be checked before its target is chosen."""
    if not strict:
        return False
    o = option_of(tb, st, action)
    return o >= 0 and fb[o] != 0


@jit_inline
def better(st, v, best, ties) -> tuple[bool, float, np.int64]:
    """Reservoir tie-breaking for a running argmax: whether candidate value ``v`` takes the
    place of the current pick (value ``best``, one of ``ties`` equal candidates so far; 0 when
    the pick is a default that keeps its ties, such as passing), and the new ``best`` and
    ``ties``. The k-th equal candidate is kept with probability 1/k, drawn from the deciding
    seat's bot stream, so each of k equal candidates ends up chosen with chance 1/k whatever
    the order of the scan."""
    if v > best:
        return True, v, np.int64(1)
    if v == best and ties > 0:
        ties += 1
        return uniform(st.rng, 1 + st.actor) * ties < 1.0, best, ties
    return False, best, ties


# ---------------------------------------------------------------- estimates


@jit_inline
def stakes(tb, st, q, a) -> float:
    """Points (q, a) brings if it survives."""
    m = st.an_tr[q, a]
    pts = tb.animal_points + tb.trait_points * (
        popcount(m) + st.an_fat_cards[q, a] + st.an_links[q, a]
    )
    if m & B_CARN:
        pts += tb.bonus[CARNIVORE]
    if m & B_HBW:
        pts += tb.bonus[HIGH_BODY_WEIGHT]
    if m & B_PARA:
        pts += tb.bonus[PARASITE]
    return float(pts)


@jit_inline
def eff_need(st, q, a) -> np.int64:
    """Tokens (q, a) still has to find (its fat can pay the rest)."""
    if is_fed(st, q, a):
        return 0
    r = np.int64(st.an_need[q, a]) - st.an_food[q, a]
    f = np.int64(st.an_fat[q, a])
    return r - (f if f < r else r)


@jit
def coop_bonus(st, q) -> float:
    """Extra food expected from ``q``'s Cooperation links."""
    c = 0
    for l in range(st.n_ln[q]):
        if st.ln_kind[q, l] == LINK_COOP:
            c += 1
    return 0.7 * c


@jit
def capacity(tb, st, q, bank) -> float:
    """Tokens seat ``q`` could take from ``bank``: the water level when the bank is shared out
    one token per go-around among the other seats' demands (``bot_f[BF.need + seat]``)."""
    n = tb.n_players
    lam = bank / n
    for _ in range(3):
        rest = bank
        hungry = 1
        for o in range(n):
            if o == q:
                continue
            d = st.bot_f[BF.need + o]
            if d < lam:
                rest -= d
            else:
                hungry += 1
        lam = rest / hungry
    return lam + coop_bonus(st, q)


@jit_inline
def at_least(c, mu, sig) -> float:
    """Smooth chance of getting at least ``c`` tokens when ``mu`` are expected."""
    if c <= 0:
        return 1.0
    x = (mu + 0.5 - c) / sig
    return 0.5 + 0.5 * x / (1.0 + abs(x))


@jit
def expected_bank(tb, st) -> float:
    if st.kind == FEED or st.kind == DEFEND:
        return float(st.bank)
    return 0.5 * (tb.food_lo + tb.food_hi)


@jit
def prey_for(tb, st, s, a, extra) -> int:
    """Opponent animals a carnivore (s, a) with ``extra`` trait bits could attack (passive
    traits only; burrowers count as unfed: the test is for later rounds)."""
    m = st.an_tr[s, a] | extra
    c = 0
    for o in range(tb.n_players):
        if o == s:
            continue
        for t in range(st.n_an[o]):
            ta = st.an_tr[o, t]
            if (ta ^ m) & B_SWIM:
                continue
            if ta & B_HBW and not m & B_HBW:
                continue
            if ta & B_CAMO and not m & B_SHARP:
                continue
            if st.an_prot[o, t] > 0:
                continue
            c += 1
    return c


# ---------------------------------------------------------------- predation


@jit_inline
def predation_model(hp) -> bool:
    """``model`` 1: the predation model; 0: ``heuristic-v1``'s play without it."""
    return hp[HP.model] >= 0.5


@jit_inline
def can_eat(cm, m) -> bool:
    """A carnivore with trait bits ``cm`` may attack an animal with bits ``m`` as far as the
    passive traits that never change in a round go (Swimming, High Body Weight, Camouflage)."""
    if (m ^ cm) & B_SWIM:
        return False
    if m & B_HBW and not cm & B_HBW:
        return False
    return not (m & B_CAMO and not cm & B_SHARP)


@jit_inline
def prey_weight(x) -> float:
    """How much a carnivore prefers a prey with ``x`` points at stake: carnivores go for the
    loaded animals (their value of an attack grows with the prey's points)."""
    return 4.0 + x


@jit
def hunt_share(tb, st, o, cm, s, a, own) -> float:
    """Share of carnivore bits ``cm`` of seat ``o``'s attention that the animal (s, a) of
    prey weight ``own`` draws among every animal outside seat ``o`` it could attack (``a`` -1:
    a new animal, not yet on the table)."""
    tot = own
    for x in range(tb.n_players):  # a sum: any order
        if x == o:
            continue
        for y in range(st.n_an[x]):
            if x == s and y == a:
                continue
            if st.an_prot[x, y] == 0 and can_eat(cm, st.an_tr[x, y]):
                tot += prey_weight(stakes(tb, st, x, y))
    return own / tot


@jit
def danger(tb, st, hp, s, a, m, pf) -> float:
    """Chance that own animal (s, a) with trait bits ``m`` (``a`` -1: a new animal) is eaten
    before the round's extinction: each opponent carnivore that can reach it attacks with
    chance ``predation`` one of the animals it can reach, the loaded ones first
    (:func:`prey_weight`); a seat with no carnivore yet may play one (``latent``).
    Burrowing (when fed: chance ``pf``), Running, Tail Loss, Mimicry and Poisonous cut it."""
    if a >= 0 and st.an_prot[s, a] > 0:
        return 0.0
    n = tb.n_players
    x = stakes(tb, st, s, a) if a >= 0 else float(tb.animal_points)
    if a >= 0 and m != st.an_tr[s, a]:
        x += tb.trait_points
    own = prey_weight(x)
    surv = 1.0
    for o in range(n):  # a product: any order
        if o == s:
            continue
        has = False
        for c in range(st.n_an[o]):
            cm = st.an_tr[o, c]
            if not cm & B_CARN:
                continue
            has = True
            if can_eat(cm, m):
                surv *= 1.0 - hp[HP.predation] * hunt_share(tb, st, o, cm, s, a, own)
        if not has and can_eat(B_CARN, m):
            surv *= 1.0 - hp[HP.latent] * hunt_share(tb, st, o, B_CARN, s, a, own)
    r = 1.0 - surv
    if m & B_BURROW:
        r *= 1.0 - 0.7 * pf
    if m & B_RUN:
        r *= max(0.0, (tb.run_from - 1) / 6.0)
    if m & B_TAIL:
        r *= 0.4
    if m & B_MIMIC and st.n_an[s] > 1:
        r *= 0.5
    if m & B_POISON:
        r *= 0.3
    return min(r, 0.95)


# ---------------------------------------------------------------- development


class DevContext(NamedTuple):
    """What every development option of one decision is valued against (:func:`dev_context`)."""

    bank: float  # food tokens the seat expects in the bank
    mu: float  # tokens the seat expects to take (its capacity over ``caution``)
    sig: float  # spread of that expectation
    ep: float  # expected points of the seat's animals as they stand
    need: int  # tokens all its animals still need
    threat: float  # the earlier bot's threat, growing with the opponents' carnivores
    last: bool  # the last round
    n_carn: int  # carnivores on the table
    animal_v: float  # value of a new animal (``NEG`` when the seat has no room)


@jit
def dev_context(tb, st, hp, s) -> DevContext:
    """Per-decision estimates for development, cached in the scratch space.

    The seat expects ``mu`` tokens (its capacity, over ``caution``) and feeds its animals in
    order of points at stake per token needed; animal ``a`` is fed when the tokens reach the
    cumulative need up to it: ``bot_f[BF.fed + a]``. Returns a :class:`DevContext`."""
    bank = expected_bank(tb, st)
    st.bot_i[BI.cached] = 0
    n_carn = 0
    opp = 0
    for o in range(tb.n_players):
        d = 0
        for t in range(st.n_an[o]):
            d += eff_need(st, o, t)
            if st.an_tr[o, t] & B_CARN:
                n_carn += 1
                if o != s:
                    opp += 1
        st.bot_f[BF.need + o] = d
    cau = hp[HP.caution] if hp[HP.caution] > 0.05 else 0.05
    mu = capacity(tb, st, s, bank) / cau
    sig = 0.6 + 0.25 * mu
    na = st.n_an[s]
    for a in range(na):  # stakes and needs, then insertion sort by stakes per token
        st.bot_f[BF.stakes + a] = stakes(tb, st, s, a)
        st.bot_i[BI.need + a] = eff_need(st, s, a)
        ra = st.bot_f[BF.stakes + a] / (1.0 + st.bot_i[BI.need + a])
        i = a
        while i > 0:
            b = st.bot_i[BI.order + i - 1]
            if st.bot_f[BF.stakes + b] / (1.0 + st.bot_i[BI.need + b]) >= ra:
                break
            st.bot_i[BI.order + i] = b
            i -= 1
        st.bot_i[BI.order + i] = a
    c = 0
    ep = 0.0
    for i in range(na):
        a = st.bot_i[BI.order + i]
        c += st.bot_i[BI.need + a]
        pf = at_least(c, mu, sig)
        st.bot_f[BF.fed + a] = pf
        ep += pf * st.bot_f[BF.stakes + a]
    last = st.last != 0
    threat = min(1.0, 0.3 * opp) + 0.1
    animal_v = NEG
    if na < MAX_ANIMALS:
        pn = at_least(c + 1, mu, sig)
        if predation_model(hp):
            pn *= 1.0 - min(
                0.95, hp[HP.risk] * danger(tb, st, hp, s, np.int64(-1), np.int64(0), pn)
            )
        animal_v = pn * tb.animal_points
        if not last:
            animal_v += 0.6 * pn
        animal_v *= hp[HP.animals]
    return DevContext(bank, mu, sig, ep, c, threat, last, n_carn, animal_v)


@jit
def ep_with(st, s, x, k, g, mu, sig) -> float:
    """Expected points of own seat ``s`` if animal ``x`` needed ``k`` more tokens and brought
    ``g`` more points: the better of keeping its feeding place or feeding it last."""
    na = st.n_an[s]
    c = 0
    ep = 0.0
    for i in range(na):
        a = st.bot_i[BI.order + i]
        c += st.bot_i[BI.need + a] + (k if a == x else 0)
        ep += at_least(c, mu, sig) * (st.bot_f[BF.stakes + a] + (g if a == x else 0.0))
    c = 0
    ep2 = 0.0
    for i in range(na):
        a = st.bot_i[BI.order + i]
        if a == x:
            continue
        c += st.bot_i[BI.need + a]
        ep2 += at_least(c, mu, sig) * st.bot_f[BF.stakes + a]
    c += st.bot_i[BI.need + x] + k
    ep2 += at_least(c, mu, sig) * (st.bot_f[BF.stakes + x] + g)
    return max(ep, ep2)


@jit
def trait_value(tb, st, s, a, tr, hp, ctx) -> float:
    """Value of single trait ``tr`` on own animal (s, a)."""
    mu, sig, ep0, threat, last, n_carn = ctx.mu, ctx.sig, ctx.ep, ctx.threat, ctx.last, ctx.n_carn
    tp = float(tb.trait_points)
    m = st.an_tr[s, a]
    pf = st.bot_f[BF.fed + a]
    if predation_model(hp):
        # the trait's point counts as far as the animal survives; a protective trait is
        # worth the points it keeps from the carnivores that could reach the animal
        r0 = min(0.95, hp[HP.risk] * danger(tb, st, hp, s, a, m, pf))
        r1 = r0
        if (np.int64(1) << tr) & B_SHIELD:
            r1 = min(0.95, hp[HP.risk] * danger(tb, st, hp, s, a, m | (np.int64(1) << tr), pf))
        protect = hp[HP.defence] * (r0 - r1) * (st.bot_f[BF.stakes + a] + tp) * pf
        surv = 1.0 - r1
        poison = 1.0
    else:  # heuristic-v1: protection by the opponent carnivores' number alone
        protect = hp[HP.defence] * threat * 0.3 * (st.bot_f[BF.stakes + a] + tp) * pf
        surv = 1.0
        poison = 0.8
    if tr in (CARNIVORE, HIGH_BODY_WEIGHT):
        v = ep_with(st, s, a, tb.food[tr], tp + tb.bonus[tr], mu, sig) - ep0
        if tr == CARNIVORE:
            prey = prey_for(tb, st, s, a, B_CARN)
            if prey > 0:
                v += hp[HP.carnivore] * (1.0 + 0.2 * min(prey, 5))
        else:
            v += protect
            if m & B_CARN:
                v += 0.3 * hp[HP.carnivore]
        return v
    base = tp * pf * surv
    if tr == FAT_TISSUE:
        if last:
            return base
        v = base + hp[HP.fat] * (0.35 if st.an_fat_cards[s, a] == 0 else 0.15)
        if m & B_CARN:
            v += 0.15 * hp[HP.fat]
        return v
    if tr == SWIMMING:
        v = base + protect
        if m & B_CARN:
            v -= 0.6 * hp[HP.carnivore]
        return v
    if tr == SHARP_VISION:
        if m & B_CARN and prey_for(tb, st, s, a, B_SHARP) > prey_for(tb, st, s, a, np.int64(0)):
            return base + 0.6 * hp[HP.carnivore]
        return base
    if tr == MIMICRY:
        return base + (protect if st.n_an[s] > 1 else 0.0)
    if tr in (BURROWING, CAMOUFLAGE, RUNNING, TAIL_LOSS):
        return base + protect
    if tr == POISONOUS:
        return base + poison * protect
    if tr == SCAVENGER:
        return base + hp[HP.utility] * 0.15 * n_carn
    if tr == PIRACY:
        return base + hp[HP.utility] * 0.3
    if tr == HIBERNATION:
        return base + (0.0 if last else hp[HP.utility] * 0.25)
    if tr == GRAZING:
        return base + hp[HP.utility] * 0.1 * (tb.n_players - 1)
    return base


@jit
def best_single(tb, st, s, tr, hp, ctx) -> tuple[float, np.int64]:
    """Best own animal for single trait ``tr``: (value, packed target). Every animal is
    tried: a trait's worth depends on the animal's chance to be fed and not eaten
    (:func:`danger`), and a protective trait's on the points it keeps from the carnivores
    that could reach that animal. Without the predation model (``heuristic-v1``; issue 16:
    traits piled onto one animal whatever the carnivores) only Carnivore, High Body Weight,
    Swimming, Sharp Vision and Fat Tissue try every animal; protective traits go to the
    animal with the most points likely kept, the others to the likeliest fed with the fewest
    cards."""
    best = NEG
    bt = np.int64(1) << tr
    every = predation_model(hp)
    every = every or tr in (CARNIVORE, HIGH_BODY_WEIGHT, SWIMMING, SHARP_VISION, FAT_TISSUE)
    protective = tr in (BURROWING, CAMOUFLAGE, RUNNING, MIMICRY)
    protective = protective or tr in (TAIL_LOSS, POISONOUS)
    pick = np.int64(-1)
    ties = np.int64(0)
    for a in range(st.n_an[s]):
        m = st.an_tr[s, a]
        if tr == FAT_TISSUE:
            if st.an_fat_cards[s, a] >= MAX_FAT:
                continue
        elif m & bt:
            continue
        if (tr == CARNIVORE and m & B_SCAV) or (tr == SCAVENGER and m & B_CARN):
            continue
        cards = popcount(m) + st.an_fat_cards[s, a]
        if every:
            v = trait_value(tb, st, s, a, tr, hp, ctx) - 0.01 * cards
        elif protective:
            v = st.bot_f[BF.stakes + a] * st.bot_f[BF.fed + a]
        else:
            v = st.bot_f[BF.fed + a] - 0.01 * cards
        take, best, ties = better(st, v, best, ties)
        if take:
            pick = a
    if pick < 0:
        return NEG, np.int64(-1)
    if not every:
        best = trait_value(tb, st, s, pick, tr, hp, ctx)
        best -= 0.01 * (popcount(st.an_tr[s, pick]) + st.an_fat_cards[s, pick])
    return best, (np.int64(s) << 16) | (np.int64(pick) << 8)


@jit
def best_parasite(tb, st, s, hp, ctx) -> tuple[float, np.int64]:
    """Best opponent animal for a Parasite: how much it lowers its owner's expected points
    (the owner feeds in table order; the Parasite's own points go to that owner). Per
    opponent the candidate is its animal with the most at stake (it delays every other).
    Opponents from the bot's left; equal candidates at random (:func:`better`)."""
    bank = ctx.bank
    best = NEG
    tgt = np.int64(-1)
    n = tb.n_players
    w = 1.0 if n == 2 else 0.7
    extra = tb.food[PARASITE]
    gain = tb.trait_points + tb.bonus[PARASITE]
    cau = hp[HP.caution] if hp[HP.caution] > 0.05 else 0.05
    ties = np.int64(0)
    for i in range(1, n):
        o = (s + i) % n
        if st.n_an[o] == 0:
            continue
        x = -1
        sx = -1.0
        xties = np.int64(0)
        for t in range(st.n_an[o]):
            if not st.an_tr[o, t] & B_PARA:
                take, sx, xties = better(st, stakes(tb, st, o, t), sx, xties)
                if take:
                    x = t
        if x < 0:
            continue
        mu = capacity(tb, st, o, bank) / cau
        sig = 0.6 + 0.25 * mu
        before = 0.0
        after = 0.0
        c = 0
        c2 = 0
        for t in range(st.n_an[o]):
            e = eff_need(st, o, t)
            v = stakes(tb, st, o, t)
            c += e
            before += at_least(c, mu, sig) * v
            if t == x:
                c2 += e + extra
                after += at_least(c2, mu, sig) * (v + gain)
            else:
                c2 += e
                after += at_least(c2, mu, sig) * v
        harm = (before - after) * w * hp[HP.parasite]
        take, best, ties = better(st, harm, best, ties)
        if take:
            tgt = (np.int64(o) << 16) | (np.int64(x) << 8)
    return best, tgt


@jit
def best_pair(tb, st, s, tr, hp, ctx) -> tuple[float, np.int64]:
    """Best pair of own animals for paired trait ``tr``."""
    threat = ctx.threat
    kind = tr - COMMUNICATION
    if st.n_ln[s] >= MAX_LINKS:
        return NEG, np.int64(-1)
    tp = float(tb.trait_points)
    bonus = (
        0.6 * hp[HP.links]
        if kind == LINK_COOP
        else (-0.2 if kind == LINK_SYMB else 0.4 * hp[HP.links])
    )
    best = NEG
    tgt = np.int64(-1)
    ties = np.int64(0)
    n = st.n_an[s]
    for a in range(n):
        for b in range(n):
            if a == b or (kind != LINK_SYMB and b < a):
                continue
            if has_link(st, s, kind, a, b):
                continue
            v = tp * (st.bot_f[BF.fed + a] + st.bot_f[BF.fed + b]) + bonus
            if kind == LINK_SYMB:
                # the symbiont eats first: a cheap one; the partner: the most at stake
                v += (
                    hp[HP.defence] * threat * 0.3 * st.bot_f[BF.stakes + b] - 0.2 * st.an_need[s, a]
                )
            else:
                v -= 0.2 * (st.an_links[s, a] + st.an_links[s, b])
            take, best, ties = better(st, v, best, ties)
            if take:
                tgt = (np.int64(s) << 16) | (np.int64(a) << 8) | np.int64(b)
    return best, tgt


@jit_inline
def trait_best(tb, st, hp, s, tr, ctx) -> tuple[float, np.int64]:
    """Value and packed target of trait ``tr`` at its best place (cached per decision in
    ``bot_f[BF.trait_value + tr]`` / ``bot_i[BI.place + tr]``)."""
    if (st.bot_i[BI.cached] >> tr) & 1:
        return st.bot_f[BF.trait_value + tr], st.bot_i[BI.place + tr]
    if tr == PARASITE:
        v, tgt = best_parasite(tb, st, s, hp, ctx)
    elif tr >= COMMUNICATION:
        v, tgt = best_pair(tb, st, s, tr, hp, ctx)
    else:
        v, tgt = best_single(tb, st, s, tr, hp, ctx)
    if tgt < 0:
        v = NEG
    st.bot_f[BF.trait_value + tr] = v
    st.bot_i[BI.place + tr] = tgt
    st.bot_i[BI.cached] |= np.int64(1) << tr
    return v, tgt


@jit_inline
def dev_option(tb, st, hp, s, ty, side, ctx) -> tuple[float, np.int64]:
    """Value and action of playing card type ``ty`` as its top (``side`` 0) or bottom (1)
    trait at the best place, or as an animal (``side`` 2); action -1 when impossible."""
    if side == 2:
        animal_v = ctx.animal_v
        if animal_v <= NEG:
            return NEG, np.int64(-1)
        return animal_v, pack(OP_ANIMAL, ty, s, 0, 0)
    tr = tb.type_top[ty] if side == 0 else tb.type_bot[ty]
    if tr < 0:
        return NEG, np.int64(-1)
    v, tgt = trait_best(tb, st, hp, s, tr, ctx)
    if tgt < 0:
        return NEG, np.int64(-1)
    return v, pack(OP_TOP + side, ty, 0, 0, 0) | tgt


@jit
def dev_choice(tb, st, hp, fb, strict) -> np.int64:
    """The best play by value (a trait from the card whose other side is worth least, an
    animal from the card least useful as a trait), or pass."""
    s = st.actor
    ctx = dev_context(tb, st, hp, s)
    best = hp[HP.pass_at] if st.last == 0 else 0.0
    choice = np.int64(PASS)
    ties = np.int64(0)  # passing keeps its ties: a play must be worth more
    animal_ok = not blocked(tb, st, fb, strict, pack(OP_ANIMAL, 0, 0, 0, 0))
    for ty in range(tb.n_types):
        if st.hand[s, ty] == 0:
            continue
        v0, a0 = NEG, np.int64(-1)
        v1, a1 = NEG, np.int64(-1)
        if tb.type_top[ty] >= 0 and not blocked(tb, st, fb, strict, pack(OP_TOP, ty, 0, 0, 0)):
            v0, a0 = dev_option(tb, st, hp, s, ty, np.int64(0), ctx)
        if tb.type_bot[ty] >= 0 and not blocked(tb, st, fb, strict, pack(OP_BOTTOM, ty, 0, 0, 0)):
            v1, a1 = dev_option(tb, st, hp, s, ty, np.int64(1), ctx)
        k0 = max(v0, 0.0)
        k1 = max(v1, 0.0)
        if a0 >= 0:
            take, best, ties = better(st, v0 - 0.1 * k1, best, ties)
            if take:
                choice = a0
        if a1 >= 0:
            take, best, ties = better(st, v1 - 0.1 * k0, best, ties)
            if take:
                choice = a1
        if animal_ok:
            va, aa = dev_option(tb, st, hp, s, ty, np.int64(2), ctx)
            va -= 0.1 * max(k0, k1)
            if aa >= 0:
                take, best, ties = better(st, va, best, ties)
                if take:
                    choice = aa
    return choice


# ---------------------------------------------------------------- feeding


@jit
def attack_value(tb, st, s, c, o, t) -> float:
    """Value of carnivore (s, c) attacking (o, t): on success its food (worth more when it
    completes the carnivore's need: it takes no red token after attacking) plus the prey's
    points (negative for an own prey); a Tail Loss gives ``tail_food`` and costs the prey a
    card; a failed attack (Running) may starve a hungry carnivore; Poisonous kills it."""
    n = tb.n_players
    w = 1.0 if n == 2 else 0.7
    ta = st.an_tr[o, t]
    r = room(st, s, c, NO)
    sc = stakes(tb, st, s, c)
    food = min(tb.kill_food, r)
    v_food = (sc + 1.0) if food >= r and r > 0 else 1.5 * food
    v_food += 0.3 * (min(tb.kill_food, room(st, s, c, YES)) - food)
    harm = stakes(tb, st, o, t)
    v_harm = harm * w if o != s else -harm
    if not is_fed(st, o, t):
        v_harm *= 0.8  # it might have starved anyway
    win = v_food + v_harm
    if ta & B_POISON:
        win -= sc + 1.0
    fail = -0.8 * sc if r > 0 and not tb.red_after_attack else 0.0
    if ta & B_TAIL:
        tf = min(tb.tail_food, r)
        win = ((sc + 1.0) if tf >= r and r > 0 else 1.5 * tf) + tb.trait_points * (
            w if o != s else -1.0
        )
        if tf < r:
            win += fail
    if ta & B_MIMIC and st.n_an[o] > 1:
        win *= 0.7
    p = 1.0
    if ta & B_RUN:
        p = (tb.run_from - 1) / 6.0
        if p < 0.0:
            p = 0.0
    return p * win + (1.0 - p) * fail


NONE = np.int64(-1)
"""A feeding step's answer when it does not act (every packed action is >= 0)."""


@jit_inline
def own_shortfall(st, s) -> tuple[int, int]:
    """Tokens seat ``s``'s hungry animals still need, and how many of them their fat covers."""
    need = 0
    fat = 0
    for a in range(st.n_an[s]):
        if not is_fed(st, s, a):
            need += st.an_need[s, a] - st.an_food[s, a]
            fat += min(st.an_fat[s, a], st.an_need[s, a] - st.an_food[s, a])
    return need, fat


@jit_inline
def piracy_choice(tb, st, hp, fb, strict, s) -> np.int64:
    """Free: Piracy on the hungry opponent animal nearest to being fed (or :data:`NONE`)."""
    if blocked(tb, st, fb, strict, pack(OP_PIRACY, 0, 0, 0, 0)):
        return NONE
    n = tb.n_players
    for a in range(st.n_an[s]):
        if st.an_tr[s, a] & B_PIRACY and pirate_ok(tb, st, s, a):
            bv = NEG
            bo = -1
            bt = -1
            ties = np.int64(0)
            for i in range(1, n):  # opponents from the left
                o = (s + i) % n
                for t in range(st.n_an[o]):
                    if victim_ok(st, o, t):
                        v = stakes(tb, st, o, t) - 2.0 * (st.an_need[o, t] - st.an_food[o, t])
                        take, bv, ties = better(st, v, bv, ties)
                        if take:
                            bo, bt = o, t
            if bo >= 0 and hp[HP.utility] > 0.0:
                return pack(OP_PIRACY, 0, bo, a, bt)
    return NONE


@jit_inline
def hibernate_choice(tb, st, hp, fb, strict, s, need, fat) -> np.int64:
    """Free: Hibernation for an animal the bank cannot feed (or :data:`NONE`)."""
    if blocked(tb, st, fb, strict, pack(OP_HIBERNATE, 0, 0, 0, 0)) or hp[HP.utility] <= 0.0:
        return NONE
    for a in range(st.n_an[s]):
        if st.an_tr[s, a] & B_HIB and hib_ok(tb, st, s, a):
            r = st.an_need[s, a] - st.an_food[s, a]
            rem = r - min(st.an_fat[s, a], r)
            short = need - fat - st.bank / tb.n_players
            if rem > 0 and (short >= rem or st.bank == 0):
                return pack(OP_HIBERNATE, 0, s, a, 0)
    return NONE


@jit_inline
def graze_choice(tb, st, hp, fb, strict, s, need, fat) -> np.int64:
    """Free: Grazing when the bank, one token less, still holds more than the seat needs."""
    if (
        st.bank > 0
        and hp[HP.utility] > 0.0
        and not blocked(tb, st, fb, strict, pack(OP_GRAZE, 0, 0, 0, 0))
        and st.bank - 1 > need - fat
    ):
        for a in range(st.n_an[s]):
            if st.an_tr[s, a] & B_GRAZE and not (st.grazed[s] >> a) & 1:
                return pack(OP_GRAZE, 0, s, a, 0)
    return NONE


@jit_inline
def red_choice(tb, st, hp, s) -> tuple[float, np.int64]:
    """The best own animal for a red token and its value (-1 when none may take one): the
    hungry one with the most points at stake per token needed, else into fat."""
    best = NEG
    red_a = np.int64(-1)
    ties = np.int64(0)
    if st.bank == 0:
        return best, red_a
    for a in range(st.n_an[s]):
        if not red_ok(tb, st, s, a):
            continue
        r = st.an_need[s, a] - st.an_food[s, a]
        if r > 0:
            v = 10.0 + stakes(tb, st, s, a) / r
            if st.an_links[s, a] > 0:
                v += 0.5
            for link in range(st.n_ln[s]):  # a symbiont unlocks its partner
                if st.ln_kind[s, link] == LINK_SYMB and st.ln_a[s, link] == a:
                    v += 1.0
        else:
            v = 1.0 + 0.5 * hp[HP.fat]
        take, best, ties = better(st, v, best, ties)
        if take:
            red_a = a
    return best, red_a


@jit_inline
def attack_choice(tb, st, hp, fb, strict, s, best_red, red_a) -> np.int64:
    """An attack when ``aggression`` times its value beats the red token (or :data:`NONE`)."""
    if hp[HP.aggression] <= 0.0 or blocked(tb, st, fb, strict, pack(OP_ATTACK, 0, 0, 0, 0)):
        return NONE
    n = tb.n_players
    red_cost = 0.0
    if red_a >= 0:
        red_cost = 3.0 if best_red >= 10.0 else 0.5
    need_v = red_cost / hp[HP.aggression]
    best_att = NEG
    att = NONE
    ties = np.int64(0)
    max_prey = -1.0
    for c in range(st.n_an[s]):
        if not carn_ready(tb, st, s, c):
            continue
        if max_prey < 0.0:
            max_prey = 0.0
            for o in range(n):  # a maximum: any order
                if o != s:
                    for t in range(st.n_an[o]):
                        max_prey = max(max_prey, stakes(tb, st, o, t))
        if stakes(tb, st, s, c) + 1.6 + max_prey <= need_v:
            continue
        for i in range(1, n + 1):  # from the left, own animals last
            o = (s + i) % n
            for t in range(st.n_an[o]):
                if target_ok(tb, st, s, c, o, t):
                    v = attack_value(tb, st, s, c, o, t)
                    take, best_att, ties = better(st, v, best_att, ties)
                    if take:
                        att = pack(OP_ATTACK, 0, o, c, t)
    if att >= 0 and best_att > need_v and best_att > 0.0:
        return att
    return NONE


@jit_inline
def fat_choice(tb, st, hp, fb, strict, s, red_a) -> np.int64:
    """Fat conversion once the bank is down to ``fat_bank`` (or nothing else feeds)."""
    if blocked(tb, st, fb, strict, pack(OP_FAT, 0, 0, 0, 0)):
        return NONE
    if not (st.bank <= hp[HP.fat_bank] or red_a < 0):
        return NONE
    for a in range(st.n_an[s]):
        k = fat_max(tb, st, s, a)
        if k > 0 and (red_a < 0 or st.bank <= hp[HP.fat_bank]):
            return pack(OP_FAT, 0, s, a, k)
    return NONE


@jit
def feed_choice(tb, st, hp, fb, strict) -> np.int64:
    """The feeding decision: the free traits first (the main action ends the turn), then the
    main action: an attack, fat conversion or a red token; else pass."""
    s = st.actor
    need, fat = own_shortfall(st, s)
    a = piracy_choice(tb, st, hp, fb, strict, s)
    if a < 0:
        a = hibernate_choice(tb, st, hp, fb, strict, s, need, fat)
    if a < 0:
        a = graze_choice(tb, st, hp, fb, strict, s, need, fat)
    if a >= 0 or st.main_done:
        return a if a >= 0 else np.int64(PASS)
    best_red, red_a = red_choice(tb, st, hp, s)
    a = attack_choice(tb, st, hp, fb, strict, s, best_red, red_a)
    if a < 0:
        a = fat_choice(tb, st, hp, fb, strict, s, red_a)
    if a < 0 and red_a >= 0:
        a = pack(OP_RED, 0, s, red_a, 0)
    return a if a >= 0 else np.int64(PASS)


# ---------------------------------------------------------------- defence and chains


@jit
def drop_cost(tb, st, o, t, tr) -> float:
    """What losing trait card ``tr`` of (o, t) costs its owner."""
    if tr == PARASITE:
        return -2.0
    if tr >= COMMUNICATION:
        return 2.0 * tb.trait_points
    v = float(tb.trait_points)
    if tr < FAT_TISSUE:
        v += tb.bonus[tr]
    if tr == FAT_TISSUE:
        v += 0.3
    if tr == TAIL_LOSS:
        v -= 0.2
    if tr in (CARNIVORE, HIGH_BODY_WEIGHT):
        v -= 0.5  # one less food to find
    return v


@jit
def defend_choice(tb, st, hp, fb, strict) -> np.int64:
    o, t = st.tg_s, st.tg_a
    sv = stakes(tb, st, o, t)
    m = defend_actions(tb, st, COUNT)
    best = NEG
    choice = defend_actions(tb, st, FIRST)
    ties = np.int64(0)
    tail_first = hp[HP.tail_first] >= 0.5
    for k in range(m):
        a = defend_actions(tb, st, k)
        op = op_of(a)
        if op == OP_RUN:
            v = 100.0
        elif op == OP_MIMIC:
            b = field(a, 0)
            v = sv - stakes(tb, st, o, b) + (3.0 if not is_fed(st, o, b) else 0.0)
        elif op == OP_TAIL:
            v = sv - drop_cost(tb, st, o, t, field(a, 24))
            if tail_first:
                v += 200.0
        else:
            v = 0.0
        if blocked(tb, st, fb, strict, a):
            continue
        take, best, ties = better(st, v, best, ties)
        if take:
            choice = a
    return choice


@jit
def link_choice(tb, st, fb, strict) -> np.int64:
    """The paired trait feeding the hungriest partner with the most at stake (an allowed one
    first: with every ready link forbidden, the best of them)."""
    s = st.actor
    best = NEG
    choice = np.int64(-1)
    ties = np.int64(0)
    for k in range(link_actions(tb, st, COUNT)):
        a = link_actions(tb, st, k)
        x = link_target(st, s, field(a, 0), field(a, 8))
        v = stakes(tb, st, s, x) + (5.0 if not is_fed(st, s, x) else 0.0)
        if blocked(tb, st, fb, strict, a):
            v -= 1000.0
        take, best, ties = better(st, v, best, ties)
        if take:
            choice = a
    return choice


@jit
def scav_choice(tb, st, fb, strict) -> np.int64:
    """The scavenger with the most at stake, a hungry one first."""
    q = st.actor
    best = NEG
    choice = np.int64(-1)
    ties = np.int64(0)
    for x in range(st.n_an[q]):
        if st.an_tr[q, x] & B_SCAV and room(st, q, x, tb.scav_fat != 0) > 0:
            v = stakes(tb, st, q, x) + (5.0 if not is_fed(st, q, x) else 0.0)
            take, best, ties = better(st, v, best, ties)
            if take:
                choice = pack(OP_SCAVENGE, 0, q, x, 0)
    return choice


@jit
def heuristic(tb, st, hp, fb, strict) -> np.int64:
    """The heuristic's action for the pending decision of ``st.actor`` (``fb``: the forbidden
    options of this bot, avoided when ``strict``; where every legal action is forbidden it
    falls back on one of them: passing is never forbidden, and defence and link choices take
    the best forbidden one when nothing else is legal)."""
    kind = st.kind
    if kind == FEED:
        return feed_choice(tb, st, hp, fb, strict)
    if kind == DEVELOP:
        return dev_choice(tb, st, hp, fb, strict)
    if kind == DEFEND:
        return defend_choice(tb, st, hp, fb, strict)
    if kind == LINK:
        return link_choice(tb, st, fb, strict)
    return scav_choice(tb, st, fb, strict)
