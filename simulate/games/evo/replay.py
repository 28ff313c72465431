"""One EVO game, round by round, in words (from a trace run of the kernel)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
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
"""A death's cause (the death event's ``cause``) in words."""
CLIMATE_CAUSE = CAUSES.index("the climate")
"""A death by the climate: its line names the zone the dino was in."""
EVENT_CARD_CAUSE = CAUSES.index("an event card")
"""A death by an event card comes before the climate line while that is still held back."""
NEWBORN_PHASE = 4
"""The phase in which newborns attack: a combat then reads 'newborn attacks'."""
INITIATIVE_BY = ("tails", "dinos", "the die")
"""What decided a seat's initiative (the turns table's ``initiative_by``)."""


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


def _region(evo_map, r: int) -> str:
    """Region ``r`` (0-based) with its terrain: ``region 3 (desert)``."""
    return f"region {r + 1} ({TERRAINS[evo_map.terrain[r]]})"


THROUGH_CLIMATE, THROUGH_SCORING, THROUGH_METEOR = 0, 1, 2
"""How far ``_HeldLines.flush`` writes: the climate line only, or on through the scoring
line, or on through the meteor line."""


class _HeldLines:
    """A round's output with the climate line, then the scoring and meteor lines, held back
    until the events of their phases have been written."""

    def __init__(self, out: list[str], climate: list[str], pending: list[str]) -> None:
        self.out, self.climate, self.pending = out, climate, pending

    def flush(self, upto: int) -> None:
        """Write the climate line, then the held phase lines up to ``upto`` (THROUGH_...)."""
        self.out.extend(self.climate)
        self.climate.clear()
        while len(self.pending) > THROUGH_METEOR - upto:
            self.out.append(self.pending.pop(0))


def render(setup: Setup, seed: int, game_id: int, logs: SimpleNamespace) -> str:
    """Text of one game traced by the kernel (``logs`` holds exactly that game)."""
    n = setup.n_players
    rot = int(logs.games.rotation[0])
    seats = [setup.labels[(s - rot) % n] for s in range(n)]
    region = partial(_region, setup.data)
    out = _header_lines(setup, seed, game_id, logs, seats, region)
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
        out += _round_lines(setup, logs, i, turns, events, bids, region)
    out.append("")
    out += _final_lines(logs, seats)
    return "\n".join(out)


def _header_lines(
    setup: Setup,
    seed: int,
    game_id: int,
    logs: SimpleNamespace,
    seats: list[str],
    region: Callable[[int], str],
) -> list[str]:
    """The game, its data, the seats, their start regions, the start points and markers."""
    p = setup.params
    n = setup.n_players
    return [
        f"{setup.game.title}, game {game_id} of seed {seed}: {n} players",
        setup.describe_data(),
        "seats: " + ", ".join(f"{s} {name}" for s, name in enumerate(seats)),
        "start stars: "
        + ", ".join(f"seat {s} {region(int(logs.players.start_region[s]) - 1)}" for s in range(n)),
        f"everyone starts with {p.start_points} points and the portrait genes; the climate "
        f"marker is on {TERRAINS[p.climate_cycle[p.climate_start]]}, the meteor on space "
        f"{p.meteor_start_for(n)} of {p.meteor_last_space}",
    ]


def _round_lines(
    setup: Setup,
    logs: SimpleNamespace,
    i: int,
    turns: dict[tuple[int, int], int],
    events: list,
    bids: dict[int, list[int]],
    region: Callable[[int], str],
) -> list[str]:
    """Round row ``i``: initiative, the events in order with the climate, scoring and meteor
    lines where their phases fall, then the genes bought."""
    n = setup.n_players
    rnd = int(logs.rounds.round[i])
    rows = [turns[(rnd, s)] for s in range(n)]
    out = ["", f"round {rnd}", _initiative_line(logs.turns, rows)]
    held = _HeldLines(
        out,
        [_climate_line(logs.rounds, i)],
        [_scoring_line(logs.turns, rows), _meteor_line(logs.rounds, i)],
    )
    zone = partial(_zone_name, setup, int(logs.rounds.climate_field[i]))
    for e in (x for x in events if x.round == rnd):
        _write_event(held, e, region, zone)
    held.flush(THROUGH_METEOR)
    b = logs.bids
    for k in bids.get(rnd, []):
        out.append(
            f"  seat {int(b.seat[k])} buys {GENES[int(b.gene[k])]} for {int(b.bid[k])} "
            f"(pays {int(b.paid[k])} with {int(b.mutations[k])} mutations)"
        )
    return out


def _initiative_line(t: SimpleNamespace, rows: list[int]) -> str:
    """The seats in initiative order, each with its tails and what decided its place."""
    order = sorted(range(len(rows)), key=lambda s: int(t.initiative[rows[s]]))
    desc = []
    for s in order:
        how = INITIATIVE_BY[int(t.initiative_by[rows[s]])]
        desc.append(f"seat {s} ({int(t.tails[rows[s]])} tails, by {how})")
    return "  initiative: " + ", ".join(desc)


def _climate_line(rounds: SimpleNamespace, i: int) -> str:
    """Round row ``i``'s climate: what moved the marker, and the temperate terrain."""
    temperate = TERRAINS[int(rounds.temperate[i])]
    roll = int(rounds.climate_roll[i])
    card = int(rounds.climate_card[i])
    why = f"die {roll}" if roll else f"card {CARDS[card - 1].hungarian}"
    if roll and card > 0:
        why += f" after {CARDS[card - 1].hungarian}"
    return f"  climate ({why}): {temperate} temperate"


def _scoring_line(t: SimpleNamespace, rows: list[int]) -> str:
    """Each seat's dinos, points scored and points after phase 5."""
    score = ", ".join(
        f"seat {s} {int(t.dinos[rows[s]])} dinos +{int(t.scored[rows[s]])}"
        f" = {int(t.points[rows[s]])}"
        for s in range(len(rows))
    )
    return f"  scoring (points after phase 5): {score}"


def _meteor_line(rounds: SimpleNamespace, i: int) -> str:
    """Where the meteor moved in round row ``i``, its die, and whether it struck."""
    meteor = f"  meteor to space {int(rounds.meteor_space[i])}"
    if int(rounds.meteor_roll[i]):
        meteor += f", die {int(rounds.meteor_roll[i])}"
    if bool(rounds.impact[i]):
        meteor += ": IMPACT, the game ends"
    return meteor


def _zone_name(setup: Setup, field: int, r: int) -> str:
    """The climate zone region ``r`` was in, the climate marker on cycle space ``field``."""
    d = int(setup.data.terrain[r]) - setup.params.climate_cycle[field]
    return ZONES[_zone(d)]


def _write_event(
    held: _HeldLines, e, region: Callable[[int], str], zone: Callable[[int], str]
) -> None:
    """Write event ``e``, first flushing the held lines whose phases come before it."""
    early = (e.kind == "card" and e.window <= W_CLIMATE) or (
        e.kind == "death" and e.cause == EVENT_CARD_CAUSE and held.climate
    )
    if not early:
        held.flush(THROUGH_CLIMATE)
    if e.kind == "card":
        if e.window >= W_SURVIVAL_END:
            held.flush(THROUGH_SCORING if e.window == W_SURVIVAL_END else THROUGH_METEOR)
        text = _card_text(e.card, e.target, region)
        held.out.append(f"  [{WINDOW_NAMES[e.window]}] seat {e.seat} plays {text}")
    elif e.kind == "pass":
        held.flush(THROUGH_METEOR)
        held.out.append(f"  seat {e.seat} passes in the auction")
    else:
        line = _event_text(e, region, zone)
        if line is not None:
            held.out.append(line)


def _event_text(e, region: Callable[[int], str], zone: Callable[[int], str]) -> str | None:
    """A move, combat, newborn placement or death in words (None for other events)."""
    if e.kind == "move":
        return f"  seat {e.seat} moves {region(e.origin)} -> {region(e.destination)}"
    if e.kind == "combat":
        won = "wins" if e.attacker_won else "loses"
        what = "newborn attacks" if e.phase == NEWBORN_PHASE else "attacks"
        return (
            f"  seat {e.attacker_seat} {what} seat {e.defender_seat} in "
            f"{region(e.region)}: horns {e.attacker_horns} vs {e.defender_horns}, "
            f"rolls {e.roll}: attacker {won}"
        )
    if e.kind == "place":
        return f"  seat {e.seat} places a newborn on {region(e.region)}"
    if e.kind == "death":
        where = " " + zone(e.region) if e.cause == CLIMATE_CAUSE else ""
        return f"  seat {e.seat} loses the dino on {region(e.region)}{where} to {CAUSES[e.cause]}"
    return None


def _final_lines(logs: SimpleNamespace, seats: list[str]) -> list[str]:
    """Each seat's final points and dinos, then the winner or the seats sharing the win."""
    n = len(seats)
    final = ", ".join(
        f"seat {s} {int(logs.players.points[s]) + int(logs.players.bonus[s])} points "
        f"({int(logs.players.dinos[s])} dinos)"
        for s in range(n)
    )
    winners = [s for s in range(n) if logs.players.winner[s]]
    if len(winners) == 1:
        return [f"final: {final}", f"winner: seat {winners[0]} ({seats[winners[0]]})"]
    return [f"final: {final}", f"shared victory: seats {winners}"]
