"""How the two built-in decks in ``data/`` were made. Run ``python -m
rules.dino_kontra_dino.provisional`` to regenerate them; a test checks the files match.

Neither deck is the published one, which is not public (spec D1).
"""

from __future__ import annotations

import random
from pathlib import Path

from rules.dino_kontra_dino.deck import COLUMNS, TRAITS

DINO_NAMES = (
    "Allosaurus",
    "Ankylosaurus",
    "Apatosaurus",
    "Baryonyx",
    "Brachiosaurus",
    "Brachylophosaurus",
    "Carnotaurus",
    "Centrosaurus",
    "Ceratosaurus",
    "Coelophysis",
    "Coelurus",
    "Cetiosaurus",
    "Compsognathus",
    "Corythosaurus",
    "Deinonychus",
    "Dilophosaurus",
    "Diplodocus",
    "Edmontosaurus",
    "Gallimimus",
    "Giganotosaurus",
    "Hadrosaurus",
    "Iguanodon",
    "Kentrosaurus",
    "Lambeosaurus",
    "Maiasaura",
    "Megalosaurus",
    "Microraptor",
    "Oviraptor",
    "Pachycephalosaurus",
    "Parasaurolophus",
    "Plateosaurus",
    "Protoceratops",
    "Psittacosaurus",
    "Spinosaurus",
    "Stegosaurus",
    "Styracosaurus",
    "Suchomimus",
    "Therizinosaurus",
    "Triceratops",
    "Troodon",
    "Tyrannosaurus",
    "Utahraptor",
    "Velociraptor",
    "Argentinosaurus",
    "Euoplocephalus",
)
"""Cetiosaurus is number 12, as the rulebook's example card."""

# Trait values the rulebook states, by dino name (trait index -> value).
DINO_ANCHORS = {
    "Brachylophosaurus": {2: 4},
    "Coelurus": {2: 5},
    "Dilophosaurus": {0: 4, 3: 2},
    "Psittacosaurus": {0: 2, 3: 4},
}

EVENTS = (
    ("Hunting Season", "predation"),
    ("Ambush at the Ford", "predation"),
    ("Pack Hunt", "predation"),
    ("Carcass Dispute", "predation"),
    ("Nest Raiders", "predation"),
    ("Flood", "size"),
    ("Tall Trees", "size"),
    ("Stampede", "size"),
    ("Landslide", "size"),
    ("Deep Mud", "size"),
    ("Forest Fire", "speed"),
    ("Volcanic Eruption", "speed"),
    ("Race to the Water Hole", "speed"),
    ("Flash Flood", "speed"),
    ("Falling Rocks", "speed"),
    ("Ice Age", "adaptability"),
    ("Drought", "adaptability"),
    ("Disease", "adaptability"),
    ("New Plants", "adaptability"),
    ("Long Winter", "adaptability"),
    ("Clash of Titans", "predation+size"),
    ("The Chase", "predation+speed"),
    ("Competing Species", "predation+adaptability"),
    ("Meteor Shower", "size+speed"),
    ("Famine", "size+adaptability"),
    ("Tidal Wave", "speed+adaptability"),
    ("Territory War", "predation+size"),
    ("Egg Thieves", "predation+speed"),
    ("Swamp Crossing", "size+adaptability"),
    ("Sandstorm", "speed+adaptability"),
)
"""20 one-trait events (5 per trait) and 10 two-trait events (every pair once, 4 repeated)."""
EVENT_ANCHORS = {"Forest Fire": "rulebook: example 1", "Competing Species": "rulebook: example 2"}

PROVISIONAL_SEED = 20160301
YARDSTICK_SEED = 20240601


def _provisional_traits(rng: random.Random, fixed: dict[int, int]) -> list[int]:
    """Traits in 1..5 summing to 10..14 (mean about 12, so no card dominates), keeping ``fixed``."""
    while True:
        t = [fixed.get(i, rng.randint(1, 5)) for i in range(4)]
        if 10 <= sum(t) <= 14:
            return t


def provisional_rows() -> list[list[object]]:
    """Rows of the provisional deck."""
    rng = random.Random(PROVISIONAL_SEED)
    rows: list[list[object]] = []
    for i, name in enumerate(DINO_NAMES, start=1):
        fixed = DINO_ANCHORS.get(name, {})
        traits = _provisional_traits(rng, fixed)
        if name == "Cetiosaurus":
            source = "rulebook: card #12; traits provisional"
        elif fixed:
            named = ", ".join(f"{TRAITS[k]} {v}" for k, v in fixed.items())
            source = f"rulebook: {named}; other traits provisional"
        else:
            source = "provisional"
        rows.append(["dino", i, name, *traits, "", source])
    for i, (name, needs) in enumerate(EVENTS, start=1):
        rows.append(
            ["event", i, name, "", "", "", "", needs, EVENT_ANCHORS.get(name, "provisional")]
        )
    return rows


def _splitmix(state: list[int]) -> int:
    state[0] = (state[0] + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = state[0]
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def yardstick_rows() -> list[list[object]]:
    """Rows of the C yardstick's deck: ``make_cards`` in ``shared/bench/dkd_reference.c``."""
    s = [YARDSTICK_SEED]
    rows: list[list[object]] = []
    for c in range(45):
        traits = [1 + _splitmix(s) % 5 for _ in range(4)]
        rows.append(["dino", c + 1, f"Dino {c + 1}", *traits, "", "synthetic: C yardstick"])
    for e in range(30):
        a = _splitmix(s) % 4
        needs = TRAITS[a]
        if e >= 20:
            b = (a + 1 + _splitmix(s) % 3) % 4
            needs = f"{TRAITS[a]}+{TRAITS[b]}"
        rows.append(
            ["event", e + 1, f"Event {e + 1}", "", "", "", "", needs, "synthetic: C yardstick"]
        )
    return rows


def render(rows: list[list[object]]) -> str:
    """CSV text of ``rows`` with the deck header."""
    lines = [",".join(COLUMNS)] + [",".join(str(x) for x in r) for r in rows]
    return "\n".join(lines) + "\n"


def main() -> None:
    data = Path(__file__).with_name("data")
    (data / "provisional_deck.csv").write_text(render(provisional_rows()))
    (data / "yardstick_deck.csv").write_text(render(yardstick_rows()))


if __name__ == "__main__":
    main()
