"""Helpers every game's data edits share (``deck.Tyrannosaurus.size=5``; see
:mod:`rules.core.params`): matching an entry's name, refusing an unknown one, reading a value."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from rules.core.errors import RuleError


def norm_name(name: str) -> str:
    """A name as edits match it: case ignored, ``_`` for a space, spaces collapsed."""
    return " ".join(name.replace("_", " ").split()).lower()


def unknown_entry(key: str, what: str, entry: str, names: Sequence[str]) -> RuleError:
    """The error for an entry naming no ``what`` of the data, the closest names shown first."""
    unique = list(dict.fromkeys(names))
    by_norm = {norm_name(n): n for n in reversed(unique)}
    close = [by_norm[c] for c in difflib.get_close_matches(norm_name(entry), list(by_norm), n=3)]
    shown = close + [n for n in unique if n not in close][: max(0, 5 - len(close))]
    more = f", ... ({len(unique)} in all)" if len(unique) > len(shown) else ""
    return RuleError(f"data entry '{key}': no {what} '{entry}' (known: {', '.join(shown)}{more})")


def entry_int(key: str, raw: str, lo: int, hi: int) -> int:
    """An entry's value as an integer in ``lo..hi``, or a :class:`RuleError` naming the key."""
    try:
        value = float(raw)
    except (TypeError, ValueError):
        value = float("nan")
    if not value.is_integer() or not lo <= value <= hi:
        raise RuleError(f"data entry '{key}' must be an integer in {lo}..{hi}, got {raw!r}")
    return int(value)
