"""High card's own report section: how often a round is tied at the top."""

from __future__ import annotations

import polars as pl

from reports.game import GameReport
from reports.section import Section
from reports.source import RunData


def sections(run: RunData) -> list[Section]:
    ties = run.scan("ties").select(pl.len().alias("tied_rounds")).collect()
    return [
        Section(
            "Tied rounds",
            "Rounds nobody won (a tie at the top).",
            ties,
            {"tied_rounds": "int"},
            key="ties",
        )
    ]


REPORT = GameReport(sections=sections)
