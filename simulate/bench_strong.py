"""``dinolab bench GAME --strong``: is ``strong`` as strong as the strongest rung, and how much
faster?

* **Speed**, per player count the game usually plays (``Strength.players``): one core, every
  log buffer, the same bot in every seat; ``strong`` and the game's strongest ladder rung
  (``search``; Dino Kontra Dino ``montecarlo``) measured alternately in the same process,
  each for at least a couple of seconds of play, the best of two (machines are noisy: the
  ratio of two rates measured side by side is the figure that travels).
* **Strength**: ``strong`` in one seat against the rung in every other seat, seats rotated
  (so each deal is played with ``strong`` in every seat), fresh seeds, every core; its win
  share (1 for a win, 1/k for a k-way shared win) with a 95% interval clustered by deal.
  The target (issue 24): an interval that reaches the fair share 1/P or lies above it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from rules.core.errors import DinolabError
from simulate.backends import make_executor
from simulate.config import build_config
from simulate.games import get_game
from simulate.kit.play import play_logs, warmup
from simulate.kit.spec import GameSpec
from simulate.progress import significant
from simulate.runner import run

STRONG = "strong"
SEED = 2024
"""The head-to-head's seed: none of the docs' or tests' runs use it (fresh deals)."""


def strongest_rung(game: GameSpec) -> str:
    """The game's strongest ladder rung, as a strategy spec (its last, without ``:GAMES``)."""
    if game.strength is None or not game.strength.ladder:
        raise DinolabError(f"{game.name} declares no ladder to measure strong against")
    return game.strength.ladder[-1].rsplit(":", 1)[0]


def per_core_rate(game: GameSpec, players: int, bot: str, min_seconds: float = 2.0) -> float:
    """Games per second on one core with every log buffer, ``bot`` in every seat: games
    doubled until a play lasts ``min_seconds``."""
    setup = game.setup(game.parameters(), players, ",".join([bot] * players))
    warmup(setup)
    n = 1
    while True:
        t0 = time.perf_counter()
        play_logs(setup, 1, False, 0, n, detail=True)
        seconds = time.perf_counter() - t0
        if seconds >= min_seconds:
            return n / seconds
        n = max(2 * n, int(n * min_seconds / max(seconds, 1e-3)))


@dataclasses.dataclass(frozen=True)
class Share:
    """A lineup position's win share with its 95% interval, clustered by deal."""

    value: float
    low: float
    high: float
    games: int

    def reaches(self, fair: float) -> bool:
        return self.high >= fair


def label_share(run_dir: str, players: int, label: str) -> Share:
    """The win share of the bot labelled ``label`` in a rotated run: the mean over deals of
    its per-deal share, whose standard error is that of independent deals."""
    table = ds.dataset(f"{run_dir}/players", format="parquet").to_table(
        columns=["game_id", "strategy", "winner"]
    )
    games = ds.dataset(f"{run_dir}/games", format="parquet").to_table(
        columns=["game_id", "n_winners"]
    )
    n_win = np.zeros(int(pc.max(games["game_id"]).as_py()) + 1)
    n_win[games["game_id"].to_numpy()] = games["n_winners"].to_numpy()
    mine = pc.equal(table["strategy"].cast(pa.string()), label).to_numpy(zero_copy_only=False)
    ids = table["game_id"].to_numpy()[mine]
    won = table["winner"].to_numpy(zero_copy_only=False)[mine].astype(float)
    share = won / np.maximum(1.0, n_win[ids])
    deals = ids // players
    counts = np.bincount(deals)
    per_deal = np.bincount(deals, weights=share)[counts > 0] / counts[counts > 0]
    m = float(per_deal.mean())
    se = float(per_deal.std(ddof=1) / math.sqrt(len(per_deal)))
    return Share(m, m - 1.96 * se, m + 1.96 * se, len(ids))


def head_to_head(game: GameSpec, players: int, rung: str, games: int) -> Share:
    """``strong`` against ``rung`` in every other seat, rotated, on every core."""
    games = max(players, games - games % players)
    lineup = ",".join([STRONG] + [rung] * (players - 1))
    chunk = max(players, (games // 16) // players * players)
    config, setup = build_config(
        game.name,
        n_players=players,
        strategies=lineup,
        rotate=True,
        seed=SEED,
        games=games,
        chunk_size=chunk,
        tables="games,players",
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "h2h")
        run(config, setup, out, make_executor(None, "local", None))
        return label_share(out, players, STRONG)


def run_strong_bench(game_name: str, games: int | None = None) -> str:
    """Every measurement for one game, as a Markdown section with the command."""
    game = get_game(game_name)
    rung = strongest_rung(game)
    if STRONG not in game.registry.by_name:
        raise DinolabError(f"{game.name} has no '{STRONG}' bot to measure")
    n = games or game.bench.strong_games
    rows = []
    for p in game.strength.players:
        slow = max(per_core_rate(game, p, rung) for _ in range(2))
        fast = max(per_core_rate(game, p, STRONG) for _ in range(2))
        share = head_to_head(game, p, rung, n)
        fair = 1 / p
        verdict = "reaches the fair share" if share.reaches(fair) else "clearly weaker"
        if share.low > fair:
            verdict = "stronger"
        rows.append(
            f"| {p} | {significant(slow)} | {significant(fast)} | {fast / slow:,.1f}x | "
            f"{share.value:.1%} [{share.low:.1%}, {share.high:.1%}] of {share.games:,} | "
            f"{fair:.1%} | {verdict} |"
        )
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    cores = os.cpu_count() or 1
    return (
        f"### `dinolab bench {game_name} --strong"
        + (f" --games {games}" if games else "")
        + "`\n\n"
        f"{when}; {platform.node()}; {cores} cores; Python {platform.python_version()}; "
        f"`strong` against `{rung}`\n\n"
        "| players | rung games/s, 1 core | strong games/s, 1 core | speed-up | "
        "strong's win share (95%), games | fair | strength |\n"
        "|---|---|---|---|---|---|---|\n" + "\n".join(rows)
    )
