"""A progress bar with games/s and ETA on a terminal; silence in scripts and CI."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


def significant(value: float, digits: int = 2) -> str:
    """``value`` rounded to ``digits`` significant digits, with thousands separators and no
    trailing exponent: 1.3, 27, 24,000, 0.054."""
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    rounded = round(value, digits - 1 - exponent)
    if abs(rounded) >= 10 ** (exponent + 1):  # 9.96 -> 10: one digit more before the point
        exponent += 1
        rounded = round(value, digits - 1 - exponent)
    decimals = max(0, digits - 1 - exponent)
    return f"{rounded:,.{decimals}f}"


def rate_text(per_second: float, unit: str = "games") -> str:
    """A rate as every command prints it, two significant digits: ``1.3 games/s``,
    ``27 games/s``, ``24,000 games/s``."""
    return f"{significant(per_second)} {unit}/s"


class RateColumn(ProgressColumn):
    """Games per second since the bar started."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(rate_text(speed) if speed else "", style="progress.data.speed")


def want_progress(flag: bool | None) -> bool:
    """Show a bar when asked, or by default when stderr is a terminal."""
    return sys.stderr.isatty() if flag is None else flag


@contextmanager
def progress_bar(label: str, enabled: bool) -> Iterator[Callable[[int, int], None]]:
    """Yield ``update(done, total)``; draws a bar on stderr when ``enabled``. ``total`` may grow
    between calls (a study that adds games in rounds)."""
    if not enabled:
        yield lambda done, total: None
        return
    console = Console(stderr=True)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, speed_estimate_period=30) as bar:
        task = bar.add_task(label, total=None)
        first = [True]

        def update(done: int, total: int) -> None:
            if first[0]:  # games already done on resume do not count towards the rate
                bar.update(task, total=total, completed=0)
                bar.reset(task, total=total - done, completed=0)
                first[0] = False
                update.base = done  # type: ignore[attr-defined]
                return
            base = update.base  # type: ignore[attr-defined]
            bar.update(task, total=total - base, completed=done - base)  # the total may grow

        yield update
