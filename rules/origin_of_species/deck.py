"""The card deck of Evolution: The Origin of Species, loaded from CSV and validated.

A card is played either as an animal (face down) or as one of its traits (face up). Cards
with the same top and bottom trait are interchangeable, so the engine works with card
*types* (one row of the CSV) and their copies; ``Deck.top[t]`` / ``Deck.bottom[t]`` are the
trait ids of type ``t`` (bottom -1 for a one-trait card).

``default`` (alias ``base``) is the spec's reconstructed 84-card deck, shipped as
``data/base_deck.csv`` (provenance in ``data/base_deck.md``). A designer's file in the same
format replaces it; errors name the file, the line and the problem in one line::

    card_id,trait_top,trait_bottom,copies,top_extra_food,bottom_extra_food,top_is_paired,...
    EVO-02,Poisonous,Carnivore,4,0,1,no,...
    EVO-06,Swimming,,8,0,,no,...

Required columns: ``card_id``, ``trait_top``, ``trait_bottom``, ``copies``. Optional:
``top_extra_food``, ``bottom_extra_food`` and ``top_is_paired`` (checked against the rules
when not empty), ``name_ru``, ``name_sk``, ``source``.

A configuration may change a card's copies without a new file: rule ``edits`` holds entries
``deck.<card_id>.copies=<1..64>`` (``--set deck.EVO-06.copies=6``), applied by
:meth:`Deck.edited`; :meth:`Deck.knobs` lists them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from rules.core.datafile import CsvFile, Row, open_data, sha256, write_csv
from rules.core.edits import entry_int, unknown_entry
from rules.core.errors import RuleError
from rules.core.params import ParamInfo, split_entry
from rules.origin_of_species.constants import (
    MAX_TYPES,
    PAIRED,
    PRINTED_FOOD,
    TRAITS,
    trait_id,
)

DATA_DIR = Path(__file__).with_name("data")
BUILTIN = {"default": DATA_DIR / "base_deck.csv", "base": DATA_DIR / "base_deck.csv"}
COLUMNS = (
    "card_id",
    "trait_top",
    "trait_bottom",
    "copies",
    "top_extra_food",
    "bottom_extra_food",
    "top_is_paired",
    "name_ru",
    "name_sk",
    "source",
)
REQUIRED = ("card_id", "trait_top", "trait_bottom", "copies")
MAX_COPIES = 64
EDIT_KEY = "deck"
"""The rule key whose entries ``edits`` changes (``deck.<card_id>.copies``)."""
EDIT_FIELDS = ("copies",)


@dataclasses.dataclass(frozen=True)
class Deck:
    """A validated deck of one set: card types, their traits and copies."""

    label: str
    path: str
    card_ids: tuple[str, ...]
    top: tuple[int, ...]
    bottom: tuple[int, ...]  # -1: one-trait card
    copies: tuple[int, ...]
    names_ru: tuple[str, ...]
    names_sk: tuple[str, ...]
    sources: tuple[str, ...]
    edited_entries: int = 0
    """Card types whose copies rule ``edits`` changed (:meth:`edited`); 0 for the file."""

    @property
    def n_types(self) -> int:
        return len(self.card_ids)

    @property
    def n_cards(self) -> int:
        """Cards in one set."""
        return sum(self.copies)

    @property
    def provisional(self) -> bool:
        """The shipped deck is reconstructed from public implementations, not the print."""
        return self.path == str(BUILTIN["default"])

    @property
    def sha256(self) -> str:
        """Digest of the canonical CSV text (:meth:`to_csv`)."""
        return sha256(self.to_csv())

    def counts(self, trait: int) -> int:
        """Cards of one set that carry ``trait`` (top or bottom)."""
        return sum(
            c for t, b, c in zip(self.top, self.bottom, self.copies, strict=True) if trait in (t, b)
        )

    def type_name(self, t: int) -> str:
        """``Top`` or ``Top / Bottom`` for card type ``t``."""
        if self.bottom[t] < 0:
            return TRAITS[self.top[t]]
        return f"{TRAITS[self.top[t]]} / {TRAITS[self.bottom[t]]}"

    def describe(self) -> str:
        """One line for reports: which deck, how many cards, whether it is provisional."""
        kind = (
            "PROVISIONAL: reconstructed from public implementations, not checked against the "
            "printed deck"
            if self.provisional
            else "designer-supplied"
        )
        name = Path(self.path).name if self.path else self.label
        builtin = f" (built-in '{self.label}')" if self.provisional else ""
        n = self.edited_entries
        edits = f"; {n} {'entry' if n == 1 else 'entries'} changed by rule 'edits'" if n else ""
        return (
            f"deck file {name}{builtin}: {self.n_cards} cards of {self.n_types} kinds per set; "
            f"{kind}{edits}; sha256 {self.sha256[:12]}"
        )

    def knobs(self) -> dict[str, ParamInfo]:
        """Every card type's copies a configuration may change (``deck.<card_id>.copies``)."""
        out = {}
        for t, cid in enumerate(self.card_ids):
            key = f"{EDIT_KEY}.{cid}.copies"
            out[key] = ParamInfo(
                name=key,
                kind="int",
                default=self.copies[t],
                doc=f"copies of {cid} ({self.type_name(t)}) in one set (deck file)",
                source="data file",
                lo=1,
                hi=MAX_COPIES,
            )
        return out

    def edited(self, edits: Mapping[str, str]) -> Deck:
        """This deck with the copies ``edits`` names changed (``deck.<card_id>.copies`` ->
        value text, the id matched without regard to case), validated; its digest follows
        (:attr:`sha256`). Edits that change nothing return this deck. Raises
        :class:`RuleError` naming a bad entry, field or value.

        Copies run 1..``MAX_COPIES`` as in a deck file (drop a card type by leaving its row
        out of a file); the total per game is checked with the player count
        (``OosParameters.check_players``).
        """
        index = {cid.lower(): t for t, cid in enumerate(self.card_ids)}
        copies = list(self.copies)
        seen: dict[int, str] = {}
        for key, raw in edits.items():
            head, entry, field = split_entry(key)
            if head != EDIT_KEY:
                raise RuleError(f"data entry '{key}' must start with '{EDIT_KEY}.'")
            t = index.get(entry.strip().lower())
            if t is None:
                raise unknown_entry(key, "card", entry, self.card_ids)
            if field.lower() not in EDIT_FIELDS:
                raise RuleError(
                    f"data entry '{key}': no field '{field}' (fields: {', '.join(EDIT_FIELDS)})"
                )
            value = entry_int(key, raw, 1, MAX_COPIES)
            if t in seen and copies[t] != value:
                raise RuleError(f"data entries '{seen[t]}' and '{key}' set the same copies")
            seen[t] = key
            copies[t] = value
        changed = sum(a != b for a, b in zip(copies, self.copies, strict=True))
        if not changed:
            return self
        draft = dataclasses.replace(self, copies=tuple(copies))
        new = parse_deck(draft.to_csv(), label=self.label, path=self.path)
        return dataclasses.replace(new, edited_entries=changed)

    def kernel_types(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """int8 top, bottom (-1 none) and int64 copies per type, for the rules table."""
        return (
            np.array(self.top, dtype=np.int8),
            np.array(self.bottom, dtype=np.int8),
            np.array(self.copies, dtype=np.int64),
        )

    def to_csv(self) -> str:
        """The deck in the loader's format (round-trips through :func:`parse_deck`)."""
        rows = []
        for i in range(self.n_types):
            top, bot = self.top[i], self.bottom[i]
            rows.append(
                [
                    self.card_ids[i],
                    TRAITS[top],
                    TRAITS[bot] if bot >= 0 else "",
                    self.copies[i],
                    PRINTED_FOOD[top],
                    PRINTED_FOOD[bot] if bot >= 0 else "",
                    "yes" if top in PAIRED else "no",
                    self.names_ru[i],
                    self.names_sk[i],
                    self.sources[i],
                ]
            )
        return write_csv(COLUMNS, rows)


def load_deck(spec: str) -> Deck:
    """The built-in deck (``default`` / ``base``) or a deck CSV by path."""
    f = open_data("deck", spec, BUILTIN, noun="deck", aliases={"base": "default"})
    return parse_deck(f.text, label=f.label, path=str(f.path))


def _trait(row: Row, column: str) -> int:
    t = trait_id(row[column])
    if t < 0:
        raise row.error(f"unknown trait {row[column]!r} in {column} (known: {', '.join(TRAITS)})")
    return t


def _check_int(row: Row, column: str, expected: int, name: str) -> None:
    cell = row[column]
    if cell == "":
        return
    try:
        value = int(cell)
    except ValueError:
        raise row.error(f"{column} must be an integer, got {cell!r}") from None
    if value != expected:
        raise row.error(
            f"{column} of {name} must be {expected} (the rules' extra food), got {value}"
        )


def parse_deck(text: str, *, label: str, path: str = "") -> Deck:
    """Parse and validate deck CSV text; raises :class:`DataFileError` naming the problem."""
    f = CsvFile(text, f"deck {path or label}", required=REQUIRED, known=COLUMNS)
    ids: list[str] = []
    tops: list[int] = []
    bots: list[int] = []
    copies: list[int] = []
    ru: list[str] = []
    sk: list[str] = []
    src: list[str] = []
    seen: dict[tuple[int, int], int] = {}
    for row in f.rows():
        if row.extra:
            raise row.error("more cells than columns")
        if row.blank():
            continue
        cid = row["card_id"]
        if not cid:
            raise row.error("empty card_id")
        if cid in ids:
            raise row.error(f"duplicate card_id {cid!r}")
        if not row["trait_top"]:
            raise row.error("empty trait_top")
        top = _trait(row, "trait_top")
        bot = _trait(row, "trait_bottom") if row["trait_bottom"] else -1
        if bot == top:
            raise row.error(f"trait_top and trait_bottom are both {TRAITS[top]}")
        try:
            n = int(row["copies"])
        except ValueError:
            raise row.error(
                f"copies must be an integer 1..{MAX_COPIES}, got {row['copies']!r}"
            ) from None
        if not 1 <= n <= MAX_COPIES:
            raise row.error(f"copies must be 1..{MAX_COPIES}, got {n}")
        _check_int(row, "top_extra_food", PRINTED_FOOD[top], TRAITS[top])
        if bot < 0 and row["bottom_extra_food"]:
            raise row.error("bottom_extra_food given for a one-trait card")
        if bot >= 0:
            _check_int(row, "bottom_extra_food", PRINTED_FOOD[bot], TRAITS[bot])
        paired = row["top_is_paired"].lower()
        if paired:
            if paired not in ("yes", "no"):
                raise row.error(f"top_is_paired must be yes or no, got {paired!r}")
            if (paired == "yes") != (top in PAIRED):
                truth = "yes" if top in PAIRED else "no"
                raise row.error(f"top_is_paired of {TRAITS[top]} must be {truth}")
        key = (top, bot)
        if key in seen:
            raise row.error(
                f"the same card as line {seen[key]} "
                f"({TRAITS[top]}{' / ' + TRAITS[bot] if bot >= 0 else ''}); add its copies there"
            )
        seen[key] = row.line
        ids.append(cid)
        tops.append(top)
        bots.append(bot)
        copies.append(n)
        ru.append(row["name_ru"])
        sk.append(row["name_sk"])
        src.append(row["source"])
    if not ids:
        raise f.error("no cards")
    if len(ids) > MAX_TYPES:
        raise f.error(f"{len(ids)} kinds of card, at most {MAX_TYPES}")
    return Deck(
        label=label,
        path=path,
        card_ids=tuple(ids),
        top=tuple(tops),
        bottom=tuple(bots),
        copies=tuple(copies),
        names_ru=tuple(ru),
        names_sk=tuple(sk),
        sources=tuple(src),
    )
