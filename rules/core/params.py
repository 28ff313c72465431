"""Declarative, validated game parameters (the TAG "Parameters" idea).

Each game declares a frozen dataclass deriving from :class:`Parameters`; every field is made
with :func:`param`, which records a one-line doc, the allowed range or choices, and where the
default comes from. Overrides arrive as ``--set key=value`` strings or as TOML values and are
parsed and checked here, so every game refuses bad input with the same kind of message::

    unknown rule key 'hand_sise' for dino-kontra-dino (known: deck, first_holder, hand_size, ...)
    rule 'hand_size' must be an integer in 1..10, got '0'

Two kinds of dotted key reach inside a value:

* ``gene_bag.tail=4``: one element of a tuple key whose elements the game names
  (``param(..., names=(...))``); the rest of the tuple keeps its value.
* ``deck.Tyrannosaurus.size=5``: an entry of the data file a key names, for the keys a game
  lists in :attr:`Parameters.DATA_KEYS`. Such changes are kept, sorted, in the game's
  ``edits`` rule (``deck.Allosaurus.speed=2;deck.Tyrannosaurus.size=5``), so a run records them
  like any other rule value; the game's data loader applies them and checks each entry's name
  and range against the file (:func:`parse_edits`).
"""

from __future__ import annotations

import dataclasses
import re
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
    names: tuple[str, ...] | None = None
    """The names of a tuple key's elements (``gene_bag.tail``), if the game gives them."""

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
    names: tuple[str, ...] | None = None,
) -> Any:
    """A parameter field: its rulebook default, a one-line doc, its source and allowed values
    (``names``: a tuple key's element names, so ``key.name=value`` sets one element)."""
    meta = {"doc": doc, "source": source, "lo": lo, "hi": hi, "choices": choices, "names": names}
    if isinstance(default, list | dict):
        raise TypeError("use tuples for sequence defaults")
    if names is not None and (not isinstance(default, tuple) or len(names) != len(default)):
        raise TypeError("names= needs a tuple default with one name per element")
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
    DATA_KEYS: ClassVar[tuple[str, ...]] = ()
    """Keys naming a data file whose entries ``key.entry.field=value`` may change (the game
    then declares an ``edits`` rule that holds them and applies them when it loads the file)."""

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
                names=m.get("names"),
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values (tuples become lists); no ``edits`` key when the data is
        unchanged, so runs made before data edits existed keep their configuration."""
        return {
            k: list(v) if isinstance(v, tuple) else v
            for k, v in dataclasses.asdict(self).items()
            if not (k == "edits" and v == "")
        }

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> Self:
        """Rebuild from :meth:`to_dict` output (a manifest), validating every value."""
        return cls().with_values(values)

    def with_values(self, values: Mapping[str, Any]) -> Self:
        """A copy with ``values`` (strings from the command line or TOML values) applied.

        Whole keys first, then tuple elements (``gene_bag.tail``), then data entries
        (``deck.Tyrannosaurus.size``), so an element or entry changes the value given with it.
        """
        info = self.info()
        changes: dict[str, Any] = {}
        elements: list[tuple[str, str, Any]] = []
        entries: dict[str, str] = {}
        for key, raw in values.items():
            if key in info:
                changes[key] = coerce(info[key], raw)
                continue
            head, dot, rest = key.partition(".")
            if dot and head in self.DATA_KEYS and rest:
                entries[key] = _entry_value(key, raw)
            elif dot and head in info and info[head].names is not None:
                elements.append((head, rest, raw))
            elif dot and head in info:
                raise RuleError(f"rule '{head}' has no named elements; set it whole ({head}=...)")
            else:
                known = ", ".join(info)
                raise RuleError(f"unknown rule key '{key}' for {self.GAME} (known: {known})")
        for head, name, raw in elements:
            p = info[head]
            assert p.names is not None
            if name not in p.names:
                raise RuleError(
                    f"rule '{head}' has no element '{name}' (known: {', '.join(p.names)})"
                )
            current = list(changes.get(head, getattr(self, head)))
            if len(current) != len(p.names):
                raise RuleError(f"rule '{head}' needs {len(p.names)} values to set '{name}'")
            elem = _element_info(p, name)
            current[p.names.index(name)] = coerce(elem, raw)
            changes[head] = tuple(current)
        if entries:
            if "edits" not in info:
                raise TypeError(f"{type(self).__name__} lists DATA_KEYS but has no 'edits' rule")
            merged = parse_edits(changes.get("edits", getattr(self, "edits", "")), self.DATA_KEYS)
            merged.update(entries)
            changes["edits"] = format_edits(merged)
        new = dataclasses.replace(self, **changes)
        new.check()
        if "edits" in info:
            parse_edits(getattr(new, "edits", ""), self.DATA_KEYS)
        return new

    def value_of(self, key: str) -> Any:
        """The value of a rule key or a tuple element (``gene_bag.tail``); data entries are
        the data file's (see the game's data loader)."""
        info = self.info()
        if key in info:
            return getattr(self, key)
        head, _, name = key.partition(".")
        if head in info and info[head].names and name in info[head].names:
            return getattr(self, head)[info[head].names.index(name)]
        raise RuleError(f"unknown rule key '{key}' for {self.GAME}")

    def edit_values(self) -> dict[str, str]:
        """The data entries this configuration changes (``deck.X.size`` -> ``'5'``)."""
        if not self.DATA_KEYS:
            return {}
        return parse_edits(getattr(self, "edits", ""), self.DATA_KEYS)

    def check(self) -> None:
        """Cross-field checks; subclasses extend. Raises :class:`RuleError`."""


def _element_info(p: ParamInfo, name: str) -> ParamInfo:
    """The scalar :class:`ParamInfo` of one named element of a tuple key."""
    kind = "float" if p.kind == "tuple[float]" else "int"
    assert p.names is not None
    default = p.default[p.names.index(name)] if len(p.default) == len(p.names) else None
    return dataclasses.replace(p, name=f"{p.name}.{name}", kind=kind, default=default, names=None)


def element_infos(p: ParamInfo) -> dict[str, ParamInfo]:
    """Every named element of a tuple key as a scalar rule key (``gene_bag.tail`` ...)."""
    return {f"{p.name}.{n}": _element_info(p, n) for n in p.names or ()}


_ENTRY = re.compile(r"^[^=;]+$")


def _entry_value(key: str, raw: Any) -> str:
    """A data entry's new value as text (the data loader checks its range)."""
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        raise RuleError(f"data entry '{key}' takes a number, got {raw!r}")
    text = str(raw).strip()
    try:
        float(text)
    except ValueError:
        raise RuleError(f"data entry '{key}' takes a number, got {raw!r}") from None
    return text


def parse_edits(text: str, data_keys: tuple[str, ...]) -> dict[str, str]:
    """``deck.X.size=5;deck.Y.speed=2`` as a dict (later entries win), each key checked to
    start with one of ``data_keys`` and to name an entry and a field."""
    out: dict[str, str] = {}
    for item in (i.strip() for i in text.split(";")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        head, _, rest = key.partition(".")
        entry, _, field = rest.rpartition(".")
        if not sep or head not in data_keys or not entry or not field or not _ENTRY.match(key):
            keys = " or ".join(f"{k}.<entry>.<field>=<number>" for k in data_keys)
            raise RuleError(f"rule 'edits' takes {keys} joined by ';', got {item!r}")
        out[key] = _entry_value(key, value.strip())
    return out


def format_edits(edits: Mapping[str, str]) -> str:
    """The canonical text of data entry changes: sorted by key, joined by ';'."""
    return ";".join(f"{k}={edits[k]}" for k in sorted(edits))


def split_entry(key: str) -> tuple[str, str, str]:
    """``deck.Tyrannosaurus Rex.size`` -> ``('deck', 'Tyrannosaurus Rex', 'size')``."""
    head, _, rest = key.partition(".")
    entry, _, field = rest.rpartition(".")
    return head, entry, field


def _bad(p: ParamInfo, raw: Any) -> RuleError:
    kind = {"int": "an integer", "float": "a number", "bool": "true or false", "str": "a string"}
    what = kind.get(p.kind, "a list of numbers")
    allowed = p.allowed()
    tail = f" in {allowed}" if allowed not in ("any", "true or false") else ""
    if p.choices is not None:
        tail = f" ({allowed})"
    return RuleError(f"rule '{p.name}' must be {what}{tail}, got {raw!r}")


def coerce(p: ParamInfo, raw: Any) -> Any:
    """``raw`` (text or a TOML value) as a value of ``p``'s kind, checked against its range or
    choices; :class:`RuleError` naming the key and what it allows."""
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
            if not isinstance(raw, str) or (not raw and p.default != ""):
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
