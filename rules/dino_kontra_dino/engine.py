"""The compiled forward model of Dino Kontra Dino (seed ``001_ed1e5b3d059557ca.txt``).

One round, as the rulebook plays it:

1. The top event is revealed front up (:func:`current_event`).
2. Every player secretly chooses one dinosaur from their hand (the bots, in ``strategies/``).
3. Reveal; a dinosaur's *strength* is its value in the required trait, or the sum of the two
   required traits of a two-trait event (:func:`make_table` computes it once for every card
   and event, into ``TABLE.power``).
4. The highest strength wins the event card and takes the figure. Ties go to the figure holder;
   if the holder is not tied, to the tied player nearest the holder going clockwise
   (:func:`round_winner`; seats are numbered clockwise).
5. The played dinosaurs are discarded and every player draws one (:func:`refill`). When the pile
   cannot give every player a card it is set aside and the hands are played out: with the
   rulebook's hands of 3, "the last two events" from hands of 2 (then 1). See
   :func:`rules.dino_kontra_dino.params.game_rounds`.
6. After the last round, most event cards wins; ties are broken by the events bearing the
   predation, then size, then speed, then adaptability icon; then the victory is shared
   (:func:`final_result`).

A game is two numpy records (:mod:`rules.dino_kontra_dino.state`): the static ``TABLE`` (deck
and rule parameters) and the ``STATE`` of one game in progress. Card and event numbers in the
kernel are 0-based rows of the deck; the logs add 1 to show the printed numbers.
"""

from __future__ import annotations

from rules.core.jit import jit_inline
from rules.core.rng import CHANCE, bounded
from rules.dino_kontra_dino.deck import NO_TRAIT


@jit_inline
def deal(tb, st) -> None:
    """Setup: shuffle both piles, deal the hands one card at a time, give out the figure.

    Uses the chance stream in ``st.rng`` (seeded by the caller) in the order of the C yardstick:
    dinosaur pile, event pile, then the random first holder when ``first_holder`` is -1.
    """
    n, h = tb.n_players, tb.hand_size
    for i in range(tb.n_dinos):
        st.deck[i] = i
        st.revealed[i] = -1
    for i in range(tb.n_events):
        st.events[i] = i
    for i in range(tb.n_dinos - 1, 0, -1):
        j = bounded(st.rng, CHANCE, i + 1)
        st.deck[i], st.deck[j] = st.deck[j], st.deck[i]
    for i in range(tb.n_events - 1, 0, -1):
        j = bounded(st.rng, CHANCE, i + 1)
        st.events[i], st.events[j] = st.events[j], st.events[i]
    for k in range(h):  # one card at a time round the table: card k*n + p to seat p
        for p in range(n):
            st.hands[p, k] = st.deck[k * n + p]
    for p in range(n):
        st.wins[p] = 0
        for t in range(5):
            st.trait_wins[p, t] = 0
    st.turn = 0
    st.holder = tb.first_holder if tb.first_holder >= 0 else bounded(st.rng, CHANCE, n)
    st.draw = n * h
    st.hand_len = h
    st.drawing = 1


@jit_inline
def current_event(st) -> int:
    """The event on top of the pile: the one this round resolves."""
    return st.events[st.turn]


@jit_inline
def round_winner(tb, st) -> int:
    """Highest score wins; ties go to the holder, else to the tied seat nearest clockwise."""
    n = tb.n_players
    best = st.scores[0]
    for p in range(1, n):
        if st.scores[p] > best:
            best = st.scores[p]
    p = st.holder
    for _ in range(n):
        if st.scores[p] == best:
            return p
        p = p + 1 if p + 1 < n else 0
    return st.holder


@jit_inline
def play_round(tb, st, slots) -> int:
    """Resolve the current event with each seat playing hand slot ``slots[seat]``.

    Fills ``st.plays`` and ``st.scores``, awards the event and the figure, discards the played
    cards, refills the hands and moves to the next round. Returns the winning seat.
    """
    n = tb.n_players
    hl = st.hand_len
    ev = st.events[st.turn]
    for p in range(n):
        s = slots[p]
        card = st.hands[p, s]
        st.plays[p] = card
        st.scores[p] = tb.power[card, ev]
        st.revealed[card] = st.turn
        for k in range(s, hl - 1):
            st.hands[p, k] = st.hands[p, k + 1]
        st.hands[p, hl - 1] = -1
    w = round_winner(tb, st)
    st.wins[w] += 1
    t1, t2 = tb.needs[ev, 0], tb.needs[ev, 1]
    if tb.counts_both or t2 == NO_TRAIT:
        st.trait_wins[w, t1] += 1
        st.trait_wins[w, t2] += 1
    st.holder = w
    st.turn += 1
    st.hand_len = hl - 1
    refill(tb, st)
    return w


@jit_inline
def refill(tb, st) -> None:
    """Everyone draws one card, or, when the pile cannot serve every player, set it aside."""
    if st.drawing == 0:
        return
    n = tb.n_players
    if tb.n_dinos - st.draw < n:
        st.drawing = 0
        return
    hl = st.hand_len
    for p in range(n):
        st.hands[p, hl] = st.deck[st.draw + p]
    st.draw += n
    st.hand_len = hl + 1


@jit_inline
def game_over(tb, st) -> bool:
    """True once the hands are played out (or, with a designer's deck, the events run out)."""
    return st.hand_len == 0 or st.turn >= tb.n_events


@jit_inline
def compare_players(st, a: int, b: int) -> int:
    """Sign of (a - b) in the final order: events won, then predation, size, speed, adaptability."""
    d = st.wins[a] - st.wins[b]
    t = 0
    while d == 0 and t < 4:
        d = st.trait_wins[a, t] - st.trait_wins[b, t]
        t += 1
    return 1 if d > 0 else (-1 if d < 0 else 0)


@jit_inline
def final_result(tb, st, winners) -> int:
    """Mark every winner in ``winners`` (bool [P]); return the sole winner or -1 if shared."""
    n = tb.n_players
    best = 0
    for p in range(1, n):
        if compare_players(st, p, best) > 0:
            best = p
    count = 0
    for p in range(n):
        w = compare_players(st, p, best) == 0
        winners[p] = w
        count += w
    return best if count == 1 else -1
