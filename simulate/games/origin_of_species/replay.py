"""One Origin of Species game in words, round by round (from a traced kernel run: the engine's
verbose event records in the trace table ``events``, with the logged ``rounds``, ``turns`` and
``players`` rows). Animals are numbered from 0 left to right in front of their owner, as they
were at that moment (the numbers close up when an animal dies)."""

from __future__ import annotations

from types import SimpleNamespace

from rules.origin_of_species.constants import DEFENCES, OUTCOMES, mask_names
from rules.origin_of_species.state import (
    EV_ANIMAL,
    EV_ATTACK,
    EV_DRAW,
    EV_EXTINCT,
    EV_FAT,
    EV_FOOD,
    EV_GRAZE,
    EV_HIBERNATE,
    EV_LINK,
    EV_PASS,
    EV_PIRACY,
    EV_RED,
    EV_SCAVENGE,
    EV_TRAIT,
)
from simulate.kit.spec import Setup

LINKS = ("Communication", "Cooperation")


def _n(k: int, one: str, many: str = "") -> str:
    return f"{k} {one if k == 1 else many or one + 's'}"


def _traits(mask: int) -> str:
    return "+".join(mask_names(mask)) or "no traits"


def _event(e, deck, names) -> str:
    """One event record as a line (without its round)."""
    kind, s = int(e[0]), int(e[2])
    if kind == EV_ANIMAL:
        return f"seat {s} plays {deck.type_name(int(e[3]))} as a new animal"
    if kind == EV_TRAIT:
        tr, owner, ty, side, a, b = (int(x) for x in e[3:9])
        where = f"its animal {a}" if owner == s else f"seat {owner}'s animal {a}"
        if b >= 0:
            where = f"its animals {a} and {b}"
        top = "top" if side == 0 else "bottom"
        return f"seat {s} plays {names[tr]} ({top} of {deck.type_name(ty)}) on {where}"
    if kind == EV_PASS:
        return f"seat {s} passes" if int(e[3]) == 0 else f"seat {s} ends its feeding"
    if kind == EV_RED:
        how = " through Communication" if int(e[4]) else ""
        fat = " (stored as fat)" if int(e[5]) else ""
        return f"seat {s}'s animal {int(e[3])} takes a red token{how}{fat}"
    if kind == EV_FAT:
        return f"seat {s}'s animal {int(e[3])} burns {_n(int(e[4]), 'fat token')}"
    if kind == EV_HIBERNATE:
        return f"seat {s}'s animal {int(e[3])} hibernates"
    if kind == EV_PIRACY:
        return (
            f"seat {s}'s pirate {int(e[3])} steals a token from seat {int(e[4])}'s animal "
            f"{int(e[5])}"
        )
    if kind == EV_GRAZE:
        return f"seat {s}'s grazer {int(e[3])} destroys a red token in the bank"
    if kind == EV_LINK:
        return (
            f"seat {s}'s {LINKS[int(e[3])]} passes a token from animal {int(e[4])} to "
            f"animal {int(e[5])}"
        )
    if kind == EV_SCAVENGE:
        return f"seat {s}'s scavenger {int(e[3])} takes a token from the kill"
    if kind == EV_ATTACK:
        o = int(e[4])
        text = (
            f"seat {s}'s carnivore ({_traits(int(e[3]))}) attacks seat {o}'s animal "
            f"({_traits(int(e[5]))})"
        )
        notes = []
        if int(e[9]):
            notes.append(f"redirected {_n(int(e[9]), 'time')} by Mimicry")
        if int(e[10]):
            notes.append(f"Running rolls {int(e[10])}")
        if int(e[13]) >= 0:
            notes.append(f"Tail Loss drops {names[int(e[13])]}")
        outcome = OUTCOMES[int(e[7])].replace("_", " ")
        text += ": " + ", ".join([*notes, outcome])
        if int(e[6]) and not notes:
            text += f" ({DEFENCES[int(e[6])]})"
        if int(e[12]):
            text += "; the prey was Poisonous"
        return text
    if kind == EV_EXTINCT:
        lost = []
        if int(e[3]):
            lost.append(f"{int(e[3])} starve")
        if int(e[4]):
            lost.append(f"{int(e[4])} die of poison")
        return f"seat {s}: {', '.join(lost) or 'no losses'}, {_n(int(e[5]), 'animal')} left"
    if kind == EV_DRAW:
        return f"seat {s} draws {int(e[3])} (hand {int(e[4])})"
    return f"event {kind}: {[int(x) for x in e[2:]]}"


def render(setup: Setup, seed: int, game_id: int, logs: SimpleNamespace) -> str:
    """Text of one game traced by the kernel (``logs`` holds exactly that game)."""
    from rules.origin_of_species.constants import TRAITS

    deck = setup.data
    n = setup.n_players
    g, pl = logs.games, logs.players
    rot = int(g.rotation[0])
    seats = [setup.labels[(s - rot) % n] for s in range(n)]
    out = [
        f"{setup.game.title}, game {game_id} of seed {seed}: {n} players",
        setup.describe_data(),
        "seats: " + ", ".join(f"{s} {name}" for s, name in enumerate(seats)),
        f"each player is dealt {setup.params.hand_size} cards; seat {int(g.first_seat[0])} "
        "plays first in round 1",
    ]
    by_round: dict[int, list] = {}
    for i in range(logs.events.rows):
        e = logs.events.data[i]
        by_round.setdefault(int(e[1]), []).append(e)
    turns = {(int(logs.turns.round[i]), int(logs.turns.seat[i])): i for i in range(logs.turns.rows)}
    for i in range(logs.rounds.rows):
        rnd = int(logs.rounds.round[i])
        last = " (the last round)" if bool(logs.rounds.last[i]) else ""
        out += ["", f"round {rnd}{last}: seat {int(logs.rounds.first_seat[i])} first"]
        phase = "development"
        out.append("  development")
        for e in by_round.get(rnd, []):
            kind = int(e[0])
            if kind == EV_FOOD:
                phase = "feeding"
                need = sum(int(logs.turns.need[turns[(rnd, s)]]) for s in range(n))
                out.append(
                    f"  feeding: the food bank holds {int(e[2])} red tokens (the animals need "
                    f"{need})"
                )
                continue
            if kind == EV_EXTINCT and phase != "extinction":
                phase = "extinction"
                out.append("  extinction")
            if kind == EV_DRAW and phase != "draw":
                phase = "draw"
                out.append("  draw")
            out.append("    " + _event(e, deck, TRAITS))
        score = ", ".join(f"seat {s} {int(logs.turns.score[turns[(rnd, s)]])}" for s in range(n))
        out.append(
            f"  points if the game ended now: {score}; {int(logs.rounds.deck_left[i])} cards "
            "left in the deck"
        )
    out.append("")
    final = ", ".join(
        f"seat {s} {int(pl.score[s])} points ({_n(int(pl.animals[s]), 'animal')}, "
        f"{_n(int(pl.traits[s]), 'trait card')}, {int(pl.extra_points[s])} extra; discard "
        f"{int(pl.discard[s])})"
        for s in range(n)
    )
    out.append(f"final: {final}")
    winners = [s for s in range(n) if pl.winner[s]]
    if len(winners) == 1:
        how = " on the discard tie-break" if bool(g.tie_break[0]) else ""
        out.append(f"winner: seat {winners[0]} ({seats[winners[0]]}){how}")
    else:
        out.append(f"shared victory: seats {winners}")
    return "\n".join(out)
