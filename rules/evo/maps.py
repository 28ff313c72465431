"""EVO maps: regions, terrain, adjacency, coast and start stars, loaded from CSV.

The printed maps are not public (spec Q1). ``data/`` holds provisional maps made by
:mod:`rules.evo.mapgen` (a deterministic hex-island generator, sized per ``evo_data.json``);
every report calls them PROVISIONAL. A designer can load their own map file of this format,
one row per region, numbered 1..R without gaps::

    region,terrain,coast,start,neighbours,half,q,r,source
    1,desert,1,1,2 5 6,small,-5,0,provisional: ...
    2,plains,0,0,1 3 6 7,small,-4,0,provisional: ...

``terrain`` is desert, plains, hills or mountains; ``coast`` and ``start`` are 0/1 (a start
region carries a white star); ``neighbours`` lists region numbers separated by spaces (or ``;``)
and must be symmetric. ``half``, ``q``, ``r`` (hex coordinates, for drawing) and ``source`` may
be empty. The map must be connected and have one start region per player.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from pathlib import Path

import numpy as np

from rules.core import datafile
from rules.core.datafile import CsvFile, Row, open_data, write_csv
from rules.core.errors import DataFileError, RuleError
from rules.evo.constants import MAX_DEGREE, MAX_REGIONS, TERRAINS

COLUMNS = ("region", "terrain", "coast", "start", "neighbours", "half", "q", "r", "source")
REQUIRED = COLUMNS[:5]
DATA_DIR = Path(__file__).with_name("data")
BUILTIN = {
    "provisional-3": DATA_DIR / "map_3p_small_medium.csv",
    "provisional-4": DATA_DIR / "map_4p_small_large.csv",
    "provisional-4-mm": DATA_DIR / "map_4p_medium_medium.csv",
    "provisional-5": DATA_DIR / "map_5p_medium_large.csv",
}
"""Built-in maps by name; ``provisional`` picks the one for the player count."""


@dataclasses.dataclass(frozen=True)
class EvoMap:
    """A validated map. Arrays are what the kernel reads (regions numbered from 0)."""

    label: str
    path: str
    sha256: str
    terrain: np.ndarray  # int8 [R]
    coast: np.ndarray  # bool [R]
    start: np.ndarray  # bool [R]
    neighbours: tuple[tuple[int, ...], ...]  # 0-based
    half: tuple[str, ...]
    q: tuple[int | None, ...]
    r: tuple[int | None, ...]
    sources: tuple[str, ...]

    @property
    def n_regions(self) -> int:
        return len(self.neighbours)

    @property
    def n_starts(self) -> int:
        return int(self.start.sum())

    @property
    def provisional(self) -> bool:
        """True unless every region comes from a published source."""
        return any("provisional" in s or "synthetic" in s for s in self.sources)

    def distances(self) -> np.ndarray:
        """Shortest path lengths between regions (int64 [R, R]; unreachable never happens)."""
        n = self.n_regions
        out = np.full((n, n), -1, dtype=np.int64)
        for s in range(n):
            out[s, s] = 0
            todo = deque([s])
            while todo:
                a = todo.popleft()
                for b in self.neighbours[a]:
                    if out[s, b] < 0:
                        out[s, b] = out[s, a] + 1
                        todo.append(b)
        return out

    def describe(self) -> str:
        """One line for reports: which map, its size, provisional or not."""
        kind = "PROVISIONAL (synthetic hex map; the printed maps are not public)"
        if not self.provisional:
            kind = "designer-supplied"
        counts = "/".join(str(int((self.terrain == t).sum())) for t in range(4))
        return (
            f"map '{self.label}' ({self.n_regions} regions, {self.n_starts} start stars, "
            f"desert/plains/hills/mountains {counts}, {kind}; sha256 {self.sha256[:12]})"
        )


def map_spec_for(spec: str, n_players: int) -> str:
    """``provisional`` resolved to the built-in map for ``n_players``; other specs unchanged."""
    if spec == "provisional":
        return f"provisional-{n_players}"
    return spec


def load_map(spec: str, n_players: int) -> EvoMap:
    """A built-in map by name (``provisional``, ``provisional-4-mm`` ...) or a CSV file by path,
    checked to have one start region per player."""
    spec = map_spec_for(spec, n_players)
    names = ["provisional", *BUILTIN]
    f = open_data("map", spec, BUILTIN, noun="map", names=names)
    m = parse_map(f.text, label=f.label, path=str(f.path), sha256=datafile.sha256(f.raw))
    if m.n_starts != n_players:
        raise RuleError(
            f"map {f.label} has {m.n_starts} start regions; {n_players} players need "
            f"{n_players} (the seed: one white star per player)"
        )
    return m


def _flag(row: Row, column: str) -> bool:
    value = row[column].lower()
    if value in ("1", "yes", "true", "y"):
        return True
    if value in ("0", "no", "false", "n", ""):
        return False
    raise row.error(f"{column} must be 0 or 1, got {row.raw.get(column)!r}")


def _int_or_none(row: Row, column: str) -> int | None:
    value = row[column]
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise row.error(f"{column} must be an integer") from None


def parse_map(text: str, *, label: str, path: str = "", sha256: str = "") -> EvoMap:
    """Parse and validate map CSV text. Raises :class:`DataFileError` naming the problem."""
    where = path or label
    f = CsvFile(text, f"map {where}", required=REQUIRED)
    rows: dict[int, tuple] = {}
    lines: dict[int, int] = {}
    for row in f.rows():
        try:
            rid = int(row["region"])
        except ValueError:
            raise row.error("region must be an integer") from None
        if rid in rows:
            raise row.error(f"duplicate region {rid}")
        terrain = row["terrain"].lower()
        if terrain not in TERRAINS:
            raise row.error(
                f"terrain must be one of {', '.join(TERRAINS)}, got {row.raw.get('terrain')!r}"
            )
        cells = row["neighbours"].replace(";", " ").replace(",", " ").split()
        try:
            nbs = tuple(int(c) for c in cells)
        except ValueError:
            raise row.error(
                "neighbours must be region numbers separated by spaces, got "
                f"{row.raw.get('neighbours')!r}"
            ) from None
        if len(set(nbs)) != len(nbs):
            raise row.error(f"region {rid} lists a neighbour twice")
        if len(nbs) > MAX_DEGREE:
            raise row.error(f"region {rid} has {len(nbs)} neighbours (at most {MAX_DEGREE})")
        rows[rid] = (
            TERRAINS.index(terrain),
            _flag(row, "coast"),
            _flag(row, "start"),
            nbs,
            row["half"],
            _int_or_none(row, "q"),
            _int_or_none(row, "r"),
            row["source"],
        )
        lines[rid] = row.line
    n = len(rows)
    if n == 0:
        raise f.error("no regions")
    if n > MAX_REGIONS:
        raise f.error(f"{n} regions (at most {MAX_REGIONS})")
    if sorted(rows) != list(range(1, n + 1)):
        raise f.error(f"regions must be numbered 1..{n} without gaps")
    for rid, values in rows.items():
        for nb in values[3]:
            if nb == rid:
                raise DataFileError(
                    f"map {where} line {lines[rid]}: region {rid} neighbours itself"
                )
            if nb not in rows:
                raise DataFileError(
                    f"map {where} line {lines[rid]}: region {rid} lists unknown neighbour {nb}"
                )
            if rid not in rows[nb][3]:
                raise DataFileError(
                    f"map {where} line {lines[rid]}: region {rid} lists neighbour {nb}, "
                    f"but region {nb} does not list {rid}"
                )
    ordered = [rows[i] for i in range(1, n + 1)]
    neighbours = tuple(tuple(nb - 1 for nb in v[3]) for v in ordered)
    seen, todo = {0}, [0]
    while todo:
        for b in neighbours[todo.pop()]:
            if b not in seen:
                seen.add(b)
                todo.append(b)
    if len(seen) != n:
        lost = min(set(range(n)) - seen) + 1
        raise f.error(f"not connected (region {lost} cannot be reached from 1)")
    if not any(v[2] for v in ordered):
        raise f.error("no start region (column start)")
    return EvoMap(
        label=label,
        path=path,
        sha256=sha256 or datafile.sha256(text),
        terrain=np.array([v[0] for v in ordered], dtype=np.int8),
        coast=np.array([v[1] for v in ordered], dtype=np.bool_),
        start=np.array([v[2] for v in ordered], dtype=np.bool_),
        neighbours=neighbours,
        half=tuple(v[4] for v in ordered),
        q=tuple(v[5] for v in ordered),
        r=tuple(v[6] for v in ordered),
        sources=tuple(v[7] for v in ordered),
    )


def map_csv(m: EvoMap) -> str:
    """The map as CSV text in the loader's format (stored beside a run's logs)."""
    rows = [
        [
            i + 1,
            TERRAINS[m.terrain[i]],
            int(m.coast[i]),
            int(m.start[i]),
            " ".join(str(b + 1) for b in m.neighbours[i]),
            m.half[i],
            "" if m.q[i] is None else m.q[i],
            "" if m.r[i] is None else m.r[i],
            m.sources[i],
        ]
        for i in range(m.n_regions)
    ]
    return write_csv(COLUMNS, rows)
