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

import csv
import dataclasses
import hashlib
import io
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from rules.core.edits import entry_int, unknown_entry
from rules.core.errors import DataFileError, RuleError
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
        return hashlib.sha256(self.to_csv().encode()).hexdigest()

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
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(COLUMNS)
        for i in range(self.n_types):
            top, bot = self.top[i], self.bottom[i]
            w.writerow(
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
        return buf.getvalue()


def load_deck(spec: str) -> Deck:
    """The built-in deck (``default`` / ``base``) or a deck CSV by path."""
    if spec in BUILTIN:
        path, label = BUILTIN[spec], "default"
    else:
        path, label = Path(spec), Path(spec).name
        if not path.is_file():
            raise DataFileError(
                f"deck '{spec}' is neither a built-in deck ({', '.join(BUILTIN)}) nor a file"
            )
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataFileError(f"deck {path}: cannot read as UTF-8 text ({exc})") from None
    return parse_deck(text, label=label, path=str(path))


def _trait(where: str, line: int, column: str, cell: str) -> int:
    t = trait_id(cell)
    if t < 0:
        raise DataFileError(
            f"deck {where} line {line}: unknown trait {cell!r} in {column} "
            f"(known: {', '.join(TRAITS)})"
        )
    return t


def _check_int(where: str, line: int, column: str, cell: str, expected: int, name: str) -> None:
    if cell == "":
        return
    try:
        value = int(cell)
    except ValueError:
        raise DataFileError(
            f"deck {where} line {line}: {column} must be an integer, got {cell!r}"
        ) from None
    if value != expected:
        raise DataFileError(
            f"deck {where} line {line}: {column} of {name} must be {expected} (the rules' extra "
            f"food), got {value}"
        )


def parse_deck(text: str, *, label: str, path: str = "") -> Deck:
    """Parse and validate deck CSV text; raises :class:`DataFileError` naming the problem."""
    where = path or label
    reader = csv.DictReader(io.StringIO(text))
    header = [(h or "").strip() for h in (reader.fieldnames or [])]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise DataFileError(f"deck {where}: missing column(s) {', '.join(missing)}")
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        raise DataFileError(
            f"deck {where}: unknown column(s) {', '.join(unknown)} (known: {', '.join(COLUMNS)})"
        )
    reader.fieldnames = header
    ids: list[str] = []
    tops: list[int] = []
    bots: list[int] = []
    copies: list[int] = []
    ru: list[str] = []
    sk: list[str] = []
    src: list[str] = []
    seen: dict[tuple[int, int], int] = {}
    for line, row in enumerate(reader, start=2):
        if None in row:
            raise DataFileError(f"deck {where} line {line}: more cells than columns")
        cells = {k: (v or "").strip() for k, v in row.items()}
        if not any(cells.values()):
            continue
        cid = cells["card_id"]
        if not cid:
            raise DataFileError(f"deck {where} line {line}: empty card_id")
        if cid in ids:
            raise DataFileError(f"deck {where} line {line}: duplicate card_id {cid!r}")
        if not cells["trait_top"]:
            raise DataFileError(f"deck {where} line {line}: empty trait_top")
        top = _trait(where, line, "trait_top", cells["trait_top"])
        bot = (
            _trait(where, line, "trait_bottom", cells["trait_bottom"])
            if cells["trait_bottom"]
            else -1
        )
        if bot == top:
            raise DataFileError(
                f"deck {where} line {line}: trait_top and trait_bottom are both {TRAITS[top]}"
            )
        try:
            n = int(cells["copies"])
        except ValueError:
            raise DataFileError(
                f"deck {where} line {line}: copies must be an integer 1..{MAX_COPIES}, "
                f"got {cells['copies']!r}"
            ) from None
        if not 1 <= n <= MAX_COPIES:
            raise DataFileError(
                f"deck {where} line {line}: copies must be 1..{MAX_COPIES}, got {n}"
            )
        _check_int(
            where,
            line,
            "top_extra_food",
            cells.get("top_extra_food", ""),
            PRINTED_FOOD[top],
            TRAITS[top],
        )
        bfood = cells.get("bottom_extra_food", "")
        if bot < 0 and bfood:
            raise DataFileError(
                f"deck {where} line {line}: bottom_extra_food given for a one-trait card"
            )
        if bot >= 0:
            _check_int(where, line, "bottom_extra_food", bfood, PRINTED_FOOD[bot], TRAITS[bot])
        paired = cells.get("top_is_paired", "").lower()
        if paired:
            if paired not in ("yes", "no"):
                raise DataFileError(
                    f"deck {where} line {line}: top_is_paired must be yes or no, got {paired!r}"
                )
            if (paired == "yes") != (top in PAIRED):
                truth = "yes" if top in PAIRED else "no"
                raise DataFileError(
                    f"deck {where} line {line}: top_is_paired of {TRAITS[top]} must be {truth}"
                )
        key = (top, bot)
        if key in seen:
            raise DataFileError(
                f"deck {where} line {line}: the same card as line {seen[key]} "
                f"({TRAITS[top]}{' / ' + TRAITS[bot] if bot >= 0 else ''}); add its copies there"
            )
        seen[key] = line
        ids.append(cid)
        tops.append(top)
        bots.append(bot)
        copies.append(n)
        ru.append(cells.get("name_ru", ""))
        sk.append(cells.get("name_sk", ""))
        src.append(cells.get("source", ""))
    if not ids:
        raise DataFileError(f"deck {where}: no cards")
    if len(ids) > MAX_TYPES:
        raise DataFileError(f"deck {where}: {len(ids)} kinds of card, at most {MAX_TYPES}")
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
