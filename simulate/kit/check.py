"""One step checker for every game: a game played from Python one decision at a time.

The kit owns what every game shares. :class:`Checker` seeds and deals as the chunk kernel does
(:func:`~simulate.kit.support.start_game`, no rotation: lineup position = seat), asks the same
bots through the game's dispatch and, at every decision, checks that some action is legal,
that the engine both accepts the chosen one and lists it among the legal actions, and
restricted play: a position forbidden an option takes an action that uses it only when every
legal action does. It counts the decisions, drains the engine's event records after every
engine step (failing when a record may have been dropped or one is left at the end), and
checks that the result's sole winner agrees with the winners it marks.

A game's own rules live in its ``check.py``: a :class:`Referee` whose hooks see the deal,
every event record, the state after every engine step, every chosen action and the end, and a
``Checker`` pairing it with the engine's shape, :class:`Sequential` (one seat decides at a
time) or :class:`Simultaneous` (every seat plays a hand slot at once, then the round is
resolved), made for a sequential engine by :func:`sequential` from its engine module. The
game's spec names that checker; the conformance suite compares what it ends
with against the kernel's rows. A broken rule raises :class:`RuleBroken` naming it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from simulate.kit.support import start_game

if TYPE_CHECKING:
    from simulate.kit.spec import Setup


class RuleBroken(AssertionError):
    """A step-checked game broke a rule (the message names it)."""


def expect(ok: bool, message: str) -> None:
    """A checker's test of one rule: raise :class:`RuleBroken` with ``message`` unless ``ok``
    (unlike ``assert``, never switched off by ``python -O``)."""
    if not ok:
        raise RuleBroken(message)


@dataclasses.dataclass(frozen=True)
class Checked:
    """What a step-checked game ends with (a game's referee may add its own fields)."""

    winners: list[bool]
    rounds: int
    decisions: int


class Referee:
    """A game's own rules, checked on one game while the kit plays it.

    The kit calls :meth:`dealt` after the deal; after every engine step it hands over the
    step's event records (:meth:`event`) and then calls :meth:`step`; it calls :meth:`decided`
    with each chosen action (legal and allowed) before the action is applied, :meth:`resolved`
    after each round of a simultaneous game, and :meth:`result` at the end. Override what the
    game checks or records; ``self.tb`` and ``self.st`` are the live rules table and state.
    """

    def __init__(self, setup: Setup, tb: Any, st: Any) -> None:
        self.setup = setup
        self.tb = tb
        self.st = st
        self.n = setup.n_players

    def dealt(self) -> None:
        """The deal is done, nothing asked yet."""

    def event(self, e: np.ndarray) -> None:
        """One event record the last engine step left (a copy; in the order they were left)."""

    def step(self, kind: int) -> None:
        """The state after an engine step that returned ``kind`` (its events seen); in a
        simultaneous game, before each round's choices."""

    def decided(self, kind: int, seat: int, action: int) -> None:
        """``seat`` chose ``action`` in a decision of ``kind``; it is applied next."""

    def resolved(self, slots: np.ndarray, result: int) -> None:
        """A simultaneous game's round, played from every seat's ``slots``, returned ``result``."""

    def result(self, winners: list[bool], decisions: int) -> Checked:
        """The final checks, and what the game ended with (``decisions`` the kit counted);
        every game overrides it (its rounds are its own)."""
        raise NotImplementedError


@dataclasses.dataclass
class InPlay:
    """One game at the checker's table: the records the engine and the bots read, the referee,
    and each seat's forbidden options."""

    tb: Any
    lu: Any
    st: Any
    scratch: Any
    referee: Referee
    banned: list[frozenset[int]]


@dataclasses.dataclass(frozen=True)
class Sequential:
    """An engine that asks one seat at a time (EVO, Table Battles, Origin of Species), as
    compiled functions of the rules table ``tb`` and the state ``st``: ``advance`` runs to the
    next step and returns its kind, ``st.actor`` decides, ``actions(tb, st, -1)`` counts the
    legal actions and ``actions(tb, st, k)`` is the ``k``-th, ``option_of`` the option an
    action uses (-1: none). The engine leaves event records in ``st.ev[: st.n_ev]`` (and counts
    records it had to drop in ``st.ev_lost``, where the state has that field)."""

    deal: Callable[[Any, Any], None]
    advance: Callable[[Any, Any], int]
    actions: Callable[[Any, Any, int], int]
    is_legal: Callable[[Any, Any, int], bool]
    apply: Callable[[Any, Any, int], None]
    option_of: Callable[[Any, Any, int], int]
    final_result: Callable[[Any, Any, np.ndarray], int]
    choose: Callable[..., int]
    """``choose(lineup, j, tb, st, seat, scratch)``: the game's one bot dispatch."""
    game_over: int
    passes: tuple[int, ...]
    """Step kinds that ask nobody (a round's end, a pause): the loop steps again."""

    def count(self, g: InPlay) -> int:
        return int(self.actions(g.tb, g.st, np.int64(-1)))

    def nth(self, g: InPlay, k: int) -> int:
        return int(self.actions(g.tb, g.st, np.int64(k)))

    def legal(self, g: InPlay, action: int) -> bool:
        return bool(self.is_legal(g.tb, g.st, action))

    def uses(self, g: InPlay, seat: int, action: int) -> frozenset[int]:
        o = int(self.option_of(g.tb, g.st, action))
        return frozenset((o,)) if o >= 0 else frozenset()

    def play(self, g: InPlay) -> int:
        """Play the dealt game to its end; return the decisions made."""
        st, decisions = g.st, 0
        lost = "ev_lost" in st.dtype.names
        while True:
            kind = int(self.advance(g.tb, st))
            for e in drain(st, lost):
                g.referee.event(e)
            g.referee.step(kind)
            if kind == self.game_over:
                return decisions
            if kind in self.passes:
                continue
            seat = int(st.actor)
            action = decide(self, g, kind, seat)
            decisions += 1
            g.referee.decided(kind, seat, action)
            self.apply(g.tb, st, action)


def drain(st: Any, lost: bool) -> np.ndarray:
    """The event records an engine step left (a copy), the buffer emptied as the kernel
    empties it; a full buffer or a dropped record breaks the checker (the log would miss it)."""
    k, cap = int(st.n_ev), st.ev.shape[0]
    expect(k < cap, f"{k} event records filled the buffer: the next one would be dropped")
    if lost:
        expect(int(st.ev_lost) == 0, f"{int(st.ev_lost)} event records were dropped")
    records = np.array(st.ev[:k])
    st.n_ev = 0
    return records


@dataclasses.dataclass(frozen=True)
class Simultaneous:
    """An engine in which every seat plays a slot of its hand at once and then the round is
    resolved (Dino Kontra Dino): ``slots(tb, st)`` hand slots to choose from this round,
    ``play_round(tb, st, slots)`` resolves it from each seat's slot and returns its result,
    ``options(setup, tb, st, seat, slot)`` the option ids playing that slot uses (``None``:
    no action uses one)."""

    deal: Callable[[Any, Any], None]
    game_over: Callable[[Any, Any], bool]
    slots: Callable[[Any, Any], int]
    play_round: Callable[[Any, Any, np.ndarray], int]
    final_result: Callable[[Any, Any, np.ndarray], int]
    choose: Callable[..., int]
    """``choose(lineup, j, tb, st, seat, scratch)``: the game's one bot dispatch."""
    options: Callable[[Setup, Any, Any, int, int], set[int]] | None = None

    ROUND = 0
    """The kind of every decision (and of the step before each round)."""

    def count(self, g: InPlay) -> int:
        return int(self.slots(g.tb, g.st))

    def nth(self, g: InPlay, k: int) -> int:
        return k

    def legal(self, g: InPlay, action: int) -> bool:
        return 0 <= action < self.count(g)

    def uses(self, g: InPlay, seat: int, action: int) -> frozenset[int]:
        if self.options is None:
            return frozenset()
        return frozenset(self.options(g.referee.setup, g.tb, g.st, seat, action))

    def play(self, g: InPlay) -> int:
        """Play the dealt game to its end; return the decisions made."""
        n = g.referee.n
        chosen = np.zeros(n, dtype=np.int64)
        decisions = 0
        while not self.game_over(g.tb, g.st):
            g.referee.step(self.ROUND)
            for seat in range(n):
                chosen[seat] = decide(self, g, self.ROUND, seat)
                decisions += 1
                g.referee.decided(self.ROUND, seat, int(chosen[seat]))
            g.referee.resolved(chosen, int(self.play_round(g.tb, g.st, chosen)))
        return decisions


def decide(engine: Sequential | Simultaneous, g: InPlay, kind: int, seat: int) -> int:
    """``seat``'s bot's action, checked: the decision offers a legal action; the bot took one
    that the engine both accepts and lists among the decision's legal actions (two readings
    of legality that must agree); and one using a forbidden option only when every legal
    action does."""
    n = engine.count(g)
    expect(n >= 1, f"seat {seat} asked to decide (decision {kind}) with no legal action")
    action = int(engine.choose(g.lu, seat, g.tb, g.st, seat, g.scratch))
    what = f"seat {seat} took action {action} (decision {kind})"
    expect(engine.legal(g, action), f"{what}, which is illegal")
    listed = any(engine.nth(g, k) == action for k in range(n))
    expect(listed, f"{what}, not among the {n} legal actions the engine lists")
    used = engine.uses(g, seat, action) & g.banned[seat]
    if used:
        others = (engine.nth(g, k) for k in range(n))
        expect(
            all(engine.uses(g, seat, a) & g.banned[seat] for a in others),
            f"{what} using forbidden {' and '.join(option_names(g, used))} while another "
            f"legal action was allowed",
        )
    return action


def option_names(g: InPlay, options: frozenset[int]) -> list[str]:
    names = g.referee.setup.game.registry.options
    return [names[o] for o in sorted(options)]


def restrict(setup: Setup, forbid: dict[int, tuple[str, ...]]) -> Setup:
    """``setup`` with lineup position ``j`` also forbidden the options ``forbid[j]`` (names
    checked, in the game's order): a restricted setup is an ordinary one, its strategies
    spelled ``name[forbid=a+b]``."""
    registry = setup.game.registry
    lineup = list(setup.lineup)
    for j, names in forbid.items():
        both = registry.forbid_options((*lineup[j].forbid, *names))
        lineup[j] = dataclasses.replace(lineup[j], forbid=both)
    return dataclasses.replace(setup, lineup=tuple(lineup))


ENGINE_FUNCTIONS = ("deal", "advance", "actions", "is_legal", "apply", "final_result")
"""What :func:`sequential` takes from a game's engine module, by these names."""


def sequential(
    engine: ModuleType,
    referee: type[Referee],
    *,
    option_of: Callable[[Any, Any, int], int],
    choose: Callable[..., int],
    game_over: int,
    passes: tuple[int, ...],
) -> Checker:
    """The step checker of a game whose engine asks one seat at a time: the compiled
    functions of its ``engine`` module (:data:`ENGINE_FUNCTIONS`, named as
    :class:`Sequential` names them) with what only the game knows: its options'
    ``option_of``, its bots' ``choose``, the step kinds that end the game or ask nobody, and
    its referee. A game's ``check.py`` ends with this one call."""
    functions = {name: getattr(engine, name) for name in ENGINE_FUNCTIONS}
    shape = Sequential(
        **functions, option_of=option_of, choose=choose, game_over=game_over, passes=passes
    )
    return Checker(shape, referee)


@dataclasses.dataclass(frozen=True)
class Checker:
    """A game's step checker (its spec's ``check``): the engine's shape and the game's referee.
    ``checker(setup, seed, game_id)`` plays that game (no rotation) with every check on;
    ``forbid`` restricts lineup positions further (see :func:`restrict`)."""

    engine: Sequential | Simultaneous
    referee: type[Referee]

    def __call__(
        self,
        setup: Setup,
        seed: int,
        game_id: int,
        forbid: dict[int, tuple[str, ...]] | None = None,
    ) -> Checked:
        if forbid:
            setup = restrict(setup, forbid)
        tb, lu, st, *rest = (x[0] for x in setup.game.build_inputs(setup))  # fresh records
        n = setup.n_players
        options = lu.forbid.shape[1]
        banned = [frozenset(o for o in range(options) if lu.forbid[s, o]) for s in range(n)]
        g = InPlay(tb, lu, st, rest[0] if rest else None, self.referee(setup, tb, st), banned)
        winners = np.zeros(n, dtype=np.bool_)
        with np.errstate(over="ignore"):
            start_game(st.rng, n, np.uint64(seed), game_id, False)
            self.engine.deal(tb, st)
            g.referee.dealt()
            decisions = self.engine.play(g)
            sole = int(self.engine.final_result(tb, st, winners))
        if isinstance(self.engine, Sequential):
            expect(int(st.n_ev) == 0, f"{int(st.n_ev)} event records left after the game")
        marked = [s for s in range(n) if winners[s]]
        expect(
            sole == (marked[0] if len(marked) == 1 else -1),
            f"the result names seat {sole} the sole winner, the winners are seats {marked}",
        )
        return g.referee.result([bool(x) for x in winners], decisions)
