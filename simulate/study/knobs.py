"""Knobs: what a study may change, with the range its declaration allows.

A knob is any scalar rule key (``dice``), a named element of a tuple key (``gene_bag.tail``)
or an entry of the game's data file that the data declares (``deck.Tyrannosaurus.size``,
:func:`simulate.kit.spec.data_knobs`). Its range comes from that declaration; a value outside
it is refused with the same one-line message ``--set`` gives.

``--param`` takes ``KEY=V1,V2,...`` (these values), ``KEY=LO..HI`` (an integer knob: every
integer from LO to HI; a real knob: a range, five points in a sweep) or ``KEY=LO..HI:STEPS``
(STEPS evenly spaced values). Values are kept as the text ``--set`` takes, so a point of a
study is a list of ``--set`` assignments.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from rules.core.errors import DinolabError, RuleError
from rules.core.params import Parameters, ParamInfo, coerce, element_infos
from simulate.kit.spec import GameSpec, Setup, data_knobs

DEFAULT_STEPS = 5
"""Points of a real range without ``:STEPS`` in a sweep."""


@dataclasses.dataclass(frozen=True)
class Knob:
    """A study's knob: its key, kind, allowed range and its value under the study's rules."""

    key: str
    kind: str
    """int, float, bool or str."""
    current: Any
    doc: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple[Any, ...] | None = None

    @property
    def info(self) -> ParamInfo:
        return ParamInfo(
            self.key, self.kind, self.current, self.doc, "", self.lo, self.hi, self.choices
        )

    def text(self, value: Any) -> str:
        """A value as ``--set`` takes it."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return repr(round(value, 12))
        return str(value)

    def value(self, text: str) -> Any:
        """A ``--set`` text as this knob's value, checked against its range."""
        return coerce(self.info, text)

    @property
    def current_text(self) -> str:
        return self.text(self.current)

    def describe(self) -> str:
        return f"{self.key} [{self.info.allowed()}], now {self.current_text}"


def knob(setup: Setup, key: str) -> Knob:
    """The knob ``key`` of a validated configuration; one line naming the problem for an
    unknown key or one that cannot be a knob."""
    params: Parameters = setup.params
    info = params.info()
    if key in info:
        p = info[key]
        if p.kind.startswith("tuple"):
            names = ", ".join(element_infos(p)) if p.names else ""
            hint = f" (its elements: {names})" if names else ""
            raise DinolabError(f"rule '{key}' is a list; a study changes one element by name{hint}")
        return Knob(key, p.kind, getattr(params, key), p.doc, p.lo, p.hi, p.choices)
    head = key.partition(".")[0]
    if head in info and info[head].names:
        elements = element_infos(info[head])
        if key not in elements:
            raise DinolabError(
                f"rule '{head}' has no element '{key.partition('.')[2]}' "
                f"(known: {', '.join(elements)})"
            )
        p = elements[key]
        return Knob(key, p.kind, params.value_of(key), p.doc, p.lo, p.hi, p.choices)
    if head in params.DATA_KEYS:
        entries = data_knobs(setup.data)
        found = _entry(entries, key)
        if found is None:
            some = ", ".join(list(entries)[:6])
            raise DinolabError(
                f"'{key}' is not an entry of {setup.data.describe()} (e.g. {some}; `dinolab "
                f"games {setup.game.name}` lists them)"
            )
        p = entries[found]
        return Knob(found, p.kind, p.default, p.doc, p.lo, p.hi, p.choices)
    known = ", ".join([*info, *(f"{k}.<entry>.<field>" for k in params.DATA_KEYS)])
    raise DinolabError(f"unknown knob '{key}' for {setup.game.name} (known: {known})")


def _entry(entries: dict[str, ParamInfo], key: str) -> str | None:
    """The canonical name of a data entry (names compared case-insensitively, ``_`` = space)."""
    want = key.lower().replace("_", " ")
    for name in entries:
        if name.lower().replace("_", " ") == want:
            return name
    return None


@dataclasses.dataclass(frozen=True)
class Axis:
    """A knob and the values ``--param`` asked for: a list, or a range (``lo .. hi``)."""

    knob: Knob
    values: tuple[str, ...] | None
    """Listed values (``KEY=V1,V2``, or a range already spelled out)."""
    lo: Any = None
    hi: Any = None
    steps: int | None = None

    @property
    def is_range(self) -> bool:
        return self.values is None

    def grid(self) -> tuple[str, ...]:
        """Every value of the axis for a grid (a real range without steps: five points)."""
        if self.values is not None:
            return self.values
        k = self.knob
        if k.kind == "int" and self.steps is None:
            return tuple(str(v) for v in range(self.lo, self.hi + 1))
        n = self.steps or DEFAULT_STEPS
        points = np.linspace(self.lo, self.hi, n)
        if k.kind == "int":
            return tuple(dict.fromkeys(str(round(v)) for v in points))
        return tuple(k.text(float(v)) for v in points)

    def at(self, u: float) -> str:
        """The value at ``u`` in [0, 1) (Latin hypercube samples)."""
        k = self.knob
        if self.values is not None or (self.steps is not None):
            values = self.grid()
            return values[min(len(values) - 1, int(u * len(values)))]
        if k.kind == "int":
            return str(min(self.hi, self.lo + math.floor(u * (self.hi - self.lo + 1))))
        return k.text(self.lo + u * (self.hi - self.lo))

    def describe(self) -> str:
        if self.values is not None:
            return f"{self.knob.key} in {{{', '.join(self.values)}}}"
        steps = f" in {self.steps} steps" if self.steps else ""
        return f"{self.knob.key} from {self.knob.text(self.lo)} to {self.knob.text(self.hi)}{steps}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.knob.key,
            "values": self.values,
            "lo": self.lo,
            "hi": self.hi,
            "steps": self.steps,
        }


def parse_axis(setup: Setup, spec: str) -> Axis:
    """One ``--param KEY=V1,V2,... | KEY=LO..HI[:STEPS]``."""
    key, sep, rest = spec.partition("=")
    key, rest = key.strip(), rest.strip()
    if not sep or not key or not rest:
        raise DinolabError(f"--param expects KEY=V1,V2,... or KEY=LO..HI[:STEPS], got {spec!r}")
    k = knob(setup, key)
    if ".." in rest:
        if k.kind not in ("int", "float"):
            raise DinolabError(f"--param {k.key}: a range needs a numeric knob; list its values")
        span, _, steps_text = rest.partition(":")
        lo_text, _, hi_text = span.partition("..")
        lo, hi = k.value(lo_text.strip()), k.value(hi_text.strip())
        if lo >= hi:
            raise DinolabError(f"--param {k.key}: the range {span} is empty (LO must be below HI)")
        steps = None
        if steps_text:
            try:
                steps = int(steps_text)
            except ValueError:
                raise DinolabError(
                    f"--param {k.key}: STEPS must be an integer, got {steps_text!r}"
                ) from None
            if steps < 2:
                raise DinolabError(f"--param {k.key}: STEPS must be at least 2, got {steps}")
        return Axis(k, None, lo, hi, steps)
    texts = [t.strip() for t in rest.split(",") if t.strip()]
    if not texts:
        raise DinolabError(f"--param {k.key} lists no values")
    values = tuple(dict.fromkeys(k.text(k.value(t)) for t in texts))
    return Axis(k, values)


def parse_axes(setup: Setup, specs: Sequence[str]) -> list[Axis]:
    """Every ``--param``, each knob once."""
    if not specs:
        raise DinolabError("give at least one --param KEY=V1,V2,... or KEY=LO..HI")
    axes = [parse_axis(setup, s) for s in specs]
    keys = [a.knob.key for a in axes]
    if len(set(keys)) != len(keys):
        twice = next(k for k in keys if keys.count(k) > 1)
        raise DinolabError(f"--param {twice} is given twice")
    return axes


def check_point(game: GameSpec, setup: Setup, assignments: dict[str, str]) -> None:
    """Refuse a point whose values together break a rule (a cross-field check)."""
    try:
        params = setup.params.with_values(assignments)
        game.setup(params, setup.n_players, ",".join(s.spec for s in setup.lineup))
    except RuleError as exc:
        point = ", ".join(f"{k}={v}" for k, v in assignments.items())
        raise DinolabError(f"the point {point} breaks a rule: {exc}") from None
