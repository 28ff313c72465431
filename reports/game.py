"""A game's report plug-in, declared once: :class:`GameReport`.

Each game's report module (``reports/<game>.py``, or ``reports/<game>/__init__.py`` for a
package) ends with ``REPORT = GameReport(...)``, and the game's spec names that module
(``GameSpec.report``). What reads it: the report (:mod:`reports.build`: the game's sections,
the analyses they read in the one pass, the decisiveness section), the metrics
(:mod:`reports.metrics`: the game's own, and who moved first), the robustness check
(:mod:`reports.robustness`: its claims and its ranking), restricted play
(:mod:`reports.restrict`: how often an option was used) and ``dinolab fit`` (what it measures
of each run it plays). Everything but the sections is optional; a report is checked when it
is made, so a malformed one fails when its module is imported, naming what is wrong.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from reports.aggregate import Chunk, Mapper, Partial
from reports.metrics import SHARED, Claim, Metric, Ranking
from reports.section import Section
from reports.source import RunData


@dataclasses.dataclass(frozen=True)
class FirstMover:
    """Who moved first in each game, for the shared ``first_share`` metric."""

    rows: Callable[[Chunk], pl.DataFrame]
    """``rows(chunk)``: ``game_id`` and ``first_seat``, one row per game of the chunk."""
    tables: tuple[str, ...]
    """The tables ``rows`` reads (a study logs them)."""


def no_partials(run: RunData) -> list[Partial]:
    """A report whose sections read nothing in the one pass."""
    return []


@dataclasses.dataclass(frozen=True)
class GameReport:
    """What a game's report adds to the shared one. Functions are module-level (workers
    import them by name)."""

    sections: Callable[[RunData], list[Section]]
    """The game's own sections of a run's report, after the common ones."""
    partials: Callable[[RunData], Sequence[Partial]] = no_partials
    """The analyses those sections read, computed in the report's one pass."""
    progress: Callable[[Chunk], pl.DataFrame] | None = None
    """Each seat's score after every round (``game_id, round, seat, score``, game by game,
    round by round, seat by seat) for the decisiveness section; ``None``: no such section."""
    metrics: tuple[Metric, ...] = ()
    """The game's own metrics, besides :data:`reports.metrics.SHARED`."""
    claims: tuple[Claim, ...] = ()
    """The report's headline conclusions read off a metric (the robustness check's)."""
    ranking: Ranking | None = None
    """The report's strength table of the game's items (the robustness check's)."""
    first_mover: FirstMover | None = None
    """Who moved first; ``None``: the logs do not say (``first_share`` is not offered)."""
    option_uses: Callable[[Chunk, tuple[str, ...]], pl.DataFrame] | None = None
    """Restricted play: per game and seat, how often the seat used each option
    (``game_id, seat, option, uses``); ``None``: the logs cannot tell."""
    fit: Callable[[RunData, bool, Mapper | None], Any] | None = None
    """What ``dinolab fit`` measures of each run it plays (the game's spec has a ``fit``)."""

    def __post_init__(self) -> None:
        def wrong(what: str) -> TypeError:
            return TypeError(f"GameReport: {what}")

        for name in ("sections", "partials"):
            if not callable(getattr(self, name)):
                raise wrong(f"{name} must be a function of the run")
        for name in ("progress", "option_uses", "fit"):
            if getattr(self, name) is not None and not callable(getattr(self, name)):
                raise wrong(f"{name} must be a function or None")
        if not all(isinstance(m, Metric) for m in self.metrics):
            raise wrong("metrics must be Metric declarations")
        names = [m.name for m in (*SHARED, *self.metrics)]
        if len(set(names)) != len(names):
            raise wrong(f"metric names must be unique and not the shared ones', got {names}")
        for claim in self.claims:
            if not isinstance(claim, Claim) or claim.metric not in names:
                raise wrong(f"a claim must read one of the metrics {names}, got {claim!r}")
        if self.ranking is not None and not isinstance(self.ranking, Ranking):
            raise wrong("ranking must be a Ranking")
        if self.first_mover is not None and not (
            isinstance(self.first_mover, FirstMover) and callable(self.first_mover.rows)
        ):
            raise wrong("first_mover must be a FirstMover")
