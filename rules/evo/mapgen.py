"""The provisional EVO maps in ``data/``: a deterministic hex-island generator.

Run ``python -m rules.evo.mapgen`` to regenerate the files; a test checks they match.

The printed maps are not public (spec Q1), so these follow the spec's suggestion and
``evo_data.json``: EVO's two double-sided boards give four half maps, *small* (22 regions,
1 start star), *medium-a* and *medium-b* (30, 2 stars) and *large* (40, 3 stars). Board one
carries small / medium-a and lies on the left, board two medium-b / large on the right, so the
seed's layouts are 3 players small + medium-b, 4 players small + large or medium-a + medium-b,
5 players medium-a + large (70 regions, as the French description counts).

Each half is a hex blob grown from a fixed five-hex seam (so any left half joins any right
half along the same edge), inside nine rows of hexes. Terrain follows the distance from the
half's own shore: the outermost quarter desert (the French edition calls it the beach), then
plains, hills and mountains inland. Start stars sit on coastal desert hexes, as far apart as
possible. Coast flags are computed on the assembled map (a hex touching the sea).
"""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path

from rules.evo.constants import TERRAINS
from rules.evo.maps import BUILTIN, COLUMNS

SEED = 20010301
HALVES = {  # name: (regions, stars, side: -1 left / +1 right, seed offset)
    "small": (22, 1, -1, 1),
    "medium-a": (30, 2, -1, 2),
    "medium-b": (30, 2, 1, 3),
    "large": (40, 3, 1, 4),
}
LAYOUTS = {
    "provisional-3": ("small", "medium-b"),
    "provisional-4": ("small", "large"),
    "provisional-4-mm": ("medium-a", "medium-b"),
    "provisional-5": ("medium-a", "large"),
}
ROWS = 4
"""Half maps span rows -ROWS..ROWS (odd-q offset rows of the hex grid)."""
SEAM = range(-2, 3)
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))

Hex = tuple[int, int]


def _row(h: Hex) -> int:
    q, r = h
    return r + (q - (q & 1)) // 2


def _side_ok(h: Hex, side: int) -> bool:
    return (h[0] <= -1 if side < 0 else h[0] >= 0) and abs(_row(h)) <= ROWS


def _neighbours(h: Hex) -> list[Hex]:
    return [(h[0] + dq, h[1] + dr) for dq, dr in STEPS]


def _hex_distance(a: Hex, b: Hex) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def grow_half(name: str) -> dict[Hex, tuple[int, bool]]:
    """One half map: each hex with its terrain code and whether it carries a start star."""
    size, stars, side, offset = HALVES[name]
    rng = random.Random(SEED * 10 + offset)
    seam_q = -1 if side < 0 else 0
    blob = {(seam_q, r) for r in SEAM}
    while len(blob) < size:
        frontier = sorted(
            {n for h in blob for n in _neighbours(h) if n not in blob and _side_ok(n, side)}
        )
        weights = [sum(m in blob for m in _neighbours(f)) ** 2 for f in frontier]
        pick = rng.random() * sum(weights)
        for f, w in zip(frontier, weights, strict=True):
            pick -= w
            if pick < 0:
                blob.add(f)
                break
    # Distance from the half's own shore (hexes across the seam count as land).
    shore = [
        h for h in sorted(blob) if any(n not in blob and _side_ok(n, side) for n in _neighbours(h))
    ]
    depth = {h: 1 for h in shore}
    todo = deque(shore)
    while todo:
        h = todo.popleft()
        for n in _neighbours(h):
            if n in blob and n not in depth:
                depth[n] = depth[h] + 1
                todo.append(n)
    ranked = sorted(blob, key=lambda h: (depth[h], rng.random()))
    terrain = {h: min(3, i * 4 // size) for i, h in enumerate(ranked)}
    candidates = [h for h in sorted(blob) if terrain[h] == 0 and depth[h] == 1]
    chosen = [max(candidates, key=lambda h: (abs(h[0] - seam_q), -abs(_row(h)), h))]
    while len(chosen) < stars:
        chosen.append(
            max(
                (c for c in candidates if c not in chosen),
                key=lambda c: (min(_hex_distance(c, s) for s in chosen), c),
            )
        )
    return {h: (terrain[h], h in chosen) for h in blob}


def layout_rows(name: str) -> list[list[object]]:
    """Rows of the assembled map ``name`` (a key of :data:`LAYOUTS`) in the loader's format."""
    halves = LAYOUTS[name]
    cells: dict[Hex, tuple[int, bool, str]] = {}
    for half in halves:
        for h, (terrain, star) in grow_half(half).items():
            cells[h] = (terrain, star, half)
    order = sorted(cells, key=lambda h: (h[0] >= 0, h[0], h[1]))
    number = {h: i + 1 for i, h in enumerate(order)}
    rows: list[list[object]] = []
    for h in order:
        terrain, star, half = cells[h]
        nbs = sorted(number[n] for n in _neighbours(h) if n in cells)
        coast = any(n not in cells for n in _neighbours(h))
        source = f"provisional: synthetic hex half '{half}' (rules.evo.mapgen, seed {SEED})"
        rows.append(
            [
                number[h],
                TERRAINS[terrain],
                int(coast),
                int(star),
                " ".join(map(str, nbs)),
                half,
                h[0],
                h[1],
                source,
            ]
        )
    return rows


def render(rows: list[list[object]]) -> str:
    """CSV text of ``rows`` with the map header."""
    lines = [",".join(COLUMNS)] + [",".join(str(x) for x in r) for r in rows]
    return "\n".join(lines) + "\n"


def expected_files() -> dict[Path, str]:
    """Every built-in map file and the text the generator makes for it."""
    return {BUILTIN[name]: render(layout_rows(name)) for name in LAYOUTS}


def main() -> None:
    for path, text in expected_files().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
