"""The robustness companion of a run: its first games replayed with stronger bots.

A report's conclusions describe the game as its bots play it. The companion plays the run's
first N games again (same seed, players, rules, rotation and logged tables, so game ``i``
starts from the same deal and dice) with the game's robust bot in every lineup position:
:attr:`Strength.robust <simulate.kit.spec.Strength.robust>`, the strongest practical bot
(``tuned``, or search at a small budget such as ``search[rollouts=2]``; ``tuned`` for a game
that declares no strength), at most :attr:`~simulate.kit.spec.Strength.robust_games` games for
a slow one, in :data:`CHUNKS` chunks whatever the run's chunk size (rows do not depend on
chunking), so that every worker gets a share of a slow bot's games. :mod:`reports.robustness`
then says which of the report's conclusions hold with stronger bots. It lives inside the run,
``RUN/robustness/``, a full run directory, so a second report reads it instead of replaying it;
a companion made for another configuration (the run replaced, a newer shipped ``tuned`` file,
another bot or N) is replaced, saying why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from rules.core.errors import DinolabError
from simulate.config import RunConfig
from simulate.executors import Executor
from simulate.kit.spec import GameSpec
from simulate.manifest import read_manifest, run_config
from simulate.runner import run
from simulate.storage import RunStore, open_store
from strategies.core.registry import TUNED

FOLDER = "robustness"
"""The companion's folder inside the run."""
GAMES = 20_000
"""Games of the companion by default (at most the run's)."""
CHUNKS = 16
"""The companion's games are split into this many chunks (at most the run's chunk size each):
a run's chunk size suits its own bots, and one 50,000-game chunk would play a slow bot's 400
games on one core."""


@dataclasses.dataclass(frozen=True)
class Companion:
    """What :func:`ensure_companion` found: the companion's store (``None``: there is none)
    and, when there is none, why (for the report's section)."""

    store: RunStore | None
    why_not: str = ""


def strategy_name(spec: str) -> str:
    """The registered name of a recorded strategy spec (``tuned[keep=2.6]`` -> ``tuned``)."""
    return spec.split("[", 1)[0].strip()


def companion_games(logged: int, games: int, n_players: int, rotate: bool) -> int:
    """N = min(the run's games, ``games``), whole deals when seats rotate (at least one game)."""
    n = min(logged, games)
    if rotate and n >= n_players:
        n -= n % n_players
    return max(n, 1)


def robust_bot(spec: GameSpec) -> tuple[str, int | None]:
    """The game's robust bot (a strategy spec) and its cap on the companion's games."""
    if spec.strength is None:
        return TUNED, None
    return spec.strength.robust, spec.strength.robust_games


def companion_config(base: RunConfig, spec: GameSpec, games: int) -> RunConfig:
    """The base configuration with the game's robust bot (:func:`robust_bot`) in every lineup
    position, ``games`` games and chunks of a :data:`CHUNKS`-th of them."""
    lineup = ",".join([robust_bot(spec)[0]] * base.n_players)
    setup = spec.setup(spec.parameters.from_dict(base.params), base.n_players, lineup)
    return dataclasses.replace(
        base,
        strategies=tuple(s.spec for s in setup.lineup),
        games=games,
        chunk_size=min(base.chunk_size, -(-games // CHUNKS)),
    )


def ensure_companion(
    run_dir: str | RunStore,
    spec: GameSpec,
    games: int,
    executor: Callable[[], Executor],
    say: Callable[[str], None] = print,
) -> Companion:
    """The run's robustness companion, played, finished or replaced as needed (only for a
    complete run); ``games`` and the game's ``robust_games`` cap N (:func:`companion_games`)."""
    if games < 1:
        raise DinolabError(f"--robustness-games must be at least 1, got {games}")
    store = open_store(run_dir)
    manifest = read_manifest(store)
    base = run_config(manifest)
    bot, cap = robust_bot(spec)
    if strategy_name(bot) not in spec.registry.names():
        return Companion(None, f"{spec.title} has no registered '{strategy_name(bot)}' bot yet")
    if all(strategy_name(s) == bot for s in base.strategies):  # a bare name: any of its values
        return Companion(None, f"this run's lineup is already '{bot}' in every position")
    logged = sum(c["stop"] - c["start"] for c in manifest["chunks"].values())
    if manifest.get("status") != "complete" or not logged:
        return Companion(None, "the run is incomplete: finish it, then report again")
    n = companion_games(logged, min(games, cap or games), base.n_players, base.rotate)
    config = companion_config(base, spec, n)
    if config.strategies == base.strategies:  # the bot with these very values
        return Companion(None, f"this run's lineup is already '{bot}' in every position")
    out = store.child(FOLDER)
    resume = False
    if out.exists("manifest.json"):
        stored = read_manifest(out)
        previous = run_config(stored)
        if previous.fingerprint() == config.fingerprint():
            if stored.get("status") == "complete":
                return Companion(out)
            resume = True
        else:
            changed = "; ".join(config.differences(previous))
            say(
                f"the robustness companion was made for another configuration ({changed}): "
                "replaying it"
            )
    verb = "finishing" if resume else "playing"
    say(
        f"{verb} the robustness companion: '{bot}' in every seat on the run's first {n:,} games ..."
    )
    run(config, config.setup(), out, executor(), resume=resume, force=not resume)
    return Companion(out)
