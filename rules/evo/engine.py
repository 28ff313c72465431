"""The compiled forward model of EVO (seed ``000_bd50a0e2fc564912.txt``), resumable.

EVO asks players for many kinds of decisions in a fixed phase order, so the engine follows
OpenSpiel's pattern: :func:`advance` runs the automatic rules until somebody must decide and
returns what kind of decision it is (``st.actor`` decides); :func:`apply` applies the chosen
action and the next :func:`advance` continues. The phase order therefore lives here, in the
rules, and the kernel and the search bot's rollouts are short loops::

    deal(tb, st)
    while (kind := advance(tb, st)) != GAME_OVER:
        if kind != ROUND_DONE:
            apply(tb, st, bot_choice(tb, st))

:func:`actions` enumerates the legal actions of the pending decision (``k < 0``: how many;
else the ``k``-th), which the random bot samples uniformly and the tests check against.

One round, as the seed plays it (card windows in brackets, see :mod:`rules.evo.cards`):

1. Initiative: most tails first, then more dinos on the board, then a die roll-off
   (:func:`initiative`) [phase 1].
2. Climate [phase 2 start]: the first player rolls: 1 back, 2 stay, 3-6 forward on the
   climate track; the marker's field gives the temperate terrain; one step hotter is warm,
   one colder cold, further scorching or freezing (``TABLE.zone``).
3. Movement and combat [phase 3 start], in player order: leg points move dinos one region
   each; never into an own region; entering a foreign one is an attack that costs the point,
   resolved at once by the combat table; the winner holds the region.
4. Reproduction [phase 4 start / end], in player order: one newborn per egg on an empty region
   next to a dino that was on the board at the start of the round; anywhere (as one connected
   group) for a player with no dinos; mandatory while supply and room last.
5. Survival and scoring [phase 5 start / end]: temperate dinos live; in cold (warm) regions the
   owner keeps up to furs (parasols) and chooses which; the rest die. +1 point per dino.
6. Meteor and auction [phase 6 before the draw / genes drawn / payment]: the meteor moves one
   space; on a die space the first player rolls and a strike ends the game at once; the last
   space ends it too. Otherwise as many genes as players are drawn and auctioned (mandatory
   bids, outbid players move at once), each pays its bid minus its mutations (never below 0).

The game ends with [end of the last round] window and the winner by points (plus Váratlan gén),
then dinos on the board, else a shared victory (:func:`final_result`).

Each step is one function, inlined into :func:`advance`, which only orders them: card windows
:func:`card_window`; 1 :func:`begin_round`; 2 :func:`roll_climate`; 3 :func:`next_mover`,
:func:`ask_move`; 4 :func:`births_start`, :func:`next_breeder`, :func:`ask_birth`; 5
:func:`ask_cull`, :func:`survival`; 6 :func:`meteor`, :func:`draw_genes`, :func:`ask_bid`,
:func:`pay_auction`.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded, mix64, shuffle
from rules.evo.board import (
    add_dino,
    allowance,
    attack_odds,
    fight,
    kill,
    move_dino,
    set_climate,
    zone_of,
)
from rules.evo.cards import (
    DOUBLING,
    W_AUCTION,
    W_BIDDING,
    W_BIRTHS,
    W_BIRTHS_END,
    W_CLIMATE,
    W_GAME_END,
    W_INITIATIVE,
    W_MOVEMENT,
    W_PAYMENT,
    W_SURVIVAL,
    W_SURVIVAL_END,
)
from rules.evo.constants import (
    BID,
    CARD,
    CARD_PLAY,
    COLD,
    CULL,
    EGG,
    GAME_OVER,
    LEG,
    MOVE,
    MUTATION,
    NO_DECISION,
    PASS,
    PLACE,
    ROUND_DONE,
    SCORCHING,
    TAIL,
    WARM,
)
from rules.evo.events import (
    card_bit,
    cards_open,
    play_card,
    playable,
    reaction_holder,
    take_card,
    targets,
)
from rules.evo.state import (
    CHANCE,
    E_GENE_GUARD,
    E_INSTINCT,
    E_OVERFLIER,
    E_TOUGH_YOUNG,
    E_WANDERERS,
    S_CLIMATE,
    S_METEOR,
    S_ORDER,
    emit_bid,
    emit_move,
    emit_pass,
    emit_place,
)

(
    ST_ROUND,
    ST_WINDOW,
    ST_CLIMATE_CARDS,
    ST_CLIMATE,
    ST_MOVE_START,
    ST_MOVE_PLAYER,
    ST_MOVE_ASK,
    ST_BIRTHS_START,
    ST_BIRTH_PLAYER,
    ST_BIRTH_ASK,
    ST_SURVIVAL_CARDS,
    ST_SURVIVAL_START,
    ST_CULL_PLAYER,
    ST_SURVIVAL_END,
    ST_METEOR,
    ST_AUCTION_START,
    ST_AUCTION_ASK,
    ST_PAYMENT,
    ST_ROUND_DONE,
    ST_NEXT_ROUND,
    ST_GAME_END,
    ST_FINAL,
    ST_OVER,
) = range(23)
_STREAM_SALT = np.uint64(0xA0761D6478BD642F)


@jit
def pack(a: int, b: int) -> np.int64:
    """The action ``(a, b)`` as one integer."""
    return (np.int64(a) << 16) | np.int64(b)


# ---------------------------------------------------------------- setup and initiative


@jit
def deal(tb, st) -> None:
    """Setup for a state whose ``rng[0]`` holds the game key and bot streams are seeded.

    Derives the dedicated chance streams, fills and shuffles the gene bag and the event deck,
    deals the cards one at a time round the table, deals the start stars at random and puts
    each player's first dino on its star.
    """
    key = st.rng[CHANCE]
    for k in range(4):
        x = mix64(key ^ (np.uint64(k + 1) * _STREAM_SALT))
        st.rng[S_CLIMATE + k] = x if x != np.uint64(0) else np.uint64(1)
    n = tb.n_players
    for r in range(tb.n_regions):
        st.owner[r] = -1
        st.fresh[r] = 0
        st.mark[r] = 0
    st.stamp = 0
    for s in range(n):
        st.n_dinos[s] = 0
        for g in range(8):
            st.genes[s, g] = tb.portrait[g]
        st.points[s] = tb.start_points
        st.bonus[s] = 0
        st.hand[s] = 0
        st.locked[s] = 0
        st.played[s] = 0
        st.order[s] = s
    i = 0
    for g in range(8):
        for _ in range(tb.bag_counts[g]):
            st.bag[i] = g
            i += 1
    st.bag_top, st.bag_len = 0, tb.bag_size
    shuffle(st.bag[: tb.bag_size], st.rng, CHANCE)
    for c in range(tb.deck_size):
        st.deck[c] = tb.deck[c]
    st.deck_len = tb.deck_size
    shuffle(st.deck[: tb.deck_size], st.rng, CHANCE)
    top = 0
    for _ in range(tb.cards_dealt):
        for s in range(n):
            st.hand[s] |= card_bit(st.deck[top] + 1)
            top += 1
    st.deck_top = top
    for s in range(n):
        st.seen[s] = st.hand[s]
    stars = np.empty(n, dtype=np.int16)  # which star each seat gets
    for s in range(n):
        stars[s] = tb.starts[s]
    shuffle(stars, st.rng, CHANCE)
    for s in range(n):
        add_dino(st, s, stars[s])
    set_climate(tb, st, tb.climate_start)
    st.meteor = tb.meteor_start
    st.rnd = 0
    st.step = ST_ROUND
    st.kind = NO_DECISION
    st.over = 0
    st.impact = 0
    st.n_ev = 0


@jit
def initiative(tb, st) -> None:
    """Phase 1: most tails first; ties to more dinos on the board; then a die roll-off.

    Fills ``order``, ``init_pos`` and ``tie_how`` (0: tails placed the seat, 1: dinos, 2: the
    die). With ``init_tails`` off tails are ignored (the paired tail-impact variant).
    """
    n = tb.n_players
    key, brk, flag = st.init_key, st.init_roll, st.init_tie
    for s in range(n):  # key: tails (when they count) * 128 + dinos
        d = st.n_dinos[s] if tb.more_dinos_first else 64 - st.n_dinos[s]
        key[s] = st.genes[s, TAIL] * tb.init_tails * 128 + d
        brk[s] = 0
    while True:
        tied = False
        for s in range(n):
            flag[s] = 0
        for s in range(n):
            for t in range(s + 1, n):
                if key[s] == key[t] and brk[s] == brk[t]:
                    flag[s] = 1
                    flag[t] = 1
                    tied = True
        if not tied:
            break
        for s in range(n):  # every seat of a key group with a tie shifts; the tied roll again
            group = False
            for t in range(n):
                if key[t] == key[s] and flag[t]:
                    group = True
            if group:
                brk[s] *= 8
                if flag[s]:
                    brk[s] += 1 + bounded(st.rng, S_ORDER, 6)
    for s in range(n):
        st.order[s] = s
    for i in range(1, n):  # insertion sort by (key, brk) descending
        s = st.order[i]
        j = i - 1
        while j >= 0 and (
            key[st.order[j]] < key[s] or (key[st.order[j]] == key[s] and brk[st.order[j]] < brk[s])
        ):
            st.order[j + 1] = st.order[j]
            j -= 1
        st.order[j + 1] = s
    for s in range(n):
        how = 0
        for t in range(n):
            if t != s and (key[t] >> 7) == (key[s] >> 7):
                how = 1
        if how == 1:
            for t in range(n):
                if t != s and key[t] == key[s]:
                    how = 2
        st.tie_how[s] = how
    for i in range(n):
        st.init_pos[st.order[i]] = i


@jit
def start_round(tb, st) -> None:
    """Clear the effects and counters of the previous round."""
    n = tb.n_players
    st.sleep = 0
    st.climate_used = 0
    st.climate_card = -1
    st.climate_roll = 0
    st.meteor_roll = 0
    st.forced_roll = 0
    st.catastrophe = 0
    st.peace = 0
    st.no_births = 0
    st.fur_minus = 0
    st.parasol_minus = 0
    st.missing_link = 0
    st.react = -1
    for s in range(n):
        st.eff[s] = 0
        st.truce[s] = -1
        st.locked[s] = 0
        st.born[s] = 0
        st.died_climate[s] = 0
        st.died_combat[s] = 0
        st.died_card[s] = 0
        st.scored[s] = 0
        st.penalty[s] = 0
        st.bought[s] = -1
        st.paid[s] = 0
        st.bid_row[s] = -1
        for k in range(st.n_dinos[s]):
            st.fresh[st.pieces[s, k]] = 0


@jit
def open_window(tb, st, window: int, nxt: int) -> None:
    """Start card window ``window`` (skipped when no card may be played), then step ``nxt``."""
    st.step = nxt
    if not cards_open(tb, st):
        return
    st.window = window
    st.win_next = nxt
    st.win_i = 0
    st.react = -1
    for i in range(tb.n_players):
        st.win_order[i] = st.order[i]
    st.step = ST_WINDOW


# ---------------------------------------------------------------- legality helpers


@jit
def can_move(tb, st, seat: int) -> bool:
    """``seat`` has a dino with an empty or attackable neighbouring region."""
    for k in range(st.n_dinos[seat]):
        r = st.pieces[seat, k]
        for i in range(tb.deg[r]):
            o = st.owner[tb.adj[r, i]]
            if o < 0 or (o != seat and attack_odds(tb, st, seat, o, 0) > 0):
                return True
    return False


@jit
def newborn_ok(tb, st, seat: int, r: int) -> bool:
    """Region ``r`` can take a newborn of ``seat`` (empty, or foreign with Kemény kölykök)."""
    o = st.owner[r]
    if o < 0:
        return True
    if o == seat or not st.eff[seat] & E_TOUGH_YOUNG:
        return False
    return attack_odds(tb, st, seat, o, tb.tough_young_horns) > 0


@jit
def mark_births(tb, st, seat: int) -> int:
    """Mark the regions where ``seat``'s next newborn may go (``mark[r] == stamp``); count them.

    Next to a dino that was on the board at the start of the round (up to ``wander_reach``
    regions away with Vándorló ivadékok); for a player who had no dinos when its reproduction
    began, anywhere, and then next to its newborns (one connected group).
    """
    st.stamp += 1
    stamp = st.stamp
    count = 0
    if st.wiped and st.n_dinos[seat] == 0:
        for r in range(tb.n_regions):
            if newborn_ok(tb, st, seat, r):
                st.mark[r] = stamp
                st.marked[count] = r
                count += 1
    elif st.wiped or not st.eff[seat] & E_WANDERERS:
        for k in range(st.n_dinos[seat]):
            d = st.pieces[seat, k]
            if st.fresh[d] and not st.wiped:
                continue
            for i in range(tb.deg[d]):
                r = tb.adj[d, i]
                if st.mark[r] != stamp and newborn_ok(tb, st, seat, r):
                    st.mark[r] = stamp
                    st.marked[count] = r
                    count += 1
    else:
        for r in range(tb.n_regions):
            if not newborn_ok(tb, st, seat, r):
                continue
            for k in range(st.n_dinos[seat]):
                d = st.pieces[seat, k]
                if not st.fresh[d] and tb.dist[d, r] <= tb.wander_reach:
                    st.mark[r] = stamp
                    st.marked[count] = r
                    count += 1
                    break
    st.n_marked = count
    return count


@jit
def zone_count(tb, st, seat: int, zone: int) -> int:
    """How many of ``seat``'s dinos stand in ``zone``."""
    c = 0
    for k in range(st.n_dinos[seat]):
        if zone_of(tb, st, st.pieces[seat, k]) == zone:
            c += 1
    return c


@jit
def bid_cap(tb, st, seat: int) -> int:
    """Highest bid ``seat`` may make: its points plus its mutation discount (spec Q6)."""
    return st.points[seat] + st.genes[seat, MUTATION] + tb.bid_over


@jit
def min_bid(tb, st, row: int) -> int:
    """Lowest bid on ``row``: 0 when free, else one more than its holder (Génorzás: more)."""
    h = st.holder[row]
    if h < 0:
        return 0
    return st.bid_val[h] + (tb.guard_raise if st.eff[h] & E_GENE_GUARD else 1)


# ---------------------------------------------------------------- the steps of a round
# One function per step of the machine (``st.step``), inlined into :func:`advance`. A step that
# may ask a player returns the decision's kind (``st.actor`` decides), else ``NO_DECISION``.


@jit_inline
def card_window(tb, st) -> int:
    """A card window: an Osztódás answer to the card just played first, then each player in
    order who holds a card playable now; when all have passed, the step after the window."""
    if st.react >= 0:
        h = reaction_holder(tb, st)
        if h >= 0:
            st.actor = h
            st.options = card_bit(DOUBLING)
            st.kind = CARD_PLAY
            return CARD_PLAY
        st.react = -1
    while st.win_i < tb.n_players:
        s = st.win_order[st.win_i]
        st.options = playable(tb, st, s, st.window)
        if st.options != 0:
            st.actor = s
            st.kind = CARD_PLAY
            return CARD_PLAY
        st.win_i += 1
    st.step = st.win_next
    return NO_DECISION


@jit_inline
def begin_round(tb, st) -> None:
    """Phase 1: clear the last round's effects, settle the initiative, open the phase 1 window."""
    start_round(tb, st)
    initiative(tb, st)
    open_window(tb, st, W_INITIATIVE, ST_CLIMATE_CARDS)


@jit_inline
def roll_climate(tb, st) -> None:
    """Phase 2: the first player's die moves the climate marker (1 back, 2 stay, 3-6 forward);
    Meteorológus-gén's chosen face and Katasztrófa's steps replace the roll."""
    roll = 1 + bounded(st.rng, S_CLIMATE, 6)  # drawn always: same dice across variants
    steps = 0
    if st.forced_roll > 0 or st.catastrophe:
        st.climate_roll = 0
        if st.forced_roll > 0:
            steps += tb.die_step[st.forced_roll - 1]
        if st.catastrophe:
            steps += tb.catastrophe_steps
    else:
        st.climate_roll = roll
        steps = tb.die_step[roll - 1]
    L = tb.cycle_len
    set_climate(tb, st, ((st.climate + steps) % L + L) % L)
    open_window(tb, st, W_MOVEMENT, ST_MOVE_START)


@jit_inline
def next_mover(tb, st) -> None:
    """Phase 3: the next player in order gets its leg points (Ősi ösztönök: one per dino); after
    the last, the phase 4 window."""
    if st.seq >= tb.n_players:
        open_window(tb, st, W_BIRTHS, ST_BIRTHS_START)
        return
    s = st.order[st.seq]
    st.mp = st.n_dinos[s] if st.eff[s] & E_INSTINCT else st.genes[s, LEG]
    st.step = ST_MOVE_ASK


@jit_inline
def ask_move(tb, st) -> int:
    """Phase 3: the mover moves while it has leg points and a dino that can move or attack."""
    s = st.order[st.seq]
    if st.mp > 0 and can_move(tb, st, s):
        st.actor = s
        st.kind = MOVE
        return MOVE
    st.seq += 1
    st.step = ST_MOVE_PLAYER
    return NO_DECISION


@jit_inline
def births_start(tb, st) -> None:
    """Phase 4: Születés-túlszabályozás skips the births (to the phase 4 end window); else the
    first player in order."""
    if st.no_births:
        open_window(tb, st, W_BIRTHS_END, ST_SURVIVAL_CARDS)
        return
    st.seq = 0
    st.step = ST_BIRTH_PLAYER


@jit_inline
def next_breeder(tb, st) -> None:
    """Phase 4: the next player in order has one newborn per egg (anywhere when it has no dinos);
    after the last, the phase 4 end window."""
    if st.seq >= tb.n_players:
        open_window(tb, st, W_BIRTHS_END, ST_SURVIVAL_CARDS)
        return
    s = st.order[st.seq]
    st.eggs_left = st.genes[s, EGG]
    st.wiped = 1 if st.n_dinos[s] == 0 else 0
    st.step = ST_BIRTH_ASK


@jit_inline
def ask_birth(tb, st) -> int:
    """Phase 4: the player places a newborn while eggs, its supply and a free region last."""
    s = st.order[st.seq]
    if st.eggs_left > 0 and st.n_dinos[s] < tb.max_dinos and mark_births(tb, st, s) > 0:
        st.actor = s
        st.kind = PLACE
        return PLACE
    st.seq += 1
    st.step = ST_BIRTH_PLAYER
    return NO_DECISION


@jit_inline
def ask_cull(tb, st) -> int:
    """Phase 5: a player with more dinos in cold (then warm) regions than its furs (parasols)
    keep chooses which die; after the last player, the survival itself."""
    n = tb.n_players
    while st.seq < n:
        s = st.order[st.seq]
        for zone in (COLD, WARM):
            a = allowance(st, s, zone)
            if a > 0 and zone_count(tb, st, s, zone) > a:
                st.cull_zone = zone
                st.actor = s
                st.kind = CULL
                return CULL
        st.seq += 1
    st.step = ST_SURVIVAL_END
    return NO_DECISION


@jit_inline
def survival(tb, st) -> None:
    """Phase 5: dinos in scorching and freezing regions die, in cold (warm) ones without furs
    (parasols) too; every survivor scores a point; then the phase 5 end window."""
    for s in range(tb.n_players):
        cold_ok = allowance(st, s, COLD) > 0
        warm_ok = allowance(st, s, WARM) > 0
        for k in range(st.n_dinos[s] - 1, -1, -1):
            r = st.pieces[s, k]
            z = zone_of(tb, st, r)
            deadly = z >= SCORCHING  # scorching or freezing
            if deadly or (z == COLD and not cold_ok) or (z == WARM and not warm_ok):
                kill(st, r, 0)
        st.scored[s] = st.n_dinos[s]
        st.points[s] += st.n_dinos[s]
    open_window(tb, st, W_SURVIVAL_END, ST_METEOR)


@jit_inline
def meteor(tb, st) -> None:
    """Phase 6: the meteor moves one space (not in rounds 1-2 of the harder game); a strike on a
    die space, or the last space, ends the game; else the window before the draw."""
    for s in range(tb.n_players):
        st.points_p5[s] = st.points[s]
    if tb.harder and st.rnd < 2:
        open_window(tb, st, W_AUCTION, ST_AUCTION_START)
        return
    st.meteor += 1
    roll = 1 + bounded(st.rng, S_METEOR, 6)  # drawn always: same dice across variants
    if tb.strike[st.meteor] > 0:
        st.meteor_roll = roll
        if roll <= tb.strike[st.meteor]:
            st.impact = 1
            st.step = ST_GAME_END
            return
    if st.meteor >= tb.meteor_last:
        st.step = ST_GAME_END
        return
    open_window(tb, st, W_AUCTION, ST_AUCTION_START)


@jit_inline
def draw_genes(tb, st) -> None:
    """Phase 6: one gene per player is drawn (one fewer in the harder game and with Hiányzó
    láncszem) and the bidding opens after its window; an empty bag ends the round."""
    n = tb.n_players
    rows = n - 1 if (tb.harder or st.missing_link) else n
    rows = min(rows, st.bag_len - st.bag_top)
    if rows <= 0:
        st.step = ST_ROUND_DONE
        return
    for i in range(rows):
        st.offer[i] = st.bag[st.bag_top]
        st.bag_top += 1
        st.holder[i] = -1
    st.n_rows = rows
    st.max_pass = n - rows
    st.n_passed = 0
    for s in range(n):
        st.bid_row[s] = -1
        st.bid_val[s] = 0
        st.passed[s] = 0
        st.bought[s] = -1
        st.paid[s] = 0
    st.auction_next = 0
    st.pending = -1
    open_window(tb, st, W_BIDDING, ST_AUCTION_ASK)  # cards seeing the genes drawn


@jit_inline
def ask_bid(tb, st) -> int:
    """Phase 6: an outbid player bids again at once, else the next player in order; after the
    last, the payment window."""
    if st.pending >= 0:
        st.actor = st.pending
        st.kind = BID
        return BID
    if st.auction_next < tb.n_players:
        st.actor = st.order[st.auction_next]
        st.kind = BID
        return BID
    open_window(tb, st, W_PAYMENT, ST_PAYMENT)
    return NO_DECISION


@jit
def pay_auction(tb, st) -> None:
    """Everyone pays its bid minus its mutations from earlier rounds (and Genetikai fölény),
    never below 0, then takes its gene; a card gene draws an event card instead."""
    n = tb.n_players
    for s in range(n):
        if st.bid_row[s] < 0:
            continue
        g = st.offer[st.bid_row[s]]
        mut = st.genes[s, MUTATION]
        pay = st.bid_val[s] - mut
        if st.eff[s] & E_OVERFLIER:
            pay -= tb.overflier_points
        pay = max(pay, 0)
        st.points[s] -= pay
        st.paid[s] = pay
        st.bought[s] = g
        emit_bid(st, seat=s, gene=g, bid=st.bid_val[s], paid=pay, mutations=mut)
    for i in range(n):
        s = st.order[i]
        g = st.bought[s]
        if g < 0:
            continue
        st.genes[s, g] += 1
        if g == CARD and st.deck_top < st.deck_len:
            st.hand[s] |= card_bit(st.deck[st.deck_top] + 1)
            st.seen[s] |= card_bit(st.deck[st.deck_top] + 1)
            st.deck_top += 1


# ---------------------------------------------------------------- the resumable loop


@jit
def advance(tb, st) -> int:
    """Run the automatic rules until a decision is needed; return its kind.

    Returns the pending kind again if called before :func:`apply`; ``ROUND_DONE`` once after
    every round (the round's counters are complete) and ``GAME_OVER`` at the end. Each step's
    rules are in its own function above; this is only the order of the steps.
    """
    if st.kind != NO_DECISION:
        return st.kind
    while True:
        step = st.step
        kind = NO_DECISION
        if step == ST_WINDOW:
            kind = card_window(tb, st)
        elif step == ST_ROUND:
            begin_round(tb, st)
        elif step == ST_CLIMATE_CARDS:
            open_window(tb, st, W_CLIMATE, ST_CLIMATE)
        elif step == ST_CLIMATE:
            roll_climate(tb, st)
        elif step == ST_MOVE_START:
            st.seq, st.step = 0, ST_MOVE_PLAYER
        elif step == ST_MOVE_PLAYER:
            next_mover(tb, st)
        elif step == ST_MOVE_ASK:
            kind = ask_move(tb, st)
        elif step == ST_BIRTHS_START:
            births_start(tb, st)
        elif step == ST_BIRTH_PLAYER:
            next_breeder(tb, st)
        elif step == ST_BIRTH_ASK:
            kind = ask_birth(tb, st)
        elif step == ST_SURVIVAL_CARDS:
            open_window(tb, st, W_SURVIVAL, ST_SURVIVAL_START)
        elif step == ST_SURVIVAL_START:
            st.seq, st.step = 0, ST_CULL_PLAYER
        elif step == ST_CULL_PLAYER:
            kind = ask_cull(tb, st)
        elif step == ST_SURVIVAL_END:
            survival(tb, st)
        elif step == ST_METEOR:
            meteor(tb, st)
        elif step == ST_AUCTION_START:
            draw_genes(tb, st)
        elif step == ST_AUCTION_ASK:
            kind = ask_bid(tb, st)
        elif step == ST_PAYMENT:
            pay_auction(tb, st)
            st.step = ST_ROUND_DONE
        elif step == ST_ROUND_DONE:
            st.step = ST_NEXT_ROUND
            return ROUND_DONE
        elif step == ST_NEXT_ROUND:
            st.rnd += 1
            st.step = ST_ROUND
        elif step == ST_GAME_END:
            open_window(tb, st, W_GAME_END, ST_FINAL)
        elif step == ST_FINAL:
            st.over = 1
            st.step = ST_OVER
            return ROUND_DONE
        else:
            return GAME_OVER
        if kind != NO_DECISION:
            return kind


# ---------------------------------------------------------------- applying a choice


@jit
def apply(tb, st, action: int) -> None:
    """Apply ``action`` (legal for the pending decision) for ``st.actor``."""
    kind = st.kind
    st.kind = NO_DECISION
    s = st.actor
    if kind == MOVE:
        if action < 0:
            st.mp = 0
            return
        frm = action >> 16
        to = action & 0xFFFF
        if st.owner[to] < 0:
            move_dino(st, frm, to)
            emit_move(st, seat=s, origin=frm, destination=to)
        elif fight(tb, st, s, to, 0, 3):
            kill(st, to, 1)
            move_dino(st, frm, to)
        else:
            kill(st, frm, 1)
        st.mp -= 1
    elif kind == PLACE:
        st.born[s] += 1
        st.eggs_left -= 1
        if st.owner[action] < 0:
            add_dino(st, s, action)
            st.fresh[action] = 1
            emit_place(st, seat=s, region=action)
        elif fight(tb, st, s, action, tb.tough_young_horns, 4):
            kill(st, action, 1)
            add_dino(st, s, action)
            st.fresh[action] = 1
        else:
            st.died_combat[s] += 1
    elif kind == CULL:
        kill(st, action, 0)
    elif kind == BID:
        if st.pending == s:
            st.pending = -1
        else:
            st.auction_next += 1
        if action < 0:
            st.passed[s] = 1
            st.n_passed += 1
            emit_pass(st, seat=s)
            return
        row = action >> 16
        prev = st.holder[row]
        st.holder[row] = s
        st.bid_row[s] = row
        st.bid_val[s] = action & 0xFFFF
        if prev >= 0:
            st.bid_row[prev] = -1
            st.pending = prev
    elif kind == CARD_PLAY:
        if st.react >= 0:
            if action >= 0:
                take_card(st, s)
            st.react = -1
        elif action < 0:
            st.win_i += 1
        else:
            play_card(tb, st, s, action >> 16, action & 0xFFFF, st.window)


# ---------------------------------------------------------------- legal actions


@jit
def actions(tb, st, k: int) -> np.int64:
    """With ``k`` < 0 the number of legal actions of the pending decision, else the ``k``-th.

    Orders: cards (pass, then by card number and target), moves (stop, then by dino and
    neighbour), newborn regions, dinos to cull, bids (pass when allowed, then by row and value).
    """
    kind = st.kind
    s = st.actor
    count = 0
    if kind == CARD_PLAY:
        if k == 0:
            return np.int64(PASS)
        count = 1
        if st.react >= 0:
            if k == 1:
                return pack(DOUBLING, st.react + 1)
            return np.int64(2)
        m = st.options
        for c in range(26):
            if m & (np.int64(1) << c):
                nt = targets(tb, st, s, c + 1, -1)
                if k >= 0 and k < count + nt:
                    return pack(c + 1, targets(tb, st, s, c + 1, k - count))
                count += nt
    elif kind == MOVE:
        if k == 0:
            return np.int64(PASS)
        count = 1
        for i in range(st.n_dinos[s]):
            r = st.pieces[s, i]
            for j in range(tb.deg[r]):
                to = tb.adj[r, j]
                o = st.owner[to]
                if o < 0 or (o != s and attack_odds(tb, st, s, o, 0) > 0):
                    if count == k:
                        return pack(r, to)
                    count += 1
    elif kind == PLACE:
        if k >= 0:
            return np.int64(st.marked[k])
        count = st.n_marked
    elif kind == CULL:
        for i in range(st.n_dinos[s]):
            r = st.pieces[s, i]
            if zone_of(tb, st, r) == st.cull_zone:
                if count == k:
                    return np.int64(r)
                count += 1
    elif kind == BID:
        if st.n_passed < st.max_pass:
            if k == 0:
                return np.int64(PASS)
            count = 1
        cap = bid_cap(tb, st, s)
        for row in range(st.n_rows):
            lo = min_bid(tb, st, row)
            if lo > cap:
                continue
            width = cap - lo + 1
            if k >= 0 and k < count + width:
                return pack(row, lo + k - count)
            count += width
    return np.int64(count)


@jit
def is_legal(tb, st, action: int) -> bool:
    """``action`` is one of :func:`actions` (for tests and checks; linear in their number)."""
    for k in range(actions(tb, st, -1)):  # noqa: SIM110
        if actions(tb, st, k) == action:
            return True
    return False


# ---------------------------------------------------------------- the end


@jit
def final_score(st, seat: int) -> int:
    """Points for the final count (with Váratlan gén)."""
    return st.points[seat] + st.bonus[seat]


@jit
def final_result(tb, st, winners) -> int:
    """Mark every winner in ``winners`` (bool [P]); return the sole winner's seat or -1.

    Most points win; ties go to more dinos on the board; then the victory is shared.
    """
    n = tb.n_players
    best = 0
    for s in range(1, n):
        a, b = final_score(st, s), final_score(st, best)
        if a > b or (a == b and st.n_dinos[s] > st.n_dinos[best]):
            best = s
    count = 0
    for s in range(n):
        w = final_score(st, s) == final_score(st, best) and st.n_dinos[s] == st.n_dinos[best]
        winners[s] = w
        count += w
    return best if count == 1 else -1
