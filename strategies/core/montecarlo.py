"""Determinised Monte Carlo search, written once for every game.

Every game's search bots choose the same way: list candidate actions, build a few
*determinisations* of the state (copies in which what the deciding seat cannot know is dealt
again from its own random stream), play each candidate out on every determinisation (the i-th
determinisation is shared by all candidates: common random numbers) and take the candidate with
the best total. What differs between games is given as *hooks*, compiled functions that the
game names when it instantiates the search (:func:`instantiate`):

``mc_base(st, seat) -> uint64``
    The key the determinisations are drawn from (a draw from the seat's bot stream, or
    nothing for a game whose determinisation draws from that stream itself).
``mc_world(tb, st, sim, seat, base, i)``
    Turn ``sim`` (already a copy of ``st``) into the ``i``-th determinisation.

    A game whose determinisation reseeds itself from one key gives ``mc_determinise(tb, sim,
    seat, key)`` instead of these two: the base is one draw from the seat's bot stream and the
    ``i``-th key is :func:`~rules.core.rng.mix64` of the base plus ``i`` times :data:`SALT`.
``mc_play(tb, sim, a, seat, ctx) -> float``
    Apply candidate ``a`` in ``sim``, play on (to the end, or to a horizon where an evaluation
    scores the position) and return ``seat``'s result; ``ctx`` is the game's tuple of whatever
    else its rollouts need.
``mc_best(st, seat, value, m) -> int``
    The index of the best of ``value[:m]``, with the game's tie rule (always a draw from the
    seat's own stream, never the order of the list, so no seat is favoured by its number).

Two allocations of the playouts:

* :func:`flat_pick` gives every candidate ``rollouts`` playouts (the ``search`` bots);
* :func:`halving_pick` spends a total of ``playouts`` by *sequential halving* (Karnin et al.
  2013, the allocation of Gumbel MuZero's root): a round per halving, each alive candidate
  played on the round's new determinisations, the worse half dropped, so the contenders get
  most of the budget and a poor candidate costs little (the ``strong`` bots).

The hooks are compiled functions; the search itself is generated source compiled to be
inlined into the game's dispatch (:func:`rules.core.jit.compile_generated`): numba cannot
cache a function that receives another compiled function, but inlined code is cached with
the kernel that inlines it, under a freshness stamp that covers this module.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from rules.core.jit import compile_generated, jit_inline
from rules.core.rng import mix64, next_u64

HOOKS = ("mc_base", "mc_world", "mc_play", "mc_best")

NEG = -1e300
"""The value of a candidate sequential halving has dropped."""
SALT = np.uint64(0x9FB21C651E98DF25)
"""Spreads the keys of successive determinisations (and a game's streams within one)."""


def mc_base(st, seat):
    """One draw from ``seat``'s bot stream (the keyed determinisation's base)."""
    return next_u64(st.rng, 1 + seat)


def mc_world(tb, st, sim, seat, base, i):
    """The ``i``-th keyed determinisation: the game's ``mc_determinise`` with its key."""
    mc_determinise(tb, sim, seat, mix64(base + np.uint64(i) * SALT))  # noqa: F821


def flat_pick(tb, st, worlds, cand, m, seat, rollouts, ctx):
    """Index of the best of ``cand[:m]`` after ``rollouts`` playouts of each on shared
    determinisations (``worlds``: two spare states)."""
    value = np.zeros(m)
    base = mc_base(st, seat)
    for i in range(rollouts):
        worlds[0] = st
        mc_world(tb, st, worlds[0], seat, base, i)
        for c in range(m):
            worlds[1] = worlds[0]
            value[c] += mc_play(tb, worlds[1], cand[c], seat, ctx)  # noqa: F821
    return mc_best(st, seat, value, m)  # noqa: F821


def halving_pick(tb, st, worlds, cand, m, seat, playouts, ctx):
    """Index of the best of ``cand[:m]`` by sequential halving with about ``playouts``
    playouts in all (at least one per alive candidate and round). Candidates dropped in a
    round are the worse half by total so far (all alive ones have had the same
    determinisations); equal totals are ordered by a random priority drawn from the seat's
    stream."""
    value = np.zeros(m)
    alive = np.ones(m, dtype=np.bool_)
    priority = np.empty(m)
    for c in range(m):
        priority[c] = np.float64(next_u64(st.rng, 1 + seat) >> np.uint64(11))
    rounds = 0
    k = m
    while k > 1:
        rounds += 1
        k = (k + 1) // 2
    n_alive = m
    base = mc_base(st, seat)
    i = 0
    for _ in range(rounds):
        per = max(1, playouts // (n_alive * rounds))
        for _ in range(per):
            worlds[0] = st
            mc_world(tb, st, worlds[0], seat, base, i)
            i += 1
            for c in range(m):
                if alive[c]:
                    worlds[1] = worlds[0]
                    value[c] += mc_play(tb, worlds[1], cand[c], seat, ctx)  # noqa: F821
        keep = (n_alive + 1) // 2
        while n_alive > keep:
            worst = -1
            for c in range(m):
                if alive[c] and (
                    worst < 0
                    or value[c] < value[worst]
                    or (value[c] == value[worst] and priority[c] < priority[worst])
                ):
                    worst = c
            alive[worst] = False
            value[worst] = NEG
            n_alive -= 1
    return mc_best(st, seat, value, m)  # noqa: F821


@jit_inline
def margin_value(margin: float, slope: float, lead: float, n_players: int) -> float:
    """An unfinished playout's value from the deciding seat's score margin over the best
    opponent: its chance of winning by a logistic model fitted on logged games, whose log-odds
    are a fair seat's (``-log(P - 1)``, so any player count is served) plus ``lead`` plus
    ``slope * margin``; plus the hundredth of the margin a finished playout adds."""
    z = lead - np.log(n_players - 1.0) + slope * margin
    return 1.0 / (1.0 + np.exp(-z)) + 0.01 * margin


TEMPLATES: tuple[Callable[..., Any], ...] = (flat_pick, halving_pick)


def instantiate(**hooks: Any) -> tuple[Any, Any]:
    """The search compiled for one game: ``(flat_pick, halving_pick)`` calling the game's
    :data:`HOOKS` (compiled functions, by name). Bind them to module globals of the game's
    search (``flat_pick, halving_pick = instantiate(...)``): compiled code reaches functions
    only as globals."""
    scope: dict[str, Any] = {"np": np, "next_u64": next_u64, "mix64": mix64, "NEG": NEG}
    scope["SALT"] = SALT
    scope.update(hooks)
    if "mc_determinise" in hooks:
        for keyed in (mc_base, mc_world):
            scope[keyed.__name__] = compile_generated(
                inspect.getsource(keyed), keyed.__name__, scope
            )
    missing = [h for h in HOOKS if h not in scope]
    if missing:
        raise TypeError(f"the Monte Carlo search needs the hooks {', '.join(missing)}")
    flat, halving = (compile_generated(inspect.getsource(t), t.__name__, scope) for t in TEMPLATES)
    return flat, halving
