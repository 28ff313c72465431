"""Dinosaur Table Battles (Hollandspiele 2020), declared for the toolkit: rules, card data,
bots, tables, kernel, replay, checker, report."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from rules.table_battles.cards import COLUMNS, CardPool
from rules.table_battles.constants import CLASSES, N_PLAYERS
from rules.table_battles.params import TableBattlesParameters
from simulate.games.table_battles.check import CHECK
from simulate.games.table_battles.kernel import kernel_inputs, play_chunk
from simulate.games.table_battles.replay import render
from simulate.games.table_battles.tables import TABLES
from simulate.kit.arrow import strings, to_arrow
from simulate.kit.spec import Bench, Demo, GameSpec, Setup, Strength, Symmetry
from strategies.table_battles import REGISTRY

I8 = pa.int8()
PROVISIONAL_FIELDS = [c for c in COLUMNS[:15] if c not in ("known", "source")]


def load_data(params: TableBattlesParameters, n_players: int) -> CardPool:
    cards = params.load_cards()
    params.check_players(n_players, cards)
    return cards


def build_inputs(setup: Setup) -> tuple:
    return kernel_inputs(setup.params, setup.data, setup.lineup, setup.searches)


def dinos_table(cards: CardPool, expansion: bool) -> pa.Table:
    """One row per dino version of the card file: name, set, whether it is the version in
    play, class, size, break point, printed draft rating and what of it is known."""
    in_play = set(cards.pool(expansion))
    known = [set.intersection(*(set(c.known) for c in d.cards)) for d in cards.dinos]
    return pa.table(
        {
            "version": to_arrow(np.arange(len(cards.dinos)), I8),
            "name": strings([d.name for d in cards.dinos]),
            "name_code": to_arrow([cards.name_code(i) for i in range(len(cards.dinos))], I8),
            "set": strings([d.set for d in cards.dinos]),
            "in_play": to_arrow([i in in_play for i in range(len(cards.dinos))], pa.bool_()),
            "class": strings([CLASSES[d.cls] for d in cards.dinos]),
            "size": strings(["large" if d.large else "small" for d in cards.dinos]),
            "action_cards": to_arrow([d.n_cards for d in cards.dinos], I8),
            "break_point": to_arrow([d.break_point for d in cards.dinos], I8),
            "draft_rating": to_arrow([d.draft_rating for d in cards.dinos], I8),
            "rating_known": to_arrow(["draft_rating" in k for k in known], pa.bool_()),
            "provisional": to_arrow([bool(set(PROVISIONAL_FIELDS) - k) for k in known], pa.bool_()),
        }
    )


def data_files(setup: Setup) -> dict[str, bytes]:
    """``cards.csv`` as played (the loader's canonical text) and ``dinos.parquet``."""
    cards: CardPool = setup.data
    buf = io.BytesIO()
    pq.write_table(dinos_table(cards, setup.params.expansion), buf, compression="zstd")
    return {"cards.csv": cards.to_csv().encode(), "dinos.parquet": buf.getvalue()}


SPEC = GameSpec(
    module=__name__,
    name="table-battles",
    title="Dinosaur Table Battles",
    aliases=("dtb",),
    min_players=N_PLAYERS,
    max_players=N_PLAYERS,
    default_players=N_PLAYERS,
    parameters=TableBattlesParameters,
    load_data=load_data,
    registry=REGISTRY,
    default_strategy="heuristic",
    default_chunk=50_000,
    min_chunk=10_000,
    tables=TABLES,
    schema_version=2,
    build_inputs=build_inputs,
    kernel=play_chunk,
    render=render,
    data_files=data_files,
    check=CHECK,
    bench=Bench(
        "heuristic",
        2,
        kernel_games=200_000,
        interpreted_games=40,
        study=("dice=4..7", "markers_per_dino=2..4"),
        study_games=50_000,
        scaling_games=2_400_000,
    ),
    demo=Demo(2, "heuristic", games=300_000, rotate=False, test_games=600, robust_games=4000),
    report="reports.table_battles",
    notebook="notebooks/table_battles.ipynb",
    symmetry=Symmetry(2, ("random", "heuristic", "tuned")),
    strength=Strength(
        "heuristic",
        (2,),
        ("random:4000", "tuned:40000", "search[rollouts=2]:2000", "search:1000"),
        # the strength curve (dinolab strength), weakest first: strong at doubling budgets
        # (its default, 3 playouts, already gives each candidate one playout a round: fewer
        # play the same games, so the curve doubles upward)
        tiers=(
            "random",
            "heuristic",
            "tuned",
            "strong",
            "strong[playouts=6]",
            "strong[playouts=12]",
        ),
        ladder_players=2,
        test_games=40_000,
        # as strong as search at about 32 times its speed (docs/benchmarks.md, bench --strong)
        robust="strong",
        robust_games=4000,
    ),
)
