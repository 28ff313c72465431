"""Dinosaur Table Battles' report: are the printed draft ratings right; what moving first, team
size and the hit-marker bonuses are worth; how often the turn cap stops a game.

- :mod:`~reports.table_battles.games`: the decided games (a game the turn cap stopped has no
  winner: counted in the end reasons, left out of everything else here; the shared sections
  score it 0 for both seats, as nobody won it), side A (seat 0) against side B (seat 1);
- :mod:`~reports.table_battles.team_model`: the logistic model of who wins from both teams'
  dinos, the first player and the bots (and the marker bonuses);
- :mod:`~reports.table_battles.draft`: each dino's simulated value, the rank correlation with
  the printed ratings, the printed scale and the under- and over-rated dinos;
- :mod:`~reports.table_battles.analyses`: the first player, team sizes, marker bonuses, end
  reasons;
- :mod:`~reports.table_battles.metrics`, :mod:`~reports.table_battles.plots`,
  :mod:`~reports.table_battles.sections`: what studies measure, the figures, the report.

*Memory*: every analysis is map-reduce over the run's chunks (:mod:`reports.aggregate`), so the
report's memory does not grow with the number of games: the team models take one pass per
Newton step, both models side by side, the first in the report's one pass (five passes in all
on the runs measured).
"""

from reports.game import GameReport
from reports.table_battles import metrics, sections

REPORT = GameReport(
    sections=sections.sections,
    partials=sections.partials,
    metrics=metrics.METRICS,
    claims=metrics.CLAIMS,
    ranking=metrics.RANKING,
    first_mover=metrics.FIRST_MOVER,
)
