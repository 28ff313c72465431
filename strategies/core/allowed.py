"""Restricted play for the turn-based games: which legal actions a lineup position may take.

A position forbidden an option (``lineup.forbid[j, o]``, see ``rules/<game>/options.py``) never
takes an action that uses it unless every legal action of the decision does. A game supplies
its ``actions(tb, st, k)`` (``k < 0``: how many) and ``option_of(tb, st, action)`` (-1: none)
to :func:`allowed_for` and binds what it returns as its globals; the bots ask
:func:`forbidden` before taking an action, or draw from :func:`n_allowed` /
:func:`allowed_action`. ``j < 0`` means "no restriction" (a search bot's rollouts model the
table, not the restricted bot).

The functions are generated source compiled to be inlined (:func:`rules.core.jit
.compile_generated`; :data:`OUT_OF_LINE` ones compiled once and called): numba cannot cache a
function that receives another compiled function, but inlined code is cached with the kernel
that inlines it, under a freshness stamp that covers this module. Dino Kontra Dino plays its
cards simultaneously, from a hand rather than a list of actions, and keeps its own
(:mod:`strategies.dino_kontra_dino.allowed`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from rules.core.jit import compile_generated, jit_inline


@jit_inline
def forbids(forbid, j: int, o: int) -> bool:
    """Option ``o`` (-1: none) is forbidden to position ``j`` (-1: unrestricted) by the lineup's
    ``forbid`` table."""
    return j >= 0 and o >= 0 and forbid[j, o] != 0


@jit_inline
def has_forbids(lu, j: int) -> bool:
    """Position ``j`` is forbidden some option."""
    if j < 0:
        return False
    for o in range(lu.forbid.shape[1]):  # noqa: SIM110 (no generators in numba)
        if lu.forbid[j, o]:
            return True
    return False


@jit_inline
def forbidden_some(lu, j: int, tb, st) -> bool:
    """The default ``restricted`` of a game: position ``j`` is forbidden some option."""
    return has_forbids(lu, j)


def uses_forbidden(lu, j, tb, st, action):
    """``action`` uses an option forbidden to position ``j``."""
    return j >= 0 and forbids(lu.forbid, j, option_of(tb, st, action))  # noqa: F821


def all_forbidden(lu, j, tb, st):
    """Every legal action of the pending decision uses a forbidden option."""
    if not restricted(lu, j, tb, st):  # noqa: F821
        return False
    for k in range(actions(tb, st, np.int64(-1))):  # noqa: F821
        if not uses_forbidden(lu, j, tb, st, actions(tb, st, k)):  # noqa: F821
            return False
    return True


def forbidden(lu, j, tb, st, action):
    """Position ``j`` may not take ``action`` (it uses a forbidden option while some legal
    action does not). Cheap when nothing is forbidden."""
    if not uses_forbidden(lu, j, tb, st, action):
        return False
    return not all_forbidden(lu, j, tb, st)


def n_allowed(lu, j, tb, st):
    """How many legal actions position ``j`` may take (all of them when none or every one
    uses a forbidden option)."""
    n = actions(tb, st, np.int64(-1))  # noqa: F821
    if not restricted(lu, j, tb, st):  # noqa: F821
        return n
    c = 0
    for k in range(n):
        if not uses_forbidden(lu, j, tb, st, actions(tb, st, k)):  # noqa: F821
            c += 1
    return c if c > 0 else n


def allowed_action(lu, j, tb, st, i):
    """The ``i``-th action position ``j`` may take (in ``actions`` order)."""
    if restricted(lu, j, tb, st):  # noqa: F821
        c = 0
        for k in range(actions(tb, st, np.int64(-1))):  # noqa: F821
            a = actions(tb, st, k)  # noqa: F821
            if not uses_forbidden(lu, j, tb, st, a):
                if c == i:
                    return a
                c += 1
    return actions(tb, st, i)  # noqa: F821 (unrestricted, or every action is forbidden)


OUT_OF_LINE = ("all_forbidden",)
"""Compiled once rather than inlined: the slow path of every ``forbidden`` check (Table
Battles has nine), which only a restricted position reaches. Inlined at each check, it cost
Table Battles' first compile 3-5 s."""

TEMPLATES: tuple[Callable[..., Any], ...] = (
    uses_forbidden,
    all_forbidden,
    forbidden,
    n_allowed,
    allowed_action,
)
"""In dependency order: each is compiled with those before it as globals."""


def allowed_for(
    actions: Callable[..., Any],
    option_of: Callable[..., Any],
    restricted: Callable[..., Any] = forbidden_some,
    all_forbidden: Callable[..., Any] | None = None,
) -> tuple[Any, Any, Any, Any, Any]:
    """``(uses_forbidden, all_forbidden, forbidden, n_allowed, allowed_action)`` compiled for
    one game from its ``actions`` and ``option_of``. ``restricted(lu, j, tb, st)`` is a cheap
    test that the decision may be restricted at all (default: the position is forbidden
    something); a game with a faster exact ``all_forbidden`` supplies it. Bind the results to
    module globals: compiled code reaches functions only as globals."""
    scope: dict[str, Any] = {"np": np, "forbids": forbids}
    scope.update(actions=actions, option_of=option_of, restricted=restricted)
    made = []
    for template in TEMPLATES:
        name = template.__name__
        if name == "all_forbidden" and all_forbidden is not None:
            scope[name] = all_forbidden
        else:
            scope[name] = compile_generated(
                inspect.getsource(template), name, scope, inline=name not in OUT_OF_LINE
            )
        made.append(scope[name])
    return made[0], made[1], made[2], made[3], made[4]
