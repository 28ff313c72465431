"""One Origin of Species game in words, round by round (from a traced kernel run: the engine's
verbose event records in the trace table ``events``, with the logged ``rounds``, ``turns`` and
``players`` rows). Animals are numbered from 0 left to right in front of their owner, as they
were at that moment (the numbers close up when an animal dies)."""

from __future__ import annotations

from types import SimpleNamespace

from rules.origin_of_species.constants import DEFENCES, OUTCOMES, mask_names
from rules.origin_of_species.state import EVENTS
from simulate.kit.spec import Setup

LINKS = ("Communication", "Cooperation")


def _n(k: int, one: str, many: str = "") -> str:
    return f"{k} {one if k == 1 else many or one + 's'}"


def _traits(mask: int) -> str:
    return "+".join(mask_names(mask)) or "no traits"


def _event(e, deck, names) -> str:
    """One event record (:meth:`~rules.core.events.Events.read`) as a line, without its round."""
    if e.kind == "animal":
        return f"seat {e.seat} plays {deck.type_name(e.card)} as a new animal"
    if e.kind == "trait":
        a, b = e.animal, e.partner
        where = (
            f"its animal {a}" if e.target_owner == e.seat else f"seat {e.target_owner}'s animal {a}"
        )
        if b >= 0:
            where = f"its animals {a} and {b}"
        top = "top" if e.side == 0 else "bottom"
        return (
            f"seat {e.seat} plays {names[e.trait]} ({top} of {deck.type_name(e.card)}) on {where}"
        )
    if e.kind == "pass":
        return f"seat {e.seat} passes" if e.phase == 0 else f"seat {e.seat} ends its feeding"
    if e.kind == "red":
        how = " through Communication" if e.via else ""
        fat = " (stored as fat)" if e.into_fat else ""
        return f"seat {e.seat}'s animal {e.animal} takes a red token{how}{fat}"
    if e.kind == "fat":
        return f"seat {e.seat}'s animal {e.animal} burns {_n(e.tokens, 'fat token')}"
    if e.kind == "hibernate":
        return f"seat {e.seat}'s animal {e.animal} hibernates"
    if e.kind == "piracy":
        return (
            f"seat {e.seat}'s pirate {e.pirate} steals a token from seat {e.victim_seat}'s animal "
            f"{e.victim}"
        )
    if e.kind == "graze":
        return f"seat {e.seat}'s grazer {e.grazer} destroys a red token in the bank"
    if e.kind == "link":
        return (
            f"seat {e.seat}'s {LINKS[e.link]} passes a token from animal {e.origin} to "
            f"animal {e.destination}"
        )
    if e.kind == "scavenge":
        return f"seat {e.seat}'s scavenger {e.scavenger} takes a token from the kill"
    if e.kind == "attack":
        text = (
            f"seat {e.attacker_seat}'s carnivore ({_traits(e.attacker_traits)}) attacks seat "
            f"{e.defender_seat}'s animal ({_traits(e.defender_traits)})"
        )
        notes = []
        if e.redirects:
            notes.append(f"redirected {_n(e.redirects, 'time')} by Mimicry")
        if e.running_roll:
            notes.append(f"Running rolls {e.running_roll}")
        if e.dropped >= 0:
            notes.append(f"Tail Loss drops {names[e.dropped]}")
        outcome = OUTCOMES[e.outcome].replace("_", " ")
        text += ": " + ", ".join([*notes, outcome])
        if e.defence_used and not notes:
            text += f" ({DEFENCES[e.defence_used]})"
        if e.poisoned:
            text += "; the prey was Poisonous"
        return text
    if e.kind == "extinct":
        lost = []
        if e.starved:
            lost.append(f"{e.starved} starve")
        if e.poisoned:
            lost.append(f"{e.poisoned} die of poison")
        return f"seat {e.seat}: {', '.join(lost) or 'no losses'}, {_n(e.survivors, 'animal')} left"
    if e.kind == "draw":
        return f"seat {e.seat} draws {e.drawn} (hand {e.hand})"
    return f"event {e}"


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
        e = EVENTS.read(logs.events.data[i])
        by_round.setdefault(e.round, []).append(e)
    turns = {(int(logs.turns.round[i]), int(logs.turns.seat[i])): i for i in range(logs.turns.rows)}
    for i in range(logs.rounds.rows):
        rnd = int(logs.rounds.round[i])
        last = " (the last round)" if bool(logs.rounds.last[i]) else ""
        out += ["", f"round {rnd}{last}: seat {int(logs.rounds.first_seat[i])} first"]
        phase = "development"
        out.append("  development")
        for e in by_round.get(rnd, []):
            if e.kind == "food":
                phase = "feeding"
                need = sum(int(logs.turns.need[turns[(rnd, s)]]) for s in range(n))
                out.append(
                    f"  feeding: the food bank holds {e.bank} red tokens (the animals need {need})"
                )
                continue
            if e.kind == "extinct" and phase != "extinction":
                phase = "extinction"
                out.append("  extinction")
            if e.kind == "draw" and phase != "draw":
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
