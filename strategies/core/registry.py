"""Strategies are registered by name with a float parameter vector.

A lineup is written ``greedy,random,cautious[aim=0.7,figure=2]``: one entry per seat, each a
registered name with optional ``[key=value,...]`` overrides of its parameters. A strategy may
also take file parameters (:class:`PathParam`, ``heuristic[values=my_table.csv]``): the file is
read and checked when the lineup is parsed, and the strategy's spec records its absolute path
and sha256 (``values=/abs/my_table.csv@<sha256>``), so a run's configuration changes when the
file does, and a recorded spec refuses a file that changed since. The kernels
receive it as one record of the game's :attr:`Registry.lineup_dtype`: ``ids[j]``,
``params[j, :]`` and ``forbid[j, :]`` of lineup position ``j``. The parameter vector is as long
as the game's widest strategy needs; ``forbid[j, o]`` is 1 when lineup position ``j`` may choose
option ``o`` of the game's restrictable options only when nothing else is legal (restricted
play, Jaffe et al. 2012).

Any strategy with parameters may take them from a parameter file, ``heuristic[params=FILE]``
(a JSON file ``dinolab tune`` writes: ``{"strategy": "heuristic", "params": {"aim": 0.7}}``);
parameters given beside it override the file's, and the spec records the file with its sha256
like any file parameter, so a run refuses a file changed since.

A strategy is restricted in its spec: ``heuristic[forbid=fur+Baleset]`` (the game's option names
joined by ``+``; names may hold spaces, ``!`` or ``?``, not ``+``, ``,`` or brackets). The
forbidden options are part of the strategy (its :attr:`Strategy.spec` and label), so a
restricted run is recorded, resumed, verified, replayed and reported like any other, and
:meth:`Registry.lineup_record` sets ``forbid[j, :]`` from each position's own options.

A bot's parameters are declared once, as a tuple of :class:`StrategyParam` in its game's
``strategies/<game>/params.py``: the registry offers them by name, and the compiled bot reads
its vector through :func:`indices` of the same tuple (``hp[HP.foresight]``), never by a
number, so reordering a declaration changes no play.
"""

from __future__ import annotations

import collections
import dataclasses
import keyword
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rules.core.errors import DinolabError
from rules.core.jit import records

MAX_SEATS = 8
"""Most lineup positions a kernel reads (the largest player count of any game)."""
FORBID = "forbid"
"""The strategy-spec key of restricted play, ``name[forbid=a+b]``; no parameter may use it."""
PARAMS = "params"
"""The strategy-spec key of a parameter file, ``name[params=FILE]``; no parameter may use it."""


def lineup_dtype(n_params: int, n_options: int) -> np.dtype:
    """The record a kernel reads a lineup from: ids, parameter vectors and forbidden options."""
    return np.dtype(
        [
            ("ids", np.int64, (MAX_SEATS,)),
            ("params", np.float64, (MAX_SEATS, max(1, n_params))),
            ("forbid", np.uint8, (MAX_SEATS, max(1, n_options))),
        ],
        align=True,
    )


class StrategyError(DinolabError):
    """An unknown strategy, parameter or a lineup that does not fit the seats."""


@dataclasses.dataclass(frozen=True)
class StrategyParam:
    name: str
    default: float
    lo: float
    hi: float
    doc: str


def indices(params: Sequence[StrategyParam]) -> Any:
    """Each parameter's position in the vector of a bot declared with ``params``, by name: a
    named tuple of ints (``HP.foresight == 1``). A compiled bot reads ``hp[HP.foresight]``
    from a module-global one, which numba folds into a constant offset (cached code too).
    Raises ``ValueError`` for a name that cannot be an attribute (a declaration bug)."""
    names = [p.name for p in params]
    bad = [n for n in names if not n.isidentifier() or keyword.iskeyword(n) or n[0] == "_"]
    if bad or len(set(names)) != len(names):
        raise ValueError(f"parameter names must be distinct identifiers: {names}")
    return collections.namedtuple("Indices", names)(*range(len(names)))


def defaults(params: Sequence[StrategyParam]) -> tuple[float, ...]:
    """The declared defaults of ``params`` in vector order (what a bot's rollouts play)."""
    return tuple(float(p.default) for p in params)


@dataclasses.dataclass(frozen=True)
class PathParam:
    """A strategy parameter that names a data file (``heuristic[values=table.csv]``).

    ``load(path)`` reads and validates the file, raising :class:`StrategyError` with one line
    when it cannot, and returns the data: an object with a ``sha256`` attribute and, if the data
    only serves some player counts, a ``check_players(n)`` method that raises for the others.
    Without the parameter the strategy uses its built-in data (``data`` holds ``None``).
    """

    name: str
    doc: str
    load: Callable[[str], Any]


@dataclasses.dataclass(frozen=True)
class StrategyInfo:
    """A registered bot: its kernel id, a one-line description and its parameters.

    ``plays`` names the bot whose kernel code this one runs with other default parameters
    (an alias, see :func:`alias`, such as ``tuned``); empty for a bot of its own."""

    name: str
    sid: int
    doc: str
    params: tuple[StrategyParam, ...] = ()
    paths: tuple[PathParam, ...] = ()
    plays: str = ""
    by_players: tuple[tuple[int, tuple[tuple[str, float], ...]], ...] = ()
    """Other defaults at some player counts, ``((n, ((name, value), ...)), ...)`` (a tuned
    bot whose best parameters depend on the table's size)."""
    cost: float = 1.0
    """Roughly how many games of the game's heuristic one game of this bot costs at its
    defaults (``dinolab bench GAME --strong`` measures it): slow bots get small chunks, so every
    worker has work (:func:`simulate.config.plan_chunk`). It never changes a row."""
    searches: bool = False
    """The bot plays games out on the spare states of the bots' scratch (a search bot): a
    kernel has the search bots compiled in only for a lineup that plays one
    (:func:`strategies.core.scratch.search_bots`; Dino Kontra Dino keeps its search bots in
    its one kernel and declares none). It never changes a row."""

    def defaults(self, n_players: int | None = None) -> dict[str, float]:
        """Every parameter's default at ``n_players`` (``None``: the plain defaults)."""
        values = {p.name: p.default for p in self.params}
        values.update(dict(self.by_players).get(n_players, ()))
        return values

    def usage(self) -> str:
        """``name[key=default,...]`` for help texts."""
        if not self.params and not self.paths:
            return self.name
        inner = [f"{p.name}={p.default:g}" for p in self.params]
        inner += [f"{p.name}=FILE" for p in self.paths]
        return f"{self.name}[{','.join(inner)}]"


@dataclasses.dataclass(frozen=True)
class Strategy:
    """One seat's bot: registered info plus its parameter values (and data files, if any).

    ``files`` holds ``(name, absolute path, sha256)`` for every file parameter given; ``data``
    the loaded data of each of ``info.paths`` (``None`` where not given); ``forbid`` the
    game's options this bot may take only when nothing else is legal, in the game's option
    order (restricted play).
    """

    info: StrategyInfo
    values: tuple[float, ...]
    files: tuple[tuple[str, str, str], ...] = ()
    data: tuple[Any, ...] = dataclasses.field(default=(), compare=False, repr=False)
    forbid: tuple[str, ...] = ()

    def file_data(self, name: str) -> Any:
        """The loaded data of file parameter ``name``, or ``None`` when not given."""
        for p, d in zip(self.info.paths, self.data, strict=False):
            if p.name == name:
                return d
        return None

    @property
    def spec(self) -> str:
        """Every parameter spelled out: what a run records, so a later change of a default
        cannot change what an old run meant (files with their sha256)."""
        inner = [
            f"{p.name}={_exact(v)}" for p, v in zip(self.info.params, self.values, strict=True)
        ]
        inner += [f"{name}={path}@{digest}" for name, path, digest in self.files]
        inner += self._forbid_items()
        return f"{self.info.name}[{','.join(inner)}]" if inner else self.info.name

    @property
    def label(self) -> str:
        """Canonical name: the bare name when every parameter is at its default (files by
        their file name)."""
        changed = [
            f"{p.name}={_exact(v)}"
            for p, v in zip(self.info.params, self.values, strict=True)
            if v != p.default
        ]
        changed += [f"{name}={Path(path).name}" for name, path, _ in self.files]
        changed += self._forbid_items()
        return f"{self.info.name}[{','.join(changed)}]" if changed else self.info.name

    def _forbid_items(self) -> list[str]:
        return [f"{FORBID}={'+'.join(self.forbid)}"] if self.forbid else []


def _exact(v: float) -> str:
    """``v`` short (``0.9``, ``1``) when that reads back exactly, else every digit."""
    short = f"{v:g}"
    return short if float(short) == v else repr(v)


class Registry:
    """The bots of one game, by name, and the options its bots can be forbidden."""

    def __init__(self, game: str, infos: list[StrategyInfo], options: tuple[str, ...] = ()):
        self.game = game
        self.by_name = {i.name: i for i in infos}
        self.options = tuple(options)
        ids = [i.sid for i in infos if not i.plays]
        own = {i.name: i.sid for i in infos if not i.plays}
        aliases_ok = all(own.get(i.plays) == i.sid for i in infos if i.plays)
        if (
            len(set(ids)) != len(ids)
            or len(self.by_name) != len(infos)
            or not aliases_ok
            or len(set(self.options)) != len(self.options)
        ):
            raise ValueError(f"bad strategy registry for {game}")
        names = {p.name for i in infos for p in (*i.params, *i.paths)}
        bad = [o for o in self.options if not o.strip() or set(o) & set("+,[]=") or o != o.strip()]
        if FORBID in names or PARAMS in names or bad:
            raise ValueError(f"bad strategy registry for {game}: {FORBID!r} or options {bad}")
        self.n_params = max((len(i.params) for i in infos), default=0)
        self.lineup_dtype = lineup_dtype(self.n_params, len(self.options))

    def names(self) -> list[str]:
        return list(self.by_name)

    def kin(self, info: StrategyInfo) -> tuple[str, ...]:
        """The other bots that run ``info``'s kernel code (a bot and its aliases)."""
        code = info.plays or info.name
        return tuple(
            i.name
            for i in self.by_name.values()
            if i.name != info.name and (i.plays or i.name) == code
        )

    def option(self, text: str) -> str:
        """The declared option ``text`` names: exactly, else ignoring case and Unicode
        normalisation when that picks one. Raises :class:`StrategyError` naming the options."""
        text = text.strip()
        if text in self.options:
            return text
        key = unicodedata.normalize("NFC", text).casefold()
        hits = [o for o in self.options if unicodedata.normalize("NFC", o).casefold() == key]
        if len(hits) == 1:
            return hits[0]
        known = ", ".join(self.options) if self.options else f"none: {self.game}'s bots have none"
        raise StrategyError(f"unknown option {text!r} for {self.game} (known: {known})")

    def forbid_options(self, names: Iterable[str]) -> tuple[str, ...]:
        """Option names checked and put in the game's order, each once."""
        chosen = {self.option(n) for n in names}
        return tuple(o for o in self.options if o in chosen)

    def parse(self, text: str, n_players: int | None = None) -> Strategy:
        """One strategy from ``name`` or ``name[key=value,...]``; ``n_players`` picks the
        defaults (and a parameter file's values) for that player count where they differ."""
        m = re.fullmatch(r"\s*([A-Za-z_][\w-]*)\s*(?:\[(.*)\])?\s*", text)
        if not m:
            raise StrategyError(f"cannot read strategy {text!r}; write name or name[key=value]")
        name, body = m.group(1), m.group(2)
        info = self.by_name.get(name)
        if info is None:
            known = ", ".join(self.by_name)
            raise StrategyError(f"unknown strategy '{name}' for {self.game} (known: {known})")
        values = info.defaults(n_players)
        lookup = {p.name: p for p in info.params}
        paths = {p.name: p for p in info.paths}
        given: dict[str, tuple[str, str, Any]] = {}
        forbid: tuple[str, ...] = ()
        items = [s.strip() for s in (body or "").split(",") if s.strip()]
        file_item = next((i for i in items if i.partition("=")[0].strip() == PARAMS), None)
        if file_item is not None:  # the file's values first, those beside it override them
            if not info.params:
                raise StrategyError(f"strategy '{name}' has no parameters to read from a file")
            param_file = _load_file(
                name, PathParam(PARAMS, "", load_params), file_item.partition("=")[2].strip()
            )
            given[PARAMS] = param_file
            values.update(param_file[2].values_for(name, lookup, self.kin(info), n_players))
        for item in items:
            key, sep, raw = item.partition("=")
            key = key.strip()
            if key == PARAMS:
                continue
            if key == FORBID:
                names = [n for n in raw.split("+") if n.strip()]
                if not sep or not names:
                    raise StrategyError(
                        f"strategy {name}: write {FORBID}=option or {FORBID}=a+b, got {item!r}"
                    )
                forbid = self.forbid_options(names)
                continue
            if key in paths:
                given[key] = _load_file(name, paths[key], raw.strip())
                continue
            if key not in lookup:
                known = ", ".join([*lookup, *paths]) or "none"
                raise StrategyError(
                    f"strategy '{name}' has no parameter '{key}' (parameters: {known})"
                )
            p = lookup[key]
            try:
                v = float(raw)
            except ValueError:
                v = float("nan")
            if not sep or not p.lo <= v <= p.hi:
                raise StrategyError(
                    f"strategy parameter {name}.{key} must be a number in {p.lo:g}..{p.hi:g}, "
                    f"got {raw.strip()!r}"
                )
            values[key] = v
        files = tuple((k, given[k][0], given[k][1]) for k in [*paths, PARAMS] if k in given)
        data = tuple(given[k][2] if k in given else None for k in paths)
        return Strategy(info, tuple(values[p.name] for p in info.params), files, data, forbid)

    def lineup(self, text: str, n_players: int) -> list[Strategy]:
        """One strategy per seat; a single name fills every seat."""
        parts = split_lineup(text)
        if len(parts) == 1:
            parts = parts * n_players
        if len(parts) != n_players:
            raise StrategyError(
                f"--strategy names {len(parts)} strategies for {n_players} players; "
                f"give one, or one per seat"
            )
        lineup = [self.parse(p, n_players) for p in parts]
        for s in lineup:
            for d in s.data:
                if d is not None and hasattr(d, "check_players"):
                    d.check_players(n_players)
        return lineup

    def lineup_record(
        self, lineup: list[Strategy], forbid: dict[int, tuple[str, ...]] | None = None
    ) -> np.ndarray:
        """The lineup as a record array of length 1. ``forbid[j, :]`` holds position ``j``'s
        own forbidden options (:attr:`Strategy.forbid`) and those ``forbid`` adds (lineup
        position -> options it may take only when nothing else is legal)."""
        rec = records(1, self.lineup_dtype)
        for j, s in enumerate(lineup):
            rec[0].ids[j] = s.info.sid
            rec[0].params[j, : len(s.values)] = s.values
            for name in s.forbid:
                rec[0].forbid[j, self.options.index(name)] = 1
        for j, names in (forbid or {}).items():
            for name in names:
                if name not in self.options:
                    known = ", ".join(self.options) or "none"
                    raise StrategyError(f"unknown option '{name}' for {self.game} (known: {known})")
                rec[0].forbid[j, self.options.index(name)] = 1
        return rec


_DIGEST = re.compile(r"(.*)@([0-9a-f]{64})")


def _load_file(strategy: str, param: PathParam, raw: str) -> tuple[str, str, Any]:
    """(absolute path, sha256, data) of a file parameter written ``path`` or, as a run records
    it, ``path@sha256`` (then the file must still have that digest)."""
    m = _DIGEST.fullmatch(raw)
    text, want = (m.group(1), m.group(2)) if m else (raw, None)
    if not text:
        raise StrategyError(f"strategy parameter {strategy}.{param.name} needs a file path")
    path = Path(text).expanduser()
    if not path.is_file():
        raise StrategyError(f"strategy parameter {strategy}.{param.name}: no file {text!r}")
    path = path.resolve()
    data = param.load(str(path))
    if want is not None and data.sha256 != want:
        raise StrategyError(
            f"strategy parameter {strategy}.{param.name}: {path} changed since the run was "
            f"configured (sha256 {data.sha256[:12]}, recorded {want[:12]})"
        )
    return str(path), data.sha256, data


@dataclasses.dataclass(frozen=True)
class ParamsFile:
    """A strategy's parameter values read from a JSON file (``dinolab tune`` writes them)."""

    path: str
    sha256: str
    strategy: str
    params: dict[str, float]
    by_players: dict[int, dict[str, float]] = dataclasses.field(default_factory=dict)
    """Other values at some player counts (``"by_players": {"2": {"params": {...}}}``)."""

    def values_for(
        self,
        name: str,
        lookup: dict[str, StrategyParam],
        aliases: tuple[str, ...] = (),
        n_players: int | None = None,
    ) -> dict[str, float]:
        """The file's values for strategy ``name`` (or a file of one of ``aliases``, the bots
        that play the same code) at ``n_players``, each checked against its range."""
        if self.strategy != name and self.strategy not in aliases:
            raise StrategyError(
                f"{self.path} holds parameters of '{self.strategy}', not of '{name}'"
            )
        out = {}
        for key, v in self.by_players.get(n_players, self.params).items():
            p = lookup.get(key)
            if p is None:
                known = ", ".join(lookup) or "none"
                raise StrategyError(
                    f"{self.path}: strategy '{name}' has no parameter '{key}' (parameters: {known})"
                )
            if not isinstance(v, int | float) or isinstance(v, bool) or not p.lo <= v <= p.hi:
                raise StrategyError(
                    f"{self.path}: {name}.{key} must be a number in {p.lo:g}..{p.hi:g}, got {v!r}"
                )
            out[key] = float(v)
        return out


def load_params(path: str) -> ParamsFile:
    """A parameter file: JSON with ``strategy`` and ``params`` (other keys, such as the
    measurements ``dinolab tune`` records, are kept in the file but not read)."""
    import hashlib
    import json

    raw = Path(path).read_bytes()
    try:
        data = json.loads(raw)
        strategy, params = data["strategy"], data["params"]
        by_players = {int(n): body["params"] for n, body in data.get("by_players", {}).items()}
        if not isinstance(strategy, str) or not isinstance(params, dict):
            raise TypeError
        if not all(isinstance(v, dict) for v in by_players.values()):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise StrategyError(
            f'{path} is not a parameter file (JSON with "strategy" and "params")'
        ) from None
    return ParamsFile(path, hashlib.sha256(raw).hexdigest(), strategy, dict(params), by_players)


TUNED = "tuned"
"""The registered name of each game's shipped tuned bot."""


def alias(
    base: StrategyInfo,
    name: str,
    doc: str,
    by_players: dict[int, dict[str, float]] | None = None,
    **defaults: float,
) -> StrategyInfo:
    """Bot ``name``: ``base``'s kernel code (``plays``) with the parameter defaults
    ``defaults`` (the others as ``base`` has them), and other values at the player counts of
    ``by_players``. Raises ``ValueError`` for an unknown parameter or a value out of its range
    (a registry bug)."""
    lookup = {p.name: p for p in base.params}
    for key, v in [*defaults.items(), *(i for d in (by_players or {}).values() for i in d.items())]:
        p = lookup.get(key)
        if p is None or not p.lo <= v <= p.hi:
            raise ValueError(f"alias {name} of {base.name}: bad default {key}={v!r}")
    params = tuple(
        dataclasses.replace(p, default=defaults.get(p.name, p.default)) for p in base.params
    )
    counts = tuple((n, tuple(sorted(d.items()))) for n, d in sorted((by_players or {}).items()))
    return StrategyInfo(
        name,
        base.sid,
        doc,
        params,
        base.paths,
        plays=base.plays or base.name,
        by_players=counts,
        cost=base.cost,
        searches=base.searches,
    )


def tuned(base: StrategyInfo, path: Path) -> StrategyInfo:
    """``tuned``: bot ``base`` whose defaults are the parameters of the shipped file ``path``
    (written by ``dinolab tune``; its strength against the field it was tuned against is in
    the file). A run records every value (:attr:`Strategy.spec`), so shipping a newer file
    changes what ``tuned`` means for new runs only."""
    pf = load_params(str(path))
    lookup = {p.name: p for p in base.params}
    try:
        values = pf.values_for(base.name, lookup, (TUNED,))
        counts = {n: pf.values_for(base.name, lookup, (TUNED,), n) for n in pf.by_players}
    except StrategyError as e:  # a shipped file that does not fit is a packaging bug
        raise ValueError(str(e)) from None
    doc = f"{base.name} with parameters tuned by self-play ({path.parent.name}/{path.name})"
    if counts:
        doc += f", tuned per player count ({', '.join(map(str, sorted(counts)))} players)"
    return alias(base, TUNED, doc, counts, **values)


def split_lineup(text: str) -> list[str]:
    """Split on commas that are not inside ``[...]``."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    if any(not p.strip() for p in parts) or depth != 0:
        raise StrategyError(f"cannot read strategy list {text!r}")
    return [p.strip() for p in parts]
