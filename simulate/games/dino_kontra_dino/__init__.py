"""Dino Kontra Dino in the toolkit: tables, chunk play, replay."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from rules.core.jit import jit_disabled
from rules.dino_kontra_dino.deck import TRAITS, Deck, deck_csv
from rules.dino_kontra_dino.engine import make_table, new_states
from rules.dino_kontra_dino.params import MAX_PLAYERS, MIN_PLAYERS, DkdParameters, game_rounds
from simulate.columns import dictionary, table
from simulate.games.base import Column, Game, Setup, TableSchema
from simulate.games.dino_kontra_dino.kernel import Logs, allocate, play_chunk
from strategies.dino_kontra_dino import REGISTRY

I8, I64, BOOL = pa.int8(), pa.int64(), pa.bool_()
STRATEGY = pa.dictionary(pa.int8(), pa.string())

GAMES = TableSchema(
    "games",
    "one row per game",
    (
        Column("game_id", I64, "game index in the run; (seed, game_id) replays it"),
        Column("n_players", I8, "players at the table"),
        Column("rounds", I8, "events resolved"),
        Column("winner_seat", I8, "the winner's seat, -1 when the victory is shared"),
        Column("n_winners", I8, "players sharing the victory (1 = outright)"),
        Column("first_holder", I8, "seat that started with the dinosaur figure"),
        Column("rotation", I8, "seats the lineup was rotated by (0 without --rotate)"),
    ),
)
PLAYERS = TableSchema(
    "players",
    "one row per game and seat",
    (
        Column("game_id", I64, "game index"),
        Column("seat", I8, "seat, numbered clockwise from 0"),
        Column("strategy", STRATEGY, "the bot in this seat (its label)"),
        Column("events_won", I8, "event cards collected"),
        *(Column(f"{t}_events", I8, f"won events bearing the {t} icon") for t in TRAITS),
        Column("winner", BOOL, "won or shared the victory"),
        Column("figure_at_end", BOOL, "held the dinosaur figure at the end"),
    ),
)
ROUNDS = TableSchema(
    "rounds",
    "one row per game and round",
    (
        Column("game_id", I64, "game index"),
        Column("round", I8, "round, from 0"),
        Column("event_id", I8, "event resolved this round (deck number, from 1)"),
        Column("holder", I8, "seat holding the figure before the round"),
        Column("winner", I8, "seat that won the event (and takes the figure)"),
        Column("top_strength", I8, "the highest strength played"),
        Column("n_top", I8, "seats that played the highest strength; above 1 the figure decided"),
    ),
)
TURNS = TableSchema(
    "turns",
    "one row per game, round and seat",
    (
        Column("game_id", I64, "game index"),
        Column("round", I8, "round, from 0"),
        Column("seat", I8, "seat"),
        Column("event_id", I8, "event resolved this round (deck number, from 1)"),
        Column("card_id", I8, "dinosaur the seat played (deck number, from 1)"),
        Column("strength", I8, "the card's total in the event's required traits"),
        Column("holder", I8, "seat holding the figure before the round"),
        Column("won", BOOL, "this seat won the event"),
    ),
)


class DinoKontraDino(Game):
    name = "dino-kontra-dino"
    aliases = ("dkd",)
    title = "Dino Kontra Dino"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    default_players = 4
    parameters = DkdParameters
    registry = REGISTRY
    default_strategy = "greedy"
    default_chunk = 50_000
    tables = (GAMES, PLAYERS, ROUNDS, TURNS)

    def load_data(self, params: DkdParameters, n_players: int) -> Deck:
        deck = params.load_deck()
        params.check_players(n_players, deck)
        return deck

    def build_inputs(self, setup: Setup):
        p: DkdParameters = setup.params
        tb = make_table(
            setup.data, setup.n_players, p.hand_size, p.first_holder, p.two_trait_counts_both
        )
        return tb, self.registry.lineup_record(list(setup.lineup)), new_states(1)

    def rounds(self, setup: Setup) -> int:
        return game_rounds(setup.data.n_dinos, setup.n_players, setup.params.hand_size)

    def run_kernel(
        self,
        setup: Setup,
        seed: int,
        rotate: bool,
        start: int,
        stop: int,
        trace: bool = False,
        turns: bool = True,
    ) -> Logs:
        """Play games ``start .. stop-1`` into column buffers (fresh, except inside
        :meth:`~simulate.games.base.Game.reused_buffers`)."""
        tb, lu, st = self.kernel_inputs(setup)
        shape = (stop - start, setup.n_players, self.rounds(setup), setup.params.hand_size)
        logs = self.buffers(
            (id(setup), *shape, trace, turns), lambda: allocate(*shape, trace, turns)
        )
        with np.errstate(over="ignore"):
            rows = play_chunk(tb, lu, st, np.uint64(seed), rotate, start, stop, logs)
        if turns and rows != logs.t_game.shape[0]:
            raise AssertionError(f"kernel wrote {rows} turn rows, expected {logs.t_game.shape[0]}")
        return logs

    def play(self, setup: Setup, seed: int, rotate: bool, start: int, stop: int):
        logs = self.run_kernel(setup, seed, rotate, start, stop)
        n = setup.n_players
        game_id = np.arange(start, stop, dtype=np.int64)
        labels = sorted(set(setup.labels))
        code = np.array([labels.index(x) for x in setup.labels], dtype=np.int8)
        strategy = dictionary(code[logs.p_lineup], labels)
        games = table(
            [
                game_id,
                np.full(stop - start, n, np.int8),
                logs.g_rounds,
                logs.g_winner,
                logs.g_n_winners,
                logs.g_first_holder,
                logs.g_rotation,
            ],
            GAMES.arrow(),
        )
        players = table(
            [
                np.repeat(game_id, n),
                np.tile(np.arange(n, dtype=np.int8), stop - start),
                strategy,
                logs.p_events,
                *(np.ascontiguousarray(logs.p_traits[:, t]) for t in range(4)),
                logs.p_winner,
                logs.p_figure_end,
            ],
            PLAYERS.arrow(),
        )
        n_rows = logs.r_winner.shape[0]
        rounds = table(
            [
                logs.t_game[::n],
                logs.t_round[::n],
                logs.t_event[::n],
                logs.t_holder[::n],
                logs.r_winner,
                logs.r_top,
                logs.r_n_top,
            ],
            ROUNDS.arrow(),
        )
        assert rounds.num_rows == n_rows
        turns = table(
            [
                logs.t_game,
                logs.t_round,
                logs.t_seat,
                logs.t_event,
                logs.t_card,
                logs.t_strength,
                logs.t_holder,
                logs.t_won,
            ],
            TURNS.arrow(),
        )
        return {"games": games, "players": players, "rounds": rounds, "turns": turns}

    def warmup(self, setup: Setup) -> None:
        if not jit_disabled():
            self.run_kernel(setup, 0, False, 0, 2, trace=True)

    def benchmark_kernel(self, setup: Setup, n_games: int, log: bool) -> float:
        """Kernel seconds for ``n_games`` in chunks of :attr:`default_chunk`, as a run's
        workers play them (buffers reused between chunks; Arrow and Parquet not included)."""
        import time

        self.warmup(setup)
        total = 0.0
        with self.reused_buffers():
            for start in range(0, n_games, self.default_chunk):
                stop = min(n_games, start + self.default_chunk)
                t0 = time.perf_counter()
                self.run_kernel(setup, 1, False, start, stop, turns=log)
                total += time.perf_counter() - t0
        return total

    def data_files(self, setup: Setup) -> dict[str, bytes]:
        deck: Deck = setup.data
        dinos = pa.table(
            {
                "card_id": pa.array(np.arange(1, deck.n_dinos + 1), I8),
                "name": deck.dino_names,
                **{t: pa.array(deck.dino_traits[:, i], I8) for i, t in enumerate(TRAITS)},
                "source": deck.dino_sources,
            }
        )
        events = pa.table(
            {
                "event_id": pa.array(np.arange(1, deck.n_events + 1), I8),
                "name": deck.event_names,
                "needs": [deck.needs_text(e) for e in range(deck.n_events)],
                "n_traits": pa.array((deck.event_needs[:, 1] != 4).astype(np.int8) + 1, I8),
                **{
                    t: pa.array([(deck.event_needs[e] == i).any() for e in range(deck.n_events)])
                    for i, t in enumerate(TRAITS)
                },
                "source": deck.event_sources,
            }
        )
        return {
            "deck.csv": deck_csv(deck).encode(),
            "dinos.parquet": _parquet_bytes(dinos),
            "events.parquet": _parquet_bytes(events),
        }

    def describe_data(self, setup: Setup) -> str:
        return setup.data.describe()

    def data_digest(self, setup: Setup) -> str:
        return setup.data.sha256

    def replay(self, setup: Setup, seed: int, rotate: bool, game_id: int) -> str:
        from simulate.games.dino_kontra_dino.replay import render

        logs = self.run_kernel(setup, seed, rotate, game_id, game_id + 1, trace=True)
        return render(setup, seed, game_id, logs)


def _parquet_bytes(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


GAME = DinoKontraDino()
