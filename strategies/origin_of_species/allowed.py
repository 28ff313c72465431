"""Restricted play in one place: which legal actions a lineup position may take.

A position forbidden an option (``lineup.forbid[j, o]``, see
:mod:`rules.origin_of_species.options`) never takes an action that uses it unless every legal
action of the decision does. The random bot draws from :func:`n_allowed` /
:func:`allowed_action`, the search bots are told whether to avoid forbidden options
(:func:`all_forbidden`), and the heuristic checks each candidate against the forbid row itself:
the shared functions of :mod:`strategies.core.allowed` over this game's ``actions`` and
``option_of``.
"""

from __future__ import annotations

from rules.origin_of_species.engine import actions
from rules.origin_of_species.options import option_of
from strategies.core.allowed import allowed_for

uses_forbidden, all_forbidden, forbidden, n_allowed, allowed_action = allowed_for(
    actions, option_of
)
