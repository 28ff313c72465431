"""One Dinosaur Table Battles game in words: the draft pick by pick, then turn by turn (from a
traced kernel run: the trace tables ``hands`` and ``decisions`` plus the logged rows)."""

from __future__ import annotations

from types import SimpleNamespace

from rules.table_battles.cards import CardPool
from rules.table_battles.constants import ATTACK, BREAK, END_REASONS, PLACE, REACTION_KINDS
from simulate.games.table_battles.tables import RESOLUTIONS
from simulate.kit.spec import Setup

VERBS = ("places", "removes openly", "removes secretly")
"""A draft action (constants.DRAFT_ACTIONS order) as a verb."""


def _n(k: int, one: str, many: str = "") -> str:
    return f"{k} {one if k == 1 else many or one + 's'}"


def _faces(roll) -> str:
    return " ".join(str(f) for f in range(1, 7) for _ in range(int(roll[f]))) or "nothing"


DRAFT = "draft"
"""The setup parameter's value for a drafted game (anything else: the first game's teams)."""
SEATS = 2
"""Table Battles is a two-seat game."""
MARKER_OUTCOMES = {"markers": ", markers removed", "flip": ", a card flipped"}
"""What a hit's resolution adds to the attack when no break decision follows it."""


def render(setup: Setup, seed: int, game_id: int, logs: SimpleNamespace) -> str:
    """Text of one game traced by the kernel (``logs`` holds exactly that game)."""
    cards: CardPool = setup.data
    g = logs.games
    rot = int(g.rotation[0])
    seats = [setup.labels[(s - rot) % SEATS] for s in range(SEATS)]
    out = [
        f"{setup.game.title}, game {game_id} of seed {seed}: seat 0 {seats[0]}, seat 1 {seats[1]}",
        setup.describe_data(),
    ]
    if setup.params.setup == DRAFT:
        out += _draft_lines(cards, logs)
    else:
        out.append("the first game's suggested teams (no draft)")
    team_lines, slots = _team_lines(setup, logs.players)
    out += team_lines
    out.append(_first_line(g, logs.players))
    out += _turn_lines(cards, logs, slots)
    out.append(_end_line(g, seats))
    return "\n".join(out)


def _draft_lines(cards: CardPool, logs: SimpleNamespace) -> list[str]:
    """The hands dealt for the draft, then each pick's actions."""
    names = cards.dino_names()
    hands = [
        ", ".join(cards.dinos[int(v)].name for v in logs.hands.hand[s] if v >= 0)
        for s in range(SEATS)
    ]
    out = [f"draft: seat 0 is dealt {hands[0]}; seat 1 is dealt {hands[1]}"]
    d = logs.drafts
    for pick in sorted({int(p) for p in d.pick}):
        rows = [i for i in range(d.rows) if int(d.pick[i]) == pick]
        what = "; ".join(
            f"seat {int(d.seat[i])} {VERBS[int(d.action[i])]} {names[int(d.dino[i])]} "
            f"(rating {int(d.draft_rating[i])})"
            for i in rows
        )
        out.append(f"  pick {pick}: {what}")
    return out


def _team_lines(setup: Setup, pl: SimpleNamespace) -> tuple[list[str], list[list[str]]]:
    """Each seat's team line, and per seat the label of each card slot, in team order."""
    cards: CardPool = setup.data
    names = cards.dino_names()
    labels = cards.card_labels()
    first_card = [0]
    for d in cards.dinos:
        first_card.append(first_card[-1] + d.n_cards)
    out, slots = [], []
    for s in range(SEATS):
        team = [names[int(c)] for c in pl.dinos[s] if c >= 0]
        slot_labels = []
        for name in team:
            v = cards.find(name, setup.params.expansion)
            slot_labels += labels[first_card[v] : first_card[v + 1]]
        slots.append(slot_labels)
        bonus = []
        if pl.fewer_dinos[s]:
            bonus.append("fewer dinos")
        if pl.fewer_cards[s]:
            bonus.append("fewer action cards")
        if pl.trex[s]:
            bonus.append("the T-Rex")
        extra = f", bonus for {' and '.join(bonus)}" if bonus else ""
        out.append(
            f"seat {s} team: {', '.join(team)} ({int(pl.action_cards[s])} action cards, "
            f"{int(pl.hit_markers[s])} hit markers{extra}; printed ratings sum "
            f"{int(pl.draft_rating[s])})"
        )
    return out, slots


def _first_line(g: SimpleNamespace, pl: SimpleNamespace) -> str:
    """Which seat moves first, and why."""
    first = int(g.first_seat[0])
    why = (
        "fewer hit markers"
        if int(pl.hit_markers[0]) != int(pl.hit_markers[1])
        else "equal markers: its dino comes first alphabetically"
    )
    return f"seat {first} moves first ({why})"


def _turn_lines(cards: CardPool, logs: SimpleNamespace, slots: list[list[str]]) -> list[str]:
    """One line per turn: the attack, the breaks and placements, the markers left."""
    x = logs.decisions
    by_turn: dict[int, list[int]] = {}
    for i in range(x.rows):
        by_turn.setdefault(int(x.turn[i]), []).append(i)
    t = logs.turns
    out = []
    for r in range(t.rows):
        turn, s = int(t.turn[r]), int(t.seat[r])
        decisions = by_turn.get(turn, [])
        parts = [_attack_text(cards, logs, r, decisions)]
        parts += _decision_texts(x, decisions, slots, s)
        m0, m1 = int(t.markers[r, 0]), int(t.markers[r, 1])
        u0, u1 = int(t.face_up[r, 0]), int(t.face_up[r, 1])
        parts.append(f"markers {m0}-{m1}, face-up cards {u0}-{u1}")
        out.append(f"turn {turn}, seat {s}: " + "; ".join(parts))
    return out


def _attack_text(cards: CardPool, logs: SimpleNamespace, r: int, decisions: list[int]) -> str:
    """Turn row ``r``'s attack phase: the attack and what came of it, or why there was none."""
    t, x = logs.turns, logs.decisions
    if int(t.attack_card[r]) > 0:
        return _attack_outcome(cards, logs, r, decisions)
    if r > 0 and int(t.reaction[r - 1]) > 0:
        return "no attack phase (it reacted in the turn before)"
    if any(int(x.kind[i]) == ATTACK for i in decisions):
        return "does not attack"
    return "no attack possible"


def _attack_outcome(cards: CardPool, logs: SimpleNamespace, r: int, decisions: list[int]) -> str:
    """An attack made in turn row ``r``: card, dice, target, reaction, hits and extras."""
    t, x = logs.turns, logs.decisions
    names = cards.dino_names()
    labels = cards.card_labels()
    o = 1 - int(t.seat[r])
    breaks = [i for i in decisions if int(x.kind[i]) == BREAK]
    kind = REACTION_KINDS[int(t.reaction_kind[r])]
    dice = int(t.attack_dice[r])
    a = (
        f"attacks with {labels[int(t.attack_card[r]) - 1]} ({_n(dice, 'die', 'dice')}) "
        f"on {names[int(t.target[r]) - 1]}"
    )
    if int(t.reaction[r]) > 0:
        a += f"; seat {o} reacts with {labels[int(t.reaction[r]) - 1]} ({kind})"
    hit = int(t.hit_dino[r])
    how = RESOLUTIONS[int(t.resolved[r])]
    if hit > 0:
        a += f": {_n(int(t.hits[r]), 'hit')} on {names[hit - 1]}"
        if not breaks:
            a += MARKER_OUTCOMES.get(how, "")
    elif kind == "block":
        a += ": blocked"
    if int(t.counter_hits[r]):
        a += f"; {_n(int(t.counter_hits[r]), 'hit')} back on the attacker"
    if int(t.self_hits[r]):
        a += f"; pays {int(t.self_hits[r])} self"
    if int(t.stolen[r]):
        a += f"; Egg Thieves take {_n(int(t.stolen[r]), 'marker')} back"
    return a


def _decision_texts(
    x: SimpleNamespace, decisions: list[int], slots: list[list[str]], s: int
) -> list[str]:
    """A turn's breaks and placements (the dice rolled before the first placement)."""
    parts = []
    rolled = False
    for i in decisions:
        k, act, who = int(x.kind[i]), int(x.action[i]), int(x.seat[i])
        if k == BREAK:
            if act < 0:
                parts.append(f"seat {who} removes the markers")
            else:
                parts.append(f"seat {who} flips {slots[who][act]} instead")
        elif k == PLACE:
            if not rolled:
                parts.append(f"rolls {_faces(x.roll[i])}")
                rolled = True
            if act >= 0:
                slot, face, count = act >> 16, (act >> 8) & 0xFF, act & 0xFF
                parts.append(f"places {count}x{face} on {slots[s][slot]}")
    return parts


def _end_line(g: SimpleNamespace, seats: list[str]) -> str:
    """How the game ended: the turn cap, or the winner and how."""
    reason = END_REASONS[int(g.end_reason[0]) + 1]
    turns = int(g.turns[0])
    if int(g.n_winners[0]) == 0:
        return f"the turn cap stopped the game after {turns} turns: nobody won"
    w = int(g.winner_seat[0])
    return f"winner: seat {w} ({seats[w]}) by {reason}, after {turns} turns"
