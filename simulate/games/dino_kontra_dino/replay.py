"""One Dino Kontra Dino game, round by round, in words (from a traced kernel run)."""

from __future__ import annotations

from types import SimpleNamespace

from rules.dino_kontra_dino.deck import Deck
from simulate.kit.spec import Setup


def _card(deck: Deck, c: int) -> str:
    p, s, v, a = deck.dino_traits[c].tolist()
    return f"{deck.dino_names[c]} #{c + 1} [{p}/{s}/{v}/{a}]"


def render(setup: Setup, seed: int, game_id: int, logs: SimpleNamespace) -> str:
    """Text of a game traced by the kernel (``logs`` holds exactly that one game)."""
    deck: Deck = setup.data
    n = setup.n_players
    games, turns, hands = logs.games, logs.turns, logs.hands
    rot = int(games.rotation[0])
    seats = [setup.labels[(s - rot) % n] for s in range(n)]
    out = [
        f"{setup.game.title}, game {game_id} of seed {seed}: {n} players, {setup.describe_data()}",
        "traits are shown as [predation/size/speed/adaptability]",
        "seats: " + ", ".join(f"{s} {name}" for s, name in enumerate(seats)),
        f"seat {int(games.first_holder[0])} starts with the dinosaur figure",
    ]
    score = [0] * n
    for r0 in range(0, turns.rows, n):
        ev = int(turns.event_id[r0]) - 1
        holder = int(turns.holder[r0])
        out.append("")
        out.append(
            f"round {int(turns.round[r0]) + 1}: event #{ev + 1} {deck.event_names[ev]} "
            f"(needs {deck.needs_text(ev)}); figure with seat {holder}"
        )
        best = max(int(turns.strength[r0 + s]) for s in range(n))
        tied = [s for s in range(n) if int(turns.strength[r0 + s]) == best]
        for s in range(n):
            r = r0 + s
            hand = [int(c) for c in hands.hand[r] if c >= 0]
            card = int(turns.card_id[r]) - 1
            others = ", ".join(_card(deck, c) for c in hand if c != card)
            won = bool(turns.won[r])
            score[s] += won
            mark = "  <- wins" if won else ""
            out.append(
                f"  seat {s} ({seats[s]}) plays {_card(deck, card)} strength "
                f"{int(turns.strength[r])}{mark}" + (f"; keeps {others}" if others else "")
            )
        if len(tied) > 1:
            out.append(f"  tie at {best} between seats {tied}: the figure rule decides")
    out.append("")
    out.append("final: " + ", ".join(f"seat {s} {score[s]} events" for s in range(n)))
    winners = [s for s in range(n) if logs.players.winner[s]]
    if len(winners) == 1:
        out.append(f"winner: seat {winners[0]} ({seats[winners[0]]})")
    else:
        out.append(f"shared victory: seats {winners}")
    return "\n".join(out)
