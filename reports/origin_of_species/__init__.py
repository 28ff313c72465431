"""Evolution: The Origin of Species' report: what traits are worth, how carnivores do, how
tight the food is, and each seat's score round by round.

- :mod:`~reports.origin_of_species.rows`: the seat rows the analyses share, ratios by group
  with their intervals, each seat's score after every round (``progress``, for the shared
  decisiveness section);
- :mod:`~reports.origin_of_species.traits`: the survivor-trait lift and the value of a card
  as a trait or as an animal;
- :mod:`~reports.origin_of_species.carnivores`: attacks, kills, the carnivores' share of
  points and aggression;
- :mod:`~reports.origin_of_species.food`: food pressure by round;
  :mod:`~reports.origin_of_species.by_players`: food and seat advantage over runs of several
  player counts;
- :mod:`~reports.origin_of_species.metrics`, :mod:`~reports.origin_of_species.plots`,
  :mod:`~reports.origin_of_species.sections`: what studies measure, the figures, the report.

*Win share* of a seat in a game: 1 for an outright win, ``1/k`` for a victory shared by ``k``
(as :mod:`reports.common`). Every analysis is map-reduce over the run's chunks
(:mod:`reports.aggregate`): memory stays flat in the number of games.
"""

from reports.game import GameReport
from reports.origin_of_species import metrics, rows, sections

REPORT = GameReport(
    sections=sections.sections,
    partials=sections.partials,
    progress=rows.progress,
    metrics=metrics.METRICS,
    claims=metrics.CLAIMS,
    ranking=metrics.RANKING,
    first_mover=metrics.FIRST_MOVER,
)
