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
from rules.evo.state import EV_CARD, EV_COMBAT, EV_DEATH, EV_MOVE, EV_PASS, EV_PLACE
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
    events = [(int(logs.events.round[i]), logs.events.data[i]) for i in range(logs.events.rows)]
    bids = {}
    b = logs.bids
    for i in range(b.rows):
        bid = (b.seat[i], b.gene[i], b.bid[i], b.paid[i], b.mutations[i])
        bids.setdefault(int(b.round[i]), []).append(bid)
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

        for _rnd, e in (ev for ev in events if ev[0] == rnd):
            kind = int(e[0])
            early = (kind == EV_CARD and int(e[3]) <= W_CLIMATE) or (
                kind == EV_DEATH and int(e[3]) == 2 and climate
            )
            if not early:
                flush(0)
            if kind == EV_CARD:
                window = int(e[3])
                if window >= W_SURVIVAL_END:
                    flush(1 if window == W_SURVIVAL_END else 2)
                text = _card_text(int(e[2]), int(e[4]), region)
                out.append(f"  [{WINDOW_NAMES[window]}] seat {int(e[1])} plays {text}")
            elif kind == EV_MOVE:
                out.append(f"  seat {int(e[1])} moves {region(int(e[2]))} -> {region(int(e[3]))}")
            elif kind == EV_COMBAT:
                won = "wins" if e[6] else "loses"
                what = "newborn attacks" if int(e[8]) == 4 else "attacks"
                out.append(
                    f"  seat {int(e[1])} {what} seat {int(e[2])} in {region(int(e[7]))}: horns "
                    f"{int(e[3])} vs {int(e[4])}, rolls {int(e[5])}: attacker {won}"
                )
            elif kind == EV_PLACE:
                out.append(f"  seat {int(e[1])} places a newborn on {region(int(e[2]))}")
            elif kind == EV_DEATH:
                r = int(e[2])
                zone = ""
                if int(e[3]) == 0:
                    d = int(evo_map.terrain[r]) - cycle[int(logs.rounds.climate_field[i])]
                    zone = " " + ZONES[_zone(d)]
                out.append(
                    f"  seat {int(e[1])} loses the dino on {region(r)}{zone} to {CAUSES[int(e[3])]}"
                )
            elif kind == EV_PASS:
                flush(2)
                out.append(f"  seat {int(e[1])} passes in the auction")
        flush(2)
        for b in bids.get(rnd, []):
            out.append(
                f"  seat {int(b[0])} buys {GENES[int(b[1])]} for {int(b[2])} "
                f"(pays {int(b[3])} with {int(b[4])} mutations)"
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
