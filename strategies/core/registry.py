"""Strategies are registered by name with a float parameter vector.

A lineup is written ``greedy,random,cautious[aim=0.7,figure=2]``: one entry per seat, each a
registered name with optional ``[key=value,...]`` overrides of its parameters. The kernels
receive it as one record of the game's :attr:`Registry.lineup_dtype`: ``ids[j]``,
``params[j, :]`` and ``forbid[j, :]`` of lineup position ``j``. The parameter vector is as long
as the game's widest strategy needs; ``forbid[j, o]`` is 1 when lineup position ``j`` may choose
option ``o`` of the game's restrictable options only when nothing else is legal (restricted
play, Jaffe et al. 2012).
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from rules.core.errors import DinolabError
from rules.core.jit import records

MAX_SEATS = 8
"""Most lineup positions a kernel reads (the largest player count of any game)."""


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


@dataclasses.dataclass(frozen=True)
class StrategyInfo:
    """A registered bot: its kernel id, a one-line description and its parameters."""

    name: str
    sid: int
    doc: str
    params: tuple[StrategyParam, ...] = ()

    def usage(self) -> str:
        """``name[key=default,...]`` for help texts."""
        if not self.params:
            return self.name
        inner = ",".join(f"{p.name}={p.default:g}" for p in self.params)
        return f"{self.name}[{inner}]"


@dataclasses.dataclass(frozen=True)
class Strategy:
    """One seat's bot: registered info plus its parameter values."""

    info: StrategyInfo
    values: tuple[float, ...]

    @property
    def spec(self) -> str:
        """Every parameter spelled out: what a run records, so a later change of a default
        cannot change what an old run meant."""
        if not self.info.params:
            return self.info.name
        inner = ",".join(
            f"{p.name}={v:g}" for p, v in zip(self.info.params, self.values, strict=True)
        )
        return f"{self.info.name}[{inner}]"

    @property
    def label(self) -> str:
        """Canonical name: the bare name when every parameter is at its default."""
        changed = [
            f"{p.name}={v:g}"
            for p, v in zip(self.info.params, self.values, strict=True)
            if v != p.default
        ]
        return f"{self.info.name}[{','.join(changed)}]" if changed else self.info.name


class Registry:
    """The bots of one game, by name, and the options its bots can be forbidden."""

    def __init__(self, game: str, infos: list[StrategyInfo], options: tuple[str, ...] = ()):
        self.game = game
        self.by_name = {i.name: i for i in infos}
        self.options = tuple(options)
        ids = [i.sid for i in infos]
        if len(set(ids)) != len(ids) or len(set(self.options)) != len(self.options):
            raise ValueError(f"bad strategy registry for {game}")
        self.n_params = max((len(i.params) for i in infos), default=0)
        self.lineup_dtype = lineup_dtype(self.n_params, len(self.options))

    def names(self) -> list[str]:
        return list(self.by_name)

    def parse(self, text: str) -> Strategy:
        """One strategy from ``name`` or ``name[key=value,...]``."""
        m = re.fullmatch(r"\s*([A-Za-z_][\w-]*)\s*(?:\[(.*)\])?\s*", text)
        if not m:
            raise StrategyError(f"cannot read strategy {text!r}; write name or name[key=value]")
        name, body = m.group(1), m.group(2)
        info = self.by_name.get(name)
        if info is None:
            known = ", ".join(self.by_name)
            raise StrategyError(f"unknown strategy '{name}' for {self.game} (known: {known})")
        values = {p.name: p.default for p in info.params}
        lookup = {p.name: p for p in info.params}
        for item in filter(None, (s.strip() for s in (body or "").split(","))):
            key, sep, raw = item.partition("=")
            key = key.strip()
            if key not in lookup:
                known = ", ".join(lookup) or "none"
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
        return Strategy(info, tuple(values[p.name] for p in info.params))

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
        return [self.parse(p) for p in parts]

    def lineup_record(
        self, lineup: list[Strategy], forbid: dict[int, tuple[str, ...]] | None = None
    ) -> np.ndarray:
        """The lineup as a record array of length 1; ``forbid`` maps lineup positions to the
        options they may take only when nothing else is legal."""
        rec = records(1, self.lineup_dtype)
        for j, s in enumerate(lineup):
            rec[0].ids[j] = s.info.sid
            rec[0].params[j, : len(s.values)] = s.values
        for j, names in (forbid or {}).items():
            for name in names:
                if name not in self.options:
                    known = ", ".join(self.options) or "none"
                    raise StrategyError(f"unknown option '{name}' for {self.game} (known: {known})")
                rec[0].forbid[j, self.options.index(name)] = 1
        return rec


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
