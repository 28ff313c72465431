"""One EVO game, round by round, in words (from a trace run of the kernel)."""

from __future__ import annotations

from types import SimpleNamespace

from rules.evo.cards import (
    CARDS,
    T_CARD,
    T_DIE,
    T_NEWBORN,
    T_SEAT,
    T_VICTIM,
    W_CLIMATE,
    W_SURVIVAL_END,
    WINDOW_NAMES,
)
from rules.evo.constants import GENES, TERRAINS, ZONES
from rules.evo.state import EVENTS
from simulate.kit.spec import Setup

CAUSES = ("the climate", "combat", "an event card")


def _zone(delta: int) -> int:
    if delta == 0:
        return 0
    if abs(delta) == 1:
        return 1 if delta < 0 else 2
    return 3 if delta < 0 else 4


def _card_text(number: int, target: int, regions) -> str:
    card = CARDS[number - 1]
    text = f"{card.hungarian} ({card.english})"
    if card.target in (T_VICTIM, T_NEWBORN):
        text += f" on the dino in {regions(target)}"
    elif card.target == T_DIE:
        text += f", choosing a {target}"
    elif card.target == T_SEAT:
        text += f" with seat {target}"
    elif card.target == T_CARD:
        text += f", taking {CARDS[target - 1].hungarian}"
    return text


def render(setup: Setup, seed: int, game_id: int, logs: SimpleNamespace) -> str:
    """Text of one game traced by the kernel (``logs`` holds exactly that game)."""
    evo_map = setup.data
    p = setup.params
    n = setup.n_players
    rot = int(logs.games.rotation[0])
    seats = [setup.labels[(s - rot) % n] for s in range(n)]
    cycle = p.climate_cycle

    def region(r: int) -> str:
        return f"region {r + 1} ({TERRAINS[evo_map.terrain[r]]})"

    out = [
        f"{setup.game.title}, game {game_id} of seed {seed}: {n} players",
        setup.describe_data(),
        "seats: " + ", ".join(f"{s} {name}" for s, name in enumerate(seats)),
        "start stars: "
        + ", ".join(f"seat {s} {region(int(logs.players.start_region[s]) - 1)}" for s in range(n)),
        f"everyone starts with {p.start_points} points and the portrait genes; the climate "
        f"marker is on {TERRAINS[cycle[p.climate_start]]}, the meteor on space "
        f"{p.meteor_start_for(n)} of {p.meteor_last_space}",
    ]
    turns = {(int(logs.turns.round[i]), int(logs.turns.seat[i])): i for i in range(logs.turns.rows)}
    events = [
        EVENTS.read(logs.events.data[i], round=logs.events.round[i])
        for i in range(logs.events.rows)
    ]
    b = logs.bids
    bids: dict[int, list[int]] = {}  # round -> its rows of the bids table
    for i in range(b.rows):
        bids.setdefault(int(b.round[i]), []).append(i)
    for i in range(logs.rounds.rows):
        rnd = int(logs.rounds.round[i])
        rows = [turns[(rnd, s)] for s in range(n)]
        order = sorted(range(n), key=lambda s: int(logs.turns.initiative[rows[s]]))
        out.append("")
        out.append(f"round {rnd}")
        desc = []
        for s in order:
            t = rows[s]
            how = ("tails", "dinos", "the die")[int(logs.turns.initiative_by[t])]
            desc.append(f"seat {s} ({int(logs.turns.tails[t])} tails, by {how})")
        out.append("  initiative: " + ", ".join(desc))
        temperate = TERRAINS[int(logs.rounds.temperate[i])]
        roll = int(logs.rounds.climate_roll[i])
        card = int(logs.rounds.climate_card[i])
        why = f"die {roll}" if roll else f"card {CARDS[card - 1].hungarian}"
        if roll and card > 0:
            why += f" after {CARDS[card - 1].hungarian}"
        climate = [f"  climate ({why}): {temperate} temperate"]
        score = ", ".join(
            f"seat {s} {int(logs.turns.dinos[rows[s]])} dinos +{int(logs.turns.scored[rows[s]])}"
            f" = {int(logs.turns.points[rows[s]])}"
            for s in range(n)
        )
        meteor = f"  meteor to space {int(logs.rounds.meteor_space[i])}"
        if int(logs.rounds.meteor_roll[i]):
            meteor += f", die {int(logs.rounds.meteor_roll[i])}"
        if bool(logs.rounds.impact[i]):
            meteor += ": IMPACT, the game ends"
        pending = [f"  scoring (points after phase 5): {score}", meteor]

        def flush(upto: int, pending: list[str] = pending, climate: list[str] = climate) -> None:
            out.extend(climate)
            climate.clear()
            while len(pending) > 2 - upto:
                out.append(pending.pop(0))

        for e in (x for x in events if x.round == rnd):
            early = (e.kind == "card" and e.window <= W_CLIMATE) or (
                e.kind == "death" and e.cause == 2 and climate
            )
            if not early:
                flush(0)
            if e.kind == "card":
                if e.window >= W_SURVIVAL_END:
                    flush(1 if e.window == W_SURVIVAL_END else 2)
                text = _card_text(e.card, e.target, region)
                out.append(f"  [{WINDOW_NAMES[e.window]}] seat {e.seat} plays {text}")
            elif e.kind == "move":
                out.append(f"  seat {e.seat} moves {region(e.origin)} -> {region(e.destination)}")
            elif e.kind == "combat":
                won = "wins" if e.attacker_won else "loses"
                what = "newborn attacks" if e.phase == 4 else "attacks"
                out.append(
                    f"  seat {e.attacker_seat} {what} seat {e.defender_seat} in "
                    f"{region(e.region)}: horns {e.attacker_horns} vs {e.defender_horns}, "
                    f"rolls {e.roll}: attacker {won}"
                )
            elif e.kind == "place":
                out.append(f"  seat {e.seat} places a newborn on {region(e.region)}")
            elif e.kind == "death":
                zone = ""
                if e.cause == 0:
                    d = int(evo_map.terrain[e.region]) - cycle[int(logs.rounds.climate_field[i])]
                    zone = " " + ZONES[_zone(d)]
                out.append(
                    f"  seat {e.seat} loses the dino on {region(e.region)}{zone} to "
                    f"{CAUSES[e.cause]}"
                )
            elif e.kind == "pass":
                flush(2)
                out.append(f"  seat {e.seat} passes in the auction")
        flush(2)
        for k in bids.get(rnd, []):
            out.append(
                f"  seat {int(b.seat[k])} buys {GENES[int(b.gene[k])]} for {int(b.bid[k])} "
                f"(pays {int(b.paid[k])} with {int(b.mutations[k])} mutations)"
            )
    out.append("")
    final = ", ".join(
        f"seat {s} {int(logs.players.points[s]) + int(logs.players.bonus[s])} points "
        f"({int(logs.players.dinos[s])} dinos)"
        for s in range(n)
    )
    out.append(f"final: {final}")
    winners = [s for s in range(n) if logs.players.winner[s]]
    if len(winners) == 1:
        out.append(f"winner: seat {winners[0]} ({seats[winners[0]]})")
    else:
        out.append(f"shared victory: seats {winners}")
    return "\n".join(out)
