"""Restricted play in one place: which legal actions a lineup position may take.

A position forbidden an option (``lineup.forbid[j, o]``, see :mod:`rules.table_battles.options`)
never takes an action that uses it unless every legal action of the decision does. Every bot
asks :func:`forbidden` before taking an action, or draws from :func:`n_allowed` /
:func:`allowed_action`: the shared functions of :mod:`strategies.core.allowed` over this game's
``actions`` and ``option_of``.
"""

from __future__ import annotations

from rules.table_battles.engine import actions
from rules.table_battles.options import option_of
from strategies.core.allowed import allowed_for

uses_forbidden, all_forbidden, forbidden, n_allowed, allowed_action = allowed_for(
    actions, option_of
)
