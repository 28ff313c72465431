"""Replay a logged game from (seed, game id) and check it against the logged rows."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from rules.core.errors import DinolabError
from simulate.kit.play import play, replay_text
from simulate.manifest import read_manifest, run_config
from simulate.parquet import part_name
from simulate.storage import RunStore, open_store


def logged_rows(store: RunStore, table: str, chunk: int, game_id: int):
    """The rows of ``game_id`` in one table's part file (None when the part is missing)."""
    name = f"{table}/{part_name(chunk)}"
    if not store.exists(name):
        return None
    # one thread: a threaded read left an Arrow thread that aborted the process at exit about
    # one run in three ("terminate called without an active exception", apache/arrow#34314)
    t = pq.read_table(io.BytesIO(store.read_bytes(name)), use_threads=False)
    return t.filter(pc.equal(t["game_id"], game_id))


def replay_game(run_dir: str | Path | RunStore, game_id: int) -> str:
    """Text of game ``game_id`` of a run, ending with whether it matches the log."""
    run_dir = open_store(run_dir)
    manifest = read_manifest(run_dir)
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
        logged = logged_rows(run_dir, name, chunk, game_id)
        if logged is None or not logged.equals(table):
            differ.append(name)
    if differ:
        raise DinolabError(
            f"replay of game {game_id} differs from the logged rows in {', '.join(differ)} "
            f"(made by dinolab {manifest['versions']['dinolab']}?)"
        )
    names = ", ".join(f"{n}/" for n in fresh)
    return text + f"\n\nreplay matches the logged rows ({names})"
