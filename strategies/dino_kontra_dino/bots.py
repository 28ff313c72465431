"""Dino Kontra Dino bots, compiled.

Every bot sees what a player at the table sees: its own hand, the event's front (and, when it
is *informed*, the trait(s) a seasoned player reads from the event's name), who holds the
figure, the score, and the cards already revealed and events already resolved. Bots are called
one seat at a time before the round is resolved and never read another hand, the pile order or
the current round's plays, so the choice is as secret and simultaneous as at the table. A bot
returns the *slot* of its hand to play, among the slots ``allowed`` (a bit mask, see
:mod:`strategies.dino_kontra_dino.allowed`; :data:`ALL` when nothing is forbidden, and then each
bot decides exactly as it did before restricted play).
"""

from __future__ import annotations

from rules.core.jit import jit_inline
from rules.core.rng import bounded
from strategies.dino_kontra_dino.allowed import ALL, may_play

RANDOM, GREEDY, BLIND, CAUTIOUS = 0, 1, 2, 3
ODDS = 5


@jit_inline
def play_random(st, seat: int, allowed: int) -> int:
    """Uniform over the hand (over the allowed slots)."""
    if allowed == ALL:
        return bounded(st.rng, 1 + seat, st.hand_len)
    m = 0
    for k in range(st.hand_len):
        m += may_play(allowed, k)
    i = bounded(st.rng, 1 + seat, m)
    for k in range(st.hand_len):
        if may_play(allowed, k):
            if i == 0:
                return k
            i -= 1
    return 0


@jit_inline
def play_greedy(tb, st, seat: int, allowed: int) -> int:
    """The strongest card for this event; the first such card in hand order on a tie."""
    ev = st.events[st.turn]
    best, slot = -1, 0
    for k in range(st.hand_len):
        s = tb.power[st.hands[seat, k], ev]
        if s > best and may_play(allowed, k):
            best, slot = s, k
    return slot


@jit_inline
def prior_strength(tb, st, card: int, first: int) -> float:
    """Mean strength of ``card`` over the events not yet resolved, from pile position ``first``.

    Only the *set* of unresolved events is used, which is public: the deck minus the events on
    the table. Their order is never read.
    """
    total = 0.0
    for i in range(first, tb.n_events):
        total += tb.power[card, st.events[i]]
    count = tb.n_events - first
    return total / count if count > 0 else 0.0


@jit_inline
def play_blind(tb, st, seat: int, memory: float, allowed: int) -> int:
    """Does not know the required traits: plays the card with the best expected strength.

    The expectation is over the events not yet resolved (``memory`` = 1, counting the events on
    the table) or over the whole event deck (``memory`` = 0).
    """
    first = st.turn if memory >= 0.5 else 0
    best, slot = -1.0, 0
    for k in range(st.hand_len):
        if not may_play(allowed, k):
            continue
        v = prior_strength(tb, st, st.hands[seat, k], first)
        if v > best:
            best, slot = v, k
    return slot


@jit_inline
def play_cautious(tb, st, seat: int, aim: float, figure: float, allowed: int) -> int:
    """Win with the card it needs least later; when it cannot expect to win, throw its worst.

    A card *should win* when its strength reaches ``aim`` times the event's maximum strength
    (5 for one trait, 10 for two), lowered by ``figure`` when this seat holds the figure (ties
    go to the holder). Among the cards that should win it plays the one with the lowest
    expected strength over the events still to come; if none should win, it plays its card of
    lowest expected strength as a sacrifice, keeping its strong cards for later.
    """
    r = st.turn
    ev = st.events[r]
    target = aim * (5.0 if tb.needs[ev, 1] == 4 else 10.0)
    if st.holder == seat:
        target -= figure
    slot_win, value_win, s_win = -1, 1e9, 1e9
    slot_low, value_low = 0, 1e9
    for k in range(st.hand_len):
        if not may_play(allowed, k):
            continue
        c = st.hands[seat, k]
        s = tb.power[c, ev]
        v = prior_strength(tb, st, c, r + 1)
        if s >= target and (v < value_win or (v == value_win and s < s_win)):
            slot_win, value_win, s_win = k, v, s
        if v < value_low:
            slot_low, value_low = k, v
    return slot_win if slot_win >= 0 else slot_low


@jit_inline
def unseen_by(st, seat: int, card: int) -> bool:
    """``card`` is one ``seat`` has not seen: not revealed yet and not in its hand (in an
    opponent's hand or the pile)."""
    if st.revealed[card] >= 0:
        return False
    for k in range(st.hand_len):  # noqa: SIM110 (no generators in numba)
        if st.hands[seat, k] == card:
            return False
    return True


@jit_inline
def win_chance(tb, st, seat: int, ev: int, strength: int, field: float) -> float:
    """The chance that ``strength`` wins event ``ev``, if every opponent plays the strongest
    of its hand and their hands are random draws from the cards this seat has not seen.

    Per opponent, the chance its best card stays below ``strength`` (or equal, when this seat
    comes first on a tie: the holder, then clockwise) is the share of unseen cards that do,
    raised to the hand size times ``field`` (1: opponents play their best card; lower: they
    are weaker than that); opponents are taken as independent."""
    n, hl = tb.n_players, st.hand_len
    below, equal, unseen = 0, 0, 0
    for d in range(tb.n_dinos):
        if not unseen_by(st, seat, d):
            continue
        unseen += 1
        s = tb.power[d, ev]
        if s < strength:
            below += 1
        elif s == strength:
            equal += 1
    if unseen == 0:
        return 1.0
    mine_at = (seat - st.holder) % n
    chance = 1.0
    for o in range(n):
        if o == seat:
            continue
        share = below + (equal if mine_at < (o - st.holder) % n else 0)
        chance *= (share / unseen) ** (field * hl)
    return chance


@jit_inline
def odds_value(tb, st, seat: int, card: int, keep: float, field: float) -> float:
    """What ``odds`` thinks of playing ``card`` now: its chance of winning this event, less
    ``keep`` times its mean strength over the events still to come (per 10 points)."""
    ev = st.events[st.turn]
    v = win_chance(tb, st, seat, ev, tb.power[card, ev], field)
    return v - keep * prior_strength(tb, st, card, st.turn + 1) / 10.0


@jit_inline
def play_odds(tb, st, seat: int, keep: float, field: float, allowed: int) -> int:
    """The card with the best :func:`odds_value`.

    With ``keep`` = 0 it plays for this event alone (greedy with a sense of the odds: a card
    that cannot change the outcome is as good as any); with more it saves strong cards when a
    weaker one wins about as often, and throws its least useful card when nothing can win.
    Ties: the earlier slot (hand order, which no seat controls)."""
    best, slot = -1e18, 0
    for k in range(st.hand_len):
        if not may_play(allowed, k):
            continue
        v = odds_value(tb, st, seat, st.hands[seat, k], keep, field)
        if v > best:
            best, slot = v, k
    return slot
