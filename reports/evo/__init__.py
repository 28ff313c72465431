"""EVO's report: what each gene is worth against what the auction charges, and what tails
decide.

- :mod:`~reports.evo.model`: the gene value model (what a gene is worth at each auction,
  relative to the average gene sold, in points);
- :mod:`~reports.evo.prices`: what buyers paid; :mod:`~reports.evo.genes`: values against
  prices, the surplus of each gene with its interval;
- :mod:`~reports.evo.analyses`: initiative, combat, event cards, start regions, each seat's
  points round by round;
- :mod:`~reports.evo.metrics`, :mod:`~reports.evo.sections`: what studies measure, the report;
- :mod:`~reports.evo.fitting`: what ``dinolab fit evo`` measures of each run it plays.

Every analysis is a :class:`~reports.aggregate.Partial` over the run's chunks, in the report's
one pass (:func:`~reports.evo.sections.partials`), so memory does not grow with the run; the
gene value model's variance takes a second pass.
"""

from reports.evo import analyses, fitting, metrics, sections
from reports.game import GameReport

REPORT = GameReport(
    sections=sections.sections,
    partials=sections.partials,
    progress=analyses.progress,
    metrics=metrics.METRICS,
    claims=metrics.CLAIMS,
    ranking=metrics.RANKING,
    first_mover=metrics.FIRST_MOVER,
    fit=fitting.measure,
)
