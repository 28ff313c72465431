"""Analyses over a run's Parquet logs, and the designer report.

Every analysis is a function from the run's polars LazyFrames to a small DataFrame, with its
definition (denominators, ties, shared wins) in its docstring and 95% confidence intervals.
``reports`` reads Parquet and the run's manifest; it never calls a kernel.
"""
