"""Dino Kontra Dino decks: the 45 dinosaur cards and 30 event cards, loaded from CSV.

The real card list is not public (``shared/rules/dino_kontra_dino.md``, D1). Two decks ship in
``data/``; a designer can point ``deck`` at their own CSV of the same format:

``provisional``
    The default. Synthetic traits with the rulebook's named cards kept as the rulebook states
    them (Cetiosaurus #12; Brachylophosaurus speed 4; Coelurus speed 5; Dilophosaurus predation 4
    and adaptability 2; Psittacosaurus predation 2 and adaptability 4; "Forest Fire" needs speed;
    "Competing Species" needs predation + adaptability). Labelled provisional in every report.
``yardstick``
    The synthetic deck of the C speed yardstick (``shared/bench/dkd_reference.c``), traits
    uniform in 1..5: the spec's sensitivity-check deck and the key to an exact cross-check.

CSV format, one row per card (``id`` counts from 1 within each kind, without gaps)::

    kind,id,name,predation,size,speed,adaptability,needs,source
    dino,12,Cetiosaurus,3,5,1,3,,rulebook: card #12 (traits provisional)
    event,1,Forest Fire,,,,,speed,rulebook: example 1
    event,21,Competing Species,,,,,predation+adaptability,rulebook: example 2
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from rules.core import datafile
from rules.core.datafile import CsvFile, open_data, write_csv
from rules.core.edits import entry_int, norm_name, unknown_entry
from rules.core.errors import RuleError
from rules.core.params import ParamInfo, split_entry

TRAITS = ("predation", "size", "speed", "adaptability")
"""The four traits, in the rulebook's tie-break order."""
NO_TRAIT = 4
"""Second-trait code of a one-trait event: column 4 of the kernel's dino table is always 0."""
COLUMNS = ("kind", "id", "name", *TRAITS, "needs", "source")
DATA_DIR = Path(__file__).with_name("data")
BUILTIN = {
    "provisional": DATA_DIR / "provisional_deck.csv",
    "yardstick": DATA_DIR / "yardstick_deck.csv",
}
EDIT_KEY = "deck"
"""The rule key whose entries ``edits`` changes (``deck.<dino>.<trait>``)."""
TRAIT_LO, TRAIT_HI = 1, 5
"""A trait's range, as the deck format allows it."""


@dataclasses.dataclass(frozen=True)
class Deck:
    """A validated deck. Arrays are what the kernel reads; names and sources are for people."""

    label: str
    path: str
    sha256: str
    dino_names: tuple[str, ...]
    dino_traits: np.ndarray  # int8 [D, 4]
    dino_sources: tuple[str, ...]
    event_names: tuple[str, ...]
    event_needs: np.ndarray  # int8 [E, 2]; second column NO_TRAIT for one-trait events
    event_sources: tuple[str, ...]
    edited_entries: int = 0
    """Traits changed by rule ``edits`` (:meth:`edited`); 0 for the file as it is."""

    @property
    def n_dinos(self) -> int:
        return len(self.dino_names)

    @property
    def n_events(self) -> int:
        return len(self.event_names)

    @property
    def provisional(self) -> bool:
        """True unless every card comes from a published source."""
        return any("provisional" in s or "synthetic" in s for s in self.dino_sources)

    def kernel_dinos(self) -> np.ndarray:
        """int8 [D, 5]: the four traits then a zero column, indexed by ``NO_TRAIT``."""
        out = np.zeros((self.n_dinos, 5), dtype=np.int8)
        out[:, :4] = self.dino_traits
        return out

    def kernel_events(self) -> np.ndarray:
        """int8 [E, 2]: required trait codes (0-3), ``NO_TRAIT`` when only one."""
        return np.ascontiguousarray(self.event_needs, dtype=np.int8)

    def needs_text(self, event: int) -> str:
        """The required traits of event index ``event`` as 'speed' or 'predation+adaptability'."""
        a, b = self.event_needs[event]
        return TRAITS[a] if b == NO_TRAIT else f"{TRAITS[a]}+{TRAITS[b]}"

    def describe(self) -> str:
        """One line for reports: which deck, how many cards, provisional or not."""
        kind = "PROVISIONAL (synthetic traits)" if self.provisional else "designer-supplied"
        n = self.edited_entries
        edits = f"; {n} {'entry' if n == 1 else 'entries'} changed by rule 'edits'" if n else ""
        return (
            f"deck '{self.label}' ({self.n_dinos} dinosaurs, {self.n_events} events, {kind}"
            f"{edits}; sha256 {self.sha256[:12]})"
        )

    def knobs(self) -> dict[str, ParamInfo]:
        """Every trait a configuration may change (``deck.<dino>.<trait>``), with its value
        (a name on several cards: its first card's)."""
        out: dict[str, ParamInfo] = {}
        for rows in _rows_by_name(self.dino_names).values():
            i = rows[0]
            name = self.dino_names[i]
            for j, trait in enumerate(TRAITS):
                key = f"{EDIT_KEY}.{name}.{trait}"
                out[key] = ParamInfo(
                    name=key,
                    kind="int",
                    default=int(self.dino_traits[i, j]),
                    doc=f"{name}'s {trait} trait (deck file)",
                    source="data file",
                    lo=TRAIT_LO,
                    hi=TRAIT_HI,
                )
        return out

    def edited(self, edits: Mapping[str, str]) -> Deck:
        """This deck with the traits ``edits`` names changed (``deck.<dino>.<trait>`` ->
        value text), validated, its digest that of its new CSV text (:func:`deck_csv`).

        A dino name matches without regard to case, ``_`` standing for a space; the edit
        changes every card of that name. Edits that change nothing return this deck. Raises
        :class:`RuleError` naming a bad entry, field or value.
        """
        rows = _rows_by_name(self.dino_names)
        traits = self.dino_traits.copy()
        seen: dict[tuple[str, int], tuple[str, int]] = {}
        for key, raw in edits.items():
            head, entry, field = split_entry(key)
            if head != EDIT_KEY:
                raise RuleError(f"data entry '{key}' must start with '{EDIT_KEY}.'")
            found = rows.get(norm_name(entry))
            if found is None:
                raise unknown_entry(key, "dinosaur", entry, self.dino_names)
            if field.lower() not in TRAITS:
                raise RuleError(
                    f"data entry '{key}': no trait '{field}' (traits: {', '.join(TRAITS)})"
                )
            j = TRAITS.index(field.lower())
            value = entry_int(key, raw, TRAIT_LO, TRAIT_HI)
            _once(seen, (norm_name(entry), j), key, value)
            traits[found, j] = value
        rows_changed, cols_changed = np.nonzero(traits != self.dino_traits)
        changed = {
            (norm_name(self.dino_names[i]), j)
            for i, j in zip(rows_changed, cols_changed, strict=True)
        }
        if not changed:
            return self
        text = deck_csv(dataclasses.replace(self, dino_traits=traits))
        new = parse_deck(text, label=self.label, path=self.path)
        return dataclasses.replace(new, edited_entries=len(changed))


def _rows_by_name(names: tuple[str, ...]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        out.setdefault(norm_name(name), []).append(i)
    return out


def _once(seen: dict, entry: tuple, key: str, value: int) -> None:
    """Refuse two spellings of one entry with different values."""
    if entry in seen and seen[entry][1] != value:
        raise RuleError(f"data entries '{seen[entry][0]}' and '{key}' set the same trait")
    seen[entry] = (key, value)


def load_deck(spec: str) -> Deck:
    """Load a built-in deck by name (``provisional``, ``yardstick``) or a CSV file by path."""
    f = open_data("deck", spec, BUILTIN, noun="deck")
    return parse_deck(f.text, label=f.label, path=str(f.path), sha256=datafile.sha256(f.raw))


def parse_deck(text: str, *, label: str, path: str = "", sha256: str = "") -> Deck:
    """Parse and validate deck CSV text. Raises :class:`DataFileError` naming the problem."""
    f = CsvFile(text, f"deck {path or label}", required=[c for c in COLUMNS if c != "source"])
    dinos: dict[int, tuple[str, tuple[int, ...], str]] = {}
    events: dict[int, tuple[str, tuple[int, int], str]] = {}
    for row in f.rows():
        kind = row["kind"].lower()
        name = row["name"]
        source = row["source"]
        try:
            cid = int(row["id"])
        except ValueError:
            raise row.error("id must be an integer") from None
        if not name:
            raise row.error("empty name")
        if kind == "dino":
            traits = []
            for t in TRAITS:
                cell = row[t]
                if not cell.isdigit() or not 1 <= int(cell) <= 5:
                    raise row.error(f"{name} {t} must be 1-5, got {cell!r}")
                traits.append(int(cell))
            table: dict = dinos
            value: tuple = (name, tuple(traits), source)
        elif kind == "event":
            needs = [n.strip().lower() for n in row["needs"].split("+") if n.strip()]
            if not 1 <= len(needs) <= 2 or any(n not in TRAITS for n in needs):
                raise row.error(
                    f"{name} needs must be one or two of {'/'.join(TRAITS)} joined by '+', "
                    f"got {row.raw.get('needs')!r}"
                )
            if len(needs) == 2 and needs[0] == needs[1]:
                raise row.error(f"{name} names a trait twice")
            codes = [TRAITS.index(n) for n in needs] + [NO_TRAIT]
            table, value = events, (name, (codes[0], codes[1]), source)
        else:
            raise row.error(f"kind must be 'dino' or 'event', got {kind!r}")
        if cid in table:
            raise row.error(f"duplicate {kind} id {cid}")
        table[cid] = value
    for kind, table in (("dino", dinos), ("event", events)):
        if not table:
            raise f.error(f"no {kind} cards")
        if sorted(table) != list(range(1, len(table) + 1)):
            raise f.error(f"{kind} ids must run 1..{len(table)} without gaps")
    d = [dinos[i] for i in range(1, len(dinos) + 1)]
    e = [events[i] for i in range(1, len(events) + 1)]
    return Deck(
        label=label,
        path=path,
        sha256=sha256 or datafile.sha256(text),
        dino_names=tuple(x[0] for x in d),
        dino_traits=np.array([x[1] for x in d], dtype=np.int8),
        dino_sources=tuple(x[2] for x in d),
        event_names=tuple(x[0] for x in e),
        event_needs=np.array([x[1] for x in e], dtype=np.int8),
        event_sources=tuple(x[2] for x in e),
    )


def deck_csv(deck: Deck) -> str:
    """The deck as CSV text in the loader's format (used to store it beside a run's logs)."""
    rows = [
        ["dino", i + 1, name, *deck.dino_traits[i].tolist(), "", deck.dino_sources[i]]
        for i, name in enumerate(deck.dino_names)
    ]
    rows += [
        ["event", i + 1, name, "", "", "", "", deck.needs_text(i), deck.event_sources[i]]
        for i, name in enumerate(deck.event_names)
    ]
    return write_csv(COLUMNS, rows)
