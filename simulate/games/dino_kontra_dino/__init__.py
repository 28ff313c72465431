"""Dino Kontra Dino, declared for the toolkit: rules, data, bots, tables, kernel, replay."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from rules.core.jit import records
from rules.dino_kontra_dino.deck import TRAITS, Deck, deck_csv
from rules.dino_kontra_dino.params import MAX_PLAYERS, MIN_PLAYERS, DkdParameters
from rules.dino_kontra_dino.state import make_table, new_states
from simulate.games.dino_kontra_dino.check import CHECK
from simulate.games.dino_kontra_dino.kernel import play_chunk
from simulate.games.dino_kontra_dino.replay import render
from simulate.games.dino_kontra_dino.tables import STRENGTH_FILE, TABLES
from simulate.games.dino_kontra_dino.yardstick import bench_rows
from simulate.kit.arrow import strings, to_arrow
from simulate.kit.spec import Bench, Demo, GameSpec, Setup, Strength, Symmetry
from strategies.dino_kontra_dino import REGISTRY
from strategies.dino_kontra_dino.allowed import mark_free
from strategies.dino_kontra_dino.search import SCRATCH

I8 = pa.int8()


def load_data(params: DkdParameters, n_players: int) -> Deck:
    deck = params.load_deck()
    params.check_players(n_players, deck)
    return deck


def _table(setup: Setup) -> np.ndarray:
    p: DkdParameters = setup.params
    return make_table(
        setup.data, setup.n_players, p.hand_size, p.first_holder, p.two_trait_counts_both
    )


def build_inputs(setup: Setup) -> tuple:
    tb = _table(setup)
    lineup = REGISTRY.lineup_record(list(setup.lineup))
    scratch = records(1, SCRATCH)
    mark_free(lineup, scratch)
    return tb, lineup, new_states(1), scratch


def _parquet_bytes(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def data_files(setup: Setup) -> dict[str, bytes]:
    """``deck.csv`` as played, the deck as ``dinos.parquet`` and ``events.parquet``, and
    ``strength.parquet`` (turns' ``strength`` is derived from it on read)."""
    deck: Deck = setup.data
    dinos = pa.table(
        {
            "card_id": to_arrow(np.arange(1, deck.n_dinos + 1), I8),
            "name": strings(deck.dino_names),
            **{t: to_arrow(deck.dino_traits[:, i], I8) for i, t in enumerate(TRAITS)},
            "source": strings(deck.dino_sources),
        }
    )
    events = pa.table(
        {
            "event_id": to_arrow(np.arange(1, deck.n_events + 1), I8),
            "name": strings(deck.event_names),
            "needs": strings([deck.needs_text(e) for e in range(deck.n_events)]),
            "n_traits": to_arrow((deck.event_needs[:, 1] != 4).astype(np.int8) + 1, I8),
            **{
                t: to_arrow((deck.event_needs == i).any(axis=1), pa.bool_())
                for i, t in enumerate(TRAITS)
            },
            "source": strings(deck.event_sources),
        }
    )
    return {
        "deck.csv": deck_csv(deck).encode(),
        "dinos.parquet": _parquet_bytes(dinos),
        "events.parquet": _parquet_bytes(events),
        STRENGTH_FILE: _parquet_bytes(strength_table(setup)),
    }


def strength_table(setup: Setup) -> pa.Table:
    """Every (event_id, card_id)'s strength as the kernel scores it (``TABLE.power``): the
    turns table's ``strength`` is derived from it on read."""
    deck: Deck = setup.data
    power = _table(setup)[0].power[: deck.n_dinos, : deck.n_events]
    events, cards = np.meshgrid(np.arange(deck.n_events), np.arange(deck.n_dinos), indexing="ij")
    return pa.table(
        {
            "event_id": to_arrow((events + 1).ravel(), I8),
            "card_id": to_arrow((cards + 1).ravel(), I8),
            "strength": to_arrow(power.T.ravel(), I8),
        }
    )


SPEC = GameSpec(
    module=__name__,
    name="dino-kontra-dino",
    title="Dino Kontra Dino",
    aliases=("dkd",),
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=4,
    parameters=DkdParameters,
    load_data=load_data,
    registry=REGISTRY,
    default_strategy="greedy",
    default_chunk=50_000,
    min_chunk=50_000,
    tables=TABLES,
    build_inputs=build_inputs,
    kernel=play_chunk,
    render=render,
    data_files=data_files,
    check=CHECK,
    bench=Bench(
        "greedy",
        4,
        kernel_games=1_000_000,
        interpreted_games=300,
        extra=bench_rows,
        study=("hand_size=1..5", "first_holder=-1..2"),
        study_games=50_000,
        scaling_games=48_000_000,
    ),
    demo=Demo(4, "greedy,cautious,blind,random", games=1_000_000, test_games=4000),
    report="reports.dino_kontra_dino",
    schema_version=2,
    notebook="notebooks/dino_kontra_dino.ipynb",
    symmetry=Symmetry(
        4, ("random", "greedy", "blind", "cautious", "odds", "tuned"), ("first_holder=-1",)
    ),
    strength=Strength(
        "greedy",
        (2, 3, 4, 5),
        ("random:40000", "tuned:40000", "montecarlo[rollouts=8]:8000", "montecarlo:4000"),
        # the strength curve (dinolab strength), weakest first: strong at doubling budgets
        tiers=(
            "random",
            "greedy",
            "tuned",
            "strong[playouts=8]",
            "strong",
            "strong[playouts=32]",
        ),
        robust="strong",
    ),
)
