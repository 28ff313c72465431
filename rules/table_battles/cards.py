"""Dinosaur Table Battles card data: dino cards and their action cards, loaded from CSV.

The card list is not public (spec 0.2: only the T-Rex's first action card is known, from the
designer's blog). ``data/provisional_cards.csv`` is a provisional pool consistent with every
fact the seed gives (the suggested first-game teams and their 12 and 13 hit markers, the
passives and targeting restrictions it describes, the expansion's Air/Water classes and the
replaced Spinosaurus and Pteranodon cards). Every row says in ``known`` which of its fields
are known (from the seed, the blog or the seed's arithmetic); every other field is
provisional, and :meth:`CardPool.describe` says PROVISIONAL. A designer's file of the same
format replaces it (``--set cards=my_cards.csv``).

CSV format, one row per action card (the dino's fields repeat on each of its rows)::

    dino,set,class,size,break_point,draft_rating,card,kind,faces,bracketed,attack,attack_pair,
        reaction,reaction_pair,passive,known,source
    Tyrannosaurus Rex,base,none,large,5,8,1,dice,5|6,yes,ATK_PER_DIE_PLUS1,no,ABS_MINUS1,no,,
        dino|faces|bracketed|attack,EXT-2

* ``set``: base or expansion. A name in both sets is the expansion's replacement version
  (the seed: new cards for Spinosaurus and Pteranodon "ersetzt die alten Karten").
* ``class``: none, air or water. ``size``: small (2 action cards) or large (3).
* ``break_point`` 1..20, ``draft_rating`` 0..99 (integers, as printed on the dino card).
* ``card``: 1..2 or 1..3 without gaps; ``kind``: dice or passive.
* dice cards: ``faces`` the accepted faces joined by ``|`` (``5|6``) or ``pair`` (two blank
  symbols); ``bracketed`` yes/no (one die a turn); ``attack`` an attack template or empty;
  ``reaction`` a reaction template or empty (at least one of the two); ``*_pair`` yes/no
  ("Pair": needs two equal dice on the card).
* passive cards: ``passive`` one of the coded abilities (:data:`PASSIVES`), nothing else.
* ``known``: the fields that are known, joined by ``|`` (empty: all provisional).

A configuration may change a dino's ``draft_rating`` or ``break_point`` without a new file:
rule ``edits`` holds entries ``cards.<dino>.<field>=<value>``
(``--set cards.Tyrannosaurus_Rex.draft_rating=5``), applied by :meth:`CardPool.edited`;
:meth:`CardPool.knobs` lists them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

from rules.core.datafile import CsvFile, open_data, sha256, write_csv
from rules.core.edits import entry_int, norm_name, unknown_entry
from rules.core.errors import DataFileError, RuleError
from rules.core.params import ParamInfo, split_entry
from rules.table_battles.constants import (
    ATTACKS,
    CLASSES,
    MAX_POOL,
    PAIR_AREA,
    PASSIVES,
    REACTIONS,
    SETS,
)

COLUMNS = (
    "dino",
    "set",
    "class",
    "size",
    "break_point",
    "draft_rating",
    "card",
    "kind",
    "faces",
    "bracketed",
    "attack",
    "attack_pair",
    "reaction",
    "reaction_pair",
    "passive",
    "known",
    "source",
)
DINO_FIELDS = ("set", "class", "size", "break_point", "draft_rating")
DATA_DIR = Path(__file__).with_name("data")
BUILTIN = {"provisional": DATA_DIR / "provisional_cards.csv"}
TREX_NAME = "Tyrannosaurus Rex"
EDIT_KEY = "cards"
"""The rule key whose entries ``edits`` changes (``cards.<dino>.<field>``)."""
EDIT_RANGES = {"draft_rating": (0, 99), "break_point": (1, 20)}
"""The dino fields ``edits`` may change, with the ranges the card parser enforces."""
"""The dino whose owner takes two extra hit markers at setup (seed: "den Tyrannosaurus Rex")."""


@dataclasses.dataclass(frozen=True)
class ActionCard:
    """One action card. ``faces`` is a bit mask (bit f = face f) or PAIR_AREA."""

    kind: str  # dice | passive
    faces: int = 0
    bracketed: bool = False
    attack: int = 0
    attack_pair: bool = False
    reaction: int = 0
    reaction_pair: bool = False
    passive: int = 0
    known: tuple[str, ...] = ()
    source: str = ""

    def faces_text(self) -> str:
        if self.kind != "dice":
            return ""
        if self.faces == PAIR_AREA:
            return "pair"
        return "|".join(str(f) for f in range(1, 7) if self.faces >> f & 1)


@dataclasses.dataclass(frozen=True)
class Dino:
    """A dino card (one version of it: base, or the expansion's replacement)."""

    name: str
    set: str
    cls: int
    break_point: int
    draft_rating: int
    cards: tuple[ActionCard, ...]

    @property
    def n_cards(self) -> int:
        return len(self.cards)

    @property
    def large(self) -> bool:
        return len(self.cards) == 3


@dataclasses.dataclass(frozen=True)
class CardPool:
    """A validated card file: every dino version in file order."""

    label: str
    path: str
    dinos: tuple[Dino, ...]
    sha256: str = ""
    edited_entries: int = 0
    """Dino fields rule ``edits`` changed (:meth:`edited`); 0 for the file as it is."""

    @property
    def provisional(self) -> bool:
        """True unless every field of every card is marked known."""
        return any(
            set(COLUMNS[:15]) - {"known", "source"} - set(c.known)
            for d in self.dinos
            for c in d.cards
        )

    def names(self) -> list[str]:
        return [d.name for d in self.dinos]

    def dino_names(self) -> list[str]:
        """Every dino's name once, in file order: a replacement version (the expansion's
        Spinosaurus ...) is the same dino with other cards, so it shares its name's code."""
        out: dict[str, str] = {}
        for d in self.dinos:
            out.setdefault(d.name.lower(), d.name)
        return list(out.values())

    def name_code(self, i: int) -> int:
        """The code of dino version ``i``'s name in :meth:`dino_names`."""
        lower = [n.lower() for n in self.dino_names()]
        return lower.index(self.dinos[i].name.lower())

    def card_labels(self) -> list[str]:
        """One label per action card, by global card id (file order): the dino's name and the
        card's number, with the set where the name has two versions (``Spinosaurus 2
        (expansion)``)."""
        versions: dict[str, int] = {}
        for d in self.dinos:
            versions[d.name.lower()] = versions.get(d.name.lower(), 0) + 1
        out = []
        for d in self.dinos:
            tag = f" ({d.set})" if versions[d.name.lower()] > 1 else ""
            out += [f"{d.name} {k + 1}{tag}" for k in range(d.n_cards)]
        return out

    def pool(self, expansion: bool) -> list[int]:
        """Indices of the dinos in play: the base set, plus the expansion's new dinos with the
        replaced base versions dropped when ``expansion``."""
        exp = {d.name for d in self.dinos if d.set == "expansion"}
        out = []
        for i, d in enumerate(self.dinos):
            if (d.set == "base" and not (expansion and d.name in exp)) or (
                d.set == "expansion" and expansion
            ):
                out.append(i)
        return out

    def find(self, name: str, expansion: bool) -> int:
        """Index of the version of ``name`` in play (case-insensitive), or -1."""
        for i in self.pool(expansion):
            if self.dinos[i].name.lower() == name.strip().lower():
                return i
        return -1

    def to_csv(self) -> str:
        """The canonical CSV text of this pool (the loader's format; it round-trips)."""
        yn = ("no", "yes")
        rows = []
        for d in self.dinos:
            size = "large" if d.large else "small"
            for k, c in enumerate(d.cards):
                dice = c.kind == "dice"
                rows.append(
                    [
                        d.name,
                        d.set,
                        CLASSES[d.cls],
                        size,
                        d.break_point,
                        d.draft_rating,
                        k + 1,
                        c.kind,
                        c.faces_text(),
                        yn[c.bracketed] if dice else "",
                        ATTACKS[c.attack],
                        yn[c.attack_pair] if dice else "",
                        REACTIONS[c.reaction],
                        yn[c.reaction_pair] if dice else "",
                        PASSIVES[c.passive],
                        "|".join(c.known),
                        c.source,
                    ]
                )
        return write_csv(COLUMNS, rows)

    def describe(self) -> str:
        """One line for reports: which card file, how many dinos, provisional or not."""
        n_base = sum(d.set == "base" for d in self.dinos)
        if not self.provisional:
            kind = "every field marked known"
        elif self.label == "provisional":
            kind = (
                "PROVISIONAL (only the T-Rex's first card is published; the rest follows the "
                "seed's facts)"
            )
        else:
            kind = "PROVISIONAL (fields not marked known)"
        where = Path(self.path).name if self.path else self.label
        name = f"built-in '{self.label}', " if self.label in BUILTIN else ""
        n = self.edited_entries
        edits = f"; {n} {'entry' if n == 1 else 'entries'} changed by rule 'edits'" if n else ""
        return (
            f"card file {where} ({name}{len(self.dinos)} dino versions, {n_base} base; {kind}"
            f"{edits}; sha256 {self.sha256[:12]})"
        )

    def knobs(self) -> dict[str, ParamInfo]:
        """Every dino field a configuration may change (``cards.<dino>.<field>``), with its
        value: a name's first version's, the doc giving each version's when they differ."""
        out = {}
        for name in self.dino_names():
            versions = [d for d in self.dinos if norm_name(d.name) == norm_name(name)]
            for field, (lo, hi) in EDIT_RANGES.items():
                key = f"{EDIT_KEY}.{name}.{field}"
                values = [getattr(d, field) for d in versions]
                each = ", ".join(f"{d.set} {v}" for d, v in zip(versions, values, strict=True))
                note = f"; versions differ: {each}" if len(set(values)) > 1 else ""
                out[key] = ParamInfo(
                    name=key,
                    kind="int",
                    default=values[0],
                    doc=f"{name}'s {field.replace('_', ' ')} (card file{note})",
                    source="data file",
                    lo=lo,
                    hi=hi,
                )
        return out

    def edited(self, edits: Mapping[str, str]) -> CardPool:
        """This pool with the dino fields ``edits`` names changed (``cards.<dino>.<field>`` ->
        value text), validated, its digest that of its new canonical text (:meth:`to_csv`).

        A name matches without regard to case, ``_`` standing for a space, and the edit
        changes every version of that name (base and the expansion's replacement). A changed
        field is no longer marked ``known``. Edits that change nothing return this pool.
        Raises :class:`RuleError` naming a bad entry, field or value.
        """
        names = {norm_name(n) for n in self.dino_names()}
        want: dict[tuple[str, str], tuple[str, int]] = {}
        for key, raw in edits.items():
            head, entry, field = split_entry(key)
            if head != EDIT_KEY:
                raise RuleError(f"data entry '{key}' must start with '{EDIT_KEY}.'")
            if norm_name(entry) not in names:
                raise unknown_entry(key, "dino", entry, self.dino_names())
            if field.lower() not in EDIT_RANGES:
                raise RuleError(
                    f"data entry '{key}': no field '{field}' (fields: {', '.join(EDIT_RANGES)})"
                )
            field = field.lower()
            value = entry_int(key, raw, *EDIT_RANGES[field])
            first, before = want.get((norm_name(entry), field), (key, value))
            if before != value:
                raise RuleError(f"data entries '{first}' and '{key}' set the same field")
            want[norm_name(entry), field] = (key, value)
        dinos = list(self.dinos)
        changed = set()
        for i, d in enumerate(dinos):
            for field in EDIT_RANGES:
                if (norm_name(d.name), field) not in want:
                    continue
                value = want[norm_name(d.name), field][1]
                if getattr(d, field) == value:
                    continue
                cards = tuple(
                    dataclasses.replace(c, known=tuple(k for k in c.known if k != field))
                    for c in d.cards
                )
                dinos[i] = d = dataclasses.replace(d, cards=cards, **{field: value})
                changed.add((norm_name(d.name), field))
        if not changed:
            return self
        text = dataclasses.replace(self, dinos=tuple(dinos)).to_csv()
        new = parse_cards(text, label=self.label, path=self.path)
        return dataclasses.replace(new, edited_entries=len(changed))


def load_cards(spec: str) -> CardPool:
    """Load the built-in pool (``provisional`` / ``default``) or a CSV file by path."""
    f = open_data("cards", spec, BUILTIN, noun="pool", aliases={"default": "provisional"})
    return parse_cards(f.text, label=f.label, path=str(f.path))


def _yes(where: str, value: str, column: str) -> bool:
    v = value.strip().lower()
    if v in ("yes", "y", "1", "true"):
        return True
    if v in ("no", "n", "0", "false", ""):
        return False
    raise DataFileError(f"{where}: column '{column}' must be yes or no, got {value!r}")


def _choice(where: str, value: str, column: str, allowed: tuple[str, ...]) -> int:
    v = value.strip()
    for i, a in enumerate(allowed):
        if v.lower() == a.lower():
            return i
    shown = ", ".join(a for a in allowed if a) + (" or empty" if "" in allowed else "")
    raise DataFileError(f"{where}: column '{column}' must be one of {shown}, got {value!r}")


def _int(where: str, value: str, column: str, lo: int, hi: int) -> int:
    try:
        v = int(value.strip())
    except ValueError:
        v = lo - 1
    if not lo <= v <= hi:
        raise DataFileError(
            f"{where}: column '{column}' must be an integer {lo}..{hi}, got {value!r}"
        )
    return v


def _faces(where: str, value: str) -> int:
    v = value.strip().lower()
    if v == "pair":
        return PAIR_AREA
    mask = 0
    for part in v.split("|"):
        p = part.strip()
        if p not in ("1", "2", "3", "4", "5", "6") or mask >> int(p) & 1:
            raise DataFileError(
                f"{where}: column 'faces' must be faces 1-6 joined by '|' (each once) or "
                f"'pair', got {value!r}"
            )
        mask |= 1 << int(p)
    return mask


def parse_cards(text: str, *, label: str, path: str = "") -> CardPool:
    """Parse and validate card CSV text. Raises :class:`DataFileError` naming the problem."""
    f = CsvFile(text, f"cards {path or label}", required=COLUMNS)
    where0 = f.where
    versions: dict[tuple[str, str], dict] = {}
    order: list[tuple[str, str]] = []
    for row in f.rows():
        where, line = row.where, row.line
        cell = {c: row[c] for c in COLUMNS}
        name = cell["dino"]
        if not name:
            raise DataFileError(f"{where}: column 'dino' is empty")
        dset = SETS[_choice(where, cell["set"], "set", SETS)]
        key = (name.lower(), dset)
        fields = (
            dset,
            _choice(where, cell["class"], "class", CLASSES),
            _choice(where, cell["size"], "size", ("small", "large")) + 2,
            _int(where, cell["break_point"], "break_point", 1, 20),
            _int(where, cell["draft_rating"], "draft_rating", 0, 99),
        )
        known = tuple(k.strip() for k in cell["known"].split("|") if k.strip())
        for k in known:
            if k not in COLUMNS:
                raise DataFileError(f"{where}: column 'known' names unknown field {k!r}")
        number = _int(where, cell["card"], "card", 1, 3)
        kind = ("dice", "passive")[_choice(where, cell["kind"], "kind", ("dice", "passive"))]
        if kind == "dice":
            if cell["passive"]:
                raise DataFileError(
                    f"{where}: a dice card has no 'passive' (got {cell['passive']!r})"
                )
            attack = _choice(where, cell["attack"], "attack", ATTACKS)
            reaction = _choice(where, cell["reaction"], "reaction", REACTIONS)
            if not attack and not reaction:
                raise DataFileError(f"{where}: a dice card needs an 'attack' or a 'reaction'")
            card = ActionCard(
                kind,
                faces=_faces(where, cell["faces"]),
                bracketed=_yes(where, cell["bracketed"], "bracketed"),
                attack=attack,
                attack_pair=_yes(where, cell["attack_pair"], "attack_pair") and attack > 0,
                reaction=reaction,
                reaction_pair=_yes(where, cell["reaction_pair"], "reaction_pair") and reaction > 0,
                known=known,
                source=cell["source"],
            )
            if card.faces == PAIR_AREA and card.bracketed:
                raise DataFileError(f"{where}: a 'pair' area cannot be bracketed")
        else:
            for c in ("faces", "bracketed", "attack", "attack_pair", "reaction", "reaction_pair"):
                if cell[c]:
                    raise DataFileError(f"{where}: a passive card has no '{c}' (got {cell[c]!r})")
            passive = _choice(where, cell["passive"], "passive", PASSIVES)
            if not passive:
                raise DataFileError(f"{where}: a passive card needs a 'passive'")
            card = ActionCard(kind, passive=passive, known=known, source=cell["source"])
        if key not in versions:
            versions[key] = {"name": name, "fields": fields, "cards": {}, "line": line}
            order.append(key)
        v = versions[key]
        if v["fields"] != fields:
            raise DataFileError(
                f"{where}: {name} ({dset}) has other dino fields ({', '.join(DINO_FIELDS)}) "
                f"than on line {v['line']}"
            )
        if number in v["cards"]:
            raise DataFileError(f"{where}: {name} ({dset}) has card {number} twice")
        v["cards"][number] = card
    dinos = []
    for key in order:
        v = versions[key]
        dset, cls, n, bp, rating = v["fields"]
        if sorted(v["cards"]) != list(range(1, n + 1)):
            size = "large" if n == 3 else "small"
            raise DataFileError(
                f"{where0}: {v['name']} ({dset}) is {size} and needs cards 1..{n}, got "
                f"{sorted(v['cards'])}"
            )
        cards = tuple(v["cards"][i] for i in range(1, n + 1))
        if all(c.kind == "passive" for c in cards):
            raise DataFileError(f"{where0}: {v['name']} ({dset}) has no dice card")
        dinos.append(Dino(v["name"], dset, cls, bp, rating, cards))
    if not dinos:
        raise DataFileError(f"{where0}: no cards")
    if len(dinos) > MAX_POOL:
        raise DataFileError(f"{where0}: {len(dinos)} dino versions, at most {MAX_POOL}")
    base = CardPool(label, path, tuple(dinos))
    return dataclasses.replace(base, sha256=sha256(base.to_csv()))
