"""Replay a logged game from (seed, game id) and check it against the logged rows."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from rules.core.errors import DinolabError
from simulate.kit.play import play, replay_text
from simulate.manifest import run_config
from simulate.parquet import part_name
from simulate.rundir import Run
from simulate.storage import RunStore


def logged_rows(run: Run, table: str, chunk: int, game_id: int) -> pl.DataFrame | None:
    """The rows of ``game_id`` in one table's part, derived columns included (None when the
    part is missing), with category columns as text."""
    if not run.store.exists(f"{table}/{part_name(chunk)}"):
        return None
    return _comparable(run.read(table, chunk).filter(pl.col("game_id") == game_id))


def _comparable(frame: pl.DataFrame) -> pl.DataFrame:
    """Category columns as text: two categoricals of the same labels compare by value."""
    return frame.with_columns(pl.col(pl.Categorical).cast(pl.String))


def replay_game(run_dir: str | Path | RunStore, game_id: int) -> str:
    """Text of game ``game_id`` of a run, ending with whether it matches the log."""
    run = Run(run_dir)
    manifest = run.manifest
    config = run_config(manifest)
    if not 0 <= game_id < config.games:
        raise DinolabError(f"--game must be in 0..{config.games - 1} for {run_dir}")
    setup = config.setup()
    text = replay_text(setup, config.seed, config.rotate, game_id)
    chunk = game_id // config.chunk_size
    if str(chunk) not in manifest["chunks"]:
        return text + "\n\n(this game's chunk has not been written yet; nothing to compare)"
    fresh = play(setup, config.seed, config.rotate, game_id, game_id + 1, tables=config.tables)
    differ = []
    for name, table in fresh.items():
        logged = logged_rows(run, name, chunk, game_id)
        if logged is None or not logged.equals(_comparable(pl.from_arrow(table))):
            differ.append(name)
    if differ:
        raise DinolabError(
            f"replay of game {game_id} differs from the logged rows in {', '.join(differ)} "
            f"(made by dinolab {manifest['versions']['dinolab']}?)"
        )
    names = ", ".join(f"{n}/" for n in fresh)
    return text + f"\n\nreplay matches the logged rows ({names})"
