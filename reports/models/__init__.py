"""The statistical models every report shares, one home each.

- :mod:`~reports.models.clustered`: cluster-robust statistics: the small-sample factor (one
  behaviour when there is a single cluster), the sandwich, the means of groups with their
  cluster-robust variance and covariance.
- :mod:`~reports.models.least_squares`: least squares fitted chunk by chunk (sums, then the
  residuals' scores per cluster for the sandwich), one model per group of rows.
- :mod:`~reports.models.logistic`: penalised logistic regression by Newton's method, each
  step's sums taken in one pass over the data, with the cluster-robust sandwich.

The models hold the arithmetic; each game's report builds its rows (the design) and reads the
estimates, every one with its standard error. The passes over a run's chunks are
:mod:`reports.aggregate`'s partials. Figures are encoded in one place too:
:func:`reports.plots.png`.
"""
