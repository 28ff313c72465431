"""Declarative, validated game parameters (the TAG "Parameters" idea).

Each game declares a frozen dataclass deriving from :class:`Parameters`; every field is made
with :func:`param`, which records a one-line doc, the allowed range or choices, and where the
default comes from. Overrides arrive as ``--set key=value`` strings or as TOML values and are
parsed and checked here, so every game refuses bad input with the same kind of message::

    unknown rule key 'hand_sise' for dino-kontra-dino (known: deck, first_holder, hand_size, ...)
    rule 'hand_size' must be an integer in 1..10, got '0'
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Self

from rules.core.errors import DataFileError, RuleError


@dataclasses.dataclass(frozen=True)
class ParamInfo:
    """What a designer needs to know about one rule key."""

    name: str
    kind: str
    default: Any
    doc: str
    source: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple[Any, ...] | None = None

    def allowed(self) -> str:
        """The allowed values in words, for help texts and error messages."""
        if self.choices is not None:
            return "one of " + ", ".join(str(c) for c in self.choices)
        if self.kind == "bool":
            return "true or false"
        if self.lo is not None and self.hi is not None:
            return f"{_fmt(self.lo)}..{_fmt(self.hi)}"
        if self.lo is not None:
            return f">= {_fmt(self.lo)}"
        return "any"


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def param(
    default: Any,
    doc: str,
    *,
    source: str = "rulebook",
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[Any, ...] | None = None,
) -> Any:
    """A parameter field: its rulebook default, a one-line doc, its source and allowed values."""
    meta = {"doc": doc, "source": source, "lo": lo, "hi": hi, "choices": choices}
    if isinstance(default, list | dict):
        raise TypeError("use tuples for sequence defaults")
    return dataclasses.field(default=default, metadata=meta)


def _kind(annotation: Any) -> str:
    if annotation in (int, "int"):
        return "int"
    if annotation in (float, "float"):
        return "float"
    if annotation in (bool, "bool"):
        return "bool"
    if annotation in (str, "str"):
        return "str"
    origin = typing.get_origin(annotation)
    if origin is tuple:
        inner = typing.get_args(annotation)[0]
        return "tuple[float]" if inner is float else "tuple[int]"
    if origin in (types.UnionType, typing.Union):
        raise TypeError(f"parameters may not be optional: {annotation}")
    raise TypeError(f"unsupported parameter type {annotation!r}")


@dataclasses.dataclass(frozen=True)
class Parameters:
    """Base of every game's parameters: a frozen dataclass of :func:`param` fields."""

    GAME: ClassVar[str] = "game"

    @classmethod
    def info(cls) -> dict[str, ParamInfo]:
        """Every rule key with its doc, default and allowed values, in declaration order."""
        hints = typing.get_type_hints(cls)
        out = {}
        for f in dataclasses.fields(cls):
            m = f.metadata
            out[f.name] = ParamInfo(
                name=f.name,
                kind=_kind(hints[f.name]),
                default=f.default,
                doc=m.get("doc", ""),
                source=m.get("source", ""),
                lo=m.get("lo"),
                hi=m.get("hi"),
                choices=m.get("choices"),
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values (tuples become lists)."""
        return {
            k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()
        }

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> Self:
        """Rebuild from :meth:`to_dict` output (a manifest), validating every value."""
        return cls().with_values(values)

    def with_values(self, values: Mapping[str, Any]) -> Self:
        """A copy with ``values`` (strings from the command line or TOML values) applied."""
        info = self.info()
        changes = {}
        for key, raw in values.items():
            if key not in info:
                known = ", ".join(info)
                raise RuleError(f"unknown rule key '{key}' for {self.GAME} (known: {known})")
            changes[key] = _coerce(info[key], raw)
        new = dataclasses.replace(self, **changes)
        new.check()
        return new

    def check(self) -> None:
        """Cross-field checks; subclasses extend. Raises :class:`RuleError`."""


def _bad(p: ParamInfo, raw: Any) -> RuleError:
    kind = {"int": "an integer", "float": "a number", "bool": "true or false", "str": "a string"}
    what = kind.get(p.kind, "a list of numbers")
    allowed = p.allowed()
    tail = f" in {allowed}" if allowed not in ("any", "true or false") else ""
    if p.choices is not None:
        tail = f" ({allowed})"
    return RuleError(f"rule '{p.name}' must be {what}{tail}, got {raw!r}")


def _coerce(p: ParamInfo, raw: Any) -> Any:
    fromtext = isinstance(raw, str) and p.kind != "str"
    try:
        if p.kind == "bool":
            if isinstance(raw, bool):
                value = raw
            elif fromtext and raw.strip().lower() in ("true", "1", "yes", "on"):
                value = True
            elif fromtext and raw.strip().lower() in ("false", "0", "no", "off"):
                value = False
            else:
                raise ValueError
        elif p.kind == "int":
            if isinstance(raw, bool):
                raise ValueError
            if fromtext:
                value = int(raw.strip())
            elif isinstance(raw, int):
                value = raw
            elif isinstance(raw, float) and raw.is_integer():
                value = int(raw)
            else:
                raise ValueError
        elif p.kind == "float":
            if isinstance(raw, bool):
                raise ValueError
            value = float(raw.strip()) if fromtext else float(raw)
            if value != value or value in (float("inf"), float("-inf")):
                raise ValueError
        elif p.kind == "str":
            if not isinstance(raw, str) or not raw:
                raise ValueError
            value = raw
        else:
            elem = float if p.kind == "tuple[float]" else int
            items = raw.replace(" ", "").strip("[]()").split(",") if fromtext else list(raw)
            items = [i for i in items if i != ""] if fromtext else items
            if any(isinstance(i, bool) for i in items):
                raise ValueError
            value = tuple(elem(i) for i in items)
            if elem is int and not fromtext and any(not float(i).is_integer() for i in raw):
                raise ValueError
    except (ValueError, TypeError, AttributeError):
        raise _bad(p, raw) from None
    values = value if isinstance(value, tuple) else (value,)
    for v in values:
        if p.choices is not None and v not in p.choices:
            raise _bad(p, raw)
        numeric = p.kind != "str" and not isinstance(v, bool)
        if numeric and ((p.lo is not None and v < p.lo) or (p.hi is not None and v > p.hi)):
            raise _bad(p, raw)
    return value


def parse_assignments(items: list[str]) -> dict[str, str]:
    """Parse ``--set key=value`` items into a dict (later items win)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise RuleError(f"--set expects key=value, got {item!r}")
        out[key] = value.strip()
    return out


def read_rules_file(path: str | Path, game_names: tuple[str, ...]) -> dict[str, Any]:
    """Read a rules TOML file: top-level ``key = value`` pairs, optionally ``game = "<name>"``.

    Relative paths in string values that name existing files are resolved against the TOML
    file's folder, so a variant file can sit next to its deck.
    """
    p = Path(path)
    if not p.is_file():
        raise DataFileError(f"rules file not found: {p}")
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise DataFileError(f"rules file {p} is not valid TOML: {exc}") from None
    if "rules" in data and isinstance(data["rules"], dict) and len(data) <= 2:
        data = {**{k: v for k, v in data.items() if k != "rules"}, **data["rules"]}
    game = data.pop("game", None)
    if game is not None and game not in game_names:
        raise DataFileError(f"rules file {p} is for game {game!r}, not {game_names[0]}")
    for key, value in list(data.items()):
        if isinstance(value, dict):
            raise DataFileError(f"rules file {p}: key '{key}' is a table; expected a value")
        if isinstance(value, str):
            candidate = p.parent / value
            if not Path(value).is_absolute() and candidate.exists():
                data[key] = str(candidate.resolve())
    return data
