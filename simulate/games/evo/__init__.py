"""EVO in the toolkit: log tables, chunk play, replay.

Rounds are numbered from 1 in every table, as the rulebook counts them ("no cards in rounds 1
and 2"); seats from 0 in turn order of the table (the lineup's seat numbers).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from rules.core.jit import jit_disabled
from rules.evo.cards import CARDS, WINDOW_NAMES, WINDOW_PHASE
from rules.evo.constants import GENES, MAX_PLAYERS, MIN_PLAYERS, TERRAINS
from rules.evo.maps import EvoMap, map_csv
from rules.evo.params import EvoParameters
from rules.evo.state import EV_WIDTH, make_table, new_states
from simulate.games.base import Column, Game, Setup, TableSchema
from simulate.games.evo.kernel import (
    C_BIDS,
    C_CARDS,
    C_COMBATS,
    C_ROUNDS,
    C_TRACE,
    C_TURNS,
    Logs,
    allocate,
    grow,
    play_chunk,
)
from strategies.evo import REGISTRY
from strategies.evo.heuristic import WORK

I8, I16, I64, BOOL = pa.int8(), pa.int16(), pa.int64(), pa.bool_()
NAME = pa.dictionary(pa.int8(), pa.string())
GENE_COLUMNS = ("tails", "legs", "horns", "eggs", "furs", "parasols", "mutations")
TIE_NAMES = ("tails", "dinos", "die")

GAMES = TableSchema("games", "one row per game", (
    Column("game_id", I64, "game index in the run; (seed, game_id) replays it"),
    Column("n_players", I8, "players at the table"),
    Column("rounds", I8, "rounds played (the last one has no auction)"),
    Column("winner_seat", I8, "the winner's seat, -1 when the victory is shared"),
    Column("n_winners", I8, "players sharing the victory (1 = outright)"),
    Column("impact", BOOL, "the meteor struck on a die roll (else it reached the last space)"),
    Column("meteor_space", I8, "meteor space at the end"),
    Column("rotation", I8, "seats the lineup was rotated by (0 without --rotate)"),
))  # fmt: skip
PLAYERS = TableSchema("players", "one row per game and seat", (
    Column("game_id", I64, "game index"),
    Column("seat", I8, "seat, from 0"),
    Column("strategy", NAME, "the bot in this seat (its label)"),
    Column("points", I16, "evolution points at the end"),
    Column("bonus", I8, "Váratlan gén points added for the final count"),
    Column("score", I16, "points + bonus: what decides the winner"),
    Column("dinos", I8, "dinos on the board at the end (the tie-break)"),
    Column("winner", BOOL, "won or shared the victory"),
    *(Column(g, I8, f"{g} on the portrait at the end") for g in GENE_COLUMNS),
    Column("cards_bought", I8, "card genes bought"),
    Column("cards_played", I8, "event cards played (Osztódás takes count)"),
    Column("cards_held", I8, "event cards in hand at the end"),
    Column("start_region", I16, "region number of the start star"),
))  # fmt: skip
TURNS = TableSchema("turns", "one row per game, round and seat", (
    Column("game_id", I64, "game index"),
    Column("round", I8, "round, from 1"),
    Column("seat", I8, "seat"),
    Column("initiative", I8, "position in player order from phase 1 (0 = first player)"),
    Column("initiative_by", NAME,
           "what placed the seat: tails (unique tail count), dinos (tails tied) or die"),
    Column("order", I8, "position at the end of the round (after Én jövök előbb!)"),
    Column("dinos", I8, "dinos on the board after survival"),
    Column("points", I16, "points after scoring (phase 5, after Túlélőgén)"),
    *(Column(g, I8, f"{g} this round (before this round's auction)") for g in GENE_COLUMNS),
    Column("born", I8, "newborns placed in phase 4 (and dinos swapped in by Kire ütött)"),
    Column("died_climate", I8, "dinos lost in phase 5"),
    Column("died_combat", I8, "dinos lost in combat (phases 3 and 4)"),
    Column("died_card", I8, "dinos lost to Baleset, Vízözön or Kire ütött"),
    Column("scored", I8, "points scored in phase 5"),
    Column("paid", I16, "points paid in this round's auction"),
    Column("penalty", I8, "points lost to another player's Túlélőgén"),
    Column("cards_held", I8, "event cards in hand at the end of the round"),
))  # fmt: skip
ROUNDS = TableSchema("rounds", "one row per game and round", (
    Column("game_id", I64, "game index"),
    Column("round", I8, "round, from 1"),
    Column("first_seat", I8, "first player at the end of the round"),
    Column("climate_roll", I8, "climate die (0 when a card decided the climate)"),
    Column("climate_card", I8, "climate card played (number 1-26) or -1"),
    Column("temperate", NAME, "terrain of the temperate zone after the climate phase"),
    Column("climate_field", I8, "field of the climate track under the marker (0 = start)"),
    Column("meteor_space", I8, "meteor space after phase 6"),
    Column("meteor_roll", I8, "meteor die (0 when the space shows none)"),
    Column("impact", BOOL, "the meteor struck this round"),
))  # fmt: skip
COMBATS = TableSchema("combats", "one row per attack", (
    Column("game_id", I64, "game index"),
    Column("round", I8, "round, from 1"),
    Column("phase", I8, "3 movement, 4 a newborn with Kemény kölykök"),
    Column("attacker_seat", I8, "attacking seat"),
    Column("defender_seat", I8, "defending seat"),
    Column("attacker_horns", I8, "effective horns (with Óriásgén, Kemény kölykök)"),
    Column("defender_horns", I8, "effective horns (with Nagytestvér)"),
    Column("roll", I8, "the attacker's die"),
    Column("attacker_won", BOOL, "the defender was removed"),
    Column("region", I16, "contested region number"),
))  # fmt: skip
BIDS = TableSchema("bids", "one row per gene bought", (
    Column("game_id", I64, "game index"),
    Column("round", I8, "round, from 1"),
    Column("seat", I8, "buyer"),
    Column("gene", NAME, "gene kind"),
    Column("bid", I16, "final winning bid"),
    Column("paid", I16, "points paid (bid minus mutations and Genetikai fölény, at least 0)"),
    Column("mutations", I8, "mutation genes owned before paying"),
))  # fmt: skip
CARD_LOG = TableSchema("cards", "one row per event card played", (
    Column("game_id", I64, "game index"),
    Column("round", I8, "round, from 1"),
    Column("seat", I8, "player"),
    Column("card", I8, "card number 1-26 (the seed's order)"),
    Column("card_name", NAME, "Hungarian name"),
    Column("phase", I8, "rulebook phase 1-6"),
    Column("window", NAME, "the moment in the round it was played"),
    Column("target", I16, "region number, die face, seat or (Osztódás) card taken; 0 if none"),
    Column("reaction", BOOL, "played as Osztódás right after another card"),
))  # fmt: skip


@dataclass(frozen=True)
class EvoData:
    """What a setup plays with: the validated map."""

    map: EvoMap


def _dict(codes: np.ndarray, names: tuple[str, ...]) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(
        pa.array(np.ascontiguousarray(codes), pa.int8()), pa.array(list(names), pa.string())
    )


class Evo(Game):
    name = "evo"
    aliases = ()
    title = "EVO (Keyaerts, 1st edition)"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    default_players = 4
    parameters = EvoParameters
    registry = REGISTRY
    default_strategy = "heuristic"
    default_chunk = 20_000
    tables = (GAMES, PLAYERS, TURNS, ROUNDS, COMBATS, BIDS, CARD_LOG)

    def load_data(self, params: EvoParameters, n_players: int) -> EvoData:
        params.check_players(n_players)
        return EvoData(params.load_map(n_players))

    def build_inputs(self, setup: Setup):
        p: EvoParameters = setup.params
        tb = make_table(p, setup.data.map, setup.n_players)
        work = np.zeros(1, WORK).view(np.recarray)
        return tb, self.registry.lineup_record(list(setup.lineup)), new_states(3), work

    def _worst(self, setup: Setup) -> np.ndarray:
        """Most combat, bid, card and trace rows one game can write."""
        p: EvoParameters = setup.params
        n, rounds = setup.n_players, p.max_rounds(setup.n_players)
        moves = max(p.portrait[1] + p.gene_bag[1], p.dinos_per_player)
        eggs = p.portrait[3] + p.gene_bag[3]
        combats = rounds * n * (moves + eggs)
        cards = 2 * len(p.event_cards) + 2
        trace = rounds * n * (2 * moves + 2 * eggs + 2 * p.dinos_per_player + 4) + 2 * cards
        return np.array([combats, n * rounds, cards, trace], dtype=np.int64)

    def run_kernel(
        self,
        setup: Setup,
        seed: int,
        rotate: bool,
        start: int,
        stop: int,
        trace: bool = False,
        turns: bool = True,
    ) -> tuple[Logs, np.ndarray]:
        """Play games ``start .. stop-1`` into fresh column buffers; return them and the row
        counts (turns, rounds, combats, bids, cards, trace)."""
        tb, lu, states, work = self.kernel_inputs(setup)
        n, rounds = setup.n_players, setup.params.max_rounds(setup.n_players)
        logs = allocate(stop - start, n, rounds, (12, n * rounds, 16), trace, turns)
        counts = np.zeros(6, dtype=np.int64)
        worst = self._worst(setup)
        nxt = start
        with np.errstate(over="ignore"):
            while True:
                nxt = play_chunk(
                    tb,
                    lu,
                    states,
                    work,
                    np.uint64(seed),
                    rotate,
                    start,
                    nxt,
                    stop,
                    logs,
                    counts,
                    worst,
                )
                if nxt >= stop:
                    break
                for name, slot, k in (
                    ("c", C_COMBATS, 0),
                    ("b", C_BIDS, 1),
                    ("k", C_CARDS, 2),
                    ("e", C_TRACE, 3),
                ):
                    size = getattr(logs, f"{name}_data").shape[0]
                    if counts[slot] + worst[k] > size and (size > 64 or name == "e"):
                        logs = grow(logs, counts, name)
        return logs, counts

    def play(self, setup: Setup, seed: int, rotate: bool, start: int, stop: int):
        logs, counts = self.run_kernel(setup, seed, rotate, start, stop)
        return self.arrow_tables(setup, start, stop, logs, counts)

    def arrow_tables(
        self, setup: Setup, start: int, stop: int, logs: Logs, counts: np.ndarray
    ) -> dict[str, pa.Table]:
        """The seven logged tables of a chunk from its column buffers."""
        n = setup.n_players
        game_id = np.arange(start, stop, dtype=np.int64)
        labels = sorted(set(setup.labels))
        code = np.array([labels.index(x) for x in setup.labels], dtype=np.int8)
        score = logs.p_points.astype(np.int16) + logs.p_bonus
        games = pa.table(
            [
                game_id,
                np.full(stop - start, n, np.int8),
                logs.g_rounds,
                logs.g_winner,
                logs.g_n_winners,
                logs.g_impact,
                logs.g_meteor,
                logs.g_rotation,
            ],
            schema=GAMES.arrow(),
        )
        pg = logs.p_genes
        players = pa.table(
            [
                np.repeat(game_id, n),
                np.tile(np.arange(n, dtype=np.int8), stop - start),
                _dict(code[logs.p_lineup], tuple(labels)),
                logs.p_points,
                logs.p_bonus,
                score,
                logs.p_dinos,
                logs.p_winner,
                *(np.ascontiguousarray(pg[:, i]) for i in range(8)),
                logs.p_cards_played,
                logs.p_cards_held,
                logs.p_start,
            ],
            schema=PLAYERS.arrow(),
        )
        t = int(counts[C_TURNS])
        tg = logs.t_genes[:t]
        turns = pa.table(
            [
                logs.t_game[:t],
                logs.t_round[:t],
                logs.t_seat[:t],
                logs.t_initiative[:t],
                _dict(logs.t_tie[:t], TIE_NAMES),
                logs.t_order[:t],
                logs.t_dinos[:t],
                logs.t_points[:t],
                *(np.ascontiguousarray(tg[:, i]) for i in range(7)),
                logs.t_born[:t],
                logs.t_died_climate[:t],
                logs.t_died_combat[:t],
                logs.t_died_card[:t],
                logs.t_scored[:t],
                logs.t_paid[:t],
                logs.t_penalty[:t],
                logs.t_cards[:t],
            ],
            schema=TURNS.arrow(),
        )
        r = int(counts[C_ROUNDS])
        rounds = pa.table(
            [
                logs.r_game[:r],
                logs.r_round[:r],
                logs.r_first[:r],
                logs.r_climate_roll[:r],
                logs.r_climate_card[:r],
                _dict(logs.r_temperate[:r], TERRAINS),
                logs.r_climate_pos[:r],
                logs.r_meteor[:r],
                logs.r_meteor_roll[:r],
                logs.r_impact[:r],
            ],
            schema=ROUNDS.arrow(),
        )
        c = int(counts[C_COMBATS])
        cd = logs.c_data[:c].astype(np.int64)
        combats = pa.table(
            [
                logs.c_game[:c],
                logs.c_round[:c],
                cd[:, 7].astype(np.int8),
                *(cd[:, i].astype(np.int8) for i in range(5)),
                cd[:, 5].astype(bool),
                (cd[:, 6] + 1).astype(np.int16),
            ],
            schema=COMBATS.arrow(),
        )
        b = int(counts[C_BIDS])
        bd = logs.b_data[:b].astype(np.int64)
        bids = pa.table(
            [
                logs.b_game[:b],
                logs.b_round[:b],
                bd[:, 0].astype(np.int8),
                _dict(bd[:, 1].astype(np.int8), GENES),
                bd[:, 2].astype(np.int16),
                bd[:, 3].astype(np.int16),
                bd[:, 4].astype(np.int8),
            ],
            schema=BIDS.arrow(),
        )
        k = int(counts[C_CARDS])
        kd = logs.k_data[:k].astype(np.int64)
        card = kd[:, 1]
        window = kd[:, 2]
        target = kd[:, 3] + np.isin(card, (2, 13)).astype(np.int64)  # regions from 1
        cards = pa.table(
            [
                logs.k_game[:k],
                logs.k_round[:k],
                kd[:, 0].astype(np.int8),
                card.astype(np.int8),
                _dict((card - 1).astype(np.int8), tuple(c.hungarian for c in CARDS)),
                np.array(WINDOW_PHASE, np.int8)[window],
                _dict(window.astype(np.int8), WINDOW_NAMES),
                target.astype(np.int16),
                kd[:, 4].astype(bool),
            ],
            schema=CARD_LOG.arrow(),
        )
        return {
            "games": games,
            "players": players,
            "turns": turns,
            "rounds": rounds,
            "combats": combats,
            "bids": bids,
            "cards": cards,
        }

    def warmup(self, setup: Setup) -> None:
        if not jit_disabled():
            self.run_kernel(setup, 0, False, 0, 2, trace=True)

    def benchmark_kernel(self, setup: Setup, n_games: int, log: bool) -> float:
        """Kernel seconds for ``n_games``, played in chunks of :attr:`default_chunk` as a run
        plays them (buffer allocation included, Arrow conversion not)."""
        import time

        self.warmup(setup)
        total = 0.0
        for start in range(0, n_games, self.default_chunk):
            stop = min(n_games, start + self.default_chunk)
            t0 = time.perf_counter()
            self.run_kernel(setup, 1, False, start, stop, turns=log)
            total += time.perf_counter() - t0
        return total

    def data_files(self, setup: Setup) -> dict[str, bytes]:
        cards = pa.table(
            {
                "card": pa.array([c.number for c in CARDS], I8),
                "hungarian": [c.hungarian for c in CARDS],
                "german": [c.german for c in CARDS],
                "english": [c.english for c in CARDS],
                "timing": [c.timing for c in CARDS],
                "effect": [c.effect for c in CARDS],
                "in_deck": [c.number in setup.params.event_cards for c in CARDS],
            }
        )
        buf = io.BytesIO()
        pq.write_table(cards, buf, compression="zstd")
        return {"map.csv": map_csv(setup.data.map).encode(), "event_cards.parquet": buf.getvalue()}

    def describe_data(self, setup: Setup) -> str:
        return setup.data.map.describe()

    def data_digest(self, setup: Setup) -> str:
        return setup.data.map.sha256

    def replay(self, setup: Setup, seed: int, rotate: bool, game_id: int) -> str:
        from simulate.games.evo.replay import render

        logs, counts = self.run_kernel(setup, seed, rotate, game_id, game_id + 1, trace=True)
        return render(setup, seed, game_id, logs, counts)


assert EV_WIDTH == 9
GAME = Evo()
