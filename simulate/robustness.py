"""The robustness companion of a run: its first games replayed with stronger bots.

A report's conclusions describe the game as its bots play it. The companion plays the run's
first N games again (same seed, players, rules, rotation and logged tables, so game ``i``
starts from the same deal and dice) with the run's lineup kept and each position's bot raised
to its *stronger counterpart* (:func:`raise_lineup`), so that only skill changes, not the
lineup: :meth:`Strength.counterpart <simulate.kit.spec.Strength.counterpart>` names it (the
game's ``Strength.stronger`` for a named bot, else ``Strength.robust``: ``tuned``, or search at
a small budget such as ``search[rollouts=2]``; ``tuned`` for a game that declares no
strength), and the parameters the run's bot sets away from its defaults are carried over where
the counterpart declares parameters of the same names (with its file parameters and its
restricted options); the declared spec's own values win. A lineup of one bot gets the same
companion as before lineups were kept (its counterpart in every seat). At most
:attr:`~simulate.kit.spec.Strength.robust_games` games for a slow bot, in :data:`CHUNKS`
chunks whatever the run's chunk size (rows do not depend on chunking), so that every worker
gets a share of a slow bot's games. :mod:`reports.robustness` then says which of the report's
conclusions hold with stronger bots. It lives inside the run, ``RUN/robustness/``, a full run
directory, so a second report reads it instead of replaying it; a companion made for another
configuration (the run replaced, a newer shipped ``tuned`` file, another counterpart or N) is
replaced, saying why.
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
from strategies.core.registry import (
    PARAMS,
    TUNED,
    Registry,
    Strategy,
    StrategyError,
    split_lineup,
)

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


def companion_games(logged: int, games: int, n_players: int, rotate: bool) -> int:
    """N = min(the run's games, ``games``), whole deals when seats rotate (at least one game)."""
    n = min(logged, games)
    if rotate and n >= n_players:
        n -= n % n_players
    return max(n, 1)


def robust_bot(spec: GameSpec) -> tuple[str, int | None]:
    """The game's default stronger bot (a strategy spec) and its cap on the companion's
    games."""
    if spec.strength is None:
        return TUNED, None
    return spec.strength.robust, spec.strength.robust_games


def counterpart(spec: GameSpec, bot: str) -> str:
    """The spec of the stronger counterpart of the bot registered as ``bot``."""
    return TUNED if spec.strength is None else spec.strength.counterpart(bot)


@dataclasses.dataclass(frozen=True)
class Raised:
    """One lineup position of the companion: the run's bot, the declared counterpart spec,
    the bot the companion plays there, and what of the run's bot could not be carried over
    (``aggression=2``: the counterpart has no such parameter)."""

    run: Strategy
    declared: str
    stronger: Strategy
    dropped: tuple[str, ...] = ()

    def describe(self) -> str:
        """``heuristic[aggression=2] -> search[rollouts=4] (aggression=2 not carried)``."""
        text = f"{self.run.label} -> {self.stronger.label}"
        return text + (f" ({', '.join(self.dropped)} not carried)" if self.dropped else "")


def _items(text: str) -> list[str]:
    """The ``key=value`` items of a strategy spec's brackets."""
    body = text.partition("[")[2].rpartition("]")[0]
    return [i.strip() for i in split_lineup(body)] if body.strip() else []


def raise_bot(registry: Registry, bot: Strategy, declared: str, n_players: int) -> Raised:
    """``bot`` raised to the counterpart spec ``declared``: the parameters ``bot`` sets away
    from its own defaults (at ``n_players``) that the counterpart declares too (within their
    range), its file parameters of names the counterpart declares, and its restricted options,
    then the declared spec's own items (they win). Raises :class:`StrategyError`."""
    target = registry.parse(declared, n_players)
    params = {p.name: p for p in target.info.params}
    paths = {p.name for p in target.info.paths}
    own = bot.info.defaults(n_players)
    carried, dropped = [], []
    for p, v in zip(bot.info.params, bot.values, strict=True):
        if v == own[p.name]:
            continue
        q = params.get(p.name)
        item = f"{p.name}={float(v)!r}"
        if q is not None and q.lo <= v <= q.hi:
            carried.append(item)
        else:
            dropped.append(f"{p.name}={v:g}")
    for name, path, digest in bot.files:
        if name == PARAMS:  # a parameter file: its values are carried one by one above
            continue
        if name in paths:
            carried.append(f"{name}={path}@{digest}")
        else:
            dropped.append(f"{name}={path.rsplit('/', 1)[-1]}")
    mine = [i for i in _items(declared) if i.partition("=")[0].strip() != "forbid"]
    forbid = registry.forbid_options([*bot.forbid, *target.forbid])
    items = carried + mine + ([f"forbid={'+'.join(forbid)}"] if forbid else [])
    text = f"{target.info.name}[{','.join(items)}]" if items else target.info.name
    return Raised(bot, declared, registry.parse(text, n_players), tuple(dropped))


def raise_lineup(base: RunConfig, spec: GameSpec) -> list[Raised]:
    """Every position of the run's recorded lineup raised to its stronger counterpart
    (:func:`raise_bot`), in lineup order. Raises :class:`StrategyError` when the recorded
    lineup no longer parses (a file parameter changed since the run)."""
    n = base.n_players
    lineup = spec.registry.lineup(",".join(base.strategies), n)
    return [raise_bot(spec.registry, s, counterpart(spec, s.info.name), n) for s in lineup]


def describe_lineup(raised: list[Raised]) -> str:
    """The companion's lineup in words: ``'tuned' in every seat`` when one declared spec
    plays every position as declared, else each distinct position's raise."""
    specs = {r.stronger.spec for r in raised}
    declared = {r.declared for r in raised}
    if len(specs) == 1 and len(declared) == 1 and not any(r.dropped for r in raised):
        return f"'{raised[0].declared}' in every seat"
    return "each seat's bot raised (" + ", ".join(dict.fromkeys(r.describe() for r in raised)) + ")"


def companion_config(base: RunConfig, spec: GameSpec, games: int) -> RunConfig:
    """The base configuration with each lineup position raised to its stronger counterpart
    (:func:`raise_lineup`), ``games`` games and chunks of a :data:`CHUNKS`-th of them."""
    lineup = ",".join(r.stronger.spec for r in raise_lineup(base, spec))
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
    complete run) through ``executor()``, called only when it plays and left open (its owner
    closes it); ``games`` and the game's ``robust_games`` cap N (:func:`companion_games`)."""
    if games < 1:
        raise DinolabError(f"--robustness-games must be at least 1, got {games}")
    store = open_store(run_dir)
    manifest = read_manifest(store)
    base = run_config(manifest)
    _, cap = robust_bot(spec)
    try:
        raised = raise_lineup(base, spec)
    except StrategyError as e:
        return Companion(None, f"the run's lineup cannot be raised to stronger bots ({e})")
    if tuple(r.stronger.spec for r in raised) == base.strategies:
        return Companion(None, already(raised))
    logged = sum(c["stop"] - c["start"] for c in manifest["chunks"].values())
    if manifest.get("status") != "complete" or not logged:
        return Companion(None, "the run is incomplete: finish it, then report again")
    n = companion_games(logged, min(games, cap or games), base.n_players, base.rotate)
    config = companion_config(base, spec, n)
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
        f"{verb} the robustness companion: {describe_lineup(raised)} on the run's first "
        f"{n:,} games ..."
    )
    run(config, config.setup(), out, executor(), resume=resume, force=not resume, close=False)
    return Companion(out)


def already(raised: list[Raised]) -> str:
    """Why a run whose lineup already plays its stronger counterparts has no companion."""
    declared = {r.declared for r in raised}
    if len(declared) == 1:
        return f"this run's lineup is already '{raised[0].declared}' in every position"
    return "this run's lineup already plays each position's stronger counterpart"
