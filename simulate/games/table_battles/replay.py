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


def render(setup: Setup, seed: int, game_id: int, logs: SimpleNamespace) -> str:
    """Text of one game traced by the kernel (``logs`` holds exactly that game)."""
    cards: CardPool = setup.data
    names = cards.dino_names()
    labels = cards.card_labels()
    first_card = [0]
    for d in cards.dinos:
        first_card.append(first_card[-1] + d.n_cards)
    g, pl = logs.games, logs.players
    rot = int(g.rotation[0])
    seats = [setup.labels[(s - rot) % 2] for s in range(2)]
    out = [
        f"{setup.game.title}, game {game_id} of seed {seed}: seat 0 {seats[0]}, seat 1 {seats[1]}",
        setup.describe_data(),
    ]
    if setup.params.setup == "draft":
        hands = [
            ", ".join(cards.dinos[int(v)].name for v in logs.hands.hand[s] if v >= 0)
            for s in range(2)
        ]
        out.append(f"draft: seat 0 is dealt {hands[0]}; seat 1 is dealt {hands[1]}")
        d = logs.drafts
        for pick in sorted({int(p) for p in d.pick}):
            rows = [i for i in range(d.rows) if int(d.pick[i]) == pick]
            what = "; ".join(
                f"seat {int(d.seat[i])} {VERBS[int(d.action[i])]} {names[int(d.dino[i])]} "
                f"(rating {int(d.draft_rating[i])})"
                for i in rows
            )
            out.append(f"  pick {pick}: {what}")
    else:
        out.append("the first game's suggested teams (no draft)")
    slots = []  # per seat: the label of each card slot, in team order
    for s in range(2):
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
    first = int(g.first_seat[0])
    why = (
        "fewer hit markers"
        if int(pl.hit_markers[0]) != int(pl.hit_markers[1])
        else "equal markers: its dino comes first alphabetically"
    )
    out.append(f"seat {first} moves first ({why})")
    x = logs.decisions
    by_turn: dict[int, list[int]] = {}
    for i in range(x.rows):
        by_turn.setdefault(int(x.turn[i]), []).append(i)
    t = logs.turns
    for r in range(t.rows):
        turn, s = int(t.turn[r]), int(t.seat[r])
        o = 1 - s
        decisions = by_turn.get(turn, [])
        breaks = [i for i in decisions if int(x.kind[i]) == BREAK]
        parts = []
        kind = REACTION_KINDS[int(t.reaction_kind[r])]
        if int(t.attack_card[r]) > 0:
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
                    a += {"markers": ", markers removed", "flip": ", a card flipped"}.get(how, "")
            elif kind == "block":
                a += ": blocked"
            if int(t.counter_hits[r]):
                a += f"; {_n(int(t.counter_hits[r]), 'hit')} back on the attacker"
            if int(t.self_hits[r]):
                a += f"; pays {int(t.self_hits[r])} self"
            if int(t.stolen[r]):
                a += f"; Egg Thieves take {_n(int(t.stolen[r]), 'marker')} back"
            parts.append(a)
        elif r > 0 and int(t.reaction[r - 1]) > 0:
            parts.append("no attack phase (it reacted in the turn before)")
        elif any(int(x.kind[i]) == ATTACK for i in decisions):
            parts.append("does not attack")
        else:
            parts.append("no attack possible")
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
        m0, m1 = int(t.markers[r, 0]), int(t.markers[r, 1])
        u0, u1 = int(t.face_up[r, 0]), int(t.face_up[r, 1])
        parts.append(f"markers {m0}-{m1}, face-up cards {u0}-{u1}")
        out.append(f"turn {turn}, seat {s}: " + "; ".join(parts))
    reason = END_REASONS[int(g.end_reason[0]) + 1]
    turns = int(g.turns[0])
    if int(g.n_winners[0]) == 0:
        out.append(f"the turn cap stopped the game after {turns} turns: nobody won")
    else:
        w = int(g.winner_seat[0])
        out.append(f"winner: seat {w} ({seats[w]}) by {reason}, after {turns} turns")
    return "\n".join(out)
